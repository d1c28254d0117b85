package io.zmqzstd.nativelib.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one guard of the codec's contexts, the transport's sockets and the pipeline's senders and
 * receivers, without any native library: a thread "inside" is one parked between enter and exit.
 */
class CallGuardTest {

    private final CallGuard guard = new CallGuard("widget", "id=7", "a widget listener");

    @Test
    @Timeout(30)
    void shouldRefuseASecondThreadWhileOneIsInsideAndNameBoth() throws Exception {
        try (Inside inside = Inside.enter(guard, "caller-a")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, guard::enter);
            assertEquals("widget used by two threads at once: id=7, thread=" + Thread.currentThread().getName()
                    + ", while in a call on thread=caller-a; use a widget from one thread at a time (hand it over"
                    + " with a happens-before edge)", e.getMessage());
            assertTrue(guard.inCall(), "the call inside goes on: the refused entry changed nothing");
        }
        guard.enter(); // free again once the other call has returned
        guard.exit(this);
        assertFalse(guard.inCall());
    }

    /**
     * Two unnamed virtual threads (an executor's have no name) are named by their ids: until
     * 2026-11-29 the refusal read "thread=, while in a call on thread=" (found by reliability's
     * VirtualThreadsJourneyTest).
     */
    @Test
    @Timeout(30)
    void shouldNameUnnamedVirtualThreadsByTheirIds() throws Exception {
        AtomicReference<String> message = new AtomicReference<>();
        Thread inside;
        Thread second;
        try (Inside holder = new Inside(guard, Thread.ofVirtual())) {
            inside = holder.thread;
            second = Thread.ofVirtual().start(() -> message.set(assertThrows(IllegalStateException.class, guard::enter).getMessage()));
            second.join();
        }
        assertEquals("", inside.getName(), "an unnamed virtual thread");
        assertEquals("widget used by two threads at once: id=7, thread=#" + second.threadId() + " (virtual), while in a"
                + " call on thread=#" + inside.threadId() + " (virtual); use a widget from one thread at a time (hand it"
                + " over with a happens-before edge)", message.get());
        assertEquals("caller-a", CallGuard.nameOf(Thread.ofPlatform().name("caller-a").unstarted(() -> { })));
        Thread unnamedPlatform = new Thread(() -> { });
        unnamedPlatform.setName("");
        assertEquals("#" + unnamedPlatform.threadId(), CallGuard.nameOf(unnamedPlatform));
    }

    @Test
    @Timeout(30)
    void shouldTryToEnterWithoutThrowingAndLeaveTheGuardAsItWasWhereEnterWouldRefuse() throws Exception {
        try (Inside inside = Inside.enter(guard, "caller-a")) {
            assertFalse(guard.tryEnter(), "another thread is inside");
            assertTrue(guard.inCall(), "the call inside goes on");
        }
        assertTrue(guard.tryEnter());
        assertFalse(guard.tryEnter(), "this thread is inside already");
        assertTrue(guard.inCall(), "the outer call still holds the guard");
        guard.exit(this);
        assertFalse(guard.inCall());
        assertTrue(guard.close());
        assertFalse(guard.tryEnter(), "closed");
        assertFalse(guard.inCall(), "a refused try leaves no call behind");
    }

    @Test
    @Timeout(30)
    void shouldEnterToCloseOnlyWhenNoOtherCallIsInsideAndOnlyOnce() throws Exception {
        try (Inside inside = Inside.enter(guard, "caller-a")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, guard::enterToClose);
            assertTrue(e.getMessage().startsWith("widget used by two threads at once: id=7, thread="), e.getMessage());
            assertTrue(e.getMessage().contains("while in a call on thread=caller-a"), e.getMessage());
            assertFalse(guard.isClosed(), "a refused close changes nothing");
            assertTrue(guard.inCall(), "the call inside goes on");
        }
        assertTrue(guard.enterToClose());
        assertTrue(guard.isClosed(), "marked closed while this thread holds the guard");
        assertTrue(guard.inCall(), "the closing thread is inside until it exits");
        guard.exit(this);
        assertFalse(guard.enterToClose(), "closed once only");
        assertFalse(guard.inCall(), "a second close leaves no call behind");
        assertEquals("widget is closed: id=7", assertThrows(IllegalStateException.class, guard::enter).getMessage());
    }

    @Test
    void shouldRefuseACallFromInsideACallOnTheSameThread() {
        guard.enter();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, guard::enter);
            assertEquals("widget used again from inside a call on it (a widget listener, say): id=7, thread="
                    + Thread.currentThread().getName() + "; call it once that call has returned", e.getMessage());
            assertTrue(guard.inCall(), "the outer call still holds the guard");
        } finally {
            guard.exit(this);
        }
        assertFalse(guard.inCall());
    }

    @Test
    void shouldRefuseEveryCallOnceClosedAndLeaveNoCallBehind() {
        assertTrue(guard.close());
        assertFalse(guard.close(), "closed once only");
        IllegalStateException e = assertThrows(IllegalStateException.class, guard::enter);
        assertEquals("widget is closed: id=7", e.getMessage());
        assertEquals("widget is closed: id=7", assertThrows(IllegalStateException.class, guard::checkOpen).getMessage());
        assertFalse(guard.inCall(), "a refused entry let go of the guard it had taken");
        guard.awaitNoCall(); // returns at once
        assertEquals("compressor is closed", closedMessage(new CallGuard("compressor", null, "a stream's source or sink")));
    }

    @Test
    void shouldRefuseACloseFromInsideACallAndStayOpen() {
        guard.enter();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, guard::close);
            assertEquals("widget closed from inside a call on it (a widget listener, say): id=7, thread="
                    + Thread.currentThread().getName() + "; close it once that call has returned", e.getMessage());
            assertFalse(guard.isClosed(), "a refused close changes nothing");
            assertThrows(IllegalStateException.class, guard::awaitNoCall, "waiting for itself would never end");
        } finally {
            guard.exit(this);
        }
        guard.enter(); // still open
        guard.exit(this);
        assertTrue(guard.close());
    }

    @Test
    @Timeout(30)
    void shouldWaitInCloseForACallOnAnotherThreadAndRefuseNewCallsMeanwhile() throws Exception {
        Inside inside = Inside.enter(guard, "caller-a");
        AtomicReference<Boolean> closed = new AtomicReference<>();
        Thread closer = Thread.ofPlatform().name("closer").start(() -> closed.set(guard.close()));
        awaitTrue(() -> guard.isClosed() && closer.getState() == Thread.State.TIMED_WAITING,
                "the closer marked the guard closed and parks waiting for the call");
        assertNull(closed.get(), "close returned while a call was inside");
        assertEquals("widget is closed: id=7", assertThrows(IllegalStateException.class, guard::enter).getMessage(),
                "no call begins once close has started");
        inside.close();
        closer.join();
        assertEquals(Boolean.TRUE, closed.get());
        assertFalse(guard.inCall());
    }

    /**
     * The phases a libzmq context closes its sockets in: mark (even under a call), see the call,
     * wake it (here: let it go), then wait.
     */
    @Test
    @Timeout(30)
    void shouldMarkClosedUnderACallAndThenWaitForIt() throws Exception {
        Inside inside = Inside.enter(guard, "caller-a");
        assertTrue(guard.markClosed(), "marked from another thread while the call is inside");
        assertFalse(guard.markClosed());
        assertTrue(guard.inCall());
        assertFalse(guard.close(), "already closed: nothing more to free");
        inside.close();
        guard.awaitNoCall();
        assertFalse(guard.inCall());
        assertThrows(IllegalStateException.class, guard::enter);
    }

    @Test
    @Timeout(30)
    void shouldKeepTheCloserInterruptedAndParkedWhileItWaits() throws Exception {
        Inside inside = Inside.enter(guard, "caller-a");
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        CountDownLatch returned = new CountDownLatch(1);
        Thread closer = Thread.ofPlatform().name("closer").start(() -> {
            Thread.currentThread().interrupt();
            guard.close();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            returned.countDown();
        });
        awaitTrue(() -> closer.getState() == Thread.State.TIMED_WAITING, "the interrupted closer parks");
        closer.interrupt(); // and again while it waits
        // With the flag left set, each park returns at once and the closer spins on a core.
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getThreadCpuTime(closer.threadId());
        Thread.sleep(500); // a measuring window, not a synchronisation
        long cpuMs = (mx.getThreadCpuTime(closer.threadId()) - cpu0) / 1_000_000;
        assertEquals(1, returned.getCount(), "the interrupt did not end the wait");
        assertTrue(cpuMs < 100, "the interrupted closer used " + cpuMs + " ms of CPU in 500 ms");
        inside.close();
        closer.join();
        assertTrue(interruptedAfter.get(), "the interrupt is kept for the closer");
    }

    /**
     * The Dekker handshake between entry and close: a call either sees the flag and fails, or the
     * close sees the call and waits for it. A call that got in must never find the close returned.
     */
    @Test
    @Timeout(120)
    void shouldNeverLetACallRunAfterCloseReturned() throws Exception {
        int rounds = 20_000;
        CallGuard[] guards = new CallGuard[rounds];
        for (int r = 0; r < rounds; r++) {
            guards[r] = new CallGuard("widget", null, "a callback");
        }
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicInteger closedRounds = new AtomicInteger(); // rounds whose close has returned
        AtomicReference<String> failure = new AtomicReference<>();
        Thread caller = Thread.ofPlatform().name("caller").start(() -> {
            try {
                for (int r = 0; r < rounds; r++) {
                    start.await();
                    for (;;) {
                        try {
                            guards[r].enter();
                        } catch (IllegalStateException e) {
                            break; // closed
                        }
                        boolean late = closedRounds.get() > r;
                        guards[r].exit(this);
                        if (late) {
                            failure.compareAndSet(null, "a call got in after close had returned, round " + r);
                        }
                    }
                }
            } catch (Exception e) {
                failure.compareAndSet(null, e.toString());
            }
        });
        for (int r = 0; r < rounds; r++) {
            start.await();
            for (int spin = r % 64; spin > 0; spin--) {
                Thread.onSpinWait(); // vary where in the caller's loop the close lands
            }
            assertTrue(guards[r].close());
            closedRounds.set(r + 1);
        }
        caller.join();
        assertNull(failure.get());
    }

    @Test
    void shouldAllocateNothingPerCall() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 200_000; i++) { // warm up: compiled code is what the hot path runs
            guard.enter();
            guard.exit(this);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            guard.enter();
            guard.exit(this);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, "enter/exit allocated " + allocated + " B over 1,000,000 calls");
    }

    private static String closedMessage(CallGuard g) {
        g.close();
        return assertThrows(IllegalStateException.class, g::enter).getMessage();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** A thread inside a call on a guard until closed. */
    private static final class Inside implements AutoCloseable {
        private final CountDownLatch leave = new CountDownLatch(1);
        private final Thread thread;

        private Inside(CallGuard guard, String name) throws InterruptedException {
            this(guard, Thread.ofPlatform().name(name));
        }

        /** A thread of {@code builder} (an unnamed virtual one, say) inside a call on {@code guard}. */
        Inside(CallGuard guard, Thread.Builder builder) throws InterruptedException {
            CountDownLatch entered = new CountDownLatch(1);
            thread = builder.start(() -> {
                guard.enter();
                try {
                    entered.countDown();
                    leave.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    guard.exit(this);
                }
            });
            entered.await();
        }

        static Inside enter(CallGuard guard, String name) throws InterruptedException {
            return new Inside(guard, name);
        }

        @Override
        public void close() throws InterruptedException {
            leave.countDown();
            thread.join();
        }
    }
}

package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.internal.LibZmq;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Edge cases of closing under calls in progress (see {@link CloseUnderBlockedCallTest}), each found
 * failing before its fix: a receiving thread that locks the socket object, a poll with every event
 * muted, an interrupted closer; and a control: linger still delivers when close has to shut the
 * context down first.
 */
class CloseWaitEdgeCaseTest {

    private static final Path PROC_THREAD_SELF = Path.of("/proc/thread-self");
    /** The muted poll's own timeout: the test's close must end the poll long before it. */
    private static final int POLL_TIMEOUT_MS = 20_000;

    private static void rawShutdown(ZmqContext ctx) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) LibZmq.zmq_ctx_shutdown.invokeExact(a.allocate(LibZmq.CAPTURE_LAYOUT), ctx.ctx());
        }
    }

    /**
     * A second close while the first waits on another thread for a blocked receive: until
     * 2026-11-29 it returned at once, the socket not yet closed; now it waits for that call too,
     * and both return once the socket is closed.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aSecondCloseWaitsLikeTheFirstForACallInProgress() throws Throwable {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://second-close");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread receiver = BlockedCalls.start("invokeFast", seen, () -> pull.receive(new byte[16], 0));
        CompletableFuture<Void> first = BlockedCalls.async(pull::close);
        Endpoints.await("the first close marking the socket closed", pull::isClosed);
        CompletableFuture<Void> second = BlockedCalls.async(pull::close);
        Thread.sleep(300);
        assertFalse(second.isDone(), "the second close returned while the receive was still inside libzmq");
        assertFalse(first.isDone() || pull.nativeClosed(), "the first close did not wait");
        rawShutdown(ctx); // the receive returns with ETERM
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertTrue(pull.nativeClosed());
        receiver.join(10_000);
        assertTrue(seen.get() instanceof ZmqException e && e.isContextTerminated(), String.valueOf(seen.get()));
        ctx.close();
    }

    /** A receiving thread that keeps to one thread at a time by locking the socket object: close took that monitor and hung. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAReceiverThatLocksTheSocket() throws Throwable {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://locked");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread receiver = BlockedCalls.start("invokeFast", seen, () -> {
            synchronized (pull) { // "one thread at a time", enforced with the socket's own monitor
                pull.receive(new byte[16], 0);
            }
        });
        CompletableFuture<Void> closing = BlockedCalls.async(ctx::close);
        try {
            closing.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            rawShutdown(ctx); // rescue the stuck threads: ctx.shutdown() is a no-op once close started
            closing.get(10, TimeUnit.SECONDS);
            throw new AssertionError("ZmqContext.close() deadlocked on the socket's monitor (markClosed)");
        }
        receiver.join(10_000);
        assertTrue(assertInstanceOf(ZmqException.class, seen.get()).isContextTerminated());
    }

    /** libzmq's zmq_poll watches a socket's mailbox only for items with events: a muted item's poll was not woken by close. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAPollWithEventsMuted() throws Exception {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://muted");
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Path> task = new AtomicReference<>();
        Thread poller = BlockedCalls.start("pollEntered", thrown, () -> {
            if (Files.exists(PROC_THREAD_SELF)) {
                task.set(PROC_THREAD_SELF.toRealPath()); // /proc/PID/task/TID of this thread
            }
            try (ZmqPoller p = new ZmqPoller(1)) {
                int i = p.register(pull, ZmqPoller.POLLIN);
                p.events(i, 0); // muted for now (flow control)
                outcome.set(p.poll(POLL_TIMEOUT_MS));
            }
        });
        // zmq_poll first looks without waiting, then waits: both passes are inside the same native
        // frame, so the Java stack cannot tell them apart; Linux can: only the waiting pass sleeps
        // in poll(2), and wchan names where a sleeping thread sleeps. Without /proc (macOS) nothing
        // tells them apart, nor on a kernel whose wchan names no function ("0"): give the first
        // pass time to end.
        if (task.get() == null || !sleepsInPollWithin(task.get(), 5_000)) {
            Thread.sleep(100);
        }
        long t0 = System.nanoTime();
        BlockedCalls.async(ctx::close).get(30, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        poller.join(10_000);
        // Far below the poll's own timeout, which a close that did not wake it waits out, and far
        // above what a woken poll takes even on a loaded machine (a bound of 2 s was closer to that).
        assertTrue(ms < POLL_TIMEOUT_MS / 2, "close waited " + ms + " ms for the poll's own timeout; poll returned " + outcome.get() + ", threw " + thrown.get());
    }

    /** Awaits {@link #sleepsInPoll} up to {@code ms}; false when it was not seen by then. */
    private static boolean sleepsInPollWithin(Path task, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (System.nanoTime() < deadline) {
            if (sleepsInPoll(task)) {
                return true;
            }
            Thread.sleep(1); // a poll interval of the await, not a synchronisation
        }
        return false;
    }

    /** Whether the thread at /proc/PID/task/TID sleeps in poll(2) or select(2) (wchan is "0" while it runs). */
    private static boolean sleepsInPoll(Path task) {
        try {
            String wchan = Files.readString(task.resolve("wchan"));
            return wchan.contains("poll") || wchan.contains("select");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Control: pending messages still go out within linger when close shuts the context down first. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void lingerDeliversPendingMessagesEvenWhenBusy(boolean busy) throws Exception {
        try (ZmqContext peerCtx = new ZmqContext()) {
            ZmqSocket peer = peerCtx.socket(SocketType.PULL);
            peer.receiveHwm(1);
            peer.rcvbuf(4096);
            peer.receiveTimeoutMs(5000);
            peer.bind("tcp://127.0.0.1:*");
            String ep = peer.lastEndpoint();
            ZmqContext ctx = ZmqContext.builder().defaultLinger(Duration.ofSeconds(20)).build();
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(100_000);
            push.sndbuf(4096);
            push.connect(ep);
            push.send(new byte[1], 0);
            assertEquals(1, peer.receive(new byte[1], 0));
            byte[] big = new byte[65536];
            int n = 300;
            for (int i = 0; i < n; i++) {
                assertTrue(push.send(big, ZmqSocket.DONTWAIT));
            }
            if (busy) {
                // a receive blocked on another socket: close has to shut the context down first
                ZmqSocket idle = ctx.socket(SocketType.PULL);
                idle.bind("inproc://idle");
                BlockedCalls.start("invokeFast", new AtomicReference<>(), () -> idle.receive(new byte[1], 0));
            }
            CompletableFuture<Void> closing = BlockedCalls.async(ctx::close);
            byte[] buf = new byte[65536];
            int got = 0;
            while (got < n && peer.receive(buf, 0) >= 0) {
                got++;
            }
            closing.get(30, TimeUnit.SECONDS);
            assertEquals(n, got);
        }
    }

    /** A closer whose thread is interrupted waits without spinning (parkNanos returns at once while the flag is set). */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void interruptedCloserDoesNotSpin() throws Exception {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://spin");
        Thread receiver = BlockedCalls.start("invokeFast", new AtomicReference<>(), () -> pull.receive(new byte[16], 0));
        AtomicLong tid = new AtomicLong();
        Thread closer = Thread.ofPlatform().start(() -> {
            tid.set(Thread.currentThread().threadId());
            Thread.currentThread().interrupt(); // e.g. a shutdown path run from an interrupted worker
            pull.close();
        });
        Endpoints.await("closer waiting for the receive", () -> java.util.Arrays.stream(closer.getStackTrace())
                .anyMatch(f -> f.getMethodName().equals("awaitNoCall")));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getThreadCpuTime(tid.get());
        Thread.sleep(1000); // a CPU-time measurement window: there is no condition to await
        long cpuMs = (mx.getThreadCpuTime(tid.get()) - cpu0) / 1_000_000;
        ctx.close();
        closer.join(10_000);
        receiver.join(10_000);
        assertTrue(cpuMs < 200, "the waiting closer used " + cpuMs + " ms of CPU in 1000 ms");
    }
}

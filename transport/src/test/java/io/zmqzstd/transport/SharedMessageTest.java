package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * One ZmqMessage in two threads' calls at once (misuse: a message is used by one thread at a time).
 * Until 2026-11-29 nothing refused it, and libzmq closed and filled one {@code zmq_msg_t} from both
 * threads: a probe receiving into one message on two sockets, or sending it on one while receiving
 * into it on another, saw frames of the other socket in a receive's message, bytes read from freed
 * memory, and then glibc aborted the JVM ("double free or corruption", "corrupted double-linked
 * list"), over inproc and over tcp alike, within 200,000 rounds. Now the second thread's call is
 * refused naming both threads, and the call inside goes on.
 */
class SharedMessageTest extends ContextTestBase {

    private static final String REFUSED = "message used by two threads at once: thread=";

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseEveryChangeOfAMessageWhileAnotherThreadReceivesIntoItAndLoseNothing() throws Exception {
        ZmqSocket[] a = pushPull(ctx, "inproc");
        ZmqSocket[] b = pushPull(ctx, "inproc");
        ZmqSocket pushA = a[0];
        ZmqSocket pullA = a[1];
        ZmqSocket pushB = b[0];
        ZmqSocket pullB = b[1];
        assertTrue(pushB.send(new byte[] {9}, 0)); // what a receive on B that got through would take
        try (ZmqMessage shared = new ZmqMessage(); ZmqMessage other = new ZmqMessage()) {
            other.set(MemorySegment.ofArray(new byte[] {5, 6}));
            AtomicBoolean received = new AtomicBoolean();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread receiving = BlockedCalls.start("invokeFast", thrown, () -> received.set(pullA.receive(shared, 0)));

            assertRefused(() -> pullB.receive(shared, ZmqSocket.DONTWAIT), receiving);
            assertRefused(() -> pushB.send(shared, ZmqSocket.DONTWAIT), receiving);
            assertRefused(() -> shared.set(MemorySegment.ofArray(new byte[] {7})), receiving);
            assertRefused(shared::clear, receiving);
            assertRefused(() -> shared.copyFrom(other), receiving);
            assertRefused(() -> shared.moveFrom(other), receiving);
            assertRefused(() -> other.copyFrom(shared), receiving);
            assertRefused(() -> other.moveFrom(shared), receiving);

            assertTrue(pushA.send(new byte[] {1, 2, 3}, 0));
            receiving.join(10_000);
            assertNull(thrown.get());
            assertTrue(received.get());
            assertArrayEquals(new byte[] {1, 2, 3}, shared.toByteArray(), "the blocked receive's own frame");
            assertArrayEquals(new byte[] {5, 6}, other.toByteArray(), "the other message, unchanged");
            assertArrayEquals(new byte[] {9}, pullB.receiveBytes(0), "socket B's frame, still queued");

            // Taken in turns, the message works on every socket again
            assertTrue(pushB.send(shared, 0));
            assertArrayEquals(new byte[] {1, 2, 3}, pullB.receiveBytes(0));
        }
    }

    /**
     * The races themselves, in loops: two receives into one message on two sockets, and a send of
     * it on one socket with a receive into it on another, over inproc and tcp, from pooled
     * zero-copy frames. In a child JVM, as the old code killed the JVM.
     */
    @Test
    void shouldSurviveTwoThreadsRacingOnOneMessageWithNothingLostOrLeaked() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), SharedMessageTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        for (String transport : List.of("inproc", "tcp")) {
            for (String scenario : List.of("two receives", "send and receive")) {
                assertTrue(out.contains(transport + ", " + scenario + ": every frame received, none leaked"), out);
            }
        }
    }

    /** A PUSH connected to a PULL over {@code transport}, both {@link #timed}: {push, pull}. */
    private static ZmqSocket[] pushPull(ZmqContext ctx, String transport) {
        ZmqSocket pull = timed(ctx.socket(SocketType.PULL));
        ZmqSocket push = timed(ctx.socket(SocketType.PUSH));
        push.connect(Endpoints.bindAny(pull, transport));
        return new ZmqSocket[] {push, pull};
    }

    private static void assertRefused(Executable call, Thread inside) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().startsWith(REFUSED + Thread.currentThread().getName() + ", while in a call on thread="
                + inside.getName() + ";"), e.getMessage());
    }

    /** Frames per socket in the child's rounds. */
    private static final int FRAMES = 20_000;
    private static final int[] SIZES = {16, 100, 1000, 20_000};

    /** The child: each scenario on each transport, the message shared by two threads. */
    public static void main(String[] args) throws Exception {
        for (String transport : List.of("inproc", "tcp")) {
            race(transport, true);
            race(transport, false);
        }
    }

    /**
     * Thread "first" receives FRAMES frames from socket A into the shared message; thread "second"
     * receives FRAMES frames from socket B into it too ({@code twoReceives}), or sends it on socket
     * B's pusher and drains B. A refused call is retried; every refusal must name both threads.
     */
    private static void race(String transport, boolean twoReceives) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicLong refusals = new AtomicLong();
        try (NativeBufferPool pool = new NativeBufferPool()) {
            try (ZmqContext ctx = new ZmqContext()) {
                ZmqSocket[] a = pushPull(ctx, transport);
                ZmqSocket[] b = pushPull(ctx, transport);
                ZmqSocket pushA = a[0];
                ZmqSocket pullA = a[1];
                ZmqSocket pushB = b[0];
                ZmqSocket pullB = b[1];
                AtomicBoolean firstDone = new AtomicBoolean();
                try (ZmqMessage shared = new ZmqMessage()) {
                    Thread feedA = feeder(pushA, pool, failed);
                    Thread feedB = twoReceives ? feeder(pushB, pool, failed) : null;
                    Thread first = guarded("first", failed, () -> {
                        receiveAll(pullA, shared, "second", refusals);
                        firstDone.set(true);
                    });
                    Thread second = guarded("second", failed, () -> {
                        if (twoReceives) {
                            receiveAll(pullB, shared, "first", refusals);
                            return;
                        }
                        while (!firstDone.get()) {
                            try {
                                pushB.send(shared, ZmqSocket.DONTWAIT);
                            } catch (IllegalStateException e) {
                                checkRefusal(e, "first", refusals);
                            }
                            while (pullB.receiveBytes(ZmqSocket.DONTWAIT) != null) {
                                // what the sends took from the shared message
                            }
                        }
                    });
                    for (Thread t : new Thread[] {first, second, feedA, feedB}) {
                        if (t != null) {
                            t.join();
                        }
                    }
                }
                if (failed.get() != null) {
                    throw new AssertionError(transport + ": a thread failed", failed.get());
                }
                if (twoReceives) {
                    assertNull(pullB.receiveBytes(ZmqSocket.DONTWAIT), "B had no frame more than its feeder sent");
                }
                assertNull(pullA.receiveBytes(ZmqSocket.DONTWAIT), "A had no frame more than its feeder sent");
            }
            assertEquals(0, pool.outstanding(), transport + ": pooled frames never given back");
        }
        System.out.println(transport + ", " + (twoReceives ? "two receives" : "send and receive")
                + ": every frame received, none leaked (refusals=" + refusals + ")");
    }

    /** Receives FRAMES frames into {@code m}, retrying refused receives; a lost frame times out. */
    private static void receiveAll(ZmqSocket pull, ZmqMessage m, String otherThread, AtomicLong refusals) {
        for (int got = 0; got < FRAMES; ) {
            try {
                assertTrue(pull.receive(m, 0), "a frame the feeder sent, within the receive timeout");
                got++;
            } catch (IllegalStateException e) {
                checkRefusal(e, otherThread, refusals);
            }
        }
    }

    private static void checkRefusal(IllegalStateException e, String otherThread, AtomicLong refusals) {
        if (!e.getMessage().startsWith(REFUSED + Thread.currentThread().getName() + ", while in a call on thread="
                + otherThread + ";")) {
            throw e;
        }
        refusals.incrementAndGet();
    }

    /** Sends FRAMES pooled frames of the SIZES in turn (the larger ones zero-copy). */
    private static Thread feeder(ZmqSocket push, NativeBufferPool pool, AtomicReference<Throwable> failed) {
        return guarded("feeder", failed, () -> {
            for (int i = 0; i < FRAMES; i++) {
                int n = SIZES[i % SIZES.length];
                PooledBuffer b = pool.rent(n);
                b.segment().asSlice(0, n).fill((byte) i);
                if (!push.sendPooled(b, n, 0)) {
                    b.release();
                    throw new AssertionError("send timed out");
                }
            }
        });
    }

    /** A platform thread named {@code name} running {@code body}; what it throws goes to {@code failed} (the first only). */
    static Thread guarded(String name, AtomicReference<Throwable> failed, Runnable body) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failed.compareAndSet(null, e);
            }
        });
    }
}

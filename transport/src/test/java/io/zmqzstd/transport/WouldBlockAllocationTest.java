package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.internal.LibZmq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A DONTWAIT call that would block, the end of every drain in a poll-then-drain loop, and a call
 * whose timeout runs out allocate nothing from their first rounds on. Until 2026-11-29 it made the capturing repeat, whose errno
 * slice the JDK allocates until C2 has compiled the capturing stub: 40 B a call for the first
 * ~70,000 would-blocks of a JVM (then 0), so a service draining after each poll paid 40 B per
 * wake-up for a long time. The rounds after the first (which may load classes and interpret) must
 * stay under 1 B a call but for a one-off; the old code failed every one of them with 40 B.
 */
class WouldBlockAllocationTest {

    /** ENOTSUP on Linux, where the suite runs (a receive on a PUB). */
    private static final int ENOTSUP_LINUX = 95;
    private static final int ROUNDS = 10;
    private static final int CALLS = 2_000;
    private static final int ONE_OFFS = 2;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** Bytes per call in each round of {@code CALLS} calls of {@code call}, which must answer false (would block) every time. */
    private static double[] perCall(BooleanSupplier call) {
        return perCall(call, CALLS);
    }

    /** Bytes per call in each round of {@code calls} calls of {@code call}, which must answer false every time. */
    private static double[] perCall(BooleanSupplier call, int calls) {
        double[] rounds = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long before = allocatedBytes();
            for (int i = 0; i < calls; i++) {
                if (call.getAsBoolean()) {
                    throw new AssertionError("the call did not block: nothing was there to take");
                }
            }
            rounds[r] = (allocatedBytes() - before) / (double) calls;
        }
        return rounds;
    }

    /**
     * After the first round, at most {@link #ONE_OFFS} rounds may reach 1 B a call: a JIT
     * compilation or deoptimisation can land in any one round (one measured 6 B a call once), a
     * per-call allocation shows in all. The meter costs nothing with the bean kept in a field (it
     * cost about 800 B a round when looked up each time).
     */
    private static void assertNothingAllocatedAfterTheFirstRound(String what, double[] rounds) {
        long over = Arrays.stream(rounds, 1, ROUNDS).filter(b -> b >= 1.0).count();
        assertTrue(over <= ONE_OFFS, what + ": " + over + " of " + (ROUNDS - 1)
                + " rounds allocated 1 B or more per would-block call: " + Arrays.toString(rounds));
    }

    @Test
    void receivesThatFindNothingAllocateNothing() {
        try (ZmqContext ctx = ZmqContext.builder().build();
             ZmqSocket pull = ctx.socket(SocketType.PULL);
             ZmqMessage msg = new ZmqMessage();
             Arena arena = Arena.ofConfined()) {
            pull.bind("inproc://would-block-receive");
            byte[] array = new byte[64];
            MemorySegment native64 = arena.allocate(64);
            assertNothingAllocatedAfterTheFirstRound("receive(ZmqMessage, DONTWAIT)",
                    perCall(() -> pull.receive(msg, ZmqSocket.DONTWAIT)));
            assertNothingAllocatedAfterTheFirstRound("receive(byte[], DONTWAIT)",
                    perCall(() -> pull.receive(array, ZmqSocket.DONTWAIT) >= 0));
            assertNothingAllocatedAfterTheFirstRound("receive(MemorySegment, DONTWAIT)",
                    perCall(() -> pull.receive(native64, ZmqSocket.DONTWAIT) >= 0));
        }
    }

    /**
     * A receive whose timeout runs out (ZMQ_RCVTIMEO of 1 ms) allocates nothing either: a loop that
     * receives with a timeout to look at a stop flag between messages paid 40 B per timeout too.
     */
    @Test
    void receivesWhoseTimeoutRunsOutAllocateNothing() {
        try (ZmqContext ctx = ZmqContext.builder().build();
             ZmqSocket pull = ctx.socket(SocketType.PULL);
             ZmqMessage msg = new ZmqMessage()) {
            pull.bind("inproc://timed-receive");
            pull.receiveTimeoutMs(1);
            assertNothingAllocatedAfterTheFirstRound("receive(ZmqMessage, 0) with a 1 ms timeout",
                    perCall(() -> pull.receive(msg, 0), 200));
        }
    }

    @Test
    void sendsThatFindNoRoomAllocateNothing() {
        try (ZmqContext ctx = ZmqContext.builder().build();
             ZmqSocket push = ctx.socket(SocketType.PUSH);
             Arena arena = Arena.ofConfined()) {
            push.bind("tcp://127.0.0.1:*"); // no peer: no pipe, so every send would block
            byte[] array = new byte[64];
            MemorySegment native64 = arena.allocate(64);
            assertNothingAllocatedAfterTheFirstRound("send(byte[], DONTWAIT)",
                    perCall(() -> push.send(array, ZmqSocket.DONTWAIT)));
            assertNothingAllocatedAfterTheFirstRound("send(MemorySegment, DONTWAIT)",
                    perCall(() -> push.send(native64, 0, 64, ZmqSocket.DONTWAIT)));
            try (ZmqMessage msg = new ZmqMessage()) {
                msg.set(native64);
                assertNothingAllocatedAfterTheFirstRound("send(ZmqMessage, DONTWAIT)",
                        perCall(() -> push.send(msg, ZmqSocket.DONTWAIT)));
                assertEquals(64, msg.size(), "a send that would block leaves the message as it was");
            }
        }
    }

    /**
     * {@code events()} (ZMQ_EVENTS), which the pipeline's sender asks after a refused send before
     * compressing again, allocates nothing either: until 2026-11-29 it read through the capturing
     * handle, 40 B a call until C2 compiled that stub.
     */
    @Test
    void eventsAllocatesNothing() {
        try (ZmqContext ctx = ZmqContext.builder().build();
             ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            push.bind("tcp://127.0.0.1:*");
            assertNothingAllocatedAfterTheFirstRound("events()", perCall(() -> (push.events() & ZmqPoller.POLLOUT) != 0));
        }
    }

    /**
     * The errno read that replaced the repeat is trusted for EAGAIN only: a DONTWAIT call that fails
     * for another reason still says that reason, every time.
     */
    @Test
    void otherFailuresOfDontwaitCallsAreStillReported() {
        try (ZmqContext ctx = ZmqContext.builder().build();
             ZmqSocket pub = ctx.socket(SocketType.PUB);
             ZmqSocket router = ctx.socket(SocketType.ROUTER);
             ZmqMessage msg = new ZmqMessage()) {
            for (int i = 0; i < 3; i++) {
                ZmqException e = assertThrows(ZmqException.class, () -> pub.receive(msg, ZmqSocket.DONTWAIT));
                assertEquals(ENOTSUP_LINUX, e.errno(), e::getMessage);
            }
            router.routerMandatory(true);
            for (int i = 0; i < 3; i++) {
                ZmqException e = assertThrows(ZmqException.class,
                        () -> router.send(new byte[] {'n', 'o', 'b', 'o', 'd', 'y'}, ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE));
                assertEquals(LibZmq.EHOSTUNREACH, e.errno(), e::getMessage);
            }
            assertFalse(router.isClosed());
        }
    }
}

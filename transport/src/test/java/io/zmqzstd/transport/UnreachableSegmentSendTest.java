package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A native segment's send passes its raw address to zmq_send, past FFM, which keeps a segment it
 * passes alive for the call. The segment itself must stay reachable until zmq_send has copied it:
 * one of an automatic arena ({@code Arena.ofAuto()}) or over a direct buffer, that the caller
 * holds no other reference to, is otherwise freed by its cleaner under libzmq's copy once the
 * compiled {@code send} no longer holds it. Until 2026-11-28 it did not: the child below, sending
 * 32 MiB segments of automatic arenas with the collector running, died with SIGSEGV in libzmq's
 * memcpy. It runs in a child JVM because that is how it fails.
 */
class UnreachableSegmentSendTest {

    private static final long BIG_BYTES = 32L << 20;
    private static final int WARM_UP_SENDS = 30_000;
    private static final long RUN_NS = Duration.ofSeconds(3).toNanos();

    @Test
    void shouldKeepAnUnreferencedSegmentAliveUntilZmqSendHasCopiedIt() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), UnreachableSegmentSendTest.class,
                List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        assertTrue(out.contains("sends="), "no result line in: " + out);
    }

    /** Sends a segment nothing else references: only the call's parameter holds it. */
    private static boolean sendFresh(ZmqSocket pub, long bytes) {
        MemorySegment data = Arena.ofAuto().allocate(bytes);
        data.fill((byte) 7);
        return pub.send(data, 0, bytes, 0);
    }

    /** The child: a PUB without subscribers (each send is libzmq's copy and nothing else) under a collecting thread. */
    public static void main(String[] args) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            for (int i = 0; i < WARM_UP_SENDS; i++) { // compiled, send inlined: the parameter is dead after its address is read
                assertTrue(sendFresh(pub, 64));
            }
            AtomicBoolean done = new AtomicBoolean();
            Thread collector = Thread.ofPlatform().daemon().start(() -> {
                while (!done.get()) {
                    System.gc();
                }
            });
            long start = System.nanoTime();
            int sends = 0;
            while (System.nanoTime() - start < RUN_NS) {
                assertTrue(sendFresh(pub, BIG_BYTES));
                sends++;
            }
            done.set(true);
            collector.join();
            pub.close();
            System.out.println("sends=" + sends);
        }
    }
}

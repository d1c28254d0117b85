package io.zmqzstd.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-message paths allocate nothing on the Java heap: pooled zero-copy and copying sends,
 * segment sends, non-blocking sends and receives, poller, reused-message receive with size,
 * address and copyTo, and the free callback (which runs on the receiving thread over inproc).
 */
class ZeroAllocationTest {

    private static final int WARMUP = Integer.getInteger("warmup", 30_000);
    private static final int MEASURED = 100_000;
    /** Measured rounds: one-off JVM work (a deoptimisation, a late class load) can land in any one round; a per-message allocation shows in all. */
    private static final int ROUNDS = 3;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @ParameterizedTest(name = "{0} bytes over {1}")
    @CsvSource({"1024, tcp", "1024, inproc", "65536, inproc"})
    void shouldAllocateNothingPerMessageOnSenderAndReceiver(int size, String transport) throws Exception {
        // Rent-site recording allocates by design; the steady state is measured without it.
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED).build();
        long[] senderRounds = new long[ROUNDS];
        long[] receiverRounds = new long[ROUNDS];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
             Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveHwm(100); // bounded queue: in-flight buffers stay within the pool (a miss would allocate)
            push.sendHwm(100);
            push.connect(Endpoints.bindAny(pull, transport));
            int total = WARMUP + ROUNDS * MEASURED;
            CountDownLatch started = new CountDownLatch(1);
            Thread sender = Thread.ofPlatform().start(() -> {
                try (Arena own = Arena.ofConfined()) {
                    MemorySegment scratch = own.allocate(size);
                    started.countDown();
                    long before = 0;
                    for (int i = 0; i < total; i++) {
                        if (i >= WARMUP && (i - WARMUP) % MEASURED == 0) {
                            long now = allocatedBytes();
                            if (i > WARMUP) {
                                senderRounds[(i - WARMUP) / MEASURED - 1] = now - before;
                            }
                            before = now;
                        }
                        switch (i % 3) {
                            case 0 -> { // pooled, blocking
                                PooledBuffer b = pool.rent(size);
                                b.segment().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                                if (!push.sendPooled(b, size, 0)) {
                                    throw new AssertionError("blocking send returned would-block");
                                }
                            }
                            case 1 -> { // pooled, non-blocking with retry
                                PooledBuffer b = pool.rent(size);
                                b.segment().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                                while (!push.sendPooled(b, size, ZmqSocket.DONTWAIT)) {
                                    Thread.onSpinWait();
                                }
                            }
                            default -> { // caller's segment, libzmq copies
                                scratch.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                                while (!push.send(scratch, 0, size, ZmqSocket.DONTWAIT)) {
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    }
                    senderRounds[ROUNDS - 1] = allocatedBytes() - before;
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            started.await();
            MemorySegment dst = arena.allocate(size);
            try (ZmqMessage msg = new ZmqMessage(); ZmqPoller poller = new ZmqPoller(1)) {
                int idx = poller.register(pull, ZmqPoller.POLLIN);
                long before = 0;
                int received = 0;
                long checksum = 0;
                while (received < total) {
                    if (received >= WARMUP && (received - WARMUP) % MEASURED == 0) {
                        long now = allocatedBytes();
                        if (received > WARMUP) {
                            receiverRounds[(received - WARMUP) / MEASURED - 1] = now - before;
                        }
                        before = now;
                    }
                    if ((received & 1) == 0) { // blocking receive
                        if (!pull.receive(msg, 0)) {
                            throw new AssertionError("blocking receive returned would-block");
                        }
                    } else { // poller, then non-blocking
                        while (!pull.receive(msg, ZmqSocket.DONTWAIT)) {
                            if (poller.poll(1000) > 0) {
                                assertTrue(poller.isReadable(idx));
                            }
                        }
                    }
                    assertEquals(size, msg.size());
                    msg.copyTo(dst, 0);
                    checksum += io.zmqzstd.transport.internal.LibZmq.EVERYTHING.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, msg.address());
                    received++;
                }
                receiverRounds[ROUNDS - 1] = allocatedBytes() - before;
                assertEquals((long) total * (total - 1) / 2, checksum, "every message arrived once, in order");
            }
            sender.join();
            assertNull(failure.get());
            Buffers.awaitAllBack(pool);
        }
        long sender = java.util.Arrays.stream(senderRounds).min().orElseThrow();
        long receiver = java.util.Arrays.stream(receiverRounds).min().orElseThrow();
        System.out.println("allocated per round of " + MEASURED + " messages: sender=" + java.util.Arrays.toString(senderRounds)
                + ", receiver=" + java.util.Arrays.toString(receiverRounds));
        assertTrue(sender < MEASURED, "sender allocated >= 1 byte per message in every round: " + java.util.Arrays.toString(senderRounds));
        assertTrue(receiver < MEASURED, "receiver allocated >= 1 byte per message in every round: " + java.util.Arrays.toString(receiverRounds));
        Buffers.assertAllBack(pool);
        pool.close();
    }
}

package io.zmqzstd.transport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.zmqzstd.transport.internal.LibZmq.EVERYTHING;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-message paths allocate nothing on the Java heap. Sender, in turn: pooled send blocking
 * and with DONTWAIT, native-segment send with DONTWAIT, byte[] send, a reused message filled by
 * {@link ZmqMessage#set} and sent with DONTWAIT. Receiver, in turn:
 * reused-message receive blocking, and after a poll with DONTWAIT (reading size, address, copyTo),
 * receive into a byte[] blocking, and into a segment after a poll with DONTWAIT. The free callback
 * runs on the receiving thread over inproc (measured there); over tcp on libzmq's I/O thread.
 */
class ZeroAllocationTest {

    private static final int WARMUP = Integer.getInteger("warmup", 30_000);
    private static final int MEASURED = 100_000;
    /**
     * Measured rounds, at least: one-off JVM work (a deoptimisation, a late class load) can land in
     * any one round; a per-message allocation shows in all.
     */
    private static final int MIN_ROUNDS = 3;
    /**
     * Measured rounds, at most. The run goes on past {@link #MIN_ROUNDS} until both threads have
     * had a round under 1 B per message: on a loaded machine C2 may compile the paths late, and
     * until it does, a would-block receive allocates the JDK's errno-capture slice (see the
     * module README), about 1–2 B per message here under four busy-looping processes.
     */
    private static final int MAX_ROUNDS = 20;
    /** Reads an int from a byte[] without a wrapper object, in the order the sender wrote it. */
    private static final VarHandle INT_IN_ARRAY = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * Records the allocation of each measured round of MEASURED messages into {@code rounds}, called
     * with the count of messages done so far before each one and once after the last.
     */
    private static final class RoundMeter {
        private final long[] rounds = new long[MAX_ROUNDS];
        private int measured;
        private long before;
        /** A round under 1 B per message was recorded; read by the other thread. */
        private volatile boolean clean;

        /** @return whether {@code done} ends a measured round (and so starts the next) */
        boolean at(int done) {
            if (done < WARMUP || (done - WARMUP) % MEASURED != 0) {
                return false;
            }
            long now = allocatedBytes();
            if (done > WARMUP) {
                long round = now - before;
                rounds[measured++] = round;
                clean |= round < MEASURED;
            }
            before = now;
            return done > WARMUP;
        }

        boolean enough() {
            return measured >= MIN_ROUNDS && clean;
        }

        long least() {
            return Arrays.stream(rounds, 0, measured).min().orElseThrow();
        }

        long[] recorded() {
            return Arrays.copyOf(rounds, measured);
        }
    }

    /**
     * @param zeroCopyThreshold "default", or the pool's threshold in bytes (0: every pooled send
     *     is zero-copy, e.g. 1 KiB over tcp, where libzmq's I/O thread runs the free callback)
     */
    @ParameterizedTest(name = "{0} bytes over {1}, zeroCopyThreshold={2}")
    @CsvSource({"1024, tcp, default", "1024, tcp, 0", "1024, inproc, default", "65536, inproc, default"})
    @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hung peer fails, not hangs
    void shouldAllocateNothingPerMessageOnSenderAndReceiver(int size, String transport, String zeroCopyThreshold) throws Exception {
        // Rent-site recording allocates by design; the steady state is measured without it.
        NativeBufferPool.Builder poolSettings = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED);
        if (!zeroCopyThreshold.equals("default")) {
            poolSettings.zeroCopyThresholdBytes(Long.parseLong(zeroCopyThreshold));
        }
        NativeBufferPool pool = poolSettings.build();
        RoundMeter senderMeter = new RoundMeter();
        RoundMeter receiverMeter = new RoundMeter();
        AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
             Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveHwm(100); // bounded queue: in-flight buffers stay within the pool (a miss would allocate)
            push.sendHwm(100);
            push.connect(Endpoints.bindAny(pull, transport));
            // Once both threads have had a clean round the receiver raises stop, and the sender moves
            // the end to the first round boundary past the message it is about to send: the receiver
            // cannot have passed that message, so it never waits for one that will not come
            int longest = WARMUP + MAX_ROUNDS * MEASURED;
            AtomicInteger end = new AtomicInteger(longest);
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            Thread sender = Thread.ofPlatform().daemon(true).start(() -> {
                try (Arena own = Arena.ofConfined(); ZmqMessage out = new ZmqMessage()) {
                    MemorySegment scratch = own.allocate(size);
                    byte[] heapScratch = new byte[size];
                    started.countDown();
                    for (int i = 0; i < end.get(); i++) {
                        senderMeter.at(i);
                        if (stop.get() && end.get() == longest) {
                            end.set(WARMUP + ((i - WARMUP) / MEASURED + 1) * MEASURED);
                        }
                        switch (i % 5) {
                            case 0 -> { // pooled, blocking
                                PooledBuffer b = pool.rent(size);
                                b.segment().set(JAVA_INT_UNALIGNED, 0, i);
                                if (!push.sendPooled(b, size, 0)) {
                                    throw new AssertionError("blocking send returned would-block");
                                }
                            }
                            case 1 -> { // pooled, non-blocking with retry
                                PooledBuffer b = pool.rent(size);
                                b.segment().set(JAVA_INT_UNALIGNED, 0, i);
                                while (!push.sendPooled(b, size, ZmqSocket.DONTWAIT)) {
                                    Thread.onSpinWait();
                                }
                            }
                            case 2 -> { // caller's native segment, libzmq copies
                                scratch.set(JAVA_INT_UNALIGNED, 0, i);
                                while (!push.send(scratch, 0, size, ZmqSocket.DONTWAIT)) {
                                    Thread.onSpinWait();
                                }
                            }
                            case 3 -> { // caller's array, blocking
                                INT_IN_ARRAY.set(heapScratch, 0, i);
                                if (!push.send(heapScratch, 0)) {
                                    throw new AssertionError("blocking send returned would-block");
                                }
                            }
                            default -> { // caller's native segment copied into a reused message, non-blocking
                                scratch.set(JAVA_INT_UNALIGNED, 0, i);
                                out.set(scratch);
                                while (!push.send(out, ZmqSocket.DONTWAIT)) {
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    }
                    senderMeter.at(end.get());
                } catch (Throwable t) {
                    senderFailure.set(t);
                    ctx.shutdown(); // a dead sender must not leave the receiver blocked: its receive ends with ETERM
                }
            });
            started.await();
            Throwable receiverFailure = null;
            try {
                receiveAll(pull, arena.allocate(size), size, end, receiverMeter,
                        () -> receiverMeter.enough() && senderMeter.enough() && !stop.getAndSet(true));
            } catch (Throwable t) {
                receiverFailure = t;
                ctx.shutdown(); // nor a failed receiver the sender
            }
            sender.join();
            if (senderFailure.get() != null) {
                AssertionError e = new AssertionError("sender failed", senderFailure.get());
                if (receiverFailure != null) {
                    e.addSuppressed(receiverFailure);
                }
                throw e;
            }
            if (receiverFailure != null) {
                throw new AssertionError("receiver failed", receiverFailure);
            }
            Buffers.awaitAllBack(pool);
        }
        String rounds = "sender=" + Arrays.toString(senderMeter.recorded()) + ", receiver=" + Arrays.toString(receiverMeter.recorded());
        System.out.println("allocated per round of " + MEASURED + " messages: " + rounds);
        assertTrue(senderMeter.least() < MEASURED, "sender allocated >= 1 byte per message in every round: " + rounds);
        assertTrue(receiverMeter.least() < MEASURED, "receiver allocated >= 1 byte per message in every round: " + rounds);
        Buffers.assertAllBack(pool);
        pool.close();
    }

    /**
     * Receives messages until {@code end}, rotating through the receive paths, and checks they came
     * once, in order; at each round boundary asks {@code stopAfterThisRound} (which tells the sender
     * to end its run at its next boundary) while the sender has not ended it.
     */
    private static void receiveAll(ZmqSocket pull, MemorySegment dst, int size, AtomicInteger end, RoundMeter meter,
                                   java.util.function.BooleanSupplier stopAfterThisRound) {
        byte[] heapDst = new byte[size];
        try (ZmqMessage msg = new ZmqMessage(); ZmqPoller poller = new ZmqPoller(1)) {
            int idx = poller.register(pull, ZmqPoller.POLLIN);
            long checksum = 0;
            int received = 0;
            for (; received < end.get(); received++) {
                if (meter.at(received)) {
                    stopAfterThisRound.getAsBoolean();
                }
                switch (received % 4) {
                    case 0 -> { // reused message, blocking
                        if (!pull.receive(msg, 0)) {
                            throw new AssertionError("blocking receive returned would-block");
                        }
                        checksum += checkMessage(msg, dst, size);
                    }
                    case 1 -> { // poller, then reused message without blocking
                        while (!pull.receive(msg, ZmqSocket.DONTWAIT)) {
                            awaitReadable(poller, idx);
                        }
                        checksum += checkMessage(msg, dst, size);
                    }
                    case 2 -> { // copy into an array, blocking
                        assertEquals(size, pull.receive(heapDst, 0));
                        checksum += (int) INT_IN_ARRAY.get(heapDst, 0);
                    }
                    default -> { // poller, then copy into a segment without blocking
                        long n;
                        while ((n = pull.receive(dst, ZmqSocket.DONTWAIT)) < 0) {
                            awaitReadable(poller, idx);
                        }
                        assertEquals(size, n);
                        checksum += dst.get(JAVA_INT_UNALIGNED, 0);
                    }
                }
            }
            meter.at(received);
            assertEquals((long) received * (received - 1) / 2, checksum, "every message arrived once, in order");
        }
    }

    private static int checkMessage(ZmqMessage msg, MemorySegment dst, int size) {
        assertEquals(size, msg.size());
        msg.copyTo(dst, 0);
        return EVERYTHING.get(ValueLayout.JAVA_INT_UNALIGNED, msg.address());
    }

    private static void awaitReadable(ZmqPoller poller, int idx) {
        if (poller.poll(1000) > 0) {
            assertTrue(poller.isReadable(idx));
        }
    }
}

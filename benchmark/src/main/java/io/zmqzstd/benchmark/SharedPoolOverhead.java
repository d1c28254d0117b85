package io.zmqzstd.benchmark;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Several threads sending pooled messages through one context's pool at once, under two zero-copy
 * thresholds that take turns in one JVM: the case the single-sender {@link TransportOverhead} cannot
 * show. Below its threshold a pooled send copies the buffer and the sending thread returns it to its
 * own cache; at or above it libzmq returns the buffer from another thread to the class's shared free
 * stack, which the senders then contend for. Each way is a context with its own pool, one PULL socket
 * received on the calling thread and SENDERS PUSH sockets, each driven by a thread of its own that
 * rents, stamps (sender and sequence) and sends MESSAGES messages per round. The receiver checks every
 * message's length and each sender's order. A sender that fails shuts its way's context down, which wakes
 * the receive (it has no timeout) with ETERM, and the run ends with the sender's error as the cause.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar
 * io.zmqzstd.benchmark.SharedPoolOverhead tcp|inproc SIZE ROUNDS MESSAGES SENDERS BASE_THRESHOLD
 * OTHER_THRESHOLD}. Prints, in {@code TransportOverhead}'s format (read by {@code
 * scripts/interleaved.py}), each way as {@code sendersN@THRESHOLD} and the other's speed relative to the
 * base in every round.
 */
public final class SharedPoolOverhead {

    private static final int WARMUP_ROUNDS = 10;
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private SharedPoolOverhead() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7 || !(args[0].equals("tcp") || args[0].equals("inproc"))) {
            System.err.println("usage: SharedPoolOverhead tcp|inproc SIZE ROUNDS MESSAGES SENDERS BASE_THRESHOLD OTHER_THRESHOLD");
            System.exit(2);
        }
        String transport = args[0];
        int size = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int messages = Integer.parseInt(args[3]);
        int senders = Integer.parseInt(args[4]);
        long[] thresholds = {Long.parseLong(args[5]), Long.parseLong(args[6])};
        if (size < Long.BYTES) {
            throw new IllegalArgumentException("size must hold the stamp: size=" + size);
        }
        Way[] ways = new Way[2];
        try {
            for (int i = 0; i < 2; i++) {
                ways[i] = new Way(transport, size, messages, senders, thresholds[i]);
            }
            double[][] rates = Rounds.alternating(2, WARMUP_ROUNDS, rounds, way -> ways[way].checkedRound());
            System.out.printf("transport=%s size=%d rounds=%d messages=%d senders=%d receive=blocking%n",
                    transport, size, rounds, messages, senders);
            Rounds.printAgainstFirst(new String[] {"senders" + senders + "@" + thresholds[0],
                "senders" + senders + "@" + thresholds[1]}, rates);
        } finally {
            for (Way way : ways) {
                if (way != null) {
                    way.close();
                }
            }
        }
    }

    /** One threshold: a context and pool, the PULL socket, the sending threads. */
    static final class Way implements AutoCloseable {
        private final NativeBufferPool pool;
        private final ZmqContext context;
        private final ZmqSocket pull;
        private final ZmqMessage received = new ZmqMessage();
        private final Thread[] threads;
        private final CyclicBarrier start;
        private final int size;
        private final int messages;
        private final long[] nextSequence;
        private volatile boolean done;
        private volatile Throwable senderFailure;

        Way(String transport, int size, int messages, int senders, long threshold) {
            this.size = size;
            this.messages = messages;
            this.nextSequence = new long[senders];
            pool = NativeBufferPool.builder().zeroCopyThresholdBytes(threshold).build();
            context = ZmqContext.builder().bufferPool(pool).build();
            pull = context.socket(SocketType.PULL);
            pull.bind(Endpoints.bindable(transport));
            start = new CyclicBarrier(senders + 1);
            threads = new Thread[senders];
            for (int s = 0; s < senders; s++) {
                ZmqSocket push = context.socket(SocketType.PUSH);
                push.connect(pull.lastEndpoint());
                int id = s;
                threads[s] = Thread.ofPlatform().daemon().name("shared-pool-sender-" + threshold + "-" + s)
                        .start(() -> send(push, id));
            }
        }

        private void send(ZmqSocket push, int id) {
            try {
                for (long sequence = 0; ; ) {
                    start.await();
                    if (done) {
                        return;
                    }
                    for (int i = 0; i < messages; i++, sequence++) {
                        PooledBuffer buffer = pool.rent(size);
                        try {
                            buffer.segment().set(JAVA_LONG_UNALIGNED, 0, ((long) id << 48) | sequence);
                            if (!push.sendPooled(buffer, size, 0)) {
                                throw new IllegalStateException("blocking send returned false");
                            }
                        } catch (RuntimeException e) {
                            buffer.release();
                            throw e;
                        }
                    }
                }
            } catch (Throwable t) {
                if (!done) {
                    failed(t);
                }
            }
        }

        /**
         * A sender failed: the receiver, blocked in a receive that has no timeout (none on the measured
         * path), would wait forever for its messages. Shutting the context down wakes that receive with
         * ETERM, and {@link #checkedRound()} reports this first failure. The other senders then fail with
         * ETERM too; only the first failure is kept.
         */
        private void failed(Throwable t) {
            synchronized (this) {
                if (senderFailure != null) {
                    return;
                }
                senderFailure = t;
            }
            start.reset();
            context.shutdown();
        }

        /**
         * {@link #round()}, with a sender's failure reported as the cause when it ended the round: the
         * receive it woke (ETERM) or the barrier it broke is added as suppressed.
         */
        double checkedRound() throws Exception {
            try {
                return round();
            } catch (ZmqException | BrokenBarrierException | IllegalStateException e) {
                Throwable failure = senderFailure;
                if (failure == null || failure == e.getCause()) {
                    throw e;
                }
                IllegalStateException reported = new IllegalStateException("a sender failed: " + failure, failure);
                reported.addSuppressed(e);
                throw reported;
            }
        }

        /** The way's pool (for tests: a closed pool makes every sender's rent fail). */
        NativeBufferPool pool() {
            return pool;
        }

        /** One round: every sender sends its messages; returns messages per second received. */
        double round() throws InterruptedException, BrokenBarrierException {
            start.await();
            long begin = System.nanoTime();
            int total = messages * threads.length;
            for (int i = 0; i < total; i++) {
                if (!pull.receive(received, 0)) {
                    throw new IllegalStateException("receive failed", senderFailure);
                }
                check();
            }
            long elapsed = System.nanoTime() - begin;
            if (senderFailure != null) {
                throw new IllegalStateException("a sender failed", senderFailure);
            }
            return total * 1e9 / elapsed;
        }

        private void check() {
            if (received.size() != size) {
                throw new IllegalStateException("message of " + received.size() + " bytes, expected " + size);
            }
            long stamp = EVERYTHING.get(JAVA_LONG_UNALIGNED, received.address());
            int id = (int) (stamp >>> 48);
            long sequence = stamp & ((1L << 48) - 1);
            if (id >= nextSequence.length || sequence != nextSequence[id]) {
                throw new IllegalStateException("sender " + id + " sequence " + sequence + ", expected "
                        + (id < nextSequence.length ? nextSequence[id] : -1));
            }
            nextSequence[id]++;
        }

        @Override
        public void close() {
            done = true;
            start.reset(); // senders waiting at the barrier see it broken and end
            for (Thread t : threads) {
                try {
                    t.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            received.close();
            context.close();
            pool.close();
        }
    }
}

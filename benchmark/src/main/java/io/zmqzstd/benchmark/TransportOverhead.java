package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import io.zmqzstd.transport.NativeBufferPool;
import java.util.Arrays;
import java.util.List;

/**
 * Two or more transport strategies compared where JMH's forks cannot resolve them: at 64 and 512 B one
 * JMH fork of {@code TransportBenchmark} differs from the next by 0.4x to 2.3x on this shared VM, so a
 * ratio of medians from separate forks says little. Here each strategy gets its own {@link TransportRig}
 * (own context, sockets, sender thread), all alive at once, and they take turns: every round runs
 * MESSAGES messages through each rig (blocking receive), the order alternating from round to round,
 * after 10 warm-up rounds. Printed per strategy: the median msg/s, and the median over the rounds of its
 * rate relative to the first strategy in the same round, with quartiles, the number of rounds in which
 * it was faster, and the two-sided sign-test p of that split; then every round's ratio. Rounds of one JVM
 * are not independent draws: a rig's threads and compiled code keep their state for the whole run, and
 * two JVMs can disagree beyond their sign tests, so {@code benchmark/interleaved.sh} (its {@code transport:}
 * cells) runs this in many JVMs and compares their medians.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar
 * io.zmqzstd.benchmark.TransportOverhead tcp|inproc SIZE ROUNDS MESSAGES [STRATEGY...]} (strategies as in
 * {@code TransportBenchmark}; default byteArray zeroCopyPooled; the pool's zero-copy thresholds are its
 * defaults (8 KiB, 512 B on inproc), unless a strategy names another after an {@code @}: {@code zeroCopyPooled@0} always
 * hands its buffer to libzmq, {@code zeroCopyPooled@1099511627776} always copies). A strategy's name
 * ending in {@code +all} has its receiver read and check every byte of each payload, as
 * {@code TransportBenchmark -p read=all} does ({@code byteArray+all}, {@code zeroCopyPooled@0+all}); ending in
 * {@code +copy}, it copies an in-place frame into a reused heap array and reads that ({@code read=copy}).
 * A {@code #N} before that suffix gives the rig's context N libzmq I/O threads instead of one
 * ({@code byteArray#2+all}): with one, a single I/O thread serves both ends of the tcp connection.
 */
public final class TransportOverhead {

    private static final int WARMUP_ROUNDS = 10;

    private TransportOverhead() {
    }

    /**
     * What a way names: a strategy of {@link TransportStrategy#NAMES}, then optionally {@code @B} (the
     * pool's zero-copy threshold on every socket, else {@link Thresholds#LIBRARY_DEFAULT}), {@code #N} (N
     * libzmq I/O threads) and a last {@code +all} or {@code +copy} (how much the receiver reads, else
     * {@code stamp}).
     */
    record Way(String strategy, long thresholdBytes, String read, int ioThreads) {

        /** What a way may be, for the message that refuses one. */
        static final String FORM = "a strategy of " + TransportStrategy.NAMES + ", then @BYTES, #IO_THREADS, +"
                + TransportStrategy.READ_ALL + " or +" + TransportStrategy.READ_COPY;

        /** @throws IllegalArgumentException naming the way and {@link #FORM} when it is not one of the above */
        static Way of(String way) {
            String name = way;
            String read = TransportStrategy.READ_STAMP;
            for (String r : new String[] {TransportStrategy.READ_ALL, TransportStrategy.READ_COPY}) {
                if (name.endsWith("+" + r)) {
                    read = r;
                    name = name.substring(0, name.length() - r.length() - 1);
                }
            }
            try {
                int ioThreads = 1;
                int hash = name.indexOf('#');
                if (hash >= 0) {
                    ioThreads = Integer.parseInt(name.substring(hash + 1));
                    name = name.substring(0, hash);
                }
                int at = name.indexOf('@');
                long threshold = at < 0 ? Thresholds.LIBRARY_DEFAULT : Long.parseLong(name.substring(at + 1));
                String strategy = at < 0 ? name : name.substring(0, at);
                if (TransportStrategy.NAMES.contains(strategy)) {
                    return new Way(strategy, threshold, read, ioThreads);
                }
            } catch (NumberFormatException e) {
                // a count or a threshold that is no number: refused below, as a strategy of no name is
            }
            throw new IllegalArgumentException("unknown transport way: " + way + " (" + FORM + ")");
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !(args[0].equals("tcp") || args[0].equals("inproc"))) {
            System.err.println("usage: TransportOverhead tcp|inproc SIZE ROUNDS MESSAGES [STRATEGY...]");
            System.exit(2);
        }
        String transport = args[0];
        int size = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int messages = Integer.parseInt(args[3]);
        String[] names = args.length > 4 ? Arrays.copyOfRange(args, 4, args.length)
                : new String[] {TransportStrategy.BYTE_ARRAY, TransportStrategy.ZERO_COPY_POOLED};
        List<Way> ways = OverheadWays.parseOrExit(names, Way::of);
        TransportRig[] rigs = new TransportRig[names.length];
        try {
            for (int i = 0; i < names.length; i++) {
                Way way = ways.get(i);
                rigs[i] = new TransportRig(way.strategy(), transport, size, way.thresholdBytes(), way.read(), way.ioThreads());
            }
            double[][] rates = Rounds.alternating(rigs.length, WARMUP_ROUNDS, rounds, way -> {
                long start = System.nanoTime();
                rigs[way].run(ReceiveMode.blocking, messages);
                return messages * 1e9 / (System.nanoTime() - start);
            });
            System.out.printf("transport=%s size=%d rounds=%d messages=%d receive=blocking default_threshold=%d"
                    + " default_inproc_threshold=%d%n", transport, size, rounds, messages,
                    NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, NativeBufferPool.DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES);
            Rounds.printAgainstFirst(names, rates);
        } finally {
            for (TransportRig rig : rigs) {
                if (rig != null) {
                    rig.close();
                }
            }
        }
    }
}

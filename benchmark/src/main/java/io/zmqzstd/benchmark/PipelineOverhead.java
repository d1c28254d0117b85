package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import java.util.List;

/**
 * Pipeline contestants taking turns in one JVM: the end-to-end comparison of {@link PipelineBenchmark}
 * (compress, send, receive, decompress, check, PUSH to PULL, telemetry, no dictionary), but with every
 * contestant set up once and the contestants alternating round by round, so that the shared machine's
 * drift cancels in each round's ratio (see {@link Rounds}). A turn streams as {@code PipelineBenchmark}'s
 * {@code stream} flow does: the sender may run a lead ahead, credit is granted batch by batch, and the turn
 * ends when its messages have arrived; the lead still in flight is received untimed before the next turn.
 *
 * <p>Ways: {@code jeromqZstdjni}, {@code libzmqBytes}, {@code zmqzstd} (one {@code CompressingSender} on
 * the sender thread), {@code zmqzstd@N} (a {@code ParallelCompressingSender} with N workers) and
 * {@code zmqzstd@NxM} (the same with a ring of M messages); a suffix {@code iK} sets that sender's
 * {@code inlineBelowBytes} to K ({@code zmqzstd@3i0}: every message handed to a worker), {@code gT} its
 * {@code inlineAfterIdleNanos} to T, a last {@code w} or {@code c} gives it a producer that writes every
 * payload, into memory of its own ({@code w}, then sent and so copied) or into claimed memory ({@code c},
 * committed; see {@link io.zmqzstd.benchmark.pipeline.PipelineContestants.Producer}); a suffix {@code #B} after any {@code zmqzstd} way sets the pool's and
 * the sender's zero-copy threshold to B bytes ({@code zmqzstd#8192}: the library's tcp default on every
 * socket; without it, the library's defaults), and a last {@code ~} turns the sender's
 * {@code rawIncompressible} off ({@code zmqzstd@3~}: every payload compressed). The first way is the
 * baseline. The payload is telemetry, or {@code -Dzmqzstd.bench.payload=random} (or {@code binary}) for
 * every contestant; {@code -Dzmqzstd.bench.ioThreads=2} gives every contestant's context two I/O threads
 * ({@link PipelineContestants#IO_THREADS}).
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar
 * io.zmqzstd.benchmark.PipelineOverhead tcp|inproc SIZE LEVEL ROUNDS MESSAGES WAY...}. Prints a header
 * line and, in {@code TransportOverhead}'s format (read by {@code scripts/interleaved.py}), each way's
 * median rate and its speed relative to the first in every round. One way alone gives its rate in a JVM of
 * its own, turns and all, to compare with the rate it has when it shares the JVM with the others.
 */
public final class PipelineOverhead {

    private static final int WARMUP_ROUNDS = 3;

    private PipelineOverhead() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 6 || !(args[0].equals("tcp") || args[0].equals("inproc"))) {
            System.err.println("usage: PipelineOverhead tcp|inproc SIZE LEVEL ROUNDS MESSAGES WAY [WAY...]");
            System.exit(2);
        }
        String transport = args[0];
        int size = Integer.parseInt(args[1]);
        int level = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int messages = Integer.parseInt(args[4]);
        String[] names = java.util.Arrays.copyOfRange(args, 5, args.length);
        int batch = Math.max(1, Math.min(PipelineBenchmark.BATCH, messages / 2));
        int perTurn = Math.max(batch, messages / batch * batch);
        int lead = PipelineBenchmark.lead(size, batch);
        List<Way> ways = OverheadWays.parseOrExit(names, Way::of);
        PipelineContestant[] pipes = new PipelineContestant[names.length];
        try {
            for (int i = 0; i < names.length; i++) {
                pipes[i] = create(ways.get(i), size, transport, level);
                // one batch with every byte checked, as PipelineBenchmark's set-up: the rounds check length and stamp
                pipes[i].checkEveryByte(true);
                pipes[i].transfer(batch);
                pipes[i].checkEveryByte(false);
            }
            double[][] rates = Rounds.alternating(names.length, WARMUP_ROUNDS, rounds,
                    way -> turn(pipes[way], perTurn, batch, lead));
            System.out.printf("kind=pipeline transport=%s size=%d level=%d rounds=%d messages=%d batch=%d lead=%d io_threads=%d%n",
                    transport, size, level, rounds, perTurn, batch, lead, PipelineContestants.IO_THREADS);
            Rounds.printAgainstFirst(names, rates);
            for (int i = 0; i < names.length; i++) {
                if (pipes[i] instanceof ZmqZstdContestant z) {
                    // the sender's counters over every round, warm-up included (inline sends, pool rents)
                    System.out.println("# " + names[i] + " sender: " + z.senderStats());
                }
            }
        } finally {
            for (PipelineContestant p : pipes) {
                if (p != null) {
                    p.close();
                }
            }
        }
    }

    private static PipelineContestant create(Way way, int size, String transport, int level) {
        return PipelineContestants.create(way.contestant(), size, transport, level, PipelineContestants.DICTIONARY_NONE,
                way.thresholdBytes(), 0, way.parallel(), way.rawIncompressible());
    }

    /**
     * What a way names (see the class comment): a contestant of {@link #CONTESTANTS}, its
     * compressing threads ({@link PipelineContestants.Parallel#of}), the zero-copy threshold after a
     * {@code #} (else {@link Thresholds#LIBRARY_DEFAULT}) and, with a last {@code ~}, {@code rawIncompressible}
     * off (else null: the sender's default).
     */
    record Way(String contestant, long thresholdBytes, PipelineContestants.Parallel parallel, Boolean rawIncompressible) {

        /**
         * The contestants a way may name: every one but {@code jeromqZstdjniParallel}, which needs threads a way
         * gives only to {@code zmqzstd} (it failed at set-up, after the ways before it had been set up).
         */
        static final List<String> CONTESTANTS = PipelineContestants.NAMES.stream()
                .filter(n -> !n.equals(PipelineContestants.JEROMQ_ZSTDJNI_PARALLEL)).toList();
        /** What a way may be, for the message that refuses one. */
        static final String FORM = "a contestant of " + CONTESTANTS + "; after zmqzstd @N[xM][iK][gT][w|c];"
                + " then #BYTES and a last ~";

        /** @throws IllegalArgumentException naming the way and {@link #FORM} when it is not one of the above */
        static Way of(String way) {
            boolean compressAll = way.endsWith("~");
            String named = compressAll ? way.substring(0, way.length() - 1) : way;
            int hash = named.indexOf('#');
            String w = hash < 0 ? named : named.substring(0, hash);
            try {
                long threshold = hash < 0 ? Thresholds.LIBRARY_DEFAULT : Long.parseLong(named.substring(hash + 1));
                String contestant = PipelineContestants.Parallel.contestant(w);
                if (CONTESTANTS.contains(contestant)) {
                    return new Way(contestant, threshold, PipelineContestants.Parallel.of(w),
                            compressAll ? Boolean.FALSE : null);
                }
            } catch (IllegalArgumentException e) {
                // a threshold that is no number, or workers after another contestant or in another form: refused
                // below, as a contestant of no name is
            }
            throw new IllegalArgumentException("unknown pipeline way: " + way + " (" + FORM + ")");
        }
    }

    /** Streams {@code messages} through {@code pipe}; returns messages per second. */
    private static double turn(PipelineContestant pipe, int messages, int batch, int lead) {
        long start = System.nanoTime();
        pipe.grant(batch + lead);
        for (int received = 0; received < messages; received += batch) {
            pipe.receive(batch);
            if (received + batch < messages) {
                pipe.grant(batch);
            }
        }
        long elapsed = System.nanoTime() - start;
        pipe.receive(lead); // in flight: the next turn starts from an empty pipe
        return messages * 1e9 / elapsed;
    }
}

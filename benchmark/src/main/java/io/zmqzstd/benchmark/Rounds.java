package io.zmqzstd.benchmark;

import java.util.Arrays;

/**
 * Statistics of interleaved rounds ({@link CodecOverhead}, {@link TransportOverhead},
 * {@link SharedPoolOverhead}): ways that take
 * turns in one JVM are compared round by round, so drift of the shared machine over minutes cancels in
 * each round's ratio; what is left is summarised by quantiles and a sign test.
 */
final class Rounds {

    private Rounds() {
    }

    /** One turn of one way: runs it and returns its rate (messages per second). */
    @FunctionalInterface
    interface Turn {
        double run(int way) throws Exception;
    }

    /**
     * Rates per way and round, [way][round], of {@code ways} ways taking turns for {@code rounds} rounds
     * after {@code warmupRounds} that are not kept. The order alternates from round to round, so that no
     * way always runs right after another.
     */
    static double[][] alternating(int ways, int warmupRounds, int rounds, Turn turn) throws Exception {
        double[][] rates = new double[ways][rounds];
        for (int round = -warmupRounds; round < rounds; round++) {
            for (int t = 0; t < ways; t++) {
                int way = Math.floorMod(round, 2) == 0 ? t : ways - 1 - t;
                double rate = turn.run(way);
                if (round >= 0) {
                    rates[way][round] = rate;
                }
            }
        }
        return rates;
    }

    /**
     * Prints each way's median rate and, for every way after the first, its speed relative to the first
     * ({@code x_FIRST=}{@link #describe}) and the ratio of every round: the lines
     * {@code scripts/interleaved.py} reads.
     */
    static void printAgainstFirst(String[] names, double[][] rates) {
        System.out.printf("%-20s msgs_per_s=%.0f%n", names[0], quantile(rates[0], 0.5));
        for (int way = 1; way < names.length; way++) {
            double[] ratio = new double[rates[way].length];
            for (int round = 0; round < ratio.length; round++) {
                ratio[round] = rates[way][round] / rates[0][round];
            }
            System.out.printf("%-20s msgs_per_s=%.0f x_%s=%s%n", names[way], quantile(rates[way], 0.5), names[0],
                    describe(ratio));
            printPerRound(names[way], ratio);
        }
    }

    /**
     * Prints {@code WAY per_round R1 R2 ...}, a way's ratio to the baseline in every round, which
     * {@code scripts/interleaved.py} takes each JVM's median from (so a summary can be recomputed from
     * the committed output, whatever statistic the tool printed).
     */
    static void printPerRound(String name, double[] ratio) {
        StringBuilder each = new StringBuilder(name).append(" per_round");
        for (double r : ratio) {
            each.append(String.format(" %.3f", r));
        }
        System.out.println(each);
    }

    /**
     * The {@code q} quantile of {@code values}, which are not modified: linear between the two nearest
     * order statistics (position {@code q * (n - 1)}), so the median of an even count is the mean of the
     * middle two, as {@code statistics.median} in {@code scripts/interleaved.py} takes it. (Until
     * 2026-11-28 it took the nearest rank, which for the default 20 rounds is the upper middle one: every
     * printed median and ratio leant to the faster side by half the gap between the two.)
     */
    static double quantile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double position = q * (sorted.length - 1);
        int below = (int) Math.floor(position);
        int above = (int) Math.ceil(position);
        return sorted[below] + (position - below) * (sorted[above] - sorted[below]);
    }

    /**
     * The per-round {@code ratios} of one way to the baseline, as the overhead tools print them:
     * {@code MEDIAN (quartiles Q1-Q3) faster_in=K/N sign_p=P}.
     */
    static String describe(double[] ratios) {
        int faster = above(ratios);
        return String.format("%.3f (quartiles %.3f-%.3f) faster_in=%d/%d sign_p=%.3g", quantile(ratios, 0.5),
                quantile(ratios, 0.25), quantile(ratios, 0.75), faster, ratios.length,
                signTestP(faster, ratios.length));
    }

    /** How many of {@code ratios} are above 1. */
    static int above(double[] ratios) {
        int n = 0;
        for (double r : ratios) {
            if (r > 1) {
                n++;
            }
        }
        return n;
    }

    /**
     * Two-sided sign test: the probability of a split at least as uneven as {@code k} of {@code n} if
     * each round were a fair coin (no difference between the two ways). Exact binomial sum.
     */
    static double signTestP(int k, int n) {
        int extreme = Math.min(k, n - k);
        double tail = 0;
        for (int i = 0; i <= extreme; i++) {
            tail += Math.exp(logChoose(n, i) - n * Math.log(2));
        }
        return Math.min(1, 2 * tail);
    }

    private static double logChoose(int n, int k) {
        double r = 0;
        for (int i = 1; i <= k; i++) {
            r += Math.log(n - k + i) - Math.log(i);
        }
        return r;
    }
}

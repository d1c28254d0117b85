package io.zmqzstd.benchmark;

import java.util.Arrays;

/**
 * Statistics of interleaved rounds ({@link CodecOverhead}, {@link TransportOverhead}): ways that take
 * turns in one JVM are compared round by round, so drift of the shared machine over minutes cancels in
 * each round's ratio; what is left is summarised by quantiles and a sign test.
 */
final class Rounds {

    private Rounds() {
    }

    /** The {@code q} quantile of {@code values} (nearest rank), which are not modified. */
    static double quantile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.round(q * (sorted.length - 1))];
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

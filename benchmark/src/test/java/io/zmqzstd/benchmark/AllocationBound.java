package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * One short forked JMH run under {@code -prof gc} that must move messages and stay under a bound of bytes
 * allocated per message: two warm-up iterations and one measured, of 500 ms each. JMH's own allocation, about
 * 6.9 KB an iteration, is a fraction of a byte per message over the thousands of messages such an iteration
 * moves, so a bound of a few bytes tells any object made per message from that floor.
 *
 * <p>On a slow or busy machine an iteration can move too few messages for that: a 64 KiB case at 810
 * messages a second (seen with a load average of 10) spreads the floor over 405 messages, 17 B each, over
 * the bound with nothing allocated per message. So a run over the bound that moved fewer than
 * {@link #MIN_MEASURED_MESSAGES} is made once more, its measured iteration long enough for that many at the
 * rate the first run saw (at most {@link #MAX_MEASUREMENT_MS}); that run decides. An object made per
 * message, 16 B or more, stays over the bound however long the iteration.
 */
final class AllocationBound {

    /** The bound {@link PayloadFormTest} and {@link PublishAllocationTest} hold the pipeline to. */
    static final double MAX_BYTES_PER_MESSAGE = 16;

    /** Messages a measured iteration must move for JMH's floor to be under a byte a message (6.9 KB / 10,000). */
    static final long MIN_MEASURED_MESSAGES = 10_000;

    /** The longest measured iteration of a second run. */
    static final long MAX_MEASUREMENT_MS = 15_000;

    private static final long MEASUREMENT_MS = 500;

    private AllocationBound() {
    }

    /**
     * Runs the one benchmark and parameter set {@code selection} names (a throughput benchmark in
     * messages per second) and asserts a positive score and {@code gc.alloc.rate.norm} below
     * {@link #MAX_BYTES_PER_MESSAGE}, after a second, longer run when the first moved too few messages
     * to tell; {@code what} names the case in a failure.
     */
    static void assertNoAllocationPerMessage(ChainedOptionsBuilder selection, String what) throws RunnerException {
        // set once: the builder keeps what it is given, and JMH refuses a profiler added twice
        selection.forks(1).warmupIterations(2).warmupTime(TimeValue.milliseconds(500)).measurementIterations(1)
                .addProfiler(GCProfiler.class).shouldFailOnError(true);
        RunResult run = run(selection, MEASUREMENT_MS);
        double perSecond = run.getPrimaryResult().getScore();
        assertTrue(perSecond > 0, "messages per second: " + perSecond);
        double norm = norm(run);
        String first = "";
        long measured = (long) (perSecond * MEASUREMENT_MS / 1000);
        if (!(norm < MAX_BYTES_PER_MESSAGE) && measured < MIN_MEASURED_MESSAGES) {
            long ms = Math.min(MAX_MEASUREMENT_MS, (long) Math.ceil(MIN_MEASURED_MESSAGES * 1000.0 / perSecond));
            first = " (a first run of " + MEASUREMENT_MS + " ms moved " + measured + " messages at " + norm
                    + " B/msg; this one measured for " + ms + " ms)";
            System.out.println("# " + what + ": again" + first);
            run = run(selection, ms);
            norm = norm(run);
        }
        assertTrue(norm < MAX_BYTES_PER_MESSAGE, what + ": gc.alloc.rate.norm=" + norm + " B/msg at "
                + run.getPrimaryResult().getScore() + " messages/s" + first);
    }

    private static RunResult run(ChainedOptionsBuilder selection, long measurementMs) throws RunnerException {
        Collection<RunResult> runs = new Runner(selection.measurementTime(TimeValue.milliseconds(measurementMs)).build()).run();
        assertEquals(1, runs.size(), "runs");
        return runs.iterator().next();
    }

    /** {@code gc.alloc.rate.norm}, NaN when absent (which no bound accepts). */
    private static double norm(RunResult run) {
        Result<?> norm = run.getSecondaryResults().get("gc.alloc.rate.norm");
        return norm == null ? Double.NaN : norm.getScore();
    }
}

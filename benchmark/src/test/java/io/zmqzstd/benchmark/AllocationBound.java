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
 */
final class AllocationBound {

    /** The bound {@link PayloadFormTest} and {@link PublishAllocationTest} hold the pipeline to. */
    static final double MAX_BYTES_PER_MESSAGE = 16;

    private AllocationBound() {
    }

    /**
     * Runs the one benchmark and parameter set {@code selection} names and asserts a positive score and
     * {@code gc.alloc.rate.norm} below {@link #MAX_BYTES_PER_MESSAGE}; {@code what} names the case in a failure.
     */
    static void assertNoAllocationPerMessage(ChainedOptionsBuilder selection, String what) throws RunnerException {
        Collection<RunResult> runs = new Runner(selection
                .forks(1).warmupIterations(2).warmupTime(TimeValue.milliseconds(500))
                .measurementIterations(1).measurementTime(TimeValue.milliseconds(500))
                .addProfiler(GCProfiler.class).shouldFailOnError(true).build()).run();
        assertEquals(1, runs.size(), "runs");
        RunResult run = runs.iterator().next();
        assertTrue(run.getPrimaryResult().getScore() > 0, "messages per second: " + run.getPrimaryResult().getScore());
        Result<?> norm = run.getSecondaryResults().get("gc.alloc.rate.norm");
        assertTrue(norm != null && norm.getScore() < MAX_BYTES_PER_MESSAGE,
                what + ": gc.alloc.rate.norm=" + (norm == null ? "absent" : norm.getScore() + " B/msg"));
    }
}

package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * "{@code -prof gc} works on every benchmark": every method in the jar's benchmark list, at the first value
 * of each of its parameters, runs one short iteration in a fork of its own with JMH's GC profiler and reports
 * {@code gc.alloc.rate.norm}, the bytes per operation the README and BENCHMARKS.md quote. A benchmark added
 * later is in the list, so it is covered too.
 */
class GcProfilerTest {

    @Test
    @Timeout(300)
    void shouldReportBytesPerOperationForEveryBenchmark() throws IOException, RunnerException {
        List<BenchmarkListEntry> benchmarks;
        try (InputStream in = GcProfilerTest.class.getResourceAsStream(BenchmarkList.BENCHMARK_LIST)) {
            assertTrue(in != null, "no " + BenchmarkList.BENCHMARK_LIST + ": JMH's annotation processor did not run");
            benchmarks = BenchmarkList.readBenchmarkList(in);
        }
        assertTrue(benchmarks.size() >= 10, "benchmark methods: " + benchmarks.size());

        List<String> missing = new ArrayList<>();
        for (BenchmarkListEntry b : benchmarks) {
            // one run per method, at the first declared value of each parameter (not the whole matrix; and
            // a parameter such as contestant means something else in each benchmark)
            ChainedOptionsBuilder options = new OptionsBuilder().include("^" + Pattern.quote(b.getUsername()) + "$")
                    .forks(1).warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(200))
                    .addProfiler(GCProfiler.class).shouldFailOnError(true);
            b.getParams().orElse(Map.of()).forEach((name, values) -> options.param(name, values[0]));
            Collection<RunResult> runs = new Runner(options.build()).run();
            if (runs.isEmpty()) {
                missing.add(b.getUsername() + ": did not run");
            }
            for (RunResult run : runs) {
                Result<?> norm = run.getSecondaryResults().get("gc.alloc.rate.norm");
                if (norm == null || Double.isNaN(norm.getScore()) || norm.getScore() < 0) {
                    missing.add(b.getUsername() + ": gc.alloc.rate.norm=" + (norm == null ? "absent" : norm.getScore()));
                }
            }
        }
        assertEquals(List.of(), missing);
    }
}

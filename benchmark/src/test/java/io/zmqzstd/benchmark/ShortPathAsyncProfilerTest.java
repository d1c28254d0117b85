package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.WorkloadParams;
import org.openjdk.jmh.runner.options.TimeValue;

class ShortPathAsyncProfilerTest {

    /** Every parameter of PipelineBenchmark at the values of a one-contestant run. */
    private static final Map<String, String> PIPELINE = new java.util.LinkedHashMap<>();

    static {
        PIPELINE.put("affinity", "none");
        PIPELINE.put("compressionThreads", "3");
        PIPELINE.put("contestant", "zmqzstd");
        PIPELINE.put("dictionary", "none");
        PIPELINE.put("flow", "stream");
        PIPELINE.put("inFlight", "0");
        PIPELINE.put("inlineBelowBytes", "-1");
        PIPELINE.put("level", "3");
        PIPELINE.put("maxLead", "500");
        PIPELINE.put("rawFrameBelowBytes", "0");
        PIPELINE.put("size", "1024");
        PIPELINE.put("transport", "tcp");
        PIPELINE.put("zeroCopyThresholdBytes", "-1");
    }

    private static BenchmarkParams params(String benchmark, Map<String, String> values) {
        WorkloadParams workload = new WorkloadParams();
        int order = 0;
        for (Map.Entry<String, String> e : values.entrySet()) {
            workload.put(e.getKey(), e.getValue(), order++);
        }
        IterationParams iteration = new IterationParams(IterationType.MEASUREMENT, 1, TimeValue.seconds(1), 1);
        return new BenchmarkParams(benchmark, benchmark + "_generated", false, 1, new int[] {1}, List.of(), 1, 0,
                iteration, iteration, Mode.Throughput, workload, TimeUnit.SECONDS, 1, "java", List.of(), "25",
                "vm", "25", "1.37", TimeValue.minutes(10));
    }

    @Test
    void shouldShortenPipelineBenchmarksIdToTheParametersAwayFromTheirSingleDeclaredValue() {
        BenchmarkParams p = params(PipelineBenchmark.class.getName() + ".transfer", PIPELINE);
        assertTrue(p.id().length() > 255, "the id JMH would use does not fit in a file name: " + p.id().length());
        String name = ShortPathAsyncProfiler.directoryName(p);
        // compressionThreads=3 differs from its single declared 0; contestant, dictionary, level, size and
        // transport are declared with several values; the rest are at their one declared value.
        assertEquals("PipelineBenchmark.transfer-thrpt-compressionThreads-3-contestant-zmqzstd-dictionary-none"
                + "-level-3-size-1024-transport-tcp", name);
    }

    @Test
    void shouldKeepJmhsIdWhenItFits() {
        BenchmarkParams p = params(CodecBenchmark.class.getName() + ".compress",
                Map.of("contestant", "zmqzstd-segment", "size", "64"));
        assertEquals(p.id(), ShortPathAsyncProfiler.directoryName(p));
    }

    @Test
    void shouldCutAnOverlongShortNameAndKeepTrialsApartByHash() {
        Map<String, String> a = new java.util.LinkedHashMap<>(PIPELINE);
        a.put("affinity", "x".repeat(150));
        a.put("flow", "y".repeat(60));
        Map<String, String> b = new java.util.LinkedHashMap<>(a);
        b.put("size", "65536");
        String nameA = ShortPathAsyncProfiler.directoryName(params(PipelineBenchmark.class.getName() + ".transfer", a));
        String nameB = ShortPathAsyncProfiler.directoryName(params(PipelineBenchmark.class.getName() + ".transfer", b));
        assertEquals(ShortPathAsyncProfiler.MAX_NAME, nameA.length());
        assertTrue(nameA.startsWith("PipelineBenchmark.transfer-thrpt-affinity-xxx"), nameA);
        assertNotEquals(nameA, nameB, "trials that differ only past the cut still get directories of their own");
    }

    @Test
    void shouldNameADirectoryTheFileSystemAccepts(@TempDir Path dir) throws Exception {
        String name = ShortPathAsyncProfiler.directoryName(params(PipelineBenchmark.class.getName() + ".transfer", PIPELINE));
        Path trial = Files.createDirectories(dir.resolve(name));
        Files.writeString(trial.resolve("flame-cpu-forward.html"), "x");
        assertTrue(Files.exists(trial.resolve("flame-cpu-forward.html")));
        assertFalse(name.contains("/"), name);
    }
}

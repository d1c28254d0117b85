package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scripts past their argument checks, for real: each runs from a copy of benchmark/'s scripts whose
 * {@code benchmark/target/benchmarks.jar} is a jar of a manifest only, its class path this test's (the
 * module's classes, with JMH's benchmark list, and their dependencies), so no package step is needed and the
 * module's own jar is never touched. {@code run-all.sh} runs one short latency table (about 5 s) in which a
 * trial fails on purpose: a contestant of no name, refused at set-up.
 */
class ScriptRunTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    /** One 100 ms measured iteration, no warm-up: enough for a result, and for a set-up that throws. */
    private static final String SHORT = "-f 1 -wi 0 -i 1 -r 100ms";
    private static final String LATENCY_CELL = " -p size=1024 -p transport=tcp";

    @Test
    void shouldFailNamingTheTrialThatFailedAndKeepTheOthersResults(@TempDir Path tree) throws Exception {
        Path out = tree.resolve("out");
        Run run = run(tree, List.of("run-all.sh", "latency"), Map.of("JMH_OPTS", SHORT, "OUT", out.toString(),
                "JMH_EXTRA", "-p contestant=zmqzstd,nope" + LATENCY_CELL));

        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("run-all.sh: 1 failed"), run.output());
        assertTrue(run.output().contains("latency: io.zmqzstd.benchmark.LatencyBenchmark.roundTrip (contestant = nope,"
                + " level = 3, size = 1024, transport = tcp) failed"), run.output());
        // the trial that ran is in the JSON and the charts, and is not named as failed
        assertFalse(run.output().contains("(contestant = zmqzstd, level = 3, size = 1024, transport = tcp) failed"),
                run.output());
        assertTrue(Files.readString(out.resolve("latency.json")).contains("\"contestant\" : \"zmqzstd\""));
        assertTrue(Files.exists(out.resolve("charts/summary.md")), run.output());
    }

    @Test
    void shouldSucceedWhenEveryTrialGaveItsResult(@TempDir Path tree) throws Exception {
        Path out = tree.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("latency.json"), "[]"); // an earlier run's, replaced
        Run run = run(tree, List.of("run-all.sh", "latency"), Map.of("JMH_OPTS", SHORT, "OUT", out.toString(),
                "JMH_EXTRA", "-p contestant=zmqzstd" + LATENCY_CELL));

        assertEquals(0, run.exit(), run.output());
        assertFalse(run.output().contains("failed"), run.output());
        assertTrue(Files.readString(out.resolve("latency.json")).contains("\"contestant\" : \"zmqzstd\""));
    }

    /**
     * A way no tool takes is named, with what a way may be, before the first cell's JVM: no result file is
     * written. Before, the cell's JVM set up the ways before it and died with a stack trace (status 1).
     */
    @ParameterizedTest
    @CsvSource(delimiterString = "::", value = {
        "TRANSPORT_WAYS :: byteArray zeroCopyPool :: transport:tcp:64  :: TRANSPORT_WAYS: unknown transport way: zeroCopyPool"
            + " (a strategy of [byteArray, reusedBuffer, message, zeroCopyPooled, nativeSegment], then @BYTES",
        "TRANSPORT_WAYS :: byteArray#two+all      :: transport:tcp:64  :: TRANSPORT_WAYS: unknown transport way: byteArray#two+all",
        "PIPELINE_WAYS  :: zmqzstd zmqzstd@3q     :: pipeline:tcp:1024 :: PIPELINE_WAYS: unknown pipeline way: zmqzstd@3q"
            + " (a contestant of [zmqzstd, libzmqBytes, jeromqZstdjni, libzmqBytesReused, jeromqZstdjniReused];"
            + " after zmqzstd @N[xM][iK][gT][w|c]; then #BYTES and a last ~)",
        "PIPELINE_WAYS  :: zmqzstd jeromqZstdjniParallel :: pipeline:tcp:1024 :: PIPELINE_WAYS: unknown pipeline way: jeromqZstdjniParallel",
    })
    void shouldRefuseABadWayBeforeTheFirstCell(String setting, String ways, String cell, String text, @TempDir Path tree)
            throws Exception {
        Path out = tree.resolve("out");
        Run run = run(tree, List.of("interleaved.sh", cell), Map.of(setting, ways, "OUT", out.toString(),
                "JVMS", "1", "ROUNDS", "1"));

        assertEquals(2, run.exit(), run.output());
        assertTrue(run.output().contains("interleaved.sh: " + text), run.output());
        assertTrue(run.output().contains("Usage:"), run.output());
        assertFalse(Files.exists(out), "the cell ran: " + run.output());
    }

    /**
     * alloc-floor.sh, whose cells are fixed, with a {@code java} that reports every trial as JMH reports
     * one that threw ("&lt;failure&gt;", exit 0, no JSON): the script names each failed cell and exits 1.
     * Before, it went on to its summary as if each cell had given its result.
     */
    @Test
    void shouldNameTheCellsOfAllocFloorThatFailed(@TempDir Path tree) throws Exception {
        Path fakeJdk = fakeJdk(tree, "echo '# JMH version: 1.37'\necho '# Benchmark: io.zmqzstd.benchmark.Fake.run'\n"
                + "echo '<failure>'\nexit 0\n");
        Path out = tree.resolve("out");
        Run run = run(tree, List.of("scripts/alloc-floor.sh", out.toString()), Map.of("JAVA_HOME", fakeJdk.toString()));

        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("alloc-floor.sh: "), run.output());
        for (String cell : List.of("floor-1s", "floor-10s", "pipeline-1s", "pipeline-10s", "transport", "codec", "codec-64m")) {
            assertTrue(run.output().contains(cell + ": io.zmqzstd.benchmark.Fake.run failed"), cell + ": " + run.output());
            assertTrue(run.output().contains(cell + ": no results in " + out.resolve(cell + ".json")), cell + ": " + run.output());
        }
    }

    /**
     * cpu-budget.sh, cpu-by-library.sh and iothread.sh, whose JMH settings are fixed, with a {@code java} that
     * reports its one trial (the benchmark and the -p values it was given) as JMH reports one that threw
     * ("&lt;failure&gt;", exit 0, no JSON): each script names every run as failed, with its benchmark and
     * parameters and the missing result, prints no score, and exits 1, at once rather than after its settle
     * time. Before, the codec runs of cpu-budget.sh printed nothing and went on, and each script died later
     * at its first sampling ("no benchmark fork", or schedstat.py's 60 s wait for one) without naming a run.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = "::", value = {
        "scripts/cpu-budget.sh      :: 14 :: codec compress, 2 thread(s): io.zmqzstd.benchmark.CodecBenchmark.compress"
            + " (contestant=zmqzstd-segment size=1024 level=3 payload=telemetry) failed",
        "scripts/cpu-budget.sh      :: 14 :: pipeline -p contestant=jeromqZstdjni: io.zmqzstd.benchmark.PipelineBenchmark"
            + " (size=1024 transport=tcp level=3 dictionary=none contestant=jeromqZstdjni) failed",
        "scripts/cpu-budget.sh      :: 14 :: I/O thread, pipeline zmqzstd@3: io.zmqzstd.benchmark.PipelineBenchmark"
            + " (size=1024 transport=tcp level=3 dictionary=none contestant=zmqzstd compressionThreads=3) failed",
        "scripts/cpu-by-library.sh  :: 4  :: jeromqZstdjni-1024-r1: io.zmqzstd.benchmark.PipelineBenchmark"
            + " (size=1024 transport=tcp level=3 dictionary=none contestant=jeromqZstdjni) failed",
        "scripts/iothread.sh zmqzstd 2 :: 4 :: zmqzstd run 2: io.zmqzstd.benchmark.PipelineBenchmark"
            + " (contestant=zmqzstd size=64 transport=tcp level=3 dictionary=none affinity=split) failed",
    })
    void shouldNameTheRunsOfTheSamplingScriptsThatFailed(String scriptAndArgs, int failed, String line, @TempDir Path tree)
            throws Exception {
        Path fakeJdk = fakeJdk(tree, """
                echo '# JMH version: 1.37'
                echo "# Benchmark: io.zmqzstd.benchmark.$3"
                params=(); while (( $# )); do [[ $1 == -p ]] && params+=("$2"); shift; done
                echo "# Parameters: (${params[*]})"
                echo '<failure>'
                exit 0
                """);
        List<String> command = List.of(scriptAndArgs.split(" "));
        String script = Path.of(command.get(0)).getFileName().toString();
        Run run = run(tree, command, Map.of("JAVA_HOME", fakeJdk.toString(), "SIZE", "1024", "ROUNDS", "1",
                "OUT", tree.resolve("out").toString()));

        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains(script + ": " + failed + " failed"), run.output());
        assertTrue(run.output().contains(line), run.output());
        assertFalse(run.output().contains("ops/s") || run.output().contains("msg/s") || run.output().contains("msgs_per_s"),
                run.output());
    }

    /** A JDK under {@code tree} whose {@code java} is a bash script of this body. */
    private static Path fakeJdk(Path tree, String body) throws IOException {
        Path jdk = tree.resolve("jdk");
        Path java = jdk.resolve("bin/java");
        Files.createDirectories(java.getParent());
        Files.writeString(java, "#!/bin/bash\n" + body);
        assertTrue(java.toFile().setExecutable(true));
        return jdk;
    }

    private record Run(int exit, String output) {
    }

    /**
     * Runs {@code benchmark/SCRIPT ARGS} of a copy of the scripts under {@code tree}, with this JVM's JDK and
     * {@code env}, and without any {@code JAVA_TOOL_OPTIONS} or {@code JDK_JAVA_OPTIONS} of the environment
     * the tests run in (no CI of this project sets them; a developer's shell may).
     */
    private static Run run(Path tree, List<String> scriptAndArgs, Map<String, String> env) throws Exception {
        Path benchmark = tree.resolve("benchmark");
        copyScripts(benchmark);
        writeManifestJar(benchmark.resolve("target/benchmarks.jar"));
        List<String> command = new ArrayList<>(List.of("bash", benchmark.resolve(scriptAndArgs.get(0)).toString()));
        command.addAll(scriptAndArgs.subList(1, scriptAndArgs.size()));
        Path log = tree.resolve("script.log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(tree.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // A JVM given options through these prints "Picked up ..." first on standard error, which interleaved.sh
        // passes on ahead of its tool's message: the scripts' JVMs get only what a test sets
        builder.environment().keySet().removeAll(List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"));
        builder.environment().putAll(env);
        Process p = builder.start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(ended, "still running: " + text);
        return new Run(p.exitValue(), text);
    }

    private static void copyScripts(Path benchmark) throws IOException {
        Files.createDirectories(benchmark.resolve("scripts"));
        Files.createDirectories(benchmark.resolve("c"));
        for (Path dir : List.of(MODULE, MODULE.resolve("scripts"), MODULE.resolve("c"))) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".sh") || f.toString().endsWith(".py")).toList()) {
                    Files.copy(f, benchmark.resolve(MODULE.relativize(f)));
                }
            }
        }
    }

    /** A jar that holds only a manifest: the launcher as its main class, this test's class path as its own. */
    private static void writeManifestJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(Attributes.Name.MAIN_CLASS, BenchmarkMain.class.getName());
        a.put(new Attributes.Name("Enable-Native-Access"), "ALL-UNNAMED");
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            classPath.add(Path.of(entry).toAbsolutePath().toUri().toString());
        }
        a.put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
        Files.createDirectories(jar.getParent());
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(os, manifest)) {
            j.flush();
        }
    }
}

package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * JMH runs {@code @TearDown(Level.Trial)} inside the last measured iteration, so {@code -prof gc}
 * counts what the tear-down allocates as that iteration's. The first close of a contestant in a
 * JVM links its downcalls (tens of KB); each benchmark's set-up therefore makes, uses and closes a
 * throwaway contestant first. Measured in a fresh JVM per case ({@link TearDownProbe}): here, in
 * the test JVM, other tests have linked everything already.
 */
class TearDownRehearsalTest {

    /** Well above what a rehearsed tear-down allocates (0.8-2.7 KB), well below a first close (40-110 KB). */
    private static final long MOST_BYTES = 16 * 1024;

    @Timeout(120)
    @ParameterizedTest
    @CsvSource({"latency, zmqzstd", "latency, libzmqBytes", "latency, jeromqZstdjni", "transport, zeroCopyPooled",
        "pipeline, zmqzstd", "pipeline, jeromqZstdjni", "pipeline-proxy, zmqzstd", "pipeline-proxy, libzmqBytes",
        "pipeline-proxy, jeromqZstdjni", "codec, zmqzstd-segment", "publish, bytes", "publish, segment",
        "publish-parallel, bytes"})
    void shouldLeaveTheTrialTearDownLittleToAllocate(String benchmark, String contestant)
            throws IOException, InterruptedException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), TearDownProbe.class.getName(), benchmark, contestant);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        String line = out.lines().filter(l -> l.startsWith("tearDown allocated=")).findFirst().orElseThrow(
                () -> new AssertionError("no result line: " + out));
        long bytes = Long.parseLong(line.substring("tearDown allocated=".length()));
        assertTrue(bytes < MOST_BYTES, benchmark + " " + contestant + ": the trial tear-down allocated " + bytes
                + " bytes, which -prof gc counts in the last measured iteration");
    }
}

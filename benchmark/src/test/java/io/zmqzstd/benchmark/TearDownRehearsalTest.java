package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
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

    /**
     * How long a probe may run: a probe takes 1-2 s, also beside 3 busy CPU loops on 2 cores; under this
     * test's {@code @Timeout}, so that the probe is killed and what it printed reported first.
     */
    private static final Duration PROBE_LIMIT = Duration.ofSeconds(90);

    @Timeout(120)
    @ParameterizedTest
    @CsvSource({"latency, zmqzstd", "latency, libzmqBytes", "latency, jeromqZstdjni", "transport, zeroCopyPooled",
        "pipeline, zmqzstd", "pipeline, jeromqZstdjni", "pipeline-proxy, zmqzstd", "pipeline-proxy, libzmqBytes",
        "pipeline-proxy, jeromqZstdjni", "codec, zmqzstd-segment", "publish, bytes", "publish, segment",
        "publish-parallel, bytes"})
    void shouldLeaveTheTrialTearDownLittleToAllocate(String benchmark, String contestant)
            throws IOException, InterruptedException {
        // ForkedJvm kills a probe still running at the limit and fails with what it printed; a read of the
        // probe's output pipe to its end would wait for a hung probe forever (JUnit's timeout cannot interrupt it)
        String out = ForkedJvm.run(PROBE_LIMIT, TearDownProbe.class, List.of("--sun-misc-unsafe-memory-access=allow"),
                benchmark, contestant);
        String line = out.lines().filter(l -> l.startsWith("tearDown allocated=")).findFirst().orElseThrow(
                () -> new AssertionError("no result line: " + out));
        long bytes = Long.parseLong(line.substring("tearDown allocated=".length()));
        assertTrue(bytes < MOST_BYTES, benchmark + " " + contestant + ": the trial tear-down allocated " + bytes
                + " bytes, which -prof gc counts in the last measured iteration");
    }
}

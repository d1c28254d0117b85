package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * BENCHMARKS.md's figures that {@code benchmark/scripts/check-figures.py} knows how to recompute, and the
 * README's repeats of them, agree with the committed raw results: a figure edited by hand, a results file
 * replaced or a passage reworded without its check fails here, naming the passage.
 */
class CheckFiguresTest {

    @Test
    void shouldFindEveryCheckedFigureOfBenchmarksMdInTheCommittedResults() throws Exception {
        Path root = Path.of("").toAbsolutePath().getParent();
        Process p = new ProcessBuilder("python3", root.resolve("benchmark/scripts/check-figures.py").toString(), root.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(" 0 mismatches"), out);
    }
}

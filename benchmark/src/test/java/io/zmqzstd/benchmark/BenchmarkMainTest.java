package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BenchmarkMainTest {

    @Test
    void shouldLeaveArgumentsWithoutAsyncProfilerUntouched() throws Exception {
        String[] args = {"CodecBenchmark", "-prof", "gc", "-p", "size=64", "-f", "1"};
        assertArrayEquals(args, BenchmarkMain.rewrite(args));
    }

    @Test
    void shouldKeepExplicitAsyncOptionsAndAddOnlyWhatIsMissing() throws Exception {
        String[] out = BenchmarkMain.rewrite(new String[] {"-prof", "async:libPath=/x/lib.so;event=alloc;dir=d"});
        assertEquals("-prof", out[0]);
        assertEquals(ShortPathAsyncProfiler.class.getName() + ":libPath=/x/lib.so;event=alloc;dir=d;output=flamegraph",
                out[1]);
    }

    @Test
    void shouldExtractTheBundledLibraryAndFillDefaults() throws Exception {
        String[] out = BenchmarkMain.rewrite(new String[] {"-prof=async:event=alloc"});
        assertEquals("-prof", out[0]);
        String spec = out[1];
        assertTrue(spec.startsWith(ShortPathAsyncProfiler.class.getName() + ":event=alloc;libPath="), spec);
        assertTrue(spec.contains(";output=flamegraph;dir=profile-results"), spec);
        String lib = spec.substring(spec.indexOf("libPath=") + 8, spec.indexOf(";output"));
        assertTrue(Files.size(Path.of(lib)) > 100_000, "library at " + lib);
    }
}

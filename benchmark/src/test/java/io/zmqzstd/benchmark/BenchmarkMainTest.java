package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkMainTest {

    /**
     * The cpu probe's child JVM runs to its end and its first line is the reason: with no
     * async-profiler at the path it fails, and the refusal names the missing library (read from a
     * file once the child ended; before 2026-11-27 from a pipe, before the 30 s wait began).
     */
    @Test
    void shouldRefuseCpuSamplingWithTheProbesReasonWhenTheProfilerIsMissing() {
        Path missing = Path.of("/nonexistent-zmqzstd/libasyncProfiler.so");
        String refusal = BenchmarkMain.perfEventsRefusal(missing);
        assertNotNull(refusal, "a probe without its library must refuse");
        assertTrue(refusal.startsWith("kernel.perf_event_paranoid=") || refusal.contains(missing.toString()), refusal);
    }

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
    void shouldReadAWholeSysctlValue() throws Exception {
        // pid_max has more than one digit (Linux's smallest is 301), which a one-byte read cut short
        Path pidMax = Path.of("/proc/sys/kernel/pid_max");
        assertTrue(BenchmarkMain.sysctlInt(pidMax) >= 301, "pid_max read as " + BenchmarkMain.sysctlInt(pidMax));
        assertEquals(Files.readAllLines(Path.of("/proc/sys/kernel/perf_event_paranoid")).getFirst().trim(),
                String.valueOf(BenchmarkMain.sysctlInt(Path.of("/proc/sys/kernel/perf_event_paranoid"))));
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

    /**
     * When async-profiler cannot sample with perf events, cpu becomes itimer and one line says why. Here the
     * probe (a child JVM that starts the profiler with event=cpu) is refused because the library it is given
     * is not one; with {@code kernel.perf_event_paranoid} above 1 and not root it is refused by the sysctl.
     */
    @Test
    void shouldFallBackToItimerAndSayWhyWhenCpuSamplingIsRefused(@TempDir Path dir) throws Exception {
        Path notALibrary = Files.writeString(dir.resolve("libasyncProfiler.so"), "not a shared object");
        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        String spec;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            spec = BenchmarkMain.complete("async:libPath=" + notALibrary + ";event=cpu");
        } finally {
            System.setOut(stdout);
        }
        assertTrue(spec.contains(";event=itimer") && !spec.contains("event=cpu"), spec);
        String line = printed.toString(StandardCharsets.UTF_8).strip();
        assertTrue(line.startsWith("# async-profiler: perf events are not available here (")
                && line.endsWith("); profiling with event=itimer instead of cpu") && line.lines().count() == 1, line);
    }

    /**
     * Given alloc (or lock) and no event, JMH profiles that event, not cpu; an event=itimer added beside it
     * made it a secondary event, which JMH refuses without output=jfr: where perf events were not allowed,
     * {@code -prof async:alloc} failed the run. No event is added, and no probe runs.
     */
    @Test
    void shouldAddNoEventBesideAllocOrLockAlone() throws Exception {
        for (String given : new String[] {"alloc", "lock", "alloc=512k", "alloc;lock"}) {
            String spec = BenchmarkMain.complete("async:libPath=/nonexistent-zmqzstd/lib.so;" + given);
            assertTrue(!spec.contains("event="), spec);
        }
    }

    @Test
    void shouldLeaveAnEventOtherThanCpuAlone() throws Exception {
        String spec = BenchmarkMain.complete("async:libPath=/x/lib.so;event=wall");
        assertTrue(spec.contains(";event=wall") && !spec.contains("itimer"), spec);
    }
}

package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.testkit.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Worker threads against what the loaded libzstd runs: its {@code ZSTD_c_nbWorkers} upper bound,
 * 0 when it was built without multithreading.
 */
class CompressorWorkersTest {

    /**
     * A libzstd built without {@code ZSTD_MULTITHREAD}, for {@link
     * #shouldSayLibzstdWasBuiltWithoutMultithreading()}; how to build one is in the codec README
     * ("Tests").
     */
    static final String NO_THREADS_PROPERTY = "zmqzstd.test.libzstd.nothreads";

    /** The same as an environment variable, which .ci/run sets after building one. */
    static final String NO_THREADS_ENV = "ZMQZSTD_TEST_LIBZSTD_NOTHREADS";

    /** The system's libzstd (Debian's and upstream's builds have threads) reports its maximum, and build() keeps to it. */
    @Test
    void shouldKeepToTheMaximumTheLoadedLibzstdReports() {
        int max = ZstdCompressor.maxWorkers();
        assertTrue(max >= 1, "the system libzstd is built with multithreading: max=" + max);
        try (ZstdCompressor c = ZstdCompressor.builder().workers(max).build()) {
            assertTrue(c.compress(TestData.text(1000, 1)).length > 0);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> ZstdCompressor.builder().workers(max + 1).build());
        assertEquals("workers=" + (max + 1) + " is more than libzstd runs: max=" + max + " (it would run " + max
                + " without a word)", e.getMessage());
        assertNull(ZstdCompressor.workersRefused(max, max));
    }

    /** The text for a libzstd without threads, with the file of the libzstd this JVM loaded. */
    @Test
    void shouldNameTheLibraryAndTheSettingWhenLibzstdHasNoThreads() {
        String file = NativeLibrary.ZSTD.file().map(Path::toString).orElse(null);
        assumeTrue(file != null, "no /proc/self/maps: not Linux");
        assertEquals("workers=2: libzstd at " + file + " was built without multithreading (ZSTD_c_nbWorkers max=0):"
                + " build with workers(0), or load a libzstd built with ZSTD_MULTITHREAD"
                + " (-Dzmqzstd.libzstd.path=/path/to/libzstd.so.1)", ZstdCompressor.workersRefused(2, 0));
        assertNull(ZstdCompressor.workersRefused(0, 0));
    }

    /**
     * A real libzstd built without multithreading, in a child JVM: workers(2) is refused at build()
     * with the words above, naming the file; libzstd alone said "ZSTD_CCtx_setParameter failed:
     * parameter=400, value=2, error=Unsupported parameter". workers(0) still works, and nothing leaks.
     */
    @Test
    void shouldSayLibzstdWasBuiltWithoutMultithreading() throws Exception {
        String value = System.getProperty(NO_THREADS_PROPERTY, System.getenv().getOrDefault(NO_THREADS_ENV, ""));
        assumeTrue(!value.isBlank(), "set -D" + NO_THREADS_PROPERTY + " (or " + NO_THREADS_ENV + ")=/path/to/libzstd.so.1"
                + " built without ZSTD_MULTITHREAD to run this (codec README, \"Tests\"; .ci/run builds one)");
        Path library = Path.of(value.strip()).toAbsolutePath();
        assertTrue(Files.isRegularFile(library), "-D" + NO_THREADS_PROPERTY + " names no file: " + library);
        List<String> lines = ForkedJvm.run(WorkersProbe.class, List.of("-Dzmqzstd.libzstd.path=" + library), "2", "0", "300")
                .lines().filter(l -> l.startsWith("workers=") || l.startsWith("live=")).toList();
        String refused = " java.lang.IllegalArgumentException workers=%d: libzstd at " + library.toRealPath()
                + " was built without multithreading (ZSTD_c_nbWorkers max=0): build with workers(0), or load a libzstd"
                + " built with ZSTD_MULTITHREAD (-Dzmqzstd.libzstd.path=/path/to/libzstd.so.1)";
        assertEquals(List.of("workers=2" + refused.formatted(2), "workers=0 built", "workers=300" + refused.formatted(300),
                "live=0"), lines);
    }
}

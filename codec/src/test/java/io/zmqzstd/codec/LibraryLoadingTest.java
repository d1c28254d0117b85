package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.testkit.ForkedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A missing or misplaced native library, seen from a fresh JVM: the bindings' static
 * initializers must not fail, and every call, the first and the later ones, must say what to
 * install and which property to set.
 */
class LibraryLoadingTest {

    private static final String EXCEPTION = "io.zmqzstd.nativelib.NativeLibraryUnavailableException";

    /** Runs {@link LibraryProbe} in a new JVM with {@code properties}; its output lines. */
    private static List<String> probe(List<String> properties, String... args) throws IOException, InterruptedException {
        return ForkedJvm.run(LibraryProbe.class, properties, args).lines()
                .filter(l -> l.startsWith("zstd ") || l.startsWith("zmq ")).toList();
    }

    @Test
    void shouldNamePackageAndPropertyOnEveryCallWhenLibrariesAreMissing() throws Exception {
        List<String> lines = probe(List.of("-Dzmqzstd.libzstd.path=/nonexistent/libzstd.so.1",
                "-Dzmqzstd.libzmq.path=/nonexistent/libzmq.so.5"), "zmq");
        assertEquals(4, lines.size(), String.join("\n", lines));
        for (int attempt = 1; attempt <= 2; attempt++) {
            String zstd = lines.get(attempt - 1);
            assertTrue(zstd.startsWith("zstd attempt=" + attempt + " " + EXCEPTION + " "), zstd);
            assertTrue(zstd.contains("libzstd1") && zstd.contains("-Dzmqzstd.libzstd.path")
                    && zstd.contains("/nonexistent/libzstd.so.1"), zstd);
            String zmq = lines.get(attempt + 1);
            assertTrue(zmq.startsWith("zmq attempt=" + attempt + " " + EXCEPTION + " "), zmq);
            assertTrue(zmq.contains("libzmq5") && zmq.contains("-Dzmqzstd.libzmq.path"), zmq);
        }
    }

    @Test
    void shouldLoadLibzstdFromThePathProperty() throws Exception {
        Path real = loadedLibzstd();
        List<String> lines = probe(List.of("-Dzmqzstd.libzstd.path=" + real));
        assertEquals(List.of("zstd attempt=1 ok", "zstd attempt=2 ok"), lines, "path=" + real);
    }

    /**
     * A path property naming a text file, an empty file or a directory: the loader is not asked.
     * Before, the JVM, given such a file to load, printed "You have loaded library … which might
     * have disabled stack guard … fix the library with 'execstack -c'" ahead of the message.
     */
    @Test
    void shouldRefuseAFileThatIsNoLibraryWithoutTheJvmsStackGuardWarning(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("libzstd.so.1"), "not a library");
        Path empty = Files.createFile(dir.resolve("empty.so"));
        for (Path bad : List.of(text, empty, dir)) {
            String out = ForkedJvm.run(LibraryProbe.class, List.of("-Dzmqzstd.libzstd.path=" + bad));
            assertFalse(out.contains("stack guard") || out.contains("execstack"), out);
            assertTrue(out.contains("zstd attempt=1 " + EXCEPTION + " libzstd at " + bad
                    + " (set by -Dzmqzstd.libzstd.path) could not be opened ("), out);
        }
    }

    /**
     * ELF files that are no shared library (the first 100 bytes of the real libzstd, the magic
     * followed by text): these passed the magic check, and the JVM printed its stack guard warning
     * ahead of the message, as for the files above.
     */
    @Test
    void shouldRefuseACutShortOrCorruptElfFileWithoutTheJvmsStackGuardWarning(@TempDir Path dir) throws Exception {
        byte[] real = Files.readAllBytes(loadedLibzstd());
        Path cut = Files.write(dir.resolve("libzstd.so.1"), java.util.Arrays.copyOf(real, 100));
        Path corrupt = Files.writeString(dir.resolve("corrupt.so"), "\u007fELFgarbage after the magic");
        for (Path bad : List.of(cut, corrupt)) {
            String out = ForkedJvm.run(LibraryProbe.class, List.of("-Dzmqzstd.libzstd.path=" + bad));
            assertFalse(out.contains("stack guard") || out.contains("execstack"), out);
            assertTrue(out.contains("zstd attempt=1 " + EXCEPTION + " libzstd at " + bad
                    + " (set by -Dzmqzstd.libzstd.path) could not be opened (not a shared library: "), out);
        }
    }

    /** The file this JVM loaded as libzstd (Linux). */
    private static Path loadedLibzstd() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "no /proc/self/maps: not Linux");
        assertTrue(Zstd.versionNumber() > 0);
        return NativeLibrary.ZSTD.file().orElseThrow(() -> new AssertionError("libzstd loaded but not in /proc/self/maps"));
    }
}

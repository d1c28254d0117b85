package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ZstdDictionary#save} writes whole or not at all. Until 2026-11-29 it wrote the target in
 * place ({@code Files.write}): a write that failed part way (a full disk, a file size limit) left
 * the start of a dictionary there, and the one before was gone. Now it writes a new file beside the
 * target and renames it into place.
 */
class DictionarySaveTest {

    private static final byte[] OLD = TestData.text(4096, 1);
    private static final byte[] NEW = TestData.text(100_000, 2);

    /** A child JVM under a 16 KiB file size limit saves 100 KB over a 4 KiB dictionary. */
    @Test
    void shouldLeaveTheOldDictionaryWholeWhenTheWriteFails(@TempDir Path dir) throws Exception {
        Path target = Files.write(dir.resolve("d.dict"), OLD);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder("/bin/bash", "-c", "ulimit -f 16 && exec \"$0\" \"$@\"", java, "-XX:-UsePerfData",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                DictionarySaveTest.class.getName(), target.toString()).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.contains("refused: cannot write dictionary: file=" + target), out);
        assertArrayEquals(OLD, Files.readAllBytes(target), "the old dictionary is whole: " + out);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(target), files.toList(), "no temporary file left");
        }
    }

    /** The child: the save that the file size limit cuts short. */
    public static void main(String[] args) {
        try (ZstdDictionary d = ZstdDictionary.of(NEW)) {
            d.save(Path.of(args[0]));
            System.out.println("saved");
        } catch (UncheckedIOException e) {
            System.out.println("refused: " + e.getMessage() + " (" + e.getCause() + ")");
        }
    }

    /**
     * A link is followed and stays a link, a replaced file keeps its permissions, a new one gets
     * the default ones, and a device is written through, as {@code Files.write} did.
     */
    @Test
    void shouldWriteThroughLinksAndDevicesAndKeepPermissions(@TempDir Path dir) throws IOException {
        try (ZstdDictionary d = ZstdDictionary.of(NEW)) {
            Path real = Files.write(dir.resolve("real.dict"), OLD);
            Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-r-----"));
            Path link = Files.createSymbolicLink(dir.resolve("link.dict"), real.getFileName());
            d.save(link);
            assertTrue(Files.isSymbolicLink(link));
            assertArrayEquals(NEW, Files.readAllBytes(real));
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));

            Path dangling = Files.createSymbolicLink(dir.resolve("dangling.dict"), Path.of("sub-target.dict"));
            d.save(dangling);
            assertTrue(Files.isSymbolicLink(dangling));
            assertArrayEquals(NEW, Files.readAllBytes(dir.resolve("sub-target.dict")));

            Path fresh = dir.resolve("fresh.dict");
            Path reference = Files.write(dir.resolve("reference"), new byte[1]);
            d.save(fresh);
            assertEquals(Files.getPosixFilePermissions(reference), Files.getPosixFilePermissions(fresh), "default permissions");
            assertArrayEquals(NEW, Files.readAllBytes(fresh));

            d.save(Path.of("/dev/null"));
            assertTrue(Files.exists(Path.of("/dev/null")) && !Files.isRegularFile(Path.of("/dev/null")), "still the device");
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(6, files.count(), "no temporary file left");
            }
        }
    }

    /**
     * A path under {@code /proc} (or {@code /dev}) naming a file a descriptor holds open, as
     * {@code /dev/stdout} does when a shell redirects it to a file: written through in place, so the
     * holder of the descriptor sees the dictionary. Renamed over, the file's name would take the new
     * one and the descriptor stay on the old, empty file.
     */
    @Test
    void shouldWriteThroughADescriptorsPathInPlace(@TempDir Path dir) throws IOException {
        Path held = Files.write(dir.resolve("held.dict"), OLD);
        try (ZstdDictionary d = ZstdDictionary.of(NEW); FileChannel channel = FileChannel.open(held, StandardOpenOption.READ)) {
            d.save(descriptorPath(held));
            ByteBuffer read = ByteBuffer.allocate(NEW.length + 1);
            while (channel.read(read, read.position()) > 0) {
                // until the end of the file the descriptor is on
            }
            assertArrayEquals(NEW, Arrays.copyOf(read.array(), read.position()), "the file the descriptor holds took the dictionary");
            assertArrayEquals(NEW, Files.readAllBytes(held));
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(1, files.count(), "no temporary file left beside it");
            }
        }
    }

    /** {@code /proc/self/fd/N} of a descriptor this process holds open on {@code file}. */
    private static Path descriptorPath(Path file) throws IOException {
        Path real = file.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        return fd;
                    }
                } catch (IOException gone) {
                    // the listing's own descriptor, closed by now
                }
            }
        }
        throw new AssertionError("no descriptor of this process is open on " + real);
    }
}

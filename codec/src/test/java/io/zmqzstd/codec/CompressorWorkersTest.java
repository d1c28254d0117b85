package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.testkit.ForkedJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

    /**
     * A compressor with workers whose frame was left unended (a destination too small for the
     * one-call and the chunked paths, a stream's sink that failed, a stream dropped mid-frame) and
     * is then used again: with libzstd 1.5.4 the process died of SIGSEGV in a worker thread
     * ({@code pthread_mutex_lock} of a NULL mutex, at the first or third reuse), which a session
     * reset, the codec's "the same compressor handles the next frame", did not prevent. Now such a
     * context is replaced by a new one with the same parameters and dictionary: every reuse round
     * trips, its frames keep their checksum and dictionary ID, and nothing leaks. In a child JVM:
     * the old code crashed the process.
     */
    @Test
    void shouldCompressAgainAfterAFrameWithWorkersWasAbandoned() throws Exception {
        assumeTrue(ZstdCompressor.maxWorkers() >= 2, "the loaded libzstd runs no workers");
        List<String> lines = ForkedJvm.run(AbandonedFrames.class, List.of("-Xmx256m"))
                .lines().filter(l -> l.startsWith("round ") || l.startsWith("live=")).toList();
        List<String> expected = new ArrayList<>();
        for (int round = 0; round < AbandonedFrames.ROUNDS; round++) {
            expected.add("round " + round + ": native DESTINATION_TOO_SMALL, heap DESTINATION_TOO_SMALL, sink failed,"
                    + " dropped mid-frame; each followed by a frame with checksum and dictionary ID that round trips");
        }
        expected.add("live=0");
        assertEquals(expected, lines);
    }

    /**
     * A stream with workers given fewer bytes than it pledged fails at close ({@code TRUNCATED}),
     * as without workers. libzstd 1.5.4 checks the pledge only on its single-threaded path: with
     * workers, once the frame spans more than one job (each job checks only its own size), it
     * ended the frame, declaring 8 MiB over 5 MiB, and close() returned as if the frame were whole. The compressor then makes good frames, with nothing leaked.
     */
    @Test
    void shouldRefuseFewerBytesThanPledgedWithWorkers() throws IOException {
        assumeTrue(ZstdCompressor.maxWorkers() >= 2, "the loaded libzstd runs no workers");
        byte[] data = TestData.text(8 << 20, 11);
        long live = LibZstd.liveNativeObjects();
        try (ZstdCompressor c = ZstdCompressor.builder().workers(2).level(1).build();
             ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdOutputStream out = new ZstdOutputStream(OutputStream.nullOutputStream(), c, data.length);
            out.write(data, 0, 5 << 20);
            ZstdStreamException e = assertThrows(ZstdStreamException.class, out::close);
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
            assertEquals("less content than the frame declares: pledged=8388608, written=5242880", e.getMessage());
            assertEquals(LibZstd.ERR_SRC_SIZE_WRONG, e.errorCode());
            assertTrue(Arrays.equals(data, d.decompress(c.compress(data))), "the compressor compresses again");
        }
        assertEquals(live, LibZstd.liveNativeObjects());
    }

    /** Child JVM of {@link #shouldCompressAgainAfterAFrameWithWorkersWasAbandoned}. */
    static final class AbandonedFrames {
        static final int ROUNDS = 4;

        public static void main(String[] args) throws Exception {
            byte[] big = TestData.text(16 << 20, 7);
            List<byte[]> samples = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                samples.add(TestData.text(200, i));
            }
            try (ZstdDictionary dict = ZstdDictionary.train(samples, 4096);
                 ZstdCompressor c = ZstdCompressor.builder().workers(2).level(1).checksum(true).dictionary(dict).build();
                 ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
                 Arena arena = Arena.ofConfined()) {
                MemorySegment nativeBig = arena.allocateFrom(ValueLayout.JAVA_BYTE, big);
                for (int round = 0; round < ROUNDS; round++) {
                    StringBuilder line = new StringBuilder("round " + round + ": ");
                    try {
                        c.compress(nativeBig, arena.allocate(1 << 16));
                    } catch (ZstdException e) {
                        line.append("native ").append(e.reason());
                    }
                    reuse(c, d, dict, big, round);
                    try {
                        c.compress(MemorySegment.ofArray(big), MemorySegment.ofArray(new byte[1 << 16]));
                    } catch (ZstdException e) {
                        line.append(", heap ").append(e.reason());
                    }
                    reuse(c, d, dict, big, round);
                    try (ZstdOutputStream out = new ZstdOutputStream(new FailingSink(), c)) {
                        out.write(big);
                    } catch (IOException e) {
                        line.append(", sink failed");
                    }
                    reuse(c, d, dict, big, round);
                    ZstdOutputStream dropped = new ZstdOutputStream(OutputStream.nullOutputStream(), c);
                    dropped.write(big);
                    line.append(", dropped mid-frame");
                    reuse(c, d, dict, big, round);
                    System.out.println(line.append("; each followed by a frame with checksum and dictionary ID that round trips"));
                }
            }
            System.out.println("live=" + LibZstd.liveNativeObjects());
        }

        /**
         * A frame of 4 MiB from the compressor just failed, by both one-shot paths, the one-call
         * {@code ZSTD_compress2} first (after a dropped stream it begins a frame with no reset
         * before it): each must round trip as configured.
         */
        private static void reuse(ZstdCompressor c, ZstdDecompressor d, ZstdDictionary dict, byte[] big, int round) {
            byte[] part = Arrays.copyOfRange(big, round, round + (4 << 20));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = arena.allocateFrom(ValueLayout.JAVA_BYTE, part);
                MemorySegment dst = arena.allocate(ZstdCompressor.maxCompressedSize(part.length));
                long n = c.compress(src, dst);
                check(dst.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), part, d, dict);
            }
            check(c.compress(part), part, d, dict);
        }

        private static void check(byte[] frame, byte[] part, ZstdDecompressor d, ZstdDictionary dict) {
            if ((frame[4] & ZstdFrames.CHECKSUM_FLAG) == 0 || ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)) != dict.id()) {
                throw new AssertionError("frame without its checksum or dictionary ID after reuse");
            }
            if (!Arrays.equals(part, d.decompress(frame))) {
                throw new AssertionError("frame does not round trip after reuse");
            }
        }
    }

    /** A sink that fails once it has taken 100,000 bytes. */
    private static final class FailingSink extends OutputStream {
        private long taken;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            taken += len;
            if (taken > 100_000) {
                throw new IOException("sink full");
            }
        }
    }
}

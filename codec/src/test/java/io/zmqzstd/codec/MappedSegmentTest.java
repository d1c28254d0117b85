package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.testkit.ForkedJvm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * File mappings ({@code FileChannel.map} into an arena) as source or destination. A page past the
 * end of a file shortened since it was mapped (a log truncated in place by its rotation) raises
 * SIGBUS when read or written. Until 2026-11-29 the codec handed a mapping to libzstd by address
 * like any native segment, and libzstd's read or write of such a page ended the JVM. Now a mapping
 * is copied through the scratch memory in Java, whose fault is an {@link IllegalStateException}
 * naming the side and range with the JDK's {@link InternalError} as its cause, and the compressor
 * or decompressor goes on. The faults run in a child JVM, since the old code killed the JVM; the
 * round trips of whole mappings run here.
 */
class MappedSegmentTest {

    /** Offset of the data in a mapping, so that no path can get away with passing whole segments. */
    private static final int AT = 16;
    /** 0 B, small, up to and past the one-call limits (128 KiB of input, 256 KiB of scratch), several chunks. */
    private static final int[] SIZES = {0, 1, 100, 131_072, 131_073, 262_144, 262_145, 1_000_003};

    @Test
    void shouldThrowAFaultInAShortenedMappingToTheCallerAndGoOn() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), MappedSegmentTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        System.out.println(out);
        for (String expected : List.of(
                "compress, 1000 B source: src could not be read: a fault in its memory",
                "compress, 1 MiB source cut at 300000: src could not be read",
                "compress with workers, 1 MiB source cut at 300000: src could not be read",
                "compress, 1000 B destination: dst could not be written",
                "compress, 1 MiB destination: dst could not be written",
                "compress, both mapped, destination cut: dst could not be written",
                "compress, both mapped, source cut: src could not be read",
                "decompress, small frame: src could not be read",
                "decompress, 2 MiB frame cut at 300000: src could not be read",
                "decompress, 1000 B destination: dst could not be written",
                "decompress, 1 MiB destination cut at 300000: dst could not be written",
                "decompress, raw frame into a cut destination: dst could not be written",
                "raw frame from a cut source: src could not be read",
                "raw frame from an array into a cut destination: dst could not be written",
                "all refused, each owner went on, native objects balanced")) {
            assertTrue(out.contains(expected), () -> "missing \"" + expected + "\" in: " + out);
        }
    }

    /** The child: each fault, then a good round trip on the same compressor or decompressor. */
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("shortened-mapping");
        long live = LibZstd.liveNativeObjects();
        byte[] mib = TestData.text(1 << 20, 3);
        byte[] small = Arrays.copyOf(mib, 1000);
        try (Arena arena = Arena.ofShared(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdCompressor workers = ZstdCompressor.builder().workers(2).build();
             ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment frameOut = arena.allocate(ZstdCompressor.maxCompressedSize(4 << 20));
            MemorySegment contentOut = arena.allocate(4 << 20);
            MemorySegment nativeMib = arena.allocate(mib.length);
            MemorySegment.copy(mib, 0, nativeMib, JAVA_BYTE, 0, mib.length);
            Runnable compresses = () -> assertRoundTrip(c, d, mib, frameOut, contentOut);

            MemorySegment src = mapped(dir, arena, small, 0);
            fault("compress, 1000 B source", "src could not be read: ", "offset=0, length=1000, mapped=true (no frame",
                    () -> c.compress(src, 0, 1000, frameOut, 0, frameOut.byteSize()), compresses);
            MemorySegment srcMib = mapped(dir, arena, mib, 300_000);
            fault("compress, 1 MiB source cut at 300000", "src could not be read: ", "length=1048576, mapped=true",
                    () -> c.compress(srcMib, frameOut), compresses);
            fault("compress with workers, 1 MiB source cut at 300000", "src could not be read: ", "length=1048576",
                    () -> workers.compress(srcMib, frameOut), () -> assertRoundTrip(workers, d, mib, frameOut, contentOut));
            MemorySegment dstSmall = mapped(dir, arena, new byte[2000], 0);
            fault("compress, 1000 B destination", "dst could not be written: ", "offset=0, length=2000, mapped=true",
                    () -> c.compress(nativeMib.asSlice(0, 1000), dstSmall), compresses);
            MemorySegment dstMib = mapped(dir, arena, new byte[(int) ZstdCompressor.maxCompressedSize(mib.length)], 0);
            byte[] random = TestData.random(mib.length, 4); // a frame larger than one scratch chunk
            MemorySegment nativeRandom = arena.allocate(random.length);
            MemorySegment.copy(random, 0, nativeRandom, JAVA_BYTE, 0, random.length);
            fault("compress, 1 MiB destination", "dst could not be written: ", "mapped=true",
                    () -> c.compress(nativeRandom, dstMib), compresses);
            MemorySegment goodSrc = mapped(dir, arena, mib, -1);
            fault("compress, both mapped, destination cut", "dst could not be written: ", "mapped=true",
                    () -> c.compress(goodSrc, dstMib), compresses);
            MemorySegment goodDst = mapped(dir, arena, new byte[(int) ZstdCompressor.maxCompressedSize(mib.length)], -1);
            fault("compress, both mapped, source cut", "src could not be read: ", "length=1048576, mapped=true",
                    () -> c.compress(srcMib, goodDst), compresses);

            Runnable decompresses = () -> assertRoundTrip(c, d, mib, frameOut, contentOut);
            byte[] smallFrame = c.compress(small);
            MemorySegment frameSmall = mapped(dir, arena, smallFrame, 0);
            fault("decompress, small frame", "src could not be read: ", "length=" + smallFrame.length + ", mapped=true (not",
                    () -> d.decompress(frameSmall, contentOut), decompresses);
            byte[] bigFrame = c.compress(TestData.random(2 << 20, 5));
            MemorySegment frameBig = mapped(dir, arena, bigFrame, 300_000);
            fault("decompress, 2 MiB frame cut at 300000", "src could not be read: ", "length=" + bigFrame.length,
                    () -> d.decompress(frameBig, contentOut), decompresses);
            MemorySegment contentSmall = mapped(dir, arena, new byte[1000], 0);
            MemorySegment smallFrameNative = arena.allocate(smallFrame.length);
            MemorySegment.copy(smallFrame, 0, smallFrameNative, JAVA_BYTE, 0, smallFrame.length);
            fault("decompress, 1000 B destination", "dst could not be written: ", "offset=0, length=1000, mapped=true",
                    () -> d.decompress(smallFrameNative, contentSmall), decompresses);
            long n = c.compress(nativeMib, frameOut);
            MemorySegment contentMib = mapped(dir, arena, new byte[mib.length], 300_000);
            fault("decompress, 1 MiB destination cut at 300000", "dst could not be written: ", "length=1048576, mapped=true",
                    () -> d.decompress(frameOut, 0, n, contentMib, 0, mib.length), decompresses);
            MemorySegment rawFrame = arena.allocate(ZstdFrames.rawFrameSize(64));
            ZstdFrames.writeRawFrame(nativeMib, 0, 64, rawFrame, 0, rawFrame.byteSize());
            MemorySegment content64 = mapped(dir, arena, new byte[64], 0);
            fault("decompress, raw frame into a cut destination", "dst could not be written: ", "length=64, mapped=true",
                    () -> d.decompress(rawFrame, content64), decompresses);

            Runnable nothing = () -> { };
            fault("raw frame from a cut source", "src could not be read: ", "offset=0, length=1000, mapped=true (no frame",
                    () -> ZstdFrames.writeRawFrame(src, 0, 1000, frameOut, 0, frameOut.byteSize()), nothing);
            fault("raw frame from an array into a cut destination", "dst could not be written: ", "length=2000, mapped=true",
                    () -> ZstdFrames.writeRawFrame(small, 0, 1000, dstSmall, 0, 2000), nothing);
        }
        assertEquals(live, LibZstd.liveNativeObjects(), "contexts and scratch freed, none left by the faults");
        System.out.println("all refused, each owner went on, native objects balanced");
    }

    /**
     * Runs {@code call}, which must throw the named fault, prints it, and runs {@code next}, a good
     * call on the same owner.
     */
    private static void fault(String what, String prefix, String detail, Executable call, Runnable next) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call, what);
        System.out.println(what + ": " + e.getMessage());
        assertTrue(e.getMessage().startsWith(prefix) && e.getMessage().contains(detail), what + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("(a mapped file shortened since it was mapped?)"), e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause(), what + ": the JDK's report of the fault as the cause");
        next.run();
    }

    private static void assertRoundTrip(ZstdCompressor c, ZstdDecompressor d, byte[] data, MemorySegment frame,
                                        MemorySegment content) {
        long n = c.compress(MemorySegment.ofArray(data), frame);
        assertEquals(data.length, d.decompress(frame, 0, n, content, 0, content.byteSize()));
        assertEquals(-1, content.asSlice(0, data.length).mismatch(MemorySegment.ofArray(data)), "the next call works");
    }

    /**
     * A mapping of a new file in {@code dir} holding {@code content}, the file then cut to
     * {@code keepBytes} (-1: left whole).
     */
    static MemorySegment mapped(Path dir, Arena arena, byte[] content, long keepBytes) throws IOException {
        Path file = Files.createTempFile(dir, "mapped", ".bin");
        Files.write(file, content);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, content.length, arena);
            if (keepBytes >= 0) {
                channel.truncate(keepBytes);
            }
            return segment;
        }
    }

    /**
     * Whole mappings as source, frame and destination, at every size: the frame is the one a heap
     * source gives (same route through the scratch memory), declares its content size, and zstd-jni
     * and the decompressor read it back, from a mapping too, into native, heap and mapped memory.
     */
    @Test
    void shouldRoundTripWholeMappingsIntoTheSameStandardFrames(@TempDir Path dir) throws IOException {
        long live = LibZstd.liveNativeObjects();
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : SIZES) {
                byte[] data = TestData.text(size, size);
                byte[] padded = new byte[AT + size];
                System.arraycopy(data, 0, padded, AT, size);
                MemorySegment src = mapped(dir, arena, padded, -1);
                assertTrue(src.isMapped());
                int bound = (int) ZstdCompressor.maxCompressedSize(size);
                byte[] expected = new byte[bound];
                int expectedLength = (int) c.compress(MemorySegment.ofArray(padded), AT, size, MemorySegment.ofArray(expected), 0, bound);
                expected = Arrays.copyOf(expected, expectedLength);
                MemorySegment[] frames = {arena.allocate(AT + bound), MemorySegment.ofArray(new byte[AT + bound]),
                    mapped(dir, arena, new byte[AT + bound], -1)};
                for (MemorySegment frame : frames) {
                    String what = "size=" + size + ", frame " + kind(frame);
                    long n = c.compress(src, AT, size, frame, AT, bound);
                    byte[] bytes = frame.asSlice(AT, n).toArray(JAVA_BYTE);
                    assertArrayEquals(expected, bytes, what + ": the frame a heap source gives");
                    assertEquals(size, ZstdFrames.contentSize(frame, AT, n), what);
                    assertArrayEquals(data, Zstd.decompress(bytes, size), what + ": zstd-jni reads it");
                    for (MemorySegment out : new MemorySegment[] {arena.allocate(AT + size),
                        MemorySegment.ofArray(new byte[AT + size]), mapped(dir, arena, new byte[AT + size], -1)}) {
                        assertEquals(size, d.decompress(frame, AT, n, out, AT, size), what + ", into " + kind(out));
                        assertEquals(-1, out.asSlice(AT, size).mismatch(MemorySegment.ofArray(data)), what + ", into " + kind(out));
                    }
                }
            }
        }
        assertEquals(live, LibZstd.liveNativeObjects());
    }

    /** A frame that does not declare its size, and a raw frame, from a mapping into a mapping. */
    @Test
    void shouldDecompressUndeclaredAndRawFramesFromAMappingIntoAMapping(@TempDir Path dir) throws IOException {
        byte[] data = TestData.text(600_000, 9);
        ByteArrayOutputStream undeclared = new ByteArrayOutputStream();
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            try (ZstdOutputStream out = new ZstdOutputStream(undeclared, c)) {
                out.write(data);
            }
            assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(undeclared.toByteArray())));
            MemorySegment raw = MemorySegment.ofArray(new byte[(int) ZstdFrames.rawFrameSize(100)]);
            ZstdFrames.writeRawFrame(data, 0, 100, raw, 0, raw.byteSize());
            List<byte[]> frames = List.of(undeclared.toByteArray(), raw.toArray(JAVA_BYTE));
            int[] sizes = {data.length, 100};
            for (int i = 0; i < frames.size(); i++) {
                MemorySegment src = mapped(dir, arena, frames.get(i), -1);
                MemorySegment dst = mapped(dir, arena, new byte[data.length + 10], -1);
                assertEquals(sizes[i], d.decompress(src, dst), "frame " + i);
                assertEquals(-1, dst.asSlice(0, sizes[i]).mismatch(MemorySegment.ofArray(data).asSlice(0, sizes[i])), "frame " + i);
            }
        }
    }

    /**
     * A mapping whose arena is closed is refused before any work, as a native segment given by
     * address is ("no longer alive", naming the side), not by the Java copy after libzstd has run.
     */
    @Test
    void shouldRefuseAMappingWhoseArenaIsClosedBeforeAnyWork(@TempDir Path dir) throws IOException {
        MemorySegment closed;
        try (Arena a = Arena.ofConfined()) {
            closed = mapped(dir, a, TestData.text(300_000, 1), -1);
        }
        MemorySegment dead = closed;
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment frame = arena.allocate(ZstdCompressor.maxCompressedSize(300_000));
            long n = c.compress(MemorySegment.ofArray(TestData.text(300_000, 1)), frame);
            List<Executable> calls = List.of(() -> c.compress(dead, frame), () -> c.compress(frame.asSlice(0, n), dead),
                    () -> d.decompress(dead, frame), () -> d.decompress(frame.asSlice(0, n), dead));
            List<String> sides = List.of("source", "destination", "frame", "destination");
            for (int i = 0; i < calls.size(); i++) {
                IllegalStateException e = assertThrows(IllegalStateException.class, calls.get(i));
                assertEquals(sides.get(i) + " segment is no longer alive: its arena is closed", e.getMessage());
            }
        }
    }

    static String kind(MemorySegment segment) {
        return segment.isMapped() ? "mapped" : segment.isNative() ? "native" : "heap";
    }
}

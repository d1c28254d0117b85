package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictDecompress;
import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mapped paths of {@link MappedSegmentTest} at their edges: sizes at the one-call limits and
 * the chunk size and one either side, every mix of mapped, heap and native source and destination,
 * each compressor setting that changes the route (negative level, checksum, workers, a dictionary
 * by id and unnamed), undeclared and concatenated frames, destinations too small and read-only,
 * and files cut in the first chunk, a middle chunk and the last page. Every frame is compared with
 * the one a heap source gives and read back by zstd-jni.
 */
class MappedSegmentEdgeTest {

    private static final int AT = 8;
    private static final int[] SIZES = {131_071, 131_072, 131_073, 262_143, 262_144, 262_145, 524_287, 524_288, 524_289, 786_432};

    @Test
    void shouldGiveTheHeapFramesForEveryMixSizeAndSetting(@TempDir Path dir) throws IOException {
        long live = LibZstd.liveNativeObjects();
        try (ZstdDictionary dict = ZstdDictionary.train(TestData.samples(2000), 16_384); Arena arena = Arena.ofConfined()) {
            List<Supplier<ZstdCompressor>> settings = List.of(
                    () -> new ZstdCompressor(3), () -> new ZstdCompressor(-5),
                    () -> ZstdCompressor.builder().checksum(true).build(),
                    () -> ZstdCompressor.builder().workers(2).checksum(true).build(),
                    () -> ZstdCompressor.builder().dictionary(dict).build(),
                    () -> ZstdCompressor.builder().dictionary(dict).dictionaryIdInFrame(false).workers(1).build());
            for (int s = 0; s < settings.size(); s++) {
                boolean withoutId = s == 5;
                try (ZstdCompressor c = settings.get(s).get();
                     ZstdDecompressor d = withoutId ? ZstdDecompressor.builder().dictionaryForFramesWithoutId(dict).build()
                             : ZstdDecompressor.builder().dictionary(dict).build();
                     ZstdDecompressCtx jni = new ZstdDecompressCtx()) {
                    if (s >= 4) {
                        jni.loadDict(new ZstdDictDecompress(dict.bytes()));
                    }
                    for (int size : SIZES) {
                        byte[] data = TestData.text(size, size + s);
                        int bound = (int) ZstdCompressor.maxCompressedSize(size);
                        byte[] expected = c.compress(data);
                        for (MemorySegment src : kinds(dir, arena, pad(data))) {
                            for (MemorySegment frame : kinds(dir, arena, new byte[AT + bound])) {
                                String what = "setting " + s + ", size=" + size + ", " + MappedSegmentTest.kind(src) + " -> " + MappedSegmentTest.kind(frame);
                                long n = c.compress(src, AT, size, frame, AT, bound);
                                byte[] bytes = frame.asSlice(AT, n).toArray(JAVA_BYTE);
                                if (src.isMapped() || frame.isMapped() || !src.isNative() || !frame.isNative()) {
                                    assertArrayEquals(expected, bytes, what); // native to native alone goes by address, in one call
                                }
                                assertArrayEquals(data, jni.decompress(bytes, size), what + ": zstd-jni");
                                for (MemorySegment out : kinds(dir, arena, new byte[AT + size])) {
                                    assertEquals(size, d.decompress(frame, AT, n, out, AT, size), what + " -> " + MappedSegmentTest.kind(out));
                                    assertEquals(-1, out.asSlice(AT, size).mismatch(MemorySegment.ofArray(data)), what);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertEquals(live, LibZstd.liveNativeObjects());
    }

    @Test
    void shouldReadUndeclaredAndConcatenatedFramesFromAMappingAsFromTheHeap(@TempDir Path dir) throws IOException {
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : SIZES) {
                byte[] data = TestData.text(size, size);
                ByteArrayOutputStream undeclared = new ByteArrayOutputStream();
                try (ZstdOutputStream out = new ZstdOutputStream(undeclared, c)) {
                    out.write(data);
                }
                byte[] frame = undeclared.toByteArray();
                for (MemorySegment src : kinds(dir, arena, frame)) {
                    for (MemorySegment out : kinds(dir, arena, new byte[size + 3])) {
                        assertEquals(size, d.decompress(src, out), "undeclared " + size + " " + MappedSegmentTest.kind(src) + " -> " + MappedSegmentTest.kind(out));
                        assertEquals(-1, out.asSlice(0, size).mismatch(MemorySegment.ofArray(data)));
                    }
                }
                byte[] two = new byte[frame.length * 2];
                System.arraycopy(frame, 0, two, 0, frame.length);
                System.arraycopy(frame, 0, two, frame.length, frame.length);
                String heap = outcome(() -> d.decompress(MemorySegment.ofArray(two), MemorySegment.ofArray(new byte[2 * size])));
                for (MemorySegment src : kinds(dir, arena, two)) {
                    for (MemorySegment out : kinds(dir, arena, new byte[2 * size])) {
                        assertEquals(heap, outcome(() -> d.decompress(src, out)), "two frames " + MappedSegmentTest.kind(src) + " -> " + MappedSegmentTest.kind(out));
                    }
                }
                assertEquals(size, d.decompress(MemorySegment.ofArray(frame), MemorySegment.ofArray(new byte[size])), "goes on");
            }
        }
    }

    @Test
    void shouldRefuseADestinationTooSmallAsFromTheHeapAndGoOn(@TempDir Path dir) throws IOException {
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdCompressor w = ZstdCompressor.builder().workers(2).build(); ZstdDecompressor d = new ZstdDecompressor()) {
            for (ZstdCompressor compressor : List.of(c, w)) {
                for (int size : new int[] {1000, 131_072, 262_145, 786_432}) {
                    byte[] data = TestData.random(size, size);
                    byte[] frame = compressor.compress(data);
                    for (MemorySegment src : kinds(dir, arena, data)) {
                        for (MemorySegment dst : kinds(dir, arena, new byte[frame.length - 1])) {
                            ZstdException e = assertThrows(ZstdException.class, () -> compressor.compress(src, dst), MappedSegmentTest.kind(src) + " -> " + MappedSegmentTest.kind(dst));
                            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
                            MemorySegment ok = MemorySegment.ofArray(new byte[frame.length]);
                            assertEquals(frame.length, compressor.compress(src, ok), "goes on");
                            assertArrayEquals(frame, ok.toArray(JAVA_BYTE));
                        }
                    }
                    for (MemorySegment src : kinds(dir, arena, frame)) {
                        for (MemorySegment dst : kinds(dir, arena, new byte[size - 1])) {
                            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(src, dst), MappedSegmentTest.kind(src) + " -> " + MappedSegmentTest.kind(dst));
                            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
                            MemorySegment ok = MemorySegment.ofArray(new byte[size]);
                            assertEquals(size, d.decompress(src, ok), "goes on");
                            assertArrayEquals(data, ok.toArray(JAVA_BYTE));
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseAReadOnlyMappingAsDestination(@TempDir Path dir) throws IOException {
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : new int[] {100, 300_000}) {
                byte[] data = TestData.text(size, 1);
                byte[] frame = c.compress(data);
                Path file = Files.createTempFile(dir, "ro", ".bin");
                Files.write(file, new byte[(int) ZstdCompressor.maxCompressedSize(size) + size]);
                MemorySegment ro;
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    ro = ch.map(FileChannel.MapMode.READ_ONLY, 0, Files.size(file), arena);
                }
                for (Executable call : List.<Executable>of(() -> c.compress(MemorySegment.ofArray(data), ro),
                        () -> d.decompress(MemorySegment.ofArray(frame), ro),
                        () -> ZstdFrames.writeRawFrame(data, 0, size, ro, 0, ro.byteSize()))) {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
                    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
                }
                assertEquals(-1, ro.mismatch(MemorySegment.ofArray(new byte[(int) ro.byteSize()])), "nothing written");
                assertArrayEquals(data, d.decompress(c.compress(data)), "both go on");
            }
        }
    }

    /** Sources and destinations cut in the first chunk, a middle chunk and the last page alone. */
    @Test
    void shouldNameAFaultWhereverTheFileIsCutAndGoOn(@TempDir Path dir) throws IOException {
        int size = 4096 * 200 + 1; // the last byte on a page of its own
        byte[] data = TestData.text(size, 7);
        long[] cuts = {100, 4096, 131_072, 262_144, 400_000, 4096 * 200};
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdCompressor w = ZstdCompressor.builder().workers(2).build(); ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] frame = c.compress(data);
            byte[] stored = TestData.random(size, 8);
            byte[] storedFrame = c.compress(stored);
            MemorySegment big = arena.allocate(ZstdCompressor.maxCompressedSize(size));
            MemorySegment content = arena.allocate(size);
            for (long cut : cuts) {
                for (ZstdCompressor compressor : List.of(c, w)) {
                    MemorySegment src = MappedSegmentTest.mapped(dir, arena, data, cut);
                    fault("compress src cut at " + cut, "src could not be read", () -> compressor.compress(src, big));
                    assertArrayEquals(frame, compressor.compress(data), "goes on");
                    MemorySegment dst = MappedSegmentTest.mapped(dir, arena, new byte[(int) ZstdCompressor.maxCompressedSize(size)], Math.min(cut, storedFrame.length - 1) & ~4095L);
                    fault("compress dst cut at " + cut, "dst could not be written", () -> compressor.compress(MemorySegment.ofArray(stored), dst));
                    assertArrayEquals(storedFrame, compressor.compress(stored), "goes on");
                }
                long frameCut = Math.min(cut, storedFrame.length - 1) & ~4095L;
                MemorySegment fsrc = MappedSegmentTest.mapped(dir, arena, storedFrame, frameCut);
                fault("decompress src cut at " + frameCut, "src could not be read", () -> d.decompress(fsrc, content));
                assertArrayEquals(stored, d.decompress(storedFrame), "goes on");
                MemorySegment cdst = MappedSegmentTest.mapped(dir, arena, new byte[size], cut);
                fault("decompress dst cut at " + cut, "dst could not be written", () -> d.decompress(MemorySegment.ofArray(frame), cdst));
                assertArrayEquals(data, d.decompress(frame), "goes on");
            }
        }
    }

    /**
     * The frame inspectors over a mapping whose file was cut: until 2026-11-29 the JDK's bare
     * {@link InternalError}, now the codec's named fault, the frame's range in it.
     */
    @Test
    void shouldNameAFaultWhenInspectingACutMapping(@TempDir Path dir) throws IOException {
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3)) {
            byte[] frame = c.compress(TestData.random(1 << 20, 3));
            for (long cut : new long[] {0, 4096}) {
                MemorySegment m = MappedSegmentTest.mapped(dir, arena, frame, cut);
                List<Executable> calls = new ArrayList<>(List.of(() -> ZstdFrames.compressedSize(m),
                        () -> ZstdFrames.contentBound(m, 0, m.byteSize())));
                if (cut == 0) {
                    calls.addAll(List.of(() -> ZstdFrames.contentSize(m), () -> ZstdFrames.dictionaryId(m)));
                }
                for (Executable call : calls) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, call, "cut at " + cut);
                    assertEquals("frame could not be read: a fault in its memory (a mapped file shortened since it was mapped?): offset=0, length="
                            + frame.length + ", mapped=true (the frame was not inspected)", e.getMessage());
                    assertInstanceOf(InternalError.class, e.getCause());
                }
            }
        }
    }

    private static void fault(String what, String prefix, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call, what);
        assertTrue(e.getMessage().startsWith(prefix), what + ": " + e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause(), what);
    }

    private static String outcome(Supplier<Long> call) {
        try {
            return "returned " + call.get();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static byte[] pad(byte[] data) {
        byte[] padded = new byte[AT + data.length];
        System.arraycopy(data, 0, padded, AT, data.length);
        return padded;
    }

    /** {@code content} in a mapping, a heap segment and native memory. */
    private static List<MemorySegment> kinds(Path dir, Arena arena, byte[] content) throws IOException {
        MemorySegment n = arena.allocate(Math.max(1, content.length));
        MemorySegment.copy(content, 0, n, JAVA_BYTE, 0, content.length);
        return List.of(MappedSegmentTest.mapped(dir, arena, content, -1), MemorySegment.ofArray(content.clone()), n.asSlice(0, content.length));
    }
}

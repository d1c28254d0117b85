package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range outside its segment, or a segment whose arena is closed, given to the segment overloads
 * of {@code compress} and {@code decompress}: the error says which side was wrong, with the
 * offending offset, length and size, on every route (native, heap, the chunked heap path, file
 * mappings), and the compressor or decompressor goes on; so do {@code writeRawFrame} and the
 * frame inspectors, and a segment confined to another thread is named the same way. Before, a
 * range said only "Range [-1, -1 + 10) out of bounds for length 100", a closed segment that libzstd
 * was to be given by address "segment is no longer alive: its arena is closed", a closed
 * destination too small for the frame "destination too small", and another thread's segment
 * "segment is confined to another thread than …" or FFM's "Attempted access outside owning
 * thread".
 */
class SegmentSideErrorTest {

    /** Above the compressor's one-call heap limit: a heap source of this size is compressed in chunks. */
    private static final int CHUNKED = 200_000;

    private Arena arena;
    private ZstdCompressor compressor;
    private ZstdDecompressor decompressor;

    @BeforeEach
    void open() {
        arena = Arena.ofConfined();
        compressor = new ZstdCompressor(3);
        decompressor = new ZstdDecompressor();
    }

    @AfterEach
    void close() {
        decompressor.close();
        compressor.close();
        arena.close();
    }

    private List<MemorySegment> kinds(byte[] bytes) {
        return List.of(arena.allocateFrom(JAVA_BYTE, bytes), MemorySegment.ofArray(bytes.clone()));
    }

    private static String range(String side, String prefix, long offset, String lengthName, long length, long byteSize) {
        return side + " range out of bounds: " + prefix + "Offset=" + offset + ", " + prefix + lengthName + "=" + length
                + ", byteSize=" + byteSize;
    }

    @Test
    void shouldNameTheSideOfACompressionRangeOutsideItsSegment() {
        for (int size : new int[] {100, CHUNKED}) {
            byte[] data = TestData.text(size, 1);
            int capacity = (int) ZstdCompressor.maxCompressedSize(size);
            for (MemorySegment src : kinds(data)) {
                for (MemorySegment dst : kinds(new byte[capacity])) {
                    String where = "size=" + size + " src native=" + src.isNative() + " dst native=" + dst.isNative();
                    for (long[] bad : new long[][] {{-1, 10}, {0, size + 1L}, {size, 1}}) {
                        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                                () -> compressor.compress(src, bad[0], bad[1], dst, 0, capacity), where);
                        assertEquals(range("source", "src", bad[0], "Length", bad[1], size), e.getMessage(), where);
                    }
                    for (long[] bad : new long[][] {{-1, 10}, {0, capacity + 1L}, {1, capacity}}) {
                        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                                () -> compressor.compress(src, 0, size, dst, bad[0], bad[1]), where);
                        assertEquals(range("destination", "dst", bad[0], "Capacity", bad[1], capacity), e.getMessage(), where);
                    }
                    IndexOutOfBoundsException both = assertThrows(IndexOutOfBoundsException.class,
                            () -> compressor.compress(src, -1, 10, dst, 0, capacity + 1L), where);
                    assertEquals(range("source", "src", -1, "Length", 10, size) + "; "
                            + range("destination", "dst", 0, "Capacity", capacity + 1L, capacity), both.getMessage(), where);
                    long n = compressor.compress(src, 0, size, dst, 0, capacity);
                    assertArrayEquals(data, decompressor.decompress(dst.asSlice(0, n).toArray(JAVA_BYTE)), "goes on: " + where);
                }
            }
        }
        byte[] data = TestData.text(100, 2);
        byte[] out = new byte[1000];
        assertEquals(range("source", "src", 95, "Length", 10, 100), assertThrows(IndexOutOfBoundsException.class,
                () -> compressor.compress(data, 95, 10, out, 0, out.length)).getMessage(), "the byte[] overload");
        assertEquals(range("destination", "dst", 0, "Capacity", 1001, 1000), assertThrows(IndexOutOfBoundsException.class,
                () -> compressor.compress(data, 0, 100, out, 0, 1001)).getMessage(), "the byte[] overload");
    }

    @Test
    void shouldNameTheSideOfADecompressionRangeOutsideItsSegment() {
        byte[] data = TestData.text(1000, 3);
        byte[] frame = compressor.compress(data);
        for (MemorySegment src : kinds(frame)) {
            for (MemorySegment dst : kinds(new byte[data.length])) {
                String where = "src native=" + src.isNative() + " dst native=" + dst.isNative();
                for (long[] bad : new long[][] {{-1, 10}, {0, frame.length + 1L}, {1, frame.length}}) {
                    IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                            () -> decompressor.decompress(src, bad[0], bad[1], dst, 0, data.length), where);
                    assertEquals(range("frame", "src", bad[0], "Length", bad[1], frame.length), e.getMessage(), where);
                }
                for (long[] bad : new long[][] {{-1, 10}, {0, data.length + 1L}, {1, data.length}}) {
                    IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                            () -> decompressor.decompress(src, 0, frame.length, dst, bad[0], bad[1]), where);
                    assertEquals(range("destination", "dst", bad[0], "Capacity", bad[1], data.length), e.getMessage(), where);
                }
                assertEquals(data.length, decompressor.decompress(src, 0, frame.length, dst, 0, data.length), "goes on: " + where);
                assertArrayEquals(data, dst.toArray(JAVA_BYTE), where);
            }
        }
        byte[] out = new byte[data.length];
        assertEquals(range("frame", "src", 1, "Length", frame.length, frame.length), assertThrows(IndexOutOfBoundsException.class,
                () -> decompressor.decompress(frame, 1, frame.length, out, 0, out.length)).getMessage(), "the byte[] overload");
    }

    @Test
    void shouldNameTheSideOfAClosedSegmentWhenCompressing(@TempDir Path dir) throws IOException {
        byte[] data = TestData.text(CHUNKED, 4);
        long capacity = ZstdCompressor.maxCompressedSize(CHUNKED);
        MemorySegment deadSrc;
        MemorySegment deadDst;
        MemorySegment deadMapping;
        Path file = dir.resolve("data");
        Files.write(file, data);
        try (Arena a = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            deadSrc = a.allocateFrom(JAVA_BYTE, data);
            deadDst = a.allocate(capacity);
            deadMapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, CHUNKED, a);
        }
        String srcClosed = "source segment is no longer alive: its arena is closed";
        String dstClosed = "destination segment is no longer alive: its arena is closed";
        for (int size : new int[] {100, CHUNKED}) {
            String where = "size=" + size;
            for (MemorySegment dst : List.of(arena.allocate(capacity), MemorySegment.ofArray(new byte[(int) capacity]))) {
                for (MemorySegment src : List.of(deadSrc, deadMapping)) {
                    assertEquals(srcClosed, assertThrows(IllegalStateException.class,
                            () -> compressor.compress(src, 0, size, dst, 0, capacity), where).getMessage(), where);
                }
            }
            for (MemorySegment src : kinds(data)) {
                assertEquals(dstClosed, assertThrows(IllegalStateException.class,
                        () -> compressor.compress(src, 0, size, deadDst, 0, capacity), where).getMessage(), where);
            }
        }
        assertArrayEquals(data, decompressor.decompress(compressor.compress(data)), "goes on");
    }

    @Test
    void shouldNameAClosedDestinationBeforeSayingItIsTooSmallWhenDecompressing() {
        byte[] data = TestData.text(1000, 5);
        byte[] frame = compressor.compress(data);
        MemorySegment deadDst;
        try (Arena a = Arena.ofConfined()) {
            deadDst = a.allocate(data.length);
        }
        String dstClosed = "destination segment is no longer alive: its arena is closed";
        for (MemorySegment src : kinds(frame)) {
            String where = "src native=" + src.isNative();
            assertEquals(dstClosed, assertThrows(IllegalStateException.class,
                    () -> decompressor.decompress(src, 0, frame.length, deadDst, 0, data.length), where).getMessage(), where);
            assertEquals(dstClosed, assertThrows(IllegalStateException.class,
                    () -> decompressor.decompress(src, 0, frame.length, deadDst, 0, 10), where).getMessage(), "too small too: " + where);
        }
        assertArrayEquals(data, decompressor.decompress(frame), "goes on");
    }

    @Test
    void shouldNameTheSideOfARawFrameRangeOutsideItsSegment() {
        byte[] data = TestData.text(100, 6);
        int capacity = (int) ZstdFrames.rawFrameSize(data.length);
        for (MemorySegment src : kinds(data)) {
            for (MemorySegment dst : kinds(new byte[capacity])) {
                String where = "src native=" + src.isNative() + " dst native=" + dst.isNative();
                for (long[] bad : new long[][] {{-1, 10}, {0, 101}, {100, 1}}) {
                    assertEquals(range("source", "src", bad[0], "Length", bad[1], 100), assertThrows(IndexOutOfBoundsException.class,
                            () -> ZstdFrames.writeRawFrame(src, bad[0], bad[1], dst, 0, capacity), where).getMessage(), where);
                    assertEquals(range("source", "src", bad[0], "Length", bad[1], 100), assertThrows(IndexOutOfBoundsException.class,
                            () -> ZstdFrames.writeRawFrame(data, (int) bad[0], (int) bad[1], dst, 0, capacity), where).getMessage(),
                            "the byte[] overload: " + where);
                }
                for (long[] bad : new long[][] {{-1, 10}, {0, capacity + 1L}, {1, capacity}}) {
                    assertEquals(range("destination", "dst", bad[0], "Capacity", bad[1], capacity),
                            assertThrows(IndexOutOfBoundsException.class,
                                    () -> ZstdFrames.writeRawFrame(src, 0, 100, dst, bad[0], bad[1]), where).getMessage(), where);
                    assertEquals(range("destination", "dst", bad[0], "Capacity", bad[1], capacity),
                            assertThrows(IndexOutOfBoundsException.class,
                                    () -> ZstdFrames.writeRawFrame(data, 0, 100, dst, bad[0], bad[1]), where).getMessage(),
                            "the byte[] overload: " + where);
                }
                IndexOutOfBoundsException both = assertThrows(IndexOutOfBoundsException.class,
                        () -> ZstdFrames.writeRawFrame(src, -1, 10, dst, 0, capacity + 1L), where);
                assertEquals(range("source", "src", -1, "Length", 10, 100) + "; "
                        + range("destination", "dst", 0, "Capacity", capacity + 1L, capacity), both.getMessage(), where);
                assertEquals(capacity, ZstdFrames.writeRawFrame(src, 0, 100, dst, 0, capacity), "goes on: " + where);
                assertArrayEquals(data, decompressor.decompress(dst.toArray(JAVA_BYTE)), where);
            }
        }
    }

    @Test
    void shouldNameAFrameRangeOutsideItsSegmentWhenInspecting() {
        byte[] frame = compressor.compress(TestData.text(1000, 7));
        List<Function<long[], Object>> inspectors = List.of(
                r -> ZstdFrames.contentSize(kinds(frame).get((int) r[2]), r[0], r[1]),
                r -> ZstdFrames.dictionaryId(kinds(frame).get((int) r[2]), r[0], r[1]),
                r -> ZstdFrames.compressedSize(kinds(frame).get((int) r[2]), r[0], r[1]),
                r -> ZstdFrames.contentBound(kinds(frame).get((int) r[2]), r[0], r[1]));
        for (int kind = 0; kind < 2; kind++) {
            for (Function<long[], Object> inspector : inspectors) {
                for (long[] bad : new long[][] {{-1, 10}, {0, frame.length + 1L}, {1, frame.length}}) {
                    long[] args = {bad[0], bad[1], kind};
                    String where = "native=" + (kind == 0) + " offset=" + bad[0] + " length=" + bad[1];
                    assertEquals("frame range out of bounds: offset=" + bad[0] + ", length=" + bad[1] + ", byteSize=" + frame.length,
                            assertThrows(IndexOutOfBoundsException.class, () -> inspector.apply(args), where).getMessage(), where);
                }
                assertEquals(1000L, ZstdFrames.contentSize(kinds(frame).get(kind), 0, frame.length), "goes on");
            }
        }
    }

    /**
     * A segment confined to another thread is named as source, frame or destination, as a closed
     * one is, on every route: by address, in Java (a frame's header, a heap or chunked path, a
     * mapping, a raw frame, the inspectors); still a {@link WrongThreadException}, the first error
     * as its cause.
     */
    @Test
    void shouldNameTheSideOfASegmentConfinedToAnotherThread(@TempDir Path dir) throws Exception {
        byte[] data = TestData.text(CHUNKED, 8);
        byte[] frame = compressor.compress(data);
        long capacity = ZstdCompressor.maxCompressedSize(CHUNKED);
        Path file = dir.resolve("data");
        Files.write(file, data);
        MemorySegment[] theirs = new MemorySegment[4]; // source, frame, destination, mapped source
        CountDownLatch made = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread owner = Thread.ofPlatform().name("segment-owner").start(() -> {
            try (Arena confined = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                theirs[0] = confined.allocateFrom(JAVA_BYTE, data);
                theirs[1] = confined.allocateFrom(JAVA_BYTE, frame);
                theirs[2] = confined.allocate(capacity);
                theirs[3] = ch.map(FileChannel.MapMode.READ_ONLY, 0, CHUNKED, confined);
                made.countDown();
                done.await();
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        try {
            made.await();
            String confined = " segment is confined to another thread than " + Thread.currentThread().getName();
            for (int size : new int[] {100, CHUNKED}) {
                for (MemorySegment dst : List.of(arena.allocate(capacity), MemorySegment.ofArray(new byte[(int) capacity]))) {
                    String where = "size=" + size + " dst native=" + dst.isNative();
                    for (MemorySegment src : List.of(theirs[0], theirs[3])) {
                        assertConfined("source" + confined,
                                () -> compressor.compress(src, 0, size, dst, 0, capacity), "compress: " + where);
                    }
                    assertConfined("source" + confined,
                            () -> ZstdFrames.writeRawFrame(theirs[0], 0, size, dst, 0, capacity), "writeRawFrame: " + where);
                }
                for (MemorySegment src : kinds(data)) {
                    String where = "size=" + size + " src native=" + src.isNative();
                    assertConfined("destination" + confined,
                            () -> compressor.compress(src, 0, size, theirs[2], 0, capacity), "compress: " + where);
                    assertConfined("destination" + confined,
                            () -> ZstdFrames.writeRawFrame(src, 0, size, theirs[2], 0, capacity), "writeRawFrame: " + where);
                }
                assertConfined("destination" + confined,
                        () -> ZstdFrames.writeRawFrame(data, 0, size, theirs[2], 0, capacity), "writeRawFrame(byte[]): size=" + size);
            }
            for (MemorySegment dst : List.of(arena.allocate(CHUNKED), MemorySegment.ofArray(new byte[CHUNKED]))) {
                assertConfined("frame" + confined, () -> decompressor.decompress(theirs[1], 0, frame.length, dst, 0, CHUNKED),
                        "decompress: dst native=" + dst.isNative());
            }
            for (MemorySegment src : kinds(frame)) {
                for (long dstCapacity : new long[] {CHUNKED, 10}) {
                    assertConfined("destination" + confined, () -> decompressor.decompress(src, 0, frame.length, theirs[2], 0, dstCapacity),
                            "decompress: src native=" + src.isNative() + " dstCapacity=" + dstCapacity);
                }
            }
            assertConfined("frame" + confined, () -> ZstdFrames.contentSize(theirs[1], 0, frame.length), "contentSize");
            assertConfined("frame" + confined, () -> ZstdFrames.dictionaryId(theirs[1], 0, frame.length), "dictionaryId");
            assertConfined("frame" + confined, () -> ZstdFrames.compressedSize(theirs[1], 0, frame.length), "compressedSize");
            assertConfined("frame" + confined, () -> ZstdFrames.contentBound(theirs[1], 0, frame.length), "contentBound");
            assertArrayEquals(data, decompressor.decompress(compressor.compress(data)), "goes on");
        } finally {
            done.countDown();
            owner.join();
        }
    }

    private static void assertConfined(String expected, org.junit.jupiter.api.function.Executable call, String where) {
        WrongThreadException e = assertThrows(WrongThreadException.class, call, where);
        assertEquals(expected, e.getMessage(), where);
        assertSame(WrongThreadException.class, e.getCause() == null ? null : e.getCause().getClass(), "the first error as cause: " + where);
    }
}

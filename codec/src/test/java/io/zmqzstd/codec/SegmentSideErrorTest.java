package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range outside its segment, or a segment whose arena is closed, given to the segment overloads
 * of {@code compress} and {@code decompress}: the error says which side was wrong, with the
 * offending offset, length and size, on every route (native, heap, the chunked heap path, file
 * mappings), and the compressor or decompressor goes on. Before, a range said only "Range [-1, -1
 * + 10) out of bounds for length 100", a closed segment that libzstd was to be given by address
 * "segment is no longer alive: its arena is closed", and a closed destination too small for the
 * frame "destination too small".
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
}

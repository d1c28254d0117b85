package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A source range that shares memory with the destination range is refused before anything is
 * written. Before, compressing native memory in place (or shifted by 100 bytes) returned a frame
 * that decoded, without an error, to other bytes than the input; {@code writeRawFrame} in place
 * wrote its header over the payload; decompressing a frame into memory that starts just before it
 * blamed the sound frame ("frame content longer than its header declares", {@code CORRUPT}), and
 * a 1 MB heap frame likewise ("Data corruption detected").
 */
class OverlappingRangesTest {

    private static final int[] SIZES = {1000, 100_000, 1_000_000};

    @Test
    void shouldRefuseToCompressIntoMemoryThatOverlapsTheSource() {
        try (ZstdCompressor c = new ZstdCompressor(3); Arena arena = Arena.ofConfined()) {
            for (int size : SIZES) {
                byte[] input = TestData.text(size, size);
                int room = (int) ZstdCompressor.maxCompressedSize(size) + 100;
                MemorySegment nativeBuf = arena.allocate(room);
                MemorySegment.copy(input, 0, nativeBuf, ValueLayout.JAVA_BYTE, 0, size);
                byte[] heapBuf = Arrays.copyOf(input, room);
                MemorySegment heapSeg = MemorySegment.ofArray(heapBuf);
                for (int shift : new int[] {0, 100, -50}) {
                    int srcAt = shift < 0 ? -shift : 0;
                    int dstAt = shift < 0 ? 0 : shift;
                    String what = "size=" + size + ", shift=" + shift;
                    assertOverlapRefused(() -> c.compress(nativeBuf, srcAt, size - srcAt, nativeBuf, dstAt, room - dstAt), "native " + what);
                    assertOverlapRefused(() -> c.compress(heapSeg, srcAt, size - srcAt, heapSeg, dstAt, room - dstAt), "heap " + what);
                    assertOverlapRefused(() -> c.compress(heapBuf, srcAt, size - srcAt, heapBuf, dstAt, room - dstAt), "byte[] " + what);
                }
                // Two segments over the same native memory, one a reinterpretation of the other
                MemorySegment alias = MemorySegment.ofAddress(nativeBuf.address()).reinterpret(room);
                assertOverlapRefused(() -> c.compress(nativeBuf, 0, size, alias, 10, room - 10), "native alias size=" + size);
            }
        }
    }

    @Test
    void shouldRefuseToDecompressIntoMemoryThatOverlapsTheFrame() {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor();
             Arena arena = Arena.ofConfined()) {
            for (int size : SIZES) {
                byte[] frame = c.compress(concat(TestData.text(size / 2, size), TestData.random(size - size / 2, size)));
                int room = Math.max(size, frame.length) + 20;
                MemorySegment nativeBuf = arena.allocate(room);
                MemorySegment.copy(frame, 0, nativeBuf, ValueLayout.JAVA_BYTE, 10, frame.length);
                byte[] heapBuf = new byte[room];
                System.arraycopy(frame, 0, heapBuf, 10, frame.length);
                assertOverlapRefused(() -> d.decompress(nativeBuf, 10, frame.length, nativeBuf, 0, size), "native size=" + size);
                assertOverlapRefused(() -> d.decompress(heapBuf, 10, frame.length, heapBuf, 0, size), "heap size=" + size);
                // zstd's in-place layout (frame at the end of the output) overlaps too
                assertOverlapRefused(() -> d.decompress(nativeBuf, room - frame.length, frame.length, nativeBuf, 0, room),
                        "native, frame at the end, size=" + size);
            }
        }
    }

    @Test
    void shouldRefuseARawFrameOverItsOwnPayload() {
        try (Arena arena = Arena.ofConfined()) {
            for (int size : SIZES) {
                MemorySegment buf = arena.allocate(ZstdFrames.rawFrameSize(size) + 10);
                assertOverlapRefused(() -> ZstdFrames.writeRawFrame(buf, 0, size, buf, 0, buf.byteSize()), "native size=" + size);
                MemorySegment heap = MemorySegment.ofArray(new byte[(int) buf.byteSize()]);
                assertOverlapRefused(() -> ZstdFrames.writeRawFrame(heap, 10, size, heap, 0, heap.byteSize()), "heap size=" + size);
            }
        }
    }

    /** The array form checks a heap destination over the payload's own array; separate ranges of it are fine. */
    @Test
    void shouldRefuseARawFrameFromAnArrayOverThatArray() {
        for (int size : SIZES) {
            byte[] array = TestData.random((int) ZstdFrames.rawFrameSize(size) + 10 + size, size);
            MemorySegment whole = MemorySegment.ofArray(array);
            assertOverlapRefused(() -> ZstdFrames.writeRawFrame(array, 10, size, whole, 0, ZstdFrames.rawFrameSize(size)),
                    "size=" + size);
            byte[] payload = Arrays.copyOfRange(array, 0, size);
            long n = ZstdFrames.writeRawFrame(array, 0, size, whole, size, array.length - size);
            try (ZstdDecompressor d = new ZstdDecompressor()) {
                assertArrayEquals(payload, d.decompress(Arrays.copyOfRange(array, size, size + (int) n)), "size=" + size);
            }
        }
    }

    @Test
    void shouldTakeSeparateRangesOfTheSameMemoryAndGiveARangeErrorFirst() {
        int size = 300_000;
        byte[] input = TestData.text(size, 9);
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor();
             Arena arena = Arena.ofConfined()) {
            int bound = (int) ZstdCompressor.maxCompressedSize(size);
            // input, then frame, then content, in one array and in one native segment
            byte[] heap = Arrays.copyOf(input, size + bound + size);
            int n = c.compress(heap, 0, size, heap, size, bound);
            assertTrue(n > 0);
            assertArrayEquals(input, Arrays.copyOfRange(heap, size + bound, size + bound + d.decompress(heap, size, n, heap, size + bound, size)));
            MemorySegment mem = arena.allocate(heap.length);
            MemorySegment.copy(input, 0, mem, ValueLayout.JAVA_BYTE, 0, size);
            long m = c.compress(mem, 0, size, mem, size, bound);
            long back = d.decompress(mem, size, m, mem, size + bound, size);
            assertArrayEquals(input, mem.asSlice(size + bound, back).toArray(ValueLayout.JAVA_BYTE));
            long raw = ZstdFrames.writeRawFrame(mem, 0, size, mem, size, bound);
            assertArrayEquals(input, d.decompress(mem.asSlice(size, raw).toArray(ValueLayout.JAVA_BYTE)));
            // an overlapping range that also runs past its segment is the range error it is
            assertThrows(IndexOutOfBoundsException.class, () -> c.compress(mem, 0, size, mem, 10, mem.byteSize()));
        }
    }

    private static void assertOverlapRefused(Executable call, String what) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, what);
        assertTrue(e.getMessage().startsWith("source and destination overlap: "), what + ": " + e.getMessage());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

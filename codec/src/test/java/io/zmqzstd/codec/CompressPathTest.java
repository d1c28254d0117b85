package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A compressor configured by level alone compresses whole inputs with ZSTD_compressCCtx, the others
 * with ZSTD_compress2. The switch must not change a byte on the wire, nor the level of the frames
 * that the same compressor later streams through its context's own parameters.
 */
class CompressPathTest {

    @Test
    void shouldWriteTheFramesOfZstdCompress2() throws Throwable {
        int[] levels = {-5, 1, 3, 9, 19};
        int[] sizes = {0, 1, 64, 1000, 100_000, 300_000};
        long reference = (long) LibZstd.CREATE_CCTX.invokeExact();
        try (Arena arena = Arena.ofConfined()) {
            for (int level : levels) {
                long r = (long) LibZstd.CCTX_SET_PARAMETER.invokeExact(reference, LibZstd.C_COMPRESSION_LEVEL, level);
                assertFalse(LibZstd.isError(r), "ZSTD_CCtx_setParameter(level=" + level + ")");
                try (ZstdCompressor c = new ZstdCompressor(level)) {
                    for (int size : sizes) {
                        byte[] data = TestData.text(size, level * 31L + size);
                        MemorySegment src = arena.allocateFrom(JAVA_BYTE, data);
                        long bound = ZstdCompressor.maxCompressedSize(size);
                        MemorySegment expected = arena.allocate(bound);
                        long n = (long) LibZstd.COMPRESS2_RAW.invokeExact(reference, expected.address(), bound,
                                src.address(), (long) size);
                        assertFalse(LibZstd.isError(n), "ZSTD_compress2 failed");
                        byte[] want = expected.asSlice(0, n).toArray(JAVA_BYTE);
                        MemorySegment frame = arena.allocate(bound);
                        long m = c.compress(src, 0, size, frame, 0, bound);
                        assertArrayEquals(want, frame.asSlice(0, m).toArray(JAVA_BYTE),
                                "native segments, level=" + level + ", size=" + size);
                        if (size <= 100_000) { // heap input through the scratch memory, still one call
                            assertArrayEquals(want, c.compress(data), "byte[], level=" + level + ", size=" + size);
                        }
                    }
                }
            }
        } finally {
            long ignored = (long) LibZstd.FREE_CCTX.invokeExact(reference);
        }
    }

    @Test
    void shouldKeepItsLevelForStreamedInputsAfterOneShotCalls() {
        byte[] large = TestData.text(600_000, 7); // a heap input above the one-call limit: streamed in chunks
        byte[] fresh;
        try (ZstdCompressor c = new ZstdCompressor(1)) {
            fresh = c.compress(large);
        }
        try (ZstdCompressor c = new ZstdCompressor(1); Arena arena = Arena.ofConfined()) {
            MemorySegment small = arena.allocateFrom(JAVA_BYTE, TestData.text(1000, 8));
            MemorySegment out = arena.allocate(ZstdCompressor.maxCompressedSize(1000));
            c.compress(small, 0, 1000, out, 0, out.byteSize());
            assertArrayEquals(fresh, c.compress(large), "level 1 after a one-shot call");
        }
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            assertFalse(java.util.Arrays.equals(fresh, c.compress(large)), "level 3 writes other frames than level 1");
        }
    }
}

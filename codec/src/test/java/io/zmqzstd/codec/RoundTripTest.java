package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoundTripTest {

    private static ZstdCompressor compressor;
    private static ZstdDecompressor decompressor;
    private static Arena arena;

    @BeforeAll
    static void open() {
        compressor = new ZstdCompressor(3);
        decompressor = new ZstdDecompressor();
        arena = Arena.ofConfined();
    }

    @AfterAll
    static void close() {
        compressor.close();
        decompressor.close();
        arena.close();
    }

    private static MemorySegment segment(byte[] content, boolean nativeMemory) {
        return nativeMemory ? arena.allocateFrom(JAVA_BYTE, content) : MemorySegment.ofArray(content.clone());
    }

    private static MemorySegment empty(long size, boolean nativeMemory) {
        return nativeMemory ? arena.allocate(Math.max(1, size)) : MemorySegment.ofArray(new byte[(int) size]);
    }

    /** Every heap/native combination of source, frame, frame as read back, and destination. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 64, 1024, 64 * 1024, 1024 * 1024})
    void shouldRoundTripAcrossEveryHeapNativeCombination(int size) {
        byte[] data = TestData.text(size, size);
        long bound = ZstdCompressor.maxCompressedSize(size);
        for (int combo = 0; combo < 16; combo++) {
            MemorySegment src = segment(data, (combo & 1) != 0);
            MemorySegment frame = empty(bound, (combo & 2) != 0);
            long n = compressor.compress(src, 0, size, frame, 0, bound);
            MemorySegment frameIn = segment(frame.asSlice(0, n).toArray(JAVA_BYTE), (combo & 4) != 0);
            assertDecodes(data, frameIn, n, empty(size, (combo & 8) != 0), "combo=" + combo);
        }
    }

    /** 64 MiB through every heap/native combination: one-call native paths and chunked heap paths. */
    @Test
    void shouldRoundTrip64MiBAcrossEveryHeapNativeCombination() {
        int size = 64 * 1024 * 1024;
        byte[] data = TestData.text(size, 64);
        long bound = ZstdCompressor.maxCompressedSize(size);
        MemorySegment[] sources = {MemorySegment.ofArray(data), arena.allocateFrom(JAVA_BYTE, data)};
        MemorySegment[] frames = {empty(bound, false), empty(bound, true)};
        MemorySegment[] outs = {empty(size, false), empty(size, true)};
        try (ZstdCompressor fast = new ZstdCompressor(1)) {
            for (int combo = 0; combo < 8; combo++) {
                MemorySegment frame = frames[(combo >> 1) & 1];
                MemorySegment out = outs[(combo >> 2) & 1];
                out.fill((byte) 0);
                long n = fast.compress(sources[combo & 1], 0, size, frame, 0, bound);
                assertDecodes(data, frame, n, out, "combo=" + combo);
            }
            byte[] heapFrame = fast.compress(data);
            assertArrayEquals(data, decompressor.decompress(heapFrame), "byte[] both ways");
        }
    }

    /** {@code frame[0, n)} names its content size and decodes to {@code data} in {@code out}. */
    private static void assertDecodes(byte[] data, MemorySegment frame, long n, MemorySegment out, String what) {
        assertEquals(data.length, ZstdFrames.contentSize(frame, 0, n), "content size always written, " + what);
        assertEquals(data.length, decompressor.decompress(frame, 0, n, out, 0, data.length), what);
        assertEquals(-1, out.asSlice(0, data.length).mismatch(MemorySegment.ofArray(data)), what);
    }

    @Test
    void shouldApplyTheLevel() {
        byte[] data = TestData.text(256 * 1024, 19);
        try (ZstdCompressor slow = new ZstdCompressor(19); ZstdCompressor fastest = new ZstdCompressor(-5)) {
            byte[] small = slow.compress(data);
            byte[] large = fastest.compress(data);
            assertTrue(small.length < large.length, "level 19: " + small.length + " B, level -5: " + large.length + " B");
            assertArrayEquals(data, decompressor.decompress(small));
            assertArrayEquals(data, decompressor.decompress(large));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {-7, -1, 1, 3, 19})
    void shouldRoundTripAtEveryLevel(int level) {
        byte[] data = TestData.text(64 * 1024, level + 100);
        try (ZstdCompressor c = new ZstdCompressor(level)) {
            assertEquals(level, c.level());
            byte[] frame = c.compress(data);
            assertTrue(frame.length < data.length, "text compresses at level " + level);
            assertArrayEquals(data, decompressor.decompress(frame));
        }
    }

    /** Builder.level: 0 means the default level (3); level() still says 0, as given. */
    @Test
    void shouldTakeLevel0AsTheDefaultLevel() {
        byte[] data = TestData.text(64 * 1024, 29);
        for (boolean checksum : new boolean[] {false, true}) {
            try (ZstdCompressor zero = ZstdCompressor.builder().level(0).checksum(checksum).build();
                 ZstdCompressor three = ZstdCompressor.builder().level(ZstdCompressor.DEFAULT_LEVEL).checksum(checksum).build();
                 ZstdCompressor one = ZstdCompressor.builder().level(1).checksum(checksum).build()) {
                byte[] frame = zero.compress(data);
                assertArrayEquals(three.compress(data), frame, "checksum " + checksum);
                assertTrue(!Arrays.equals(one.compress(data), frame), "levels 1 and 3 differ on this input");
                assertEquals(0, zero.level());
            }
        }
    }

    /**
     * Builder.level documents that zstd clamps a level outside its range to the nearest bound:
     * the frames are those of level 22 and of zstd's minimum level (-131072, ZSTD_minCLevel), on
     * the level-only path (ZSTD_compressCCtx) and with a checksum (ZSTD_compress2) alike.
     */
    @Test
    void shouldCompressAtTheNearestBoundForALevelOutOfRange() {
        byte[] data = TestData.text(64 * 1024, 23);
        int[][] outOfRangeAndBound = {{23, 22}, {Integer.MAX_VALUE, 22}, {-131_073, -131_072}, {Integer.MIN_VALUE, -131_072}};
        for (int[] levels : outOfRangeAndBound) {
            for (boolean checksum : new boolean[] {false, true}) {
                try (ZstdCompressor out = ZstdCompressor.builder().level(levels[0]).checksum(checksum).build();
                     ZstdCompressor bound = ZstdCompressor.builder().level(levels[1]).checksum(checksum).build()) {
                    byte[] frame = out.compress(data);
                    assertArrayEquals(bound.compress(data), frame, "level " + levels[0] + ", checksum " + checksum);
                    assertArrayEquals(data, decompressor.decompress(frame));
                    assertEquals(levels[0], out.level(), "the level as given");
                }
            }
        }
    }

    @Test
    void shouldHonourOffsetsAndLengthsOnEveryOverload() {
        byte[] data = TestData.text(5000, 9);
        byte[] padded = new byte[data.length + 17];
        System.arraycopy(data, 0, padded, 7, data.length);
        byte[] frame = new byte[(int) ZstdCompressor.maxCompressedSize(data.length) + 40];
        int n = compressor.compress(padded, 7, data.length, frame, 13, frame.length - 13);
        byte[] out = new byte[data.length + 30];
        int m = decompressor.decompress(frame, 13, n, out, 11, data.length + 19);
        assertEquals(data.length, m);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(out, 11, 11 + m));
        assertEquals(0, out[10]);
        assertEquals(0, out[11 + m]);

        MemorySegment src = arena.allocate(data.length + 64);
        MemorySegment.copy(data, 0, src, JAVA_BYTE, 31, data.length);
        MemorySegment dst = arena.allocate(frame.length + 64);
        long nn = compressor.compress(src, 31, data.length, dst, 5, frame.length);
        MemorySegment back = arena.allocate(data.length + 64);
        assertEquals(data.length, decompressor.decompress(dst, 5, nn, back, 3, data.length));
        assertArrayEquals(data, back.asSlice(3, data.length).toArray(JAVA_BYTE));
    }

    @Test
    void shouldRoundTripWithChecksumAndWorkers() {
        byte[] data = TestData.text(4 * 1024 * 1024, 5);
        try (ZstdCompressor c = ZstdCompressor.builder().level(3).checksum(true).workers(2).build()) {
            byte[] frame = c.compress(data);
            assertEquals(data.length, ZstdFrames.contentSize(MemorySegment.ofArray(frame)));
            assertEquals(ZstdFrames.CHECKSUM_FLAG, frame[4] & ZstdFrames.CHECKSUM_FLAG, "checksum flag in the header");
            assertArrayEquals(data, decompressor.decompress(frame));
        }
        assertEquals(0, compressor.compress(data)[4] & ZstdFrames.CHECKSUM_FLAG, "no checksum unless asked");
    }

    /**
     * libzstd cuts a worker count above its maximum (256 with 1.5.4 on 64-bit) to that maximum
     * without a word; build() refuses it instead, naming the maximum, and frees the context.
     */
    @Test
    void shouldRefuseMoreWorkersThanLibzstdRuns() {
        long before = io.zmqzstd.codec.internal.LibZstd.liveNativeObjects();
        for (int workers : new int[] {1000, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ZstdCompressor.builder().workers(workers).build());
            assertTrue(e.getMessage().startsWith("workers=" + workers + " is more than libzstd runs: max="), e.getMessage());
        }
        assertEquals(before, io.zmqzstd.codec.internal.LibZstd.liveNativeObjects(), "a refused build() frees its context");
    }

    @Test
    void shouldRoundTripIncompressibleDataAtSmallAndLargeSizes() {
        for (int size : new int[] {10, 20_000, 300_000}) {
            byte[] data = TestData.random(size, size);
            byte[] frame = compressor.compress(data);
            assertTrue(frame.length <= ZstdCompressor.maxCompressedSize(size));
            assertArrayEquals(data, decompressor.decompress(frame));
        }
    }
}

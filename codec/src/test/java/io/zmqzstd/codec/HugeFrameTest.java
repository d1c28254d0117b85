package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Sizes at and past 2^31 bytes, where a Java array ends and a native segment, a zstd frame and
 * libzstd's {@code size_t} go on. The heavy cases (named so) take up to 4 GiB of native memory
 * and a few seconds each.
 */
class HugeFrameTest {

    private static final long PAST_TWO_GIB = (1L << 31) + 1000;
    private static final long FIVE_GIB = 5L << 30;

    /**
     * A frame header declaring 5 GiB, then one empty last raw block: frame inspection reads the
     * size whole, and decompress(byte[]) refuses it from the header, naming the size: above the
     * limit when the limit is lower, above an array's room when the limit allows it.
     */
    @Test
    void shouldReadAFiveGibDeclarationAndRefuseItForAnArrayNamingTheSize() {
        byte[] frame = new byte[16];
        MemorySegment f = MemorySegment.ofArray(frame);
        f.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, ZstdFrames.MAGIC);
        f.set(ValueLayout.JAVA_BYTE, 4, (byte) (3 << 6 | 1 << 5)); // 8-byte content size, single segment
        f.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 5, FIVE_GIB);
        f.set(ValueLayout.JAVA_BYTE, 13, (byte) 1); // block header: last, raw, 0 bytes
        assertEquals(FIVE_GIB, ZstdFrames.contentSize(f));

        try (ZstdDecompressor unlimited = ZstdDecompressor.builder().maxDecompressedSize(Long.MAX_VALUE).build();
             ZstdDecompressor byDefault = new ZstdDecompressor()) {
            ZstdException e = assertThrows(ZstdException.class, () -> unlimited.decompress(frame));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertEquals("frame larger than a byte[]: declared=" + FIVE_GIB + ", limit=" + (Integer.MAX_VALUE - 8),
                    e.getMessage());
            e = assertThrows(ZstdException.class, () -> byDefault.decompress(frame));
            assertEquals("frame larger than limit: declared=" + FIVE_GIB + ", limit="
                    + ZstdDecompressor.DEFAULT_MAX_DECOMPRESSED_SIZE, e.getMessage());

            byte[] small = {1, 2, 3};
            try (ZstdCompressor c = new ZstdCompressor(1)) {
                assertArrayEquals(small, unlimited.decompress(c.compress(small)), "the decompressor goes on");
            }
        }
        assertTrue(ZstdCompressor.maxCompressedSize((1L << 32) + 1) > (1L << 32) + 1, "no 32-bit wrap in the bound");
    }

    /**
     * A native segment of 2^31 + 1000 bytes compressed at level 1 and decompressed back: every
     * byte, the frame's declared size whole, and decompress(byte[]) of that 200 KB frame refused
     * from its header (no array of 2 GiB attempted).
     */
    @Test
    void heavyShouldRoundTripANativeSegmentPastTwoGib() {
        try (Arena arena = Arena.ofConfined();
             ZstdCompressor c = new ZstdCompressor(1);
             ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(3L << 30).build()) {
            MemorySegment src = arena.allocate(PAST_TWO_GIB);
            fillWithRepeatingPattern(src);
            MemorySegment dst = arena.allocate(64 << 20); // a repeating pattern compresses to about 200 KB
            MemorySegment frame = dst.asSlice(0, c.compress(src, dst));
            assertEquals(PAST_TWO_GIB, ZstdFrames.contentSize(frame));
            assertEquals(frame.byteSize(), ZstdFrames.compressedSize(frame));

            MemorySegment out = arena.allocate(PAST_TWO_GIB);
            assertEquals(PAST_TWO_GIB, d.decompress(frame, out));
            assertEquals(-1, src.mismatch(out), "every byte back");

            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(frame.toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertTrue(e.getMessage().startsWith("frame larger than a byte[]: declared=" + PAST_TWO_GIB), e.getMessage());
            e = assertThrows(ZstdException.class, () -> d.decompress(frame, out.asSlice(0, PAST_TWO_GIB - 1)));
            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
        }
    }

    /**
     * 2^31 + 1000 bytes written through a ZstdOutputStream and read back through a
     * ZstdInputStream: the stream's total, held to the limit over the whole stream, counts past
     * 2^31 (a limit of 3 GiB lets it all through; the default 256 MiB stops it).
     */
    @Test
    void heavyShouldStreamPastTwoGibHoldingTheTotalToTheLimit() throws IOException {
        byte[] chunk = new byte[1 << 20];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) (i * 7 + (i >>> 9));
        }
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(compressed, 1)) {
            for (long written = 0; written < PAST_TWO_GIB; ) {
                int n = (int) Math.min(chunk.length, PAST_TWO_GIB - written);
                out.write(chunk, 0, n);
                written += n;
            }
        }
        byte[] stream = compressed.toByteArray();
        try (ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(3L << 30).build();
             ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(stream), d)) {
            assertEquals(PAST_TWO_GIB, in.transferTo(OutputStream.nullOutputStream()));
        }
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(stream))) {
            ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> in.transferTo(OutputStream.nullOutputStream()));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
        }
    }

    /** {@code s} filled with 64 KiB of test data over and over: within level 1's window, so it compresses well. */
    private static void fillWithRepeatingPattern(MemorySegment s) {
        byte[] block = TestData.text(64 * 1024, 1);
        for (long at = 0; at < s.byteSize(); at += block.length) {
            MemorySegment.copy(block, 0, s, ValueLayout.JAVA_BYTE, at, (int) Math.min(block.length, s.byteSize() - at));
        }
    }
}

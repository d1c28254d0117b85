package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A frame cut short says where it is cut (in the header, in block K's header, inside block K, in
 * the checksum) and the fewest bytes that could still end it, on every way in that walks the
 * blocks: {@code decompress(byte[])}, the segment {@code decompress} on heap and native memory,
 * and {@link ZstdFrames#compressedSize}; the decompressor then decodes the whole frame. The frame
 * is a real one of four compressed blocks and a checksum, its blocks found by a walk of its own.
 */
class TruncatedFrameTest {

    private static final byte[] CONTENT = TestData.text(400_000, 11);

    private static byte[] frame;
    /** Offsets of the block headers in {@link #frame}, and each block's stored size. */
    private static final List<int[]> BLOCKS = new ArrayList<>();
    private static int headerSize;
    private static ZstdDecompressor decompressor;
    private static Arena arena;

    @BeforeAll
    static void open() {
        try (ZstdCompressor c = ZstdCompressor.builder().level(1).checksum(true).build()) {
            frame = c.compress(CONTENT);
        }
        int fhd = frame[4] & 0xFF;
        assertEquals(0x80 | 0x20 | 0x04, fhd, "4-byte content size, single segment, checksum, no dictionary ID");
        headerSize = 4 + 1 + 4;
        for (int p = headerSize; ; ) {
            int header = frame[p] & 0xFF | (frame[p + 1] & 0xFF) << 8 | (frame[p + 2] & 0xFF) << 16;
            assertEquals(2, header >>> 1 & 3, "compressed block at " + p);
            BLOCKS.add(new int[] {p, header >>> 3});
            p += 3 + (header >>> 3);
            if ((header & 1) != 0) {
                assertEquals(frame.length - 4, p, "the checksum ends the frame");
                break;
            }
        }
        assertEquals(4, BLOCKS.size(), "400,000 bytes in blocks of 128 KiB");
        decompressor = new ZstdDecompressor();
        arena = Arena.ofShared();
    }

    @AfterAll
    static void close() {
        decompressor.close();
        arena.close();
    }

    private static String incomplete(int length, String where, int needsAtLeast) {
        return "frame incomplete: length=" + length + ", " + where + ", needs at least " + needsAtLeast
                + (needsAtLeast == 1 ? " more byte" : " more bytes");
    }

    /** Every way in refuses the first {@code length} bytes of the frame as TRUNCATED with {@code message}, then goes on. */
    private static void assertCutSays(int length, String message) {
        byte[] cut = Arrays.copyOf(frame, length);
        MemorySegment nativeCut = arena.allocateFrom(JAVA_BYTE, cut);
        List<Supplier<Object>> ways = List.of(
                () -> decompressor.decompress(cut),
                () -> decompressor.decompress(MemorySegment.ofArray(cut), MemorySegment.ofArray(new byte[CONTENT.length])),
                () -> decompressor.decompress(nativeCut, arena.allocate(CONTENT.length)),
                () -> ZstdFrames.compressedSize(nativeCut));
        for (Supplier<Object> way : ways) {
            ZstdException e = assertThrows(ZstdException.class, way::get);
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason(), e.getMessage());
            assertEquals(message, e.getMessage());
            assertArrayEquals(CONTENT, decompressor.decompress(frame), "goes on");
        }
    }

    /**
     * A cut inside the magic number says how much the frame needs, as every later cut does: the
     * rest of the magic and the shortest frame after it (a 2-byte header and one block header).
     * Before 2026-11-29 it said only "frame incomplete: length=2 (cut inside the magic number)".
     */
    @Test
    void shouldSayHowMuchAFrameCutInsideItsMagicNumberNeeds() {
        for (int length = 1; length < 4; length++) {
            assertCutSays(length, incomplete(length, "cut inside the magic number", 9 - length));
        }
    }

    @Test
    void shouldSayAFrameIsCutInItsHeader() {
        assertCutSays(4, incomplete(4, "cut in the frame header after the magic number", 5));
        for (int length = 5; length < headerSize; length++) {
            // the header, one block header and the checksum: the shortest frame this header could start
            assertCutSays(length, incomplete(length, "cut in the frame header (of 9 bytes)", headerSize + 3 + 4 - length));
        }
        ZstdException e = assertThrows(ZstdException.class, () -> ZstdFrames.contentSize(MemorySegment.ofArray(frame), 0, 7));
        assertEquals(incomplete(7, "cut in the frame header (of 9 bytes)", 9), e.getMessage());
    }

    @Test
    void shouldSayAFrameIsCutInABlocksHeader() {
        int at = BLOCKS.get(1)[0];
        for (int length = at; length < at + 3; length++) {
            assertCutSays(length, incomplete(length, "cut in block 2's header (at offset " + at + ")", at + 3 + 4 - length));
        }
    }

    @Test
    void shouldSayAFrameIsCutInsideABlockAndHowMuchOfItIsMissing() {
        int at = BLOCKS.get(2)[0];
        int size = BLOCKS.get(2)[1];
        int length = at + 3 + size / 2;
        // the rest of block 3, at least block 4's header, the checksum
        int needs = at + 3 + size + 3 + 4 - length;
        assertTrue(needs > size / 2 + 7);
        assertCutSays(length, incomplete(length, "cut inside block 3 (compressed, of declared size " + size + " at offset " + at + ")",
                needs));
        int last = BLOCKS.get(3)[0];
        assertCutSays(last + 4, incomplete(last + 4, "cut inside block 4 (compressed, of declared size " + BLOCKS.get(3)[1]
                + " at offset " + last + ")", frame.length - last - 4));
    }

    @Test
    void shouldSayAFrameIsCutInItsChecksum() {
        for (int missing = 1; missing <= 4; missing++) {
            int length = frame.length - missing;
            assertCutSays(length, incomplete(length, "cut in the checksum (at offset " + (frame.length - 4) + ")", missing));
        }
    }
}

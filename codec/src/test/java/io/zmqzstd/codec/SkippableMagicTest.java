package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * {@link ZstdFrames#startsWithSkippableMagic}: the public inspector that tells a skippable frame
 * (RFC 8878 3.1.2) from a zstd frame and from anything else, checked against what the codec's
 * readers do with the same bytes: the stream steps over each of the sixteen magics, the one-shot
 * call refuses them as NOT_ZSTD naming a skippable frame.
 */
class SkippableMagicTest {

    private static byte[] withMagic(int magic, int contentLength) {
        byte[] f = TestData.skippable(contentLength);
        f[0] = (byte) magic;
        f[1] = (byte) (magic >>> 8);
        f[2] = (byte) (magic >>> 16);
        f[3] = (byte) (magic >>> 24);
        return f;
    }

    @Test
    void shouldTakeAllSixteenMagicsAsTheStreamAndTheOneShotCallDo() throws IOException {
        byte[] content = TestData.text(5000, 3);
        byte[] zstd;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            zstd = c.compress(content);
        }
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            for (int low = 0; low < 16; low++) {
                byte[] skippable = withMagic(0x184D2A50 + low, 20);
                assertTrue(ZstdFrames.startsWithSkippableMagic(MemorySegment.ofArray(skippable), 0, skippable.length),
                        "magic 0x184D2A5" + Integer.toHexString(low));
                assertTrue(ZstdFrames.startsWithSkippableMagic(MemorySegment.ofArray(skippable), 0, 4),
                        "the magic alone");

                ByteArrayOutputStream both = new ByteArrayOutputStream();
                both.write(skippable);
                both.write(zstd);
                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(both.toByteArray()))) {
                    assertArrayEquals(content, in.readAllBytes(), "the stream steps over magic " + low);
                }
                ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(skippable));
                assertEquals(ZstdException.Reason.NOT_ZSTD, e.reason());
                assertTrue(e.getMessage().contains("a skippable frame (magic 0x184D2A5"), e.getMessage());
            }
        }
        assertFalse(ZstdFrames.startsWithSkippableMagic(MemorySegment.ofArray(zstd), 0, zstd.length), "a zstd frame");
    }

    @Test
    void shouldRefuseTheNeighbouringMagicsAndAMagicCutShort() {
        for (int magic : new int[] {0x184D2A4F, 0x184D2A60, 0x184C2A50, 0x194D2A50, ZstdFrames.MAGIC, 0}) {
            byte[] f = withMagic(magic, 8);
            assertFalse(ZstdFrames.startsWithSkippableMagic(MemorySegment.ofArray(f), 0, f.length),
                    "magic 0x" + Integer.toHexString(magic));
        }
        byte[] f = withMagic(0x184D2A50, 0);
        for (int length = 0; length < 4; length++) {
            assertFalse(ZstdFrames.startsWithSkippableMagic(MemorySegment.ofArray(f), 0, length),
                    length + " bytes of a magic");
        }
    }

    @Test
    void shouldReadAtTheOffsetAndWithinTheRangeOnly() {
        byte[] f = withMagic(0x184D2A5F, 4);
        byte[] shifted = new byte[f.length + 7];
        System.arraycopy(f, 0, shifted, 7, f.length);
        MemorySegment s = MemorySegment.ofArray(shifted);
        assertTrue(ZstdFrames.startsWithSkippableMagic(s, 7, f.length));
        assertFalse(ZstdFrames.startsWithSkippableMagic(s, 0, shifted.length), "zeros at offset 0");
        assertFalse(ZstdFrames.startsWithSkippableMagic(s, 6, f.length), "one byte early");
        assertFalse(ZstdFrames.startsWithSkippableMagic(s, 7, 3), "the range ends inside the magic");
    }

    @Test
    void shouldNameARangeOutsideTheSegmentAndAClosedOne() {
        MemorySegment s = MemorySegment.ofArray(withMagic(0x184D2A50, 0));
        IndexOutOfBoundsException beyond = assertThrows(IndexOutOfBoundsException.class,
                () -> ZstdFrames.startsWithSkippableMagic(s, 4, 8));
        assertEquals("frame range out of bounds: offset=4, length=8, byteSize=8", beyond.getMessage());
        IndexOutOfBoundsException negative = assertThrows(IndexOutOfBoundsException.class,
                () -> ZstdFrames.startsWithSkippableMagic(s, -1, 4));
        assertTrue(negative.getMessage().startsWith("frame range out of bounds: offset=-1"), negative.getMessage());

        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            closed = arena.allocate(8);
            closed.copyFrom(s);
            assertTrue(ZstdFrames.startsWithSkippableMagic(closed, 0, 8));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ZstdFrames.startsWithSkippableMagic(closed, 0, 8));
        assertTrue(e.getMessage().contains("frame"), e.getMessage());
    }
}

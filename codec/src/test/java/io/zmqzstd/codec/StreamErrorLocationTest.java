package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link ZstdInputStream} over concatenated frames that fails in a later frame says which
 * frame, counting skippable ones, where it starts in the input and where its content would
 * start in the output: a user debugging a long log or a recorded connection needs to find it.
 */
class StreamErrorLocationTest {

    private static final byte[] ONE = TestData.text(5_000, 11);
    private static final byte[] TWO = TestData.text(7_000, 12);
    /** Incompressible, larger than the stream's 256 KiB input scratch: refilled several times. */
    private static final byte[] BIG = TestData.random(700_000, 13);

    private ZstdDecompressor decompressor;
    private ZstdCompressor compressor;

    @BeforeEach
    void open() {
        decompressor = new ZstdDecompressor();
        compressor = new ZstdCompressor(3);
    }

    @AfterEach
    void close() {
        compressor.close();
        decompressor.close();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** The error reading all of {@code input}, after checking that the next read names it too. */
    private ZstdStreamException failure(byte[] input) throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), decompressor)) {
            ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> in.transferTo(new ByteArrayOutputStream()));
            IOException again = assertThrows(IOException.class, in::read);
            assertTrue(again.getMessage().contains(e.getMessage()), again.getMessage());
            return e;
        }
    }

    private void assertLocated(ZstdStreamException e, ZstdException.Reason reason, int frame, long inputOffset, long contentOffset)
            throws IOException {
        assertEquals(reason, e.reason(), e.getMessage());
        String where = "; in the stream: frame=" + frame + ", inputOffset=" + inputOffset + ", contentOffset=" + contentOffset;
        assertTrue(e.getMessage().endsWith(where), e.getMessage() + " should end with " + where);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(compressor.compress(ONE)), decompressor)) {
            assertArrayEquals(ONE, in.readAllBytes(), "the decompressor goes on");
        }
    }

    @Test
    void shouldNameTheFrameAndItsOffsetsWhenTheThirdFrameIsDamaged() throws IOException {
        byte[] one = compressor.compress(ONE);
        byte[] two = compressor.compress(TWO);
        byte[] three = compressor.compress(ONE);
        byte[] damaged = three.clone();
        for (int i = 20; i < damaged.length - 4; i += 7) {
            damaged[i] ^= (byte) 0x5A;
        }
        ZstdStreamException e = failure(concat(one, two, damaged));
        assertLocated(e, ZstdException.Reason.CORRUPT, 3, one.length + two.length, ONE.length + TWO.length);
        assertTrue(e.errorCode() != 0 && !e.errorName().isEmpty(), "zstd's own code and name are kept: " + e.getMessage());
    }

    @Test
    void shouldNameTheFrameOfGarbageCutsAndMissingDictionaries() throws IOException {
        byte[] one = compressor.compress(ONE);
        byte[] two = compressor.compress(TWO);
        assertLocated(failure(concat(one, two, "garbage!".getBytes())), ZstdException.Reason.NOT_ZSTD, 3,
                one.length + two.length, ONE.length + TWO.length);
        byte[] three = compressor.compress(ONE);
        assertLocated(failure(concat(one, two, Arrays.copyOf(three, three.length - 10))), ZstdException.Reason.TRUNCATED, 3,
                one.length + two.length, ONE.length + TWO.length);
        ZstdDictionary dictionary = ZstdDictionary.train(TestData.samples(2_000), 4_096);
        byte[] withDictionary;
        try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dictionary).build()) {
            withDictionary = c.compress(ONE);
        }
        assertLocated(failure(concat(one, withDictionary)), ZstdException.Reason.DICTIONARY_MISSING, 2, one.length, ONE.length);
    }

    @Test
    void shouldCountSkippableFramesAndInputPastRefills() throws IOException {
        byte[] skippable = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3};
        byte[] big = compressor.compress(BIG);
        assertTrue(big.length > 2 * StreamBuffers.SCRATCH_BYTES, "spans refills: " + big.length);
        byte[] two = compressor.compress(TWO);
        byte[] damaged = two.clone();
        damaged[4] |= 1 << 3; // the reserved bit of the frame header descriptor
        assertLocated(failure(concat(big, skippable, damaged)), ZstdException.Reason.CORRUPT, 3,
                big.length + skippable.length, BIG.length);
        assertLocated(failure(concat(skippable, Arrays.copyOf(skippable, 6))), ZstdException.Reason.TRUNCATED, 2,
                skippable.length, 0);
    }

    @Test
    void shouldNameNoFrameWhenTheSourceIsEmpty() throws IOException {
        ZstdStreamException e = failure(new byte[0]);
        assertEquals(ZstdException.Reason.EMPTY, e.reason());
        assertEquals("input is empty: length=0", e.getMessage());
    }
}

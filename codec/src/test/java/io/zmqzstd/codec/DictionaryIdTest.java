package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Dictionary IDs of 2<sup>31</sup> and above, negative as a Java {@code int}, printed unsigned in
 * every message that names one; and what the refusal of a second dictionary under one ID says. Until 2026-11-29 "ZSTD_createCDict failed: id=…" and
 * "ZSTD_createDDict failed: id=…" printed them signed ("id=-1294967296").
 */
class DictionaryIdTest {

    private static final int HIGH_ID = (int) 3_000_000_000L;

    /**
     * The CDict and DDict failures: reached only when libzstd's allocation fails ({@link
     * ZstdDictionary#of} has digested the dictionary both ways), so their message is checked here.
     */
    @Test
    void shouldPrintAHighIdUnsignedWhenADictionaryCannotBeDigested() {
        assertEquals("ZSTD_createCDict failed: id=3000000000", ZstdDictionary.createFailed("ZSTD_createCDict", HIGH_ID).getMessage());
        assertEquals("ZSTD_createDDict failed: id=4294967295", ZstdDictionary.createFailed("ZSTD_createDDict", -1).getMessage());
    }

    /** The messages a dictionary with such an ID reaches for real. */
    @Test
    void shouldPrintAHighIdUnsignedInEveryReachableMessage() {
        byte[] bytes = ZstdDictionary.train(TestData.samples(2000), 8192).bytes();
        MemorySegment.ofArray(bytes).set(ZstdFrames.INT_LE, 4, HIGH_ID);
        ZstdDictionary dict = ZstdDictionary.of(bytes);
        assertEquals(HIGH_ID, dict.id());
        try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
             ZstdDecompressor without = new ZstdDecompressor()) {
            byte[] frame = c.compress(TestData.text(500, 1));
            assertEquals(HIGH_ID, ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
            ZstdException lacks = assertThrows(ZstdException.class, () -> without.decompress(frame));
            assertContains(lacks.getMessage(), "dictionaryId=3000000000");
            assertContains(assertThrows(IllegalArgumentException.class, () -> d.addDictionary(dict)).getMessage(), "id=3000000000");
        }
        dict.close();
        assertEquals("dictionary is closed: id=3000000000", assertThrows(IllegalStateException.class, dict::id).getMessage());
    }

    /**
     * A second dictionary under an ID already added says whether it is the same bytes again or
     * other content with that ID: until 2026-11-29 both were "dictionary already added: id=…", so a
     * copy cut inside its content (which keeps the ID its header names) read as the same
     * dictionary added twice.
     */
    @Test
    void shouldSayWhetherADictionaryOfAnIdAlreadyAddedIsTheSameBytesOrOtherContent() {
        byte[] bytes = ZstdDictionary.train(TestData.samples(2000), 8192).bytes();
        ZstdDictionary dict = ZstdDictionary.of(bytes);
        String id = Integer.toUnsignedString(dict.id());
        ZstdDictionary cut = ZstdDictionary.of(Arrays.copyOf(bytes, bytes.length - 1000));
        byte[] edited = bytes.clone();
        edited[edited.length - 10] ^= 1;
        ZstdDictionary sameSize = ZstdDictionary.of(edited);
        ZstdDictionary raw = ZstdDictionary.of("raw content one".getBytes(StandardCharsets.US_ASCII));
        ZstdDictionary otherRaw = ZstdDictionary.of("raw content, another".getBytes(StandardCharsets.US_ASCII));
        assertEquals(dict.id(), cut.id());
        try (ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).dictionary(raw).build()) {
            assertEquals("dictionary already added: id=" + id + ", the same bytes (bytes=" + bytes.length + ", equal CRC-32C)",
                    assertThrows(IllegalArgumentException.class, () -> d.addDictionary(ZstdDictionary.of(bytes))).getMessage());
            assertEquals("another dictionary with this ID already added: id=" + id + ", other content (added bytes="
                    + bytes.length + ", this one bytes=" + (bytes.length - 1000) + "; a copy cut or edited after its ID was"
                    + " written keeps the ID): frames naming the ID can be read with one of them only",
                    assertThrows(IllegalArgumentException.class, () -> d.addDictionary(cut)).getMessage());
            assertContains(assertThrows(IllegalArgumentException.class, () -> d.addDictionary(sameSize)).getMessage(),
                    "other content (added bytes=" + bytes.length + ", this one bytes=" + bytes.length + ", CRC-32C differs;");
            assertContains(assertThrows(IllegalArgumentException.class, () -> d.addDictionary(otherRaw)).getMessage(),
                    "another dictionary with this ID already added: id=0, other content (added bytes=15, this one bytes=20;"
                    + " raw-content dictionaries all have id=0)");
            assertContains(assertThrows(IllegalArgumentException.class,
                    () -> ZstdDecompressor.builder().dictionary(dict).dictionary(cut).build()).getMessage(), "other content");
            try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build()) {
                byte[] msg = TestData.text(500, 3);
                assertArrayEquals(msg, d.decompress(c.compress(msg)), "the dictionary added first still serves its ID");
            }
        }
    }

    private static void assertContains(String message, String part) {
        assertTrue(message.contains(part), message);
    }
}

package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Dictionary IDs of 2<sup>31</sup> and above, negative as a Java {@code int}, printed unsigned in
 * every message that names one. Until 2026-11-29 "ZSTD_createCDict failed: id=…" and
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

    private static void assertContains(String message, String part) {
        assertTrue(message.contains(part), message);
    }
}

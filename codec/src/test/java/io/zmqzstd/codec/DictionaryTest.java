package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DictionaryTest {

    @TempDir
    Path dir;

    private static List<byte[]> samples(long seed) {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            samples.add(TestData.text(180, seed + i));
        }
        return samples;
    }

    @Test
    void shouldPickTheDictionaryNamedByEachFrame() {
        byte[] message = TestData.text(150, 424_242);
        try (ZstdDictionary a = ZstdDictionary.train(samples(0), 4096);
             ZstdDictionary b = ZstdDictionary.train(samples(1_000_000), 6000);
             ZstdCompressor ca = ZstdCompressor.builder().dictionary(a).build();
             ZstdCompressor cb = ZstdCompressor.builder().level(-2).dictionary(b).build();
             ZstdCompressor plain = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(a).dictionary(b).build()) {
            assertNotEquals(a.id(), b.id());
            byte[] fa = ca.compress(message);
            byte[] fb = cb.compress(message);
            byte[] fp = plain.compress(message);
            assertTrue(fa.length < fp.length, "a dictionary shrinks small messages: " + fa.length + " vs " + fp.length);
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(message, d.decompress(fa));
                assertArrayEquals(message, d.decompress(fp));
                assertArrayEquals(message, d.decompress(fb));
            }
            assertEquals(b.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(fb)));
            assertThrows(IllegalArgumentException.class, () -> d.addDictionary(a));
        }
    }

    @Test
    void shouldSaveAndLoadAndOutliveClose() {
        Path file = dir.resolve("d.dict");
        ZstdDictionary trained = ZstdDictionary.train(samples(5), 4096);
        trained.save(file);
        ZstdDictionary loaded = ZstdDictionary.load(file);
        assertEquals(trained.id(), loaded.id());
        assertArrayEquals(trained.bytes(), loaded.bytes());
        try (ZstdCompressor c = ZstdCompressor.builder().dictionary(trained).build();
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(loaded).build()) {
            trained.close();
            loaded.close();
            trained.close();
            assertThrows(IllegalStateException.class, trained::id);
            assertThrows(IllegalStateException.class, () -> loaded.save(file));
            byte[] message = TestData.text(300, 8);
            assertArrayEquals(message, d.decompress(c.compress(message)), "contexts keep their own copies");
        }
    }

    @Test
    void shouldTellAZstdDictionaryFromRawContent() {
        try (ZstdDictionary trained = ZstdDictionary.train(samples(9), 4096);
             ZstdDictionary raw = ZstdDictionary.of(TestData.text(2000, 3))) {
            assertTrue(trained.isStructured());
            assertNotEquals(0, trained.id());
            assertFalse(raw.isStructured());
            assertEquals(0, raw.id());
            byte[] magicOnly = {0x37, (byte) 0xA4, 0x30, (byte) 0xEC};
            assertFalse(ZstdDictionary.of(magicOnly).isStructured(), "too short to hold an ID after the magic");
        }
    }

    @Test
    void shouldExplainWhyTrainingFails() {
        ZstdException e = assertThrows(ZstdException.class,
                () -> ZstdDictionary.train(List.of("a".getBytes(), "b".getBytes()), 4096));
        assertTrue(e.getMessage().contains("samples=2"), e.getMessage());
        assertTrue(e.errorCode() != 0 && !e.errorName().isEmpty(), "zstd's code and name: " + e.getMessage());
        assertTrue(e.getMessage().contains(e.errorName()), e.getMessage());
    }
}

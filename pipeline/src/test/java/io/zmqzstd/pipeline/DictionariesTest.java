package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdException;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Dictionaries}' Javadoc, claim by claim (LifecycleTest has a saved and loaded dictionary that decodes). */
class DictionariesTest {

    private static List<byte[]> samples() {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            samples.add(Fixtures.payload(100 + i % 200, 7000 + i));
        }
        return samples;
    }

    /** train(samples) is train(samples, DEFAULT_CAPACITY_BYTES), 16 KiB; a capacity bounds the size. */
    @Test
    void shouldTrainADictionaryOfAtMostTheCapacity() {
        assertEquals(16 * 1024, Dictionaries.DEFAULT_CAPACITY_BYTES);
        List<byte[]> samples = samples();
        ZstdDictionary byDefault = Dictionaries.train(samples);
        assertTrue(byDefault.bytes().length <= Dictionaries.DEFAULT_CAPACITY_BYTES, () -> "bytes=" + byDefault.bytes().length);
        assertArrayEquals(Dictionaries.train(samples, Dictionaries.DEFAULT_CAPACITY_BYTES).bytes(), byDefault.bytes(),
                "the default capacity is DEFAULT_CAPACITY_BYTES");
        ZstdDictionary small = Dictionaries.train(samples, 4096);
        assertTrue(small.bytes().length <= 4096, () -> "bytes=" + small.bytes().length);
        assertTrue(small.isStructured() && small.id() != 0, "a standard dictionary with an ID");
    }

    /**
     * No samples or a capacity under ZstdDictionary.MIN_CAPACITY_BYTES (256; the Javadoc said "not
     * above 0" until 2026-11-27): IllegalArgumentException naming it; a null sample: a
     * NullPointerException naming its index; samples zstd cannot use: ZstdException OTHER.
     */
    @Test
    void shouldRefuseWhatCannotBeTrainedFrom() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dictionaries.train(List.of()));
        assertTrue(e.getMessage().contains("samples=0"), e::getMessage);
        e = assertThrows(IllegalArgumentException.class, () -> Dictionaries.train(samples(), 0));
        assertTrue(e.getMessage().contains("capacityBytes=0"), e::getMessage);
        assertEquals(256, ZstdDictionary.MIN_CAPACITY_BYTES);
        e = assertThrows(IllegalArgumentException.class, () -> Dictionaries.train(samples(), ZstdDictionary.MIN_CAPACITY_BYTES - 1));
        assertTrue(e.getMessage().contains("capacityBytes=255"), e::getMessage);
        List<byte[]> withNull = new ArrayList<>(samples());
        withNull.set(3, null);
        NullPointerException n = assertThrows(NullPointerException.class, () -> Dictionaries.train(withNull));
        assertTrue(n.getMessage().contains("samples[3]"), n::getMessage);
        ZstdException z = assertThrows(ZstdException.class, () -> Dictionaries.train(List.of(new byte[] {1, 2, 3}), 4096));
        assertEquals(ZstdException.Reason.OTHER, z.reason());
    }

    /**
     * load: a file without the dictionary magic is raw content (ID 0), an empty file is refused,
     * an unreadable one is an UncheckedIOException; save replaces a file and refuses a closed
     * dictionary.
     */
    @Test
    void shouldLoadRawContentRefuseEmptyFilesAndReplaceOnSave(@TempDir Path dir) throws Exception {
        Path raw = dir.resolve("raw.dict");
        Files.write(raw, Fixtures.payload(2000, 1));
        ZstdDictionary content = Dictionaries.load(raw);
        assertEquals(0, content.id());
        assertTrue(!content.isStructured());

        Path empty = Files.write(dir.resolve("empty.dict"), new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> Dictionaries.load(empty));
        assertThrows(UncheckedIOException.class, () -> Dictionaries.load(dir.resolve("missing.dict")));

        Path file = dir.resolve("trained.dict");
        Files.write(file, new byte[100_000]); // replaced, not appended to
        Dictionaries.save(Fixtures.dictionary(), file);
        assertArrayEquals(Fixtures.dictionary().bytes(), Files.readAllBytes(file));
        assertEquals(Fixtures.dictionary().id(), Dictionaries.load(file).id());

        ZstdDictionary closed = ZstdDictionary.of(Fixtures.dictionary().bytes());
        closed.close();
        assertThrows(IllegalStateException.class, () -> Dictionaries.save(closed, dir.resolve("closed.dict")));
    }
}

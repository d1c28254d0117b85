package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    /**
     * {@code train(samples, Integer.MAX_VALUE)} allocated a zeroed native buffer of the whole
     * capacity, 2 GiB, for 60,000 bytes of samples: the JVM's peak resident size grew by
     * 2,123,572 KiB (no heap or direct memory limit applies to an arena's memory, so only the
     * machine or a container limit stops it), and libzstd malloc'ed as much again for each
     * parameter set it tried. A trained dictionary's content is taken from the samples, so
     * libzstd now gets at most their total size plus 64 KiB, and trains the dictionary it trains
     * with a capacity of the samples' size.
     */
    @Test
    void shouldTrainWithAHugeCapacityInMemoryBoundedByTheSamples() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "no /proc/self/status: not Linux");
        String out = ForkedJvm.run(DictionaryProbe.class, List.of("-Xmx64m"));
        Matcher m = Pattern.compile("trained capacity=2147483647 bytes=(\\d+) same as capacity=sampleBytes=60000, "
                + "peakRssGrowthKiB=(-?\\d+)").matcher(out);
        assertTrue(m.find(), out);
        assertTrue(Integer.parseInt(m.group(1)) <= 60_000, "a dictionary no larger than its samples: " + out);
        assertTrue(Long.parseLong(m.group(2)) < 256 * 1024, "training grew the peak resident size by 256 MiB or more: " + out);
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
            byte[] shorterThanTheMagic = {0x37, (byte) 0xA4, 0x30};
            assertFalse(ZstdDictionary.of(shorterThanTheMagic).isStructured(), "raw content: no magic");
        }
    }

    /** size_t ZDICT_getDictHeaderSize(const void* dictBuffer, size_t dictSize); libzstd 1.4.5+: the reference here. */
    private static final MethodHandle GET_DICT_HEADER_SIZE = NativeLibrary.ZSTD.downcall("ZDICT_getDictHeaderSize",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** libzstd's reading of a dictionary's header: its size, or an error result when it cannot read it. */
    private static long headerSize(byte[] dictionary) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, dictionary);
            return (long) GET_DICT_HEADER_SIZE.invokeExact(n.address(), (long) dictionary.length);
        }
    }

    /**
     * A zstd dictionary cut before its content (inside the ID, the entropy tables, or the repeat
     * offsets: a cut that leaves less content than its largest repeat offset) is refused when it
     * is loaded, naming the cut. It loaded before, with the full dictionary's ID (inside the ID:
     * as raw content, ID 0), and failed only when a compressor or decompressor digested it.
     * Exactly the cuts libzstd's own header reader refuses are refused.
     */
    @Test
    void shouldRefuseADictionaryCutBeforeItsContentWhenLoading() throws Throwable {
        byte[] full;
        int id;
        try (ZstdDictionary trained = ZstdDictionary.train(samples(3), 8192)) {
            full = trained.bytes();
            id = trained.id();
        }
        long header = headerSize(full);
        assertFalse(LibZstd.isError(header), "libzstd reads the whole dictionary");
        assertTrue(header > 8 && header < full.length / 4, "header=" + header + ", bytes=" + full.length);
        int refused = 0;
        for (int cut = 4; cut < header + 64; cut++) {
            byte[] bytes = Arrays.copyOf(full, cut);
            boolean libzstdReads = !LibZstd.isError(headerSize(bytes));
            if (libzstdReads) {
                assertEquals(id, ZstdDictionary.of(bytes).id(), "cut=" + cut);
                continue;
            }
            refused++;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.of(bytes),
                    "libzstd cannot read the dictionary cut at " + cut);
            assertTrue(e.getMessage().contains("cut short") && e.getMessage().contains("bytes=" + cut), e.getMessage());
            if (cut >= 8) {
                assertTrue(e.getMessage().contains("id=" + Integer.toUnsignedString(id)), e.getMessage());
            }
        }
        assertTrue(refused >= header - 4, "refused=" + refused + ", header=" + header);
        IllegalArgumentException inId = assertThrows(IllegalArgumentException.class,
                () -> ZstdDictionary.of(Arrays.copyOf(full, 6)));
        assertEquals("zstd dictionary cut short: bytes=6 (it starts with the dictionary magic but is 6 bytes long, "
                + "too short for the 4-byte dictionary ID after it)", inId.getMessage());
        Path cutFile = dir.resolve("cut.dict");
        Files.write(cutFile, Arrays.copyOf(full, (int) header / 2));
        IllegalArgumentException loaded = assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.load(cutFile));
        assertTrue(loaded.getMessage().contains("file=" + cutFile), loaded.getMessage());
    }

    /**
     * A dictionary damaged in its header is refused when loaded exactly where libzstd's header
     * reader refuses it, and one that loads builds both a compressor and a decompressor. The
     * decompression digest (ZSTD_createDDict), which of() alone tried, takes some damaged Huffman
     * tables that the compression side refuses: such a dictionary loaded, with its ID, and failed
     * only at ZstdCompressor.build ("ZSTD_createCDict failed: id=…"), saying nothing of damage.
     */
    @Test
    void shouldRefuseAHeaderDamagedForEitherDigestWhenLoading() throws Throwable {
        byte[] full;
        try (ZstdDictionary trained = ZstdDictionary.train(samples(3), 8192)) {
            full = trained.bytes();
        }
        long header = headerSize(full);
        int decompressionOnly = 0;
        for (int at = 8; at < header; at++) {
            for (int flip : new int[] {0x01, 0x02, 0x08, 0x20, 0x80, 0xFF}) {
                byte[] bytes = full.clone();
                bytes[at] ^= (byte) flip;
                String what = "byte " + at + " ^ 0x" + Integer.toHexString(flip);
                if (LibZstd.isError(headerSize(bytes))) {
                    decompressionOnly += ddictTakes(bytes) ? 1 : 0;
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.of(bytes), what);
                    assertTrue(e.getMessage().startsWith("zstd dictionary cut short or damaged: id="), e.getMessage());
                    continue;
                }
                try (ZstdDictionary d = ZstdDictionary.of(bytes);
                     ZstdCompressor c = ZstdCompressor.builder().dictionary(d).build();
                     ZstdDecompressor dd = ZstdDecompressor.builder().dictionary(d).build()) {
                    byte[] message = TestData.text(300, at);
                    assertArrayEquals(message, dd.decompress(c.compress(message)), what);
                }
            }
        }
        assertTrue(decompressionOnly > 0, "no damage that only the compression side refuses: the case is not met");
    }

    /** Whether ZSTD_createDDict digests {@code dictionary}. */
    private static boolean ddictTakes(byte[] dictionary) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, dictionary);
            long ddict = (long) LibZstd.CREATE_DDICT.invokeExact(n.address(), (long) dictionary.length);
            if (ddict == 0) {
                return false;
            }
            long ignored = (long) LibZstd.FREE_DDICT.invokeExact(ddict);
            return true;
        }
    }

    /**
     * The format has no length for the content after the header: a dictionary cut inside it
     * loads with the full dictionary's ID, as libzstd and zstd -D take it too (README,
     * "Dictionaries"). What a receiver can do is ask for checksums: a frame made with the whole
     * dictionary and read with the cut one (or the other way) is then refused, not decoded
     * into wrong bytes.
     */
    @Test
    void shouldLoadADictionaryCutInsideItsContentAndLetChecksumsCatchTheMismatch() throws Throwable {
        try (ZstdDictionary whole = ZstdDictionary.train(samples(4), 8192)) {
            byte[] full = whole.bytes();
            long header = headerSize(full);
            for (int cut : new int[] {(int) header + 8, full.length / 2, full.length - 1}) {
                try (ZstdDictionary part = ZstdDictionary.of(Arrays.copyOf(full, cut));
                     ZstdCompressor withWhole = ZstdCompressor.builder().checksum(true).dictionary(whole).build();
                     ZstdCompressor withPart = ZstdCompressor.builder().checksum(true).dictionary(part).build();
                     ZstdDecompressor readsWhole = ZstdDecompressor.builder().dictionary(whole).build();
                     ZstdDecompressor readsPart = ZstdDecompressor.builder().dictionary(part).build()) {
                    assertEquals(whole.id(), part.id(), "cut=" + cut + ": the ID says nothing of the cut");
                    for (long seed = 0; seed < 20; seed++) {
                        byte[] message = TestData.text(300, 5_000 + seed);
                        assertArrayEquals(message, readsPart.decompress(withPart.compress(message)), "cut=" + cut);
                        assertMismatchRefused(readsPart, withWhole.compress(message), message, cut);
                        assertMismatchRefused(readsWhole, withPart.compress(message), message, cut);
                    }
                }
            }
        }
    }

    /** {@code frame} decodes to {@code message} (the lost bytes were not used) or is refused; never to other bytes. */
    private static void assertMismatchRefused(ZstdDecompressor d, byte[] frame, byte[] message, int cut) {
        try {
            assertArrayEquals(message, d.decompress(frame), "cut=" + cut + ": wrong bytes returned");
        } catch (ZstdException e) {
            assertTrue(e.reason() == ZstdException.Reason.CHECKSUM || e.reason() == ZstdException.Reason.CORRUPT,
                    "cut=" + cut + ": " + e.getMessage());
        }
    }

    /**
     * Every use of a closed dictionary is an IllegalStateException naming its ID, handing it to a
     * compressor or decompressor included, and a refused build leaves no native object behind.
     */
    @Test
    void shouldRefuseEveryUseAfterCloseNamingTheDictionary() {
        ZstdDictionary dict = ZstdDictionary.train(samples(9), 4096);
        String named = "dictionary is closed: id=" + Integer.toUnsignedString(dict.id());
        long live = LibZstd.liveNativeObjects();
        dict.close();
        dict.close();
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            List<org.junit.jupiter.api.function.Executable> uses = List.of(dict::id, dict::bytes, dict::isStructured,
                    () -> dict.save(dir.resolve("closed.dict")),
                    () -> ZstdCompressor.builder().dictionary(dict).build(),
                    () -> ZstdDecompressor.builder().dictionary(dict).build(),
                    () -> d.addDictionary(dict));
            for (org.junit.jupiter.api.function.Executable use : uses) {
                assertEquals(named, assertThrows(IllegalStateException.class, use).getMessage());
            }
            assertFalse(Files.exists(dir.resolve("closed.dict")));
        }
        assertEquals(live, LibZstd.liveNativeObjects(), "refused builds freed what they made");
    }

    /**
     * load: an empty file is IllegalArgumentException naming the file, a missing one
     * UncheckedIOException; save replaces an existing file; of and bytes copy.
     */
    @Test
    void shouldLoadSaveAndCopyAsDocumented() throws Exception {
        Path empty = Files.write(dir.resolve("empty.dict"), new byte[0]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.load(empty));
        assertTrue(e.getMessage().contains("bytes=0") && e.getMessage().endsWith(", file=" + empty), e.getMessage());
        Path missing = dir.resolve("missing.dict");
        assertTrue(assertThrows(java.io.UncheckedIOException.class, () -> ZstdDictionary.load(missing))
                .getMessage().contains("file=" + missing));

        byte[] content = TestData.text(2000, 4);
        Path file = Files.write(dir.resolve("replaced.dict"), new byte[10_000]);
        try (ZstdDictionary raw = ZstdDictionary.of(content)) {
            content[0] ^= 1;
            assertEquals(content[0] ^ 1, raw.bytes()[0], "of copies its argument");
            raw.bytes()[1] ^= 1;
            assertEquals(content[1], raw.bytes()[1], "bytes() is a copy");
            raw.save(file);
        }
        content[0] ^= 1;
        assertArrayEquals(content, Files.readAllBytes(file), "save replaces the longer file");
    }

    /**
     * A dictionary file larger than an array holds (a sparse 3 GiB file, no disk used): load threw
     * the {@link OutOfMemoryError} "Required array size too large" of {@code Files.readAllBytes}, an
     * Error naming neither the file nor its size, where its javadoc promises exceptions naming the
     * file. Now an {@link IllegalArgumentException} says so, before anything is read.
     */
    @Test
    void shouldRefuseADictionaryFileLargerThanAnArrayNamingIt() throws Exception {
        Path huge = dir.resolve("huge.dict");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        // Caught here, not by assertThrows: JUnit rethrows an OutOfMemoryError, which ended the
        // whole surefire fork ("There was an error in the forked process") instead of failing this test
        Throwable thrown = null;
        try {
            ZstdDictionary.load(huge).close();
        } catch (Throwable t) {
            thrown = t;
        }
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertInstanceOf(IllegalArgumentException.class,
                thrown, "load of a 3 GiB file: " + thrown);
        assertEquals("dictionary file too large: bytes=3221225472 (a dictionary is one byte[], at most 2147483639 bytes),"
                + " file=" + huge, e.getMessage());
    }

    /** train and of check their arguments before zstd sees them, each message naming what was wrong. */
    @Test
    void shouldNameTheBadArgumentOfTrainAndOf() {
        List<byte[]> samples = samples(3);
        // below 256 bytes libzstd's trainer says "Destination buffer is too small" (a ZstdException
        // OTHER, as for too few samples, before 2026-11-28): refused as the argument it is
        for (int capacity : new int[] {1, 255, 0, -1}) {
            assertEquals("capacityBytes=" + capacity + " (zstd trains no dictionary under 256 bytes)",
                    assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.train(samples, capacity)).getMessage());
        }
        try (ZstdDictionary smallest = ZstdDictionary.train(samples, 256)) {
            assertTrue(smallest.bytes().length <= 256, "length=" + smallest.bytes().length);
        }
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ZstdDictionary.train(List.of(), 4096)).getMessage().contains("samples=0"));
        List<byte[]> withNull = new ArrayList<>(samples);
        withNull.set(7, null);
        assertEquals("samples[7] is null", assertThrows(NullPointerException.class,
                () -> ZstdDictionary.train(withNull, 4096)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.of(new byte[0]))
                .getMessage().contains("bytes=0"));
    }

    /**
     * A null argument to {@code of}, {@code load}, {@code train} or {@code save} is a
     * {@link NullPointerException} whose message is the parameter's name, as elsewhere in the API
     * ({@code compress(null)}: "src", {@code addDictionary(null)}: "dictionary"). Before, {@code of}
     * and {@code train} gave the JVM's "Cannot read the array length because \"bytes\" is null",
     * {@code load} and {@code save} the JDK's words from inside {@code Files} ("because \"path\" is
     * null", a name the caller never wrote), and {@code train(null, 10)} an
     * {@link IllegalArgumentException} about the capacity.
     */
    @Test
    void shouldNameTheNullArgumentOfOfLoadTrainAndSave() {
        assertEquals("bytes", assertThrows(NullPointerException.class, () -> ZstdDictionary.of(null)).getMessage());
        assertEquals("file", assertThrows(NullPointerException.class, () -> ZstdDictionary.load(null)).getMessage());
        for (int capacity : new int[] {4096, 10}) {
            assertEquals("samples", assertThrows(NullPointerException.class,
                    () -> ZstdDictionary.train(null, capacity)).getMessage(), "capacityBytes=" + capacity);
        }
        try (ZstdDictionary raw = ZstdDictionary.of(TestData.text(100, 1))) {
            assertEquals("file", assertThrows(NullPointerException.class, () -> raw.save(null)).getMessage());
        }
    }

    /**
     * A dictionary file that cannot be read, or a path a dictionary cannot be saved to, is named
     * with why, as the cli's words have it ("cannot read dictionary: file=…, error=…"). Before
     * 2026-11-29 the message named the file alone ("cannot write dictionary: file=…"), the reason
     * only in the cause, which for a directory that does not exist named a temporary file the
     * caller never gave.
     */
    @Test
    void shouldSayWhyADictionaryFileCannotBeReadOrWritten() {
        Path missing = dir.resolve("missing.dict");
        assertEquals("cannot read dictionary: file=" + missing + ", error=no such file",
                assertThrows(java.io.UncheckedIOException.class, () -> ZstdDictionary.load(missing)).getMessage());
        assertEquals("cannot read dictionary: file=" + dir + ", error=Is a directory",
                assertThrows(java.io.UncheckedIOException.class, () -> ZstdDictionary.load(dir)).getMessage());
        try (ZstdDictionary d = ZstdDictionary.of(TestData.text(2000, 5))) {
            Path noDirectory = dir.resolve("nope");
            Path inMissing = noDirectory.resolve("d.dict");
            assertEquals("cannot write dictionary: file=" + inMissing + ", error=no such directory: " + noDirectory,
                    assertThrows(java.io.UncheckedIOException.class, () -> d.save(inMissing)).getMessage());
            Path aFile = dir.resolve("a-file");
            d.save(aFile);
            Path underAFile = aFile.resolve("d.dict");
            assertEquals("cannot write dictionary: file=" + underAFile + ", error=no such directory: " + aFile,
                    assertThrows(java.io.UncheckedIOException.class, () -> d.save(underAFile)).getMessage());
            assertEquals("cannot write dictionary: file=" + dir + ", error=Is a directory",
                    assertThrows(java.io.UncheckedIOException.class, () -> d.save(dir)).getMessage());
            Path full = Path.of("/dev/full");
            if (Files.exists(full)) {
                assertEquals("cannot write dictionary: file=/dev/full, error=No space left on device",
                        assertThrows(java.io.UncheckedIOException.class, () -> d.save(full)).getMessage());
            }
            try (ZstdDictionary back = ZstdDictionary.load(aFile)) {
                assertArrayEquals(d.bytes(), back.bytes(), "saves and loads go on");
            }
        }
    }

    @Test
    void shouldExplainWhyTrainingFails() {
        ZstdException e = assertThrows(ZstdException.class,
                () -> ZstdDictionary.train(List.of("a".getBytes(), "b".getBytes()), 4096));
        assertTrue(e.getMessage().contains("samples=2"), e.getMessage());
        assertTrue(e.errorCode() != 0 && !e.errorName().isEmpty(), "zstd's code and name: " + e.getMessage());
        assertTrue(e.getMessage().contains(e.errorName()), e.getMessage());
        // A capacity bounded to the samples says so, with both sizes
        ZstdException bounded = assertThrows(ZstdException.class,
                () -> ZstdDictionary.train(List.of("a".getBytes(), "b".getBytes()), Integer.MAX_VALUE));
        assertTrue(bounded.getMessage().endsWith("(samples=2, sampleBytes=2, capacityBytes=2147483647, used=65538 "
                + "(sampleBytes + 65536)): too little sample data, libzstd's trainer needs 8 bytes or more in all"),
                bounded.getMessage());
    }

    /**
     * libzstd's trainer checks that the samples hold 8 bytes in all, not that the first three
     * quarters, which it learns from, do: with fewer there it read past them and the JVM died of
     * SIGSEGV in libzstd (zstd --train on 8 one-byte files dies the same way). Now train refuses
     * them without calling libzstd. In a child JVM: the old code crashed the process.
     */
    @Test
    void shouldRefuseSamplesThatLeaveLibzstdsTrainerTooLittleToLearnFrom() throws Exception {
        String out = ForkedJvm.run(TinyLearnedPart.class, List.of());
        assertTrue(out.contains("[1, 1, 1, 1, 1, 1, 1, 1]: errorCode=0, dictionary training failed: not tried (samples=8,"
                + " sampleBytes=8, capacityBytes=4096): too little data in the samples libzstd's trainer learns from, the"
                + " first 6 (three quarters) hold 6 bytes and it needs 8 or more there; given fewer, libzstd 1.5.4 reads past"
                + " them and crashes the process, as zstd --train does\n"), out);
        assertTrue(out.contains("[0, 0, 0, 0, 0, 0, 100, 100]: errorCode=0, dictionary training failed: not tried"), out);
        assertTrue(out.contains("the first 6 (three quarters) hold 0 bytes"), out);
        assertTrue(out.contains("[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]: errorCode=0, dictionary training failed: not tried"), out);
        assertTrue(out.contains("the first 7 (three quarters) hold 7 bytes"), out);
        assertTrue(out.contains("[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]: trained"), "8 bytes to learn from are enough: " + out);
    }

    /** Child JVM of {@link #shouldRefuseSamplesThatLeaveLibzstdsTrainerTooLittleToLearnFrom}. */
    static final class TinyLearnedPart {
        public static void main(String[] args) {
            int[][] cases = {{1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 100, 100}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
            for (int[] sizes : cases) {
                List<byte[]> samples = new ArrayList<>();
                for (int size : sizes) {
                    samples.add(TestData.text(size, samples.size()));
                }
                String result;
                try (ZstdDictionary d = ZstdDictionary.train(samples, 4096)) {
                    result = "trained, id=" + Integer.toUnsignedString(d.id());
                } catch (ZstdException e) {
                    result = "errorCode=" + e.errorCode() + ", " + e.getMessage();
                }
                System.out.println(Arrays.toString(sizes) + ": " + result);
            }
        }
    }

    /**
     * libzstd's trainer says "Src size is incorrect" for each of its limits on the samples; the
     * message names the one they miss. Before, too few samples and too little data read alike,
     * and neither said what was wrong.
     */
    @Test
    void shouldNameWhichOfTheTrainersLimitsTheSamplesMiss() {
        ZstdException few = assertThrows(ZstdException.class, () -> ZstdDictionary.train(samples(0).subList(0, 6), 4096));
        assertEquals("Src size is incorrect", few.errorName());
        assertTrue(few.getMessage().endsWith("capacityBytes=4096): too few samples, libzstd's trainer needs 7 or more"
                + " (it learns from three quarters of them, at least 5, and tests on the rest)"), few.getMessage());
        try (ZstdDictionary seven = ZstdDictionary.train(samples(0).subList(0, 7), 4096)) {
            assertTrue(seven.id() != 0, "7 samples are enough");
        }
        List<byte[]> sevenBytes = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            sevenBytes.add(new byte[] {(byte) i});
        }
        ZstdException little = assertThrows(ZstdException.class, () -> ZstdDictionary.train(sevenBytes, 4096));
        assertEquals("Src size is incorrect", little.errorName());
        assertTrue(little.getMessage().endsWith("(samples=7, sampleBytes=7, capacityBytes=4096): too little sample data,"
                + " libzstd's trainer needs 8 bytes or more in all"), little.getMessage());
    }

    /**
     * Samples of 4 GiB or more (here 4,097 references to one 1 MiB array, 4 GiB and 1 MiB), which
     * libzstd's trainer refuses before it reads one: train copied them all into a zeroed native
     * buffer first, and only then called libzstd for its "Src size is incorrect". Measured on the
     * old code: the child's peak resident size grew by 4,375,600 KiB and the refusal took 3 to 9 s.
     * Now it is refused without the copy, with the same message, code and name. In a child JVM,
     * so that the peak resident size read is the training's.
     */
    @Test
    void shouldRefuseSamplesOf4GiBWithoutCopyingThem() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "no /proc/self/status: not Linux");
        String out = ForkedJvm.run(FourGiBOfSamples.class, List.of("-Xmx64m"));
        Matcher m = Pattern.compile("errorCode=(\\d+) errorName=(.*) peakRssGrowthKiB=(-?\\d+)\n").matcher(out);
        assertTrue(m.find(), out);
        assertEquals(LibZstd.ERR_SRC_SIZE_WRONG, Integer.parseInt(m.group(1)), out);
        assertEquals("Src size is incorrect", m.group(2), out);
        assertTrue(out.contains("dictionary training failed: Src size is incorrect (samples=4097, sampleBytes=4296015872,"
                + " capacityBytes=4096): too much sample data, libzstd's trainer takes under 4294967295 bytes in all (not"
                + " tried: refused before the samples are copied)\n"), out);
        assertTrue(Long.parseLong(m.group(3)) < 256 * 1024, "the refusal grew the peak resident size by 256 MiB or more: "
                + out);
    }

    /** Child JVM of {@link #shouldRefuseSamplesOf4GiBWithoutCopyingThem}. */
    static final class FourGiBOfSamples {
        public static void main(String[] args) throws Exception {
            byte[] sample = TestData.text(1 << 20, 1);
            List<byte[]> samples = java.util.Collections.nCopies(4097, sample);
            long before = DictionaryProbe.peakRssKiB();
            try (ZstdDictionary d = ZstdDictionary.train(samples, 4096)) {
                System.out.println("trained, id=" + Integer.toUnsignedString(d.id()));
            } catch (ZstdException e) {
                System.out.println(e.getMessage());
                System.out.println("errorCode=" + e.errorCode() + " errorName=" + e.errorName() + " peakRssGrowthKiB="
                        + (DictionaryProbe.peakRssKiB() - before));
            }
        }
    }

    /**
     * The decompressor builder's {@code dictionary(null)} and {@code addDictionary(null)}: an
     * {@link NullPointerException} naming the argument where it is given. Before, the builder
     * took the null and {@code build()} failed later with the JVM's "Cannot invoke
     * \"io.zmqzstd.codec.ZstdDictionary.id()\" because \"dictionary\" is null", far from the
     * call that was wrong. The compressor's builder takes null as "no dictionary", as documented.
     */
    @Test
    void shouldRefuseANullDictionaryWhereItIsAdded() {
        ZstdDecompressor.Builder builder = ZstdDecompressor.builder();
        assertEquals("dictionary", assertThrows(NullPointerException.class, () -> builder.dictionary(null)).getMessage());
        byte[] message = TestData.text(300, 4);
        try (ZstdDecompressor d = builder.build();
             ZstdCompressor none = ZstdCompressor.builder().dictionary(null).build()) {
            assertEquals("dictionary", assertThrows(NullPointerException.class, () -> d.addDictionary(null)).getMessage());
            assertArrayEquals(message, d.decompress(none.compress(message)), "usable after the refusal");
        }
    }

    /**
     * Frames name a dictionary in 1, 2 or 4 bytes (IDs up to 255, up to 65535, above), and an ID
     * of 2^31 or more is a negative int: each picks its dictionary, and a decompressor without it
     * names the ID unsigned.
     */
    @Test
    void shouldPickDictionariesByIdsOfEveryFieldWidthAndAbove2To31() {
        byte[] trained;
        try (ZstdDictionary d = ZstdDictionary.train(samples(2), 4096)) {
            trained = d.bytes();
        }
        byte[] message = TestData.text(180, 6);
        int[][] idAndFieldBytes = {{1, 1}, {255, 1}, {256, 2}, {65_535, 2}, {65_536, 4}, {0x8000_0000, 4}, {0xFFFF_FFFF, 4}};
        List<ZstdDictionary> all = new ArrayList<>();
        int withoutId;
        try (ZstdCompressor plain = new ZstdCompressor(3)) {
            withoutId = plain.compress(message).length;
        }
        try (ZstdDecompressor none = new ZstdDecompressor()) {
            for (int[] c : idAndFieldBytes) {
                byte[] bytes = trained.clone();
                MemorySegment.ofArray(bytes).set(ZstdFrames.INT_LE, 4, c[0]);
                ZstdDictionary d = ZstdDictionary.of(bytes);
                all.add(d);
                String id = Integer.toUnsignedString(c[0]);
                assertEquals(c[0], d.id(), id);
                try (ZstdCompressor with = ZstdCompressor.builder().dictionary(d).build();
                     ZstdCompressor without = ZstdCompressor.builder().dictionary(d).dictionaryIdInFrame(false).build()) {
                    byte[] frame = with.compress(message);
                    assertEquals(c[0], ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)), id);
                    assertEquals(c[1], frame.length - without.compress(message).length, "ID field bytes, id=" + id);
                    ZstdException e = assertThrows(ZstdException.class, () -> none.decompress(frame), id);
                    assertEquals(ZstdException.Reason.DICTIONARY_MISSING, e.reason(), id);
                    assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + id + ", known=[]", e.getMessage());
                }
            }
            ZstdDecompressor.Builder b = ZstdDecompressor.builder();
            all.forEach(b::dictionary);
            try (ZstdDecompressor every = b.build()) {
                for (ZstdDictionary d : all) {
                    try (ZstdCompressor with = ZstdCompressor.builder().dictionary(d).build()) {
                        assertArrayEquals(message, every.decompress(with.compress(message)), Integer.toUnsignedString(d.id()));
                    }
                }
                try (ZstdCompressor plain = new ZstdCompressor(3)) {
                    byte[] frame = plain.compress(message);
                    assertEquals(withoutId, frame.length);
                    assertArrayEquals(message, every.decompress(frame), "a frame naming no dictionary");
                }
            }
        } finally {
            all.forEach(ZstdDictionary::close);
        }
    }

    /**
     * One dictionary feeding compressors and decompressors on several threads while another
     * closes it: every build either works and round-trips or is refused as "dictionary is closed",
     * contexts built before the close keep working after it, and no native object is left.
     */
    @Test
    void shouldServeThreadsFromOneDictionaryAndRefuseOnlyBuildsAfterItsClose() throws Exception {
        ZstdDictionary dict = ZstdDictionary.train(samples(7), 4096);
        String closedMessage = "dictionary is closed: id=" + Integer.toUnsignedString(dict.id());
        long live = LibZstd.liveNativeObjects();
        int threads = 3;
        java.util.concurrent.CountDownLatch warmedUp = new java.util.concurrent.CountDownLatch(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<String>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                results.add(pool.submit(() -> {
                    byte[] message = TestData.text(200, seed);
                    try (ZstdCompressor early = ZstdCompressor.builder().dictionary(dict).level(seed + 1).build();
                         ZstdDecompressor earlyD = ZstdDecompressor.builder().dictionary(dict).build()) {
                        for (int round = 0; round < 100_000; round++) {
                            if (round == 20) {
                                warmedUp.countDown();
                            }
                            try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).level(round % 9 + 1).build();
                                 ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build()) {
                                if (!Arrays.equals(message, d.decompress(c.compress(message)))) {
                                    return "wrong bytes in round " + round;
                                }
                            } catch (IllegalStateException e) {
                                if (!closedMessage.equals(e.getMessage())) {
                                    return "unexpected: " + e;
                                }
                                boolean keeps = Arrays.equals(message, earlyD.decompress(early.compress(message)));
                                return keeps ? "refused after " + round + " rounds" : "a context built before the close failed";
                            }
                        }
                        return "never refused";
                    }
                }));
            }
            assertTrue(warmedUp.await(60, java.util.concurrent.TimeUnit.SECONDS), "threads did not get going");
            dict.close();
            for (java.util.concurrent.Future<String> r : results) {
                String outcome = r.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(outcome.startsWith("refused after "), outcome);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(live, LibZstd.liveNativeObjects(), "native objects left");
    }
}

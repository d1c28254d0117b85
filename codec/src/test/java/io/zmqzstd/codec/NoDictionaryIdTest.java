package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.sun.management.ThreadMXBean;
import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frames that leave the dictionary ID out ({@code ZSTD_c_dictIDFlag=0}): the compressor's
 * {@code dictionaryIdInFrame(false)}, the decompressor's {@code dictionaryForFramesWithoutId}, and
 * what happens to such frames, and to frames made without a dictionary, on decompressors with and
 * without it (libzstd 1.5.4, deterministic samples and messages: the counts are exact).
 */
class NoDictionaryIdTest {

    /** The hint a decoding error of a frame without an ID carries on a decompressor without the option. */
    private static final String HINT = "the frame declares no dictionary ID and was decoded without a dictionary";

    private static ZstdDictionary dictA;
    private static ZstdDictionary dictB;

    @TempDir
    Path dir;

    @BeforeAll
    static void trainDictionaries() {
        dictA = ZstdDictionary.train(samples(1000), 8192);
        dictB = ZstdDictionary.train(samples(50_000), 8192);
    }

    @AfterAll
    static void closeDictionaries() {
        dictA.close();
        dictB.close();
    }

    private static List<byte[]> samples(int seed) {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            samples.add(TestData.text(256, seed + i));
        }
        return samples;
    }

    /** Telemetry-sized: 64 to 300 bytes. */
    private static byte[] message(int i) {
        return TestData.text(64 + i % 237, 7_000_000 + i);
    }

    /** "ok", "WRONG" (decoded without error to other bytes) or the error's reason. */
    private static String outcome(ZstdDecompressor d, byte[] frame, byte[] expected) {
        try {
            return Arrays.equals(d.decompress(frame), expected) ? "ok" : "WRONG";
        } catch (ZstdException e) {
            return e.reason().toString();
        }
    }

    @Test
    void shouldLeaveOnlyTheFourByteIdFieldOut() {
        assertTrue(Integer.compareUnsigned(dictA.id(), 65536) >= 0, "a trained ID takes the 4-byte field: id=" + dictA.id());
        byte[] msg = message(5);
        try (ZstdCompressor withId = ZstdCompressor.builder().dictionary(dictA).build();
             ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build()) {
            byte[] a = withId.compress(msg);
            byte[] b = noId.compress(msg);
            assertEquals(4, a.length - b.length);
            assertEquals(dictA.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(a)));
            assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(b)));
            assertEquals(msg.length, ZstdFrames.contentSize(MemorySegment.ofArray(b)));
            // magic, then the descriptor: Dictionary_ID_Flag 3 (4 bytes) against 0, the rest equal
            assertArrayEquals(Arrays.copyOf(a, 4), Arrays.copyOf(b, 4));
            assertEquals(3, a[4] & 3);
            assertEquals(0, b[4] & 3);
            assertEquals(a[4] & ~3, b[4] & ~3);
            // single-segment header: the ID sits at 5..8; everything after it is the same bytes
            assertArrayEquals(Arrays.copyOfRange(a, 9, a.length), Arrays.copyOfRange(b, 5, b.length));
        }
    }

    @Test
    void shouldRoundTripFramesWithoutIdBesideFramesWithIdAndWithoutDictionary() throws Exception {
        try (ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build();
             ZstdCompressor withB = ZstdCompressor.builder().dictionary(dictB).build();
             ZstdCompressor plain = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dictB).dictionaryForFramesWithoutId(dictA).build()) {
            ByteArrayOutputStream concatenated = new ByteArrayOutputStream();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int i = 0; i < 300; i++) {
                byte[] msg = message(i);
                ZstdCompressor c = i % 3 == 0 ? noId : i % 3 == 1 ? withB : plain;
                byte[] frame = c.compress(msg);
                assertArrayEquals(msg, d.decompress(frame), "message " + i);
                concatenated.write(frame);
                expected.write(msg);
            }
            // the stream picks the dictionary per frame the same way
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(concatenated.toByteArray()), d)) {
                assertArrayEquals(expected.toByteArray(), in.readAllBytes());
            }
        }
    }

    @Test
    void shouldDecodeZstdCommandLineFramesWithoutIdOnlyWithTheOption() throws Exception {
        Path dict = dir.resolve("a.dict");
        dictA.save(dict);
        byte[] msg = message(17);
        Path raw = dir.resolve("msg");
        Files.write(raw, msg);
        Path noIdFrame = dir.resolve("noid.zst");
        InteropTest.zstd(null, null, "-f", "--no-dictID", "-D", dict.toString(), raw.toString(), "-o", noIdFrame.toString());
        byte[] frame = Files.readAllBytes(noIdFrame);
        assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
        try (ZstdDecompressor with = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA).build();
             ZstdDecompressor without = ZstdDecompressor.builder().dictionary(dictA).build();
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dictA).build()) {
            assertArrayEquals(msg, with.decompress(frame));
            ZstdException e = assertThrows(ZstdException.class, () -> without.decompress(frame));
            assertTrue(e.getMessage().contains(HINT) && e.getMessage().contains("dictionaryForFramesWithoutId"), e.getMessage());
            // the decompressor goes on: a frame with the ID decodes next
            assertArrayEquals(msg, without.decompress(c.compress(msg)));
        }
        // and zstd reads ours without an ID when given the dictionary
        Path ours = dir.resolve("ours.zst");
        Path out = dir.resolve("ours.out");
        try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build()) {
            Files.write(ours, c.compress(msg));
        }
        InteropTest.zstd(null, null, "-d", "-f", "-D", dict.toString(), ours.toString(), "-o", out.toString());
        assertArrayEquals(msg, Files.readAllBytes(out));
    }

    @Test
    void shouldDecodeZstdJniFramesWithoutIdWithTheOption() {
        byte[] msg = message(23);
        try (ZstdCompressCtx jc = new ZstdCompressCtx();
             ZstdDecompressor with = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA).build();
             ZstdDecompressor without = ZstdDecompressor.builder().dictionary(dictA).build()) {
            jc.loadDict(new ZstdDictCompress(dictA.bytes(), 3));
            jc.setDictID(false);
            byte[] frame = jc.compress(msg);
            assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
            assertArrayEquals(msg, with.decompress(frame));
            ZstdException e = assertThrows(ZstdException.class, () -> without.decompress(frame));
            assertTrue(e.getMessage().contains(HINT), e.getMessage());
        }
    }

    /**
     * Measured: 3,000 frames of 64-300 B made with dictionary A without its ID, no checksum. With
     * no dictionary for them every one fails (2,921 "Dictionary is corrupted", DICTIONARY_MISSING;
     * 79 "Data corruption detected", CORRUPT), none decodes to wrong bytes, and each message names
     * the option where the decompressor has dictionaries (without any, the DICTIONARY_MISSING ones). With dictionary B set for them instead, 10 decode to wrong bytes without an
     * error; with a checksum, none does.
     */
    @Test
    void shouldFailFramesWithoutIdDecodedWithoutOrWithAnotherDictionary() {
        try (ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build();
             ZstdCompressor noIdChecked = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false)
                     .checksum(true).build();
             ZstdDecompressor none = new ZstdDecompressor();
             ZstdDecompressor onlyB = ZstdDecompressor.builder().dictionary(dictB).build();
             ZstdDecompressor wrongDefault = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictB).build()) {
            Map<String, Integer> byNone = new TreeMap<>();
            Map<String, Integer> byWrong = new TreeMap<>();
            Map<String, Integer> byWrongChecked = new TreeMap<>();
            for (int i = 0; i < 3000; i++) {
                byte[] msg = message(i);
                byte[] frame = noId.compress(msg);
                for (ZstdDecompressor d : new ZstdDecompressor[] {none, onlyB}) {
                    ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(frame), "message " + i);
                    // with no dictionary at all, only the error that says a dictionary's tables are
                    // missing names the option: on a stream without dictionaries, damage is likelier
                    boolean hinted = d == onlyB || e.reason() == ZstdException.Reason.DICTIONARY_MISSING;
                    assertEquals(hinted, e.getMessage().contains(HINT) && e.getMessage().contains("dictionaryForFramesWithoutId"),
                            e.getMessage());
                    if (d == none) {
                        byNone.merge(e.reason() + ":" + e.errorName(), 1, Integer::sum);
                    }
                }
                byWrong.merge(outcome(wrongDefault, frame, msg), 1, Integer::sum);
                byWrongChecked.merge(outcome(wrongDefault, noIdChecked.compress(msg), msg), 1, Integer::sum);
            }
            System.out.println("no dictionary: " + byNone + "; wrong dictionary: " + byWrong
                    + "; wrong dictionary, checksum: " + byWrongChecked);
            assertEquals(Map.of("CORRUPT:Data corruption detected", 79, "DICTIONARY_MISSING:Dictionary is corrupted", 2921), byNone);
            // the README's figures: 10 wrong bytes without an error, the same 10 CHECKSUM with one
            assertEquals(Map.of("CORRUPT", 2990, "WRONG", 10), byWrong, "wrong dictionary");
            assertEquals(Map.of("CHECKSUM", 10, "CORRUPT", 2990), byWrongChecked, "wrong dictionary, checksum");
        }
    }

    /**
     * Frames made without any dictionary, decoded with a trained dictionary set for frames
     * without an ID: all decode (5 levels x 1,000 frames of 64 B to 54 KB). A trained dictionary's
     * repeat offsets are zstd's start values (1, 4, 8); with others (here 2, 5, 9, patched into A)
     * level 19 frames decoded to wrong bytes without an error: 73 of 1,000. Raw-block frames never
     * reach a dictionary.
     */
    @Test
    void shouldDecodeFramesMadeWithoutDictionaryOnlyWhileRepeatOffsetsAreZstdDefaults() {
        byte[] patched = dictA.bytes();
        int at = repeatOffsets(patched);
        patched[at] = 2;
        patched[at + 4] = 5;
        patched[at + 8] = 9;
        try (ZstdDictionary otherOffsets = ZstdDictionary.of(patched);
             ZstdDecompressor trained = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA).build();
             ZstdDecompressor trainedNoJavaCopy = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA)
                     .storedFrameCopy(false).build();
             ZstdDecompressor patchedDefault = ZstdDecompressor.builder().dictionaryForFramesWithoutId(otherOffsets).build()) {
            Map<String, Integer> wrongByLevel = new TreeMap<>();
            for (int level : new int[] {-5, 1, 3, 9, 19}) {
                try (ZstdCompressor plain = new ZstdCompressor(level)) {
                    for (int i = 0; i < 1000; i++) {
                        int size = i % 10 == 0 ? 4096 + i * 50 : 64 + i % 237;
                        byte[] msg = TestData.text(size, 9_000_000 + i);
                        byte[] frame = plain.compress(msg);
                        assertArrayEquals(msg, trained.decompress(frame), "level " + level + ", message " + i);
                        if (!"ok".equals(outcome(patchedDefault, frame, msg))) {
                            wrongByLevel.merge("level " + level, 1, Integer::sum);
                        }
                    }
                }
            }
            assertEquals(Map.of("level 19", 73), wrongByLevel);
            byte[] msg = message(3);
            byte[] rawFrame = new byte[(int) ZstdFrames.rawFrameSize(msg.length)];
            ZstdFrames.writeRawFrame(MemorySegment.ofArray(msg), 0, msg.length, MemorySegment.ofArray(rawFrame), 0, rawFrame.length);
            assertArrayEquals(msg, trained.decompress(rawFrame));
            assertArrayEquals(msg, trainedNoJavaCopy.decompress(rawFrame));
            assertArrayEquals(msg, patchedDefault.decompress(rawFrame));
        }
    }

    /** Where a trained dictionary's repeat offsets 1, 4, 8 (little-endian ints) start, after magic and ID. */
    private static int repeatOffsets(byte[] dictionary) {
        byte[] defaults = {1, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0};
        for (int i = 8; i + defaults.length <= dictionary.length; i++) {
            if (Arrays.equals(dictionary, i, i + defaults.length, defaults, 0, defaults.length)) {
                return i;
            }
        }
        throw new AssertionError("no repeat offsets 1, 4, 8 in the dictionary");
    }

    @Test
    void shouldRefuseMisuseAtBuildNamingTheProblem() {
        long live = LibZstd.liveNativeObjects();
        IllegalArgumentException noDict = assertThrows(IllegalArgumentException.class,
                () -> ZstdCompressor.builder().dictionaryIdInFrame(false).build());
        assertTrue(noDict.getMessage().startsWith("dictionaryIdInFrame(false) without a dictionary"), noDict.getMessage());
        ZstdDictionary raw = ZstdDictionary.of("raw content, no dictionary header".getBytes());
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> ZstdDecompressor.builder().dictionary(raw).dictionaryForFramesWithoutId(dictA).build());
        assertTrue(both.getMessage().contains("raw-content dictionary (id=0)"), both.getMessage());
        ZstdDictionary closed = ZstdDictionary.of(dictA.bytes());
        closed.close();
        assertThrows(IllegalStateException.class, () -> ZstdDecompressor.builder().dictionaryForFramesWithoutId(closed).build());
        assertEquals(live, LibZstd.liveNativeObjects(), "a refused build frees what it made");
        // a raw-content dictionary has no ID to leave out: the option changes nothing
        byte[] msg = message(9);
        try (ZstdCompressor a = ZstdCompressor.builder().dictionary(raw).build();
             ZstdCompressor b = ZstdCompressor.builder().dictionary(raw).dictionaryIdInFrame(false).build()) {
            assertArrayEquals(a.compress(msg), b.compress(msg));
        }
    }

    /**
     * A raw-content dictionary added after build() to a decompressor built with
     * dictionaryForFramesWithoutId is the same conflict build() refuses, and is named so: it was
     * refused as "dictionary already added: id=0", a dictionary the caller never added.
     */
    @Test
    void shouldRefuseARawContentDictionaryAddedBesideTheOneForFramesWithoutId() {
        ZstdDictionary raw = ZstdDictionary.of("raw content, no dictionary header".getBytes());
        byte[] msg = message(11);
        try (ZstdDecompressor d = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA).build();
             ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.addDictionary(raw));
            assertEquals("dictionaryForFramesWithoutId with a raw-content dictionary (id=0) added too: both would decode"
                    + " frames that name no dictionary ID; keep one", e.getMessage());
            assertArrayEquals(msg, d.decompress(noId.compress(msg)), "still the dictionary for frames without an ID");
        }
        try (ZstdDecompressor d = ZstdDecompressor.builder().dictionary(raw).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.addDictionary(raw));
            assertEquals("dictionary already added: id=0, the same bytes (bytes=33, equal CRC-32C)", e.getMessage(),
                    "a second raw-content dictionary");
        }
    }

    /**
     * A frame that names the ID of the dictionary set only for frames without an ID is
     * DICTIONARY_MISSING, and the message lists that dictionary by its own ID and says to add it
     * with dictionary(d): it listed "known=[0]", an ID no dictionary given had.
     */
    @Test
    void shouldNameTheDictionaryForFramesWithoutIdWhenAFrameNamesItsId() {
        String a = Integer.toUnsignedString(dictA.id());
        String b = Integer.toUnsignedString(dictB.id());
        try (ZstdDecompressor onlyForNoId = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictA).build();
             ZstdDecompressor withB = ZstdDecompressor.builder().dictionary(dictB).dictionaryForFramesWithoutId(dictA).build();
             ZstdCompressor withIdA = ZstdCompressor.builder().dictionary(dictA).build();
             ZstdCompressor withIdB = ZstdCompressor.builder().dictionary(dictB).build()) {
            byte[] frame = withIdA.compress(message(4));
            ZstdException e = assertThrows(ZstdException.class, () -> onlyForNoId.decompress(frame));
            assertEquals(ZstdException.Reason.DICTIONARY_MISSING, e.reason());
            assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + a + ", known=[],"
                    + " forFramesWithoutId=" + a + "; that dictionary is set for frames without an ID only: add it"
                    + " with dictionary(d) too for frames that name its ID", e.getMessage());
            e = assertThrows(ZstdException.class, () -> withB.decompress(frame));
            assertTrue(e.getMessage().endsWith("known=[" + b + "], forFramesWithoutId=" + a
                    + "; that dictionary is set for frames without an ID only: add it with dictionary(d) too for frames"
                    + " that name its ID"), e.getMessage());
            // another missing ID: the dictionaries are listed, without the advice
            try (ZstdDecompressor onlyForNoIdB = ZstdDecompressor.builder().dictionaryForFramesWithoutId(dictB).build()) {
                e = assertThrows(ZstdException.class, () -> onlyForNoIdB.decompress(frame));
                assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + a + ", known=[],"
                        + " forFramesWithoutId=" + b, e.getMessage());
            }
            byte[] msg = message(5);
            assertArrayEquals(msg, withB.decompress(withIdB.compress(msg)), "the decompressor goes on");
        }
    }

    /**
     * A frame naming a dictionary that a decompressor holding a raw-content dictionary lacks is
     * DICTIONARY_MISSING, and the message says that the ID 0 it lists is that raw-content
     * dictionary, used for frames that name none: it listed "known=[0]" alone, an ID the caller
     * never gave and no frame names.
     */
    @Test
    void shouldSayTheKnownIdZeroIsTheRawContentDictionary() {
        String a = Integer.toUnsignedString(dictA.id());
        String b = Integer.toUnsignedString(dictB.id());
        String rawNote = " (0: the raw-content dictionary, used for frames without a dictionary ID)";
        ZstdDictionary raw = ZstdDictionary.of("raw content, no dictionary header".getBytes());
        try (ZstdDecompressor onlyRaw = ZstdDecompressor.builder().dictionary(raw).build();
             ZstdDecompressor rawAndB = ZstdDecompressor.builder().dictionary(dictB).dictionary(raw).build();
             ZstdDecompressor onlyB = ZstdDecompressor.builder().dictionary(dictB).build();
             ZstdCompressor withIdA = ZstdCompressor.builder().dictionary(dictA).build();
             ZstdCompressor withRaw = ZstdCompressor.builder().dictionary(raw).build()) {
            byte[] frame = withIdA.compress(message(12));
            ZstdException e = assertThrows(ZstdException.class, () -> onlyRaw.decompress(frame));
            assertEquals(ZstdException.Reason.DICTIONARY_MISSING, e.reason());
            assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + a + ", known=[0]" + rawNote,
                    e.getMessage());
            e = assertThrows(ZstdException.class, () -> rawAndB.decompress(frame));
            assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + a + ", known=[" + b + ",0]" + rawNote,
                    e.getMessage());
            e = assertThrows(ZstdException.class, () -> onlyB.decompress(frame));
            assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + a + ", known=[" + b + "]",
                    e.getMessage(), "no raw-content dictionary, no note");
            byte[] msg = message(13);
            assertArrayEquals(msg, onlyRaw.decompress(withRaw.compress(msg)), "the decompressor goes on");
        }
    }

    /**
     * The hint reaches the caller on every decode path, for frames that declare their size and for
     * frames that do not. A CORRUPT frame that declares its size has its blocks decoded again to
     * name a size mismatch ("frame content shorter than its header declares"); that replaces the
     * error only when the blocks decode, and a frame that needs its dictionary fails again in the
     * same way, so the hint stays. A stream whose frame began before its input buffer was last
     * refilled keeps the hint in its shortfall message. Covered: a small frame of each kind of
     * failure, and one whose first use of the dictionary follows 300,000 bytes of raw blocks (past
     * the stream's input buffer and the heap segments' one-call size).
     */
    @Test
    void shouldGiveTheHintOnEveryDecodePathWithAndWithoutADeclaredSize() throws Exception {
        Path file = dir.resolve("frame.zst");
        try (ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build();
             ZstdCompressor plain = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dictB).build();
             Arena arena = Arena.ofConfined()) {
            byte[] late = new byte[300_000 + 2_000];
            System.arraycopy(TestData.random(300_000, 11), 0, late, 0, 300_000);
            System.arraycopy(TestData.text(2_000, 7_000_000), 0, late, 300_000, 2_000);
            List<byte[]> contents = new ArrayList<>(List.of(late));
            // the first message of each kind of failure: "Dictionary is corrupted", "Data corruption detected"
            for (String wanted : List.of("DICTIONARY_MISSING", "CORRUPT")) {
                int i = 0;
                while (!outcome(d, noId.compress(message(i)), message(i)).equals(wanted)) {
                    i++;
                }
                contents.add(message(i));
            }
            Map<String, Integer> failures = new TreeMap<>();
            for (byte[] content : contents) {
                for (boolean declared : new boolean[] {true, false}) {
                    byte[] frame = declared ? noId.compress(content) : streamed(noId, content);
                    assertEquals(declared, ZstdFrames.contentSize(MemorySegment.ofArray(frame)) == content.length);
                    Files.write(file, frame);
                    MemorySegment nativeFrame = arena.allocateFrom(JAVA_BYTE, frame);
                    MemorySegment nativeOut = arena.allocate(content.length);
                    MemorySegment mapped;
                    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                        mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, frame.length, arena);
                    }
                    Map<String, Executable> paths = new TreeMap<>(Map.of(
                            "byte[]", () -> d.decompress(frame),
                            "native", () -> d.decompress(nativeFrame, nativeOut),
                            "heap", () -> d.decompress(MemorySegment.ofArray(frame), MemorySegment.ofArray(new byte[content.length])),
                            "native into heap", () -> d.decompress(nativeFrame, MemorySegment.ofArray(new byte[content.length])),
                            "mapped", () -> d.decompress(mapped, nativeOut),
                            "stream", () -> {
                                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), d)) {
                                    in.readAllBytes();
                                }
                            }));
                    for (Map.Entry<String, Executable> path : paths.entrySet()) {
                        String what = path.getKey() + ", " + content.length + " B, declared=" + declared;
                        // a stream's error is the IOException java.io code catches, the one-call paths' its cause
                        boolean stream = path.getKey().equals("stream");
                        Class<? extends Exception> expected = stream ? ZstdStreamException.class : ZstdException.class;
                        Exception thrown = assertThrows(expected, path.getValue(), what);
                        ZstdException e = stream ? assertInstanceOf(ZstdException.class, thrown.getCause(), what) : (ZstdException) thrown;
                        assertEquals(e.getMessage(), thrown.getMessage(), what);
                        assertTrue(e.getMessage().contains(HINT + ": if its sender left the ID out"), what + ": " + e.getMessage());
                        failures.merge(e.reason() + ":" + e.errorName(), 1, Integer::sum);
                    }
                    assertArrayEquals(message(1), d.decompress(plain.compress(message(1))), "goes on");
                }
            }
            System.out.println("failures with the hint: " + failures);
            assertEquals(Map.of("CORRUPT:Data corruption detected", 24, "DICTIONARY_MISSING:Dictionary is corrupted", 12), failures);
        }
    }

    /** {@code content} as a {@link ZstdOutputStream} over {@code c} writes it: a frame that does not declare its size. */
    private static byte[] streamed(ZstdCompressor c, byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(bytes, c)) {
            out.write(content);
        }
        return bytes.toByteArray();
    }

    /** The per-frame dictionary choice stays allocation-free for frames without an ID. */
    @Test
    void shouldAllocateNothingPerFrameWithoutId() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined();
             ZstdCompressor noId = ZstdCompressor.builder().dictionary(dictA).dictionaryIdInFrame(false).build();
             ZstdCompressor withB = ZstdCompressor.builder().dictionary(dictB).build();
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dictB).dictionaryForFramesWithoutId(dictA).build()) {
            byte[] msg = message(100);
            MemorySegment src = arena.allocateFrom(JAVA_BYTE, msg);
            MemorySegment f1 = arena.allocate(ZstdCompressor.maxCompressedSize(msg.length));
            MemorySegment f2 = arena.allocate(ZstdCompressor.maxCompressedSize(msg.length));
            long n1 = noId.compress(src, f1);
            long n2 = withB.compress(src, f2);
            MemorySegment out = arena.allocate(msg.length);
            int calls = 10_000;
            long[] rounds = new long[20];
            int measured = 0;
            long sink = 0;
            for (int i = 0; i < 2 * calls; i++) { // warm-up; alternating frames switch the DDict each time
                sink += d.decompress(f1, 0, n1, out, 0, msg.length) + d.decompress(f2, 0, n2, out, 0, msg.length);
            }
            do {
                long start = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < calls; i++) {
                    sink += d.decompress(f1, 0, n1, out, 0, msg.length) + d.decompress(f2, 0, n2, out, 0, msg.length);
                }
                rounds[measured++] = threads.getCurrentThreadAllocatedBytes() - start;
            } while (rounds[measured - 1] >= calls && measured < rounds.length);
            assertTrue(rounds[measured - 1] < calls, "allocated per round of " + calls + " calls: "
                    + Arrays.toString(Arrays.copyOf(rounds, measured)));
            assertEquals(2L * msg.length * calls * (2 + measured), sink);
        }
    }
}

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each bad input gives a clear error, and the same decompressor then decodes a good frame. */
class BadInputTest {

    private static final byte[] GOOD = TestData.text(100_000, 1);
    private static final long LIMIT = 1_000_000;

    private ZstdDecompressor decompressor;
    private Arena arena;
    private byte[] goodFrame;

    @BeforeEach
    void open() {
        decompressor = ZstdDecompressor.builder().maxDecompressedSize(LIMIT).build();
        arena = Arena.ofConfined();
        try (ZstdCompressor c = ZstdCompressor.builder().checksum(true).build()) {
            goodFrame = c.compress(GOOD);
        }
    }

    @AfterEach
    void close() {
        decompressor.close();
        arena.close();
    }

    /** Decodes {@code bad} on heap and native paths, expecting {@code reason}; then a good frame. */
    private ZstdException assertRejectedThenRecovers(byte[] bad, ZstdException.Reason reason) {
        return assertRejectedThenRecovers(decompressor, bad, reason);
    }

    /** The same on decompressor {@code d}, which must be able to decode the plain good frame. */
    private ZstdException assertRejectedThenRecovers(ZstdDecompressor d, byte[] bad, ZstdException.Reason reason) {
        ZstdException last = null;
        for (boolean nativeMemory : new boolean[] {false, true}) {
            MemorySegment src = nativeMemory ? arena.allocateFrom(JAVA_BYTE, bad) : MemorySegment.ofArray(bad);
            MemorySegment dst = nativeMemory ? arena.allocate(2 * LIMIT) : MemorySegment.ofArray(new byte[(int) (2 * LIMIT)]);
            last = assertThrows(ZstdException.class, () -> d.decompress(src, dst));
            assertEquals(reason, last.reason(), last.getMessage());
            assertFalseBlank(last.getMessage());
            assertArrayEquals(GOOD, d.decompress(goodFrame), "usable after " + reason);
            MemorySegment good = arena.allocateFrom(JAVA_BYTE, goodFrame);
            MemorySegment out = arena.allocate(GOOD.length);
            assertEquals(GOOD.length, d.decompress(good, out));
        }
        ZstdException viaArray = assertThrows(ZstdException.class, () -> d.decompress(bad));
        assertEquals(reason, viaArray.reason(), viaArray.getMessage());
        assertArrayEquals(GOOD, d.decompress(goodFrame));
        return last;
    }

    private static void assertFalseBlank(String s) {
        assertTrue(s != null && !s.isBlank());
    }

    @Test
    void shouldRejectCorruptBlockContent() {
        byte[] bad;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            bad = c.compress(GOOD);
        }
        // 100 KB fits one block: a 9-byte header (single segment, 4-byte content size), a 3-byte
        // block header, the body. Damaging only the body gets past the Java block walk to libzstd.
        int blockHeader = bad[9] & 0xFF | (bad[10] & 0xFF) << 8 | (bad[11] & 0xFF) << 16;
        assertEquals(1, blockHeader & 1, "last block");
        assertEquals(2, blockHeader >>> 1 & 3, "compressed block");
        assertEquals(bad.length - 12, blockHeader >>> 3, "one block spans the frame");
        for (int i = 20; i < bad.length; i += 7) {
            bad[i] ^= (byte) 0x5A;
        }
        ZstdException e = assertRejectedThenRecovers(bad, ZstdException.Reason.CORRUPT);
        assertTrue(e.errorCode() != 0 && !e.errorName().isEmpty(), "libzstd's code and name: " + e.getMessage());
    }

    /**
     * The Java block walk refuses a truncated input before libzstd sees it: when every block
     * fits, the frame is complete. So libzstd's truncation result for a cut input (srcSize_wrong)
     * is not reachable through the decompressor (srcSize_wrong from a complete frame is a damaged
     * block: {@link #shouldReportADamagedBlockOfACompleteFrameAsCorrupt}); this pins what the
     * code maps to elsewhere (a compressor given fewer bytes than pledged).
     */
    @Test
    void shouldMapLibzstdsOwnTruncationResultToTruncated() throws Throwable {
        byte[] cut = Arrays.copyOf(goodFrame, goodFrame.length / 2); // inside a block
        MemorySegment src = arena.allocateFrom(JAVA_BYTE, cut);
        MemorySegment dst = arena.allocate(GOOD.length);
        long dctx = (long) LibZstd.CREATE_DCTX.invokeExact();
        long r;
        try {
            r = (long) LibZstd.DECOMPRESS_DCTX_RAW.invokeExact(dctx, dst.address(), dst.byteSize(), src.address(), src.byteSize());
        } finally {
            long ignored = (long) LibZstd.FREE_DCTX.invokeExact(dctx);
        }
        assertEquals(LibZstd.ERR_SRC_SIZE_WRONG, LibZstd.errorCode(r), LibZstd.errorName(r));
        assertEquals(ZstdException.Reason.TRUNCATED, ZstdException.reasonOf(LibZstd.errorCode(r)));
        ZstdException e = assertRejectedThenRecovers(cut, ZstdException.Reason.TRUNCATED);
        // one compressed block after a 9-byte header, then the checksum: the rest is what it needs
        assertEquals("frame incomplete: length=" + cut.length + ", cut inside block 1 (compressed, of declared size "
                + (goodFrame.length - 9 - 3 - 4) + " at offset 9), needs at least " + (goodFrame.length - cut.length)
                + " more bytes", e.getMessage());
    }

    /**
     * libzstd's srcSize_wrong and dstSize_tooSmall while decoding a frame it has whole (the
     * one-shot paths walk every block first; a stream reports its own end of input) mean a
     * damaged block, not a cut input or a small destination: CORRUPT on every path. They were
     * TRUNCATED, and from a stream DESTINATION_TOO_SMALL, which it has no destination to be.
     */
    @Test
    void shouldReportADamagedBlockOfACompleteFrameAsCorrupt() throws IOException {
        // magic, descriptor (single segment, 1-byte content size), content size 5, one last
        // compressed block of 6 bytes: a raw literals section holding "hello" and no byte left
        // for the sequences section (its count, 0 here, is at least one byte)
        byte[] noSequences = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 5, (6 << 3 | 2 << 1 | 1), 0, 0,
            5 << 3, 'h', 'e', 'l', 'l', 'o'};
        byte[] whole = Arrays.copyOf(noSequences, noSequences.length + 1);
        whole[6] = 7 << 3 | 2 << 1 | 1; // the block with its sequence count of 0
        assertArrayEquals("hello".getBytes(), decompressor.decompress(whole), "the hand-made frame, whole");
        // magic, descriptor (single segment, 1-byte content size), content size 1, one last RLE
        // block of 1,040,407 bytes of 0x89
        byte[] rleOverflow = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 1, (byte) 0xBB, 0x00, 0x7F, (byte) 0x89};
        for (byte[] bad : new byte[][] {noSequences, rleOverflow}) {
            String what = HexFormat.of().formatHex(bad);
            ZstdException e = assertRejectedThenRecovers(bad, ZstdException.Reason.CORRUPT);
            assertEquals(bad.length, ZstdFrames.compressedSize(MemorySegment.ofArray(bad)), "complete: " + what);
            ZstdStreamException streamed = streamFailure(bad);
            assertEquals(ZstdException.Reason.CORRUPT, streamed.reason(), "stream: " + what + ": " + streamed.getMessage());
            assertTrue(streamed.errorCode() != 0 && streamed.getMessage().contains(streamed.errorName()), streamed.getMessage());
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(goodFrame), decompressor)) {
                assertArrayEquals(GOOD, in.readAllBytes(), "usable after " + e.getMessage());
            }
        }
    }

    /**
     * A block header naming more than the block maximum (RFC 8878 3.1.1.2: the smaller of the
     * window and 128 KiB; a single-segment frame's window is its content size) cannot be made
     * valid by more input, so when such a block runs past the end of the input it is CORRUPT on
     * every path, as the streaming decoder reports it. The one-shot paths, whose block walk ran
     * out of input first, said TRUNCATED. A cut inside a block of legal size stays TRUNCATED.
     */
    @Test
    void shouldReportABlockAboveTheBlockMaximumAsCorruptOnEveryPath() throws IOException {
        // goodFrame: single segment (window = content size 100,000), 4-byte content size, so the
        // first block header follows a 9-byte frame header
        int fhd = goodFrame[4] & 0xFF;
        assertEquals(0b1010_0100, fhd, "single segment, 4-byte content size, checksum");
        int at = 9;
        int header = goodFrame[at] & 0xFF | (goodFrame[at + 1] & 0xFF) << 8 | (goodFrame[at + 2] & 0xFF) << 16;
        assertTrue((header >>> 3) <= GOOD.length && (header >>> 1 & 3) != 1, "a legal raw or compressed block");
        for (int size : new int[] {GOOD.length + 1, ZstdFrames.BLOCK_SIZE_MAX + 1, (1 << 21) - 1}) {
            byte[] bad = goodFrame.clone();
            int patched = header & 7 | size << 3;
            bad[at] = (byte) patched;
            bad[at + 1] = (byte) (patched >>> 8);
            bad[at + 2] = (byte) (patched >>> 16);
            assertTrue(size > bad.length, "the block runs past the input: size=" + size);
            ZstdException e = assertRejectedThenRecovers(bad, ZstdException.Reason.CORRUPT);
            assertTrue(e.getMessage().contains("blockSize=" + size), e.getMessage());
            ZstdStreamException streamed = streamFailure(bad);
            assertEquals(ZstdException.Reason.CORRUPT, streamed.reason(), "stream, size=" + size + ": " + streamed.getMessage());
            // compressedSize answers as libzstd's ZSTD_findFrameCompressedSize, which does not
            // check the block maximum: the input ends inside the block
            ZstdException walked = assertThrows(ZstdException.class,
                    () -> ZstdFrames.compressedSize(MemorySegment.ofArray(bad)));
            assertEquals(ZstdException.Reason.TRUNCATED, walked.reason(), walked.getMessage());
        }
        byte[] cut = Arrays.copyOf(goodFrame, at + 3 + (header >>> 3) / 2); // inside the legal block
        assertRejectedThenRecovers(cut, ZstdException.Reason.TRUNCATED);
        assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(cut).reason());
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(goodFrame), decompressor)) {
            assertArrayEquals(GOOD, in.readAllBytes());
        }
    }

    /**
     * An RLE block's header names the size it regenerates; one byte is stored. A frame cut after
     * such a block whose size is above the block maximum is CORRUPT on every path, as libzstd's
     * streaming decoder ("Decompressed Block Size Exceeds Maximum") and {@code zstd -d} ("Data
     * corruption detected") report it; the one-shot paths said TRUNCATED (they compared the stored
     * byte with the maximum). Cut before its one byte, the block is TRUNCATED, as {@code zstd -d}
     * says ("premature end"): libzstd checks the size once the block is there. RLE blocks up to the
     * maximum decode on every path.
     */
    @Test
    void shouldReportAnRleBlockAboveTheBlockMaximumAsCorruptOnEveryPath() throws IOException {
        byte[] window1k = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, 0}; // no content size, window 2^10
        byte[] window1m = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, 10 << 3}; // window 2^20: maximum 128 KiB
        // single segment, 4-byte content size 200,000: maximum 128 KiB
        byte[] declared200k = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, (byte) 0xA0, 0x40, 0x0D, 0x03, 0};
        byte[] tail = "0123456789".getBytes();
        List<byte[]> within = List.of(
                concat(window1k, rleBlock(1024, 'a', true)),
                concat(window1m, rleBlock(ZstdFrames.BLOCK_SIZE_MAX, 'a', true)),
                concat(declared200k, rleBlock(ZstdFrames.BLOCK_SIZE_MAX, 'a', false),
                        rleBlock(200_000 - ZstdFrames.BLOCK_SIZE_MAX, 'b', true)),
                concat(window1k, rleBlock(1000, 'a', false), blockHeader(tail.length, 0, true), tail));
        for (byte[] frame : within) {
            String what = HexFormat.of().formatHex(frame);
            byte[] content = decompressor.decompress(frame);
            assertEquals(contentLength(frame), content.length, what);
            MemorySegment dst = arena.allocate(content.length);
            assertEquals(content.length, decompressor.decompress(arena.allocateFrom(JAVA_BYTE, frame), dst), what);
            assertArrayEquals(content, dst.toArray(JAVA_BYTE), what);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), decompressor)) {
                assertArrayEquals(content, in.readAllBytes(), "stream: " + what);
            }
            assertEquals(frame.length, ZstdFrames.compressedSize(MemorySegment.ofArray(frame)), what);
        }
        for (byte[] cut : List.of(concat(window1k, rleBlock(2000, 'a', false)),
                concat(window1m, rleBlock(ZstdFrames.BLOCK_SIZE_MAX + 1, 'a', false), blockHeader(tail.length, 0, true)))) {
            String what = HexFormat.of().formatHex(cut);
            ZstdException e = assertRejectedThenRecovers(cut, ZstdException.Reason.CORRUPT);
            assertTrue(e.getMessage().contains("at=6, blockSize=" + (cut[5] == 0 ? 2000 : ZstdFrames.BLOCK_SIZE_MAX + 1)),
                    e.getMessage());
            ZstdStreamException streamed = streamFailure(cut);
            assertEquals(ZstdException.Reason.CORRUPT, streamed.reason(), "stream: " + what + ": " + streamed.getMessage());
            // as libzstd's ZSTD_findFrameCompressedSize, which does not check the block maximum
            ZstdException walked = assertThrows(ZstdException.class, () -> ZstdFrames.compressedSize(MemorySegment.ofArray(cut)));
            assertEquals(ZstdException.Reason.TRUNCATED, walked.reason(), walked.getMessage());
        }
        for (byte[] cut : List.of(concat(window1k, blockHeader(2000, 1, true)), concat(window1k, rleBlock(1024, 'a', false)))) {
            assertRejectedThenRecovers(cut, ZstdException.Reason.TRUNCATED);
            assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(cut).reason(), HexFormat.of().formatHex(cut));
        }
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(goodFrame), decompressor)) {
            assertArrayEquals(GOOD, in.readAllBytes());
        }
    }

    /** A block header: bit 0 last, bits 1-2 type (0 raw, 1 RLE, 2 compressed), bits 3-23 size. */
    private static byte[] blockHeader(int size, int type, boolean last) {
        int header = size << 3 | type << 1 | (last ? 1 : 0);
        return new byte[] {(byte) header, (byte) (header >>> 8), (byte) (header >>> 16)};
    }

    private static byte[] rleBlock(int size, char b, boolean last) {
        return concat(blockHeader(size, 1, last), new byte[] {(byte) b});
    }

    /** The content length of a hand-made frame of raw and RLE blocks, with no dictionary ID. */
    private static int contentLength(byte[] frame) {
        int headerSize = (frame[4] & 0x20) != 0 ? 9 : 6;
        int total = 0;
        for (int p = headerSize; ; ) {
            int header = frame[p] & 0xFF | (frame[p + 1] & 0xFF) << 8 | (frame[p + 2] & 0xFF) << 16;
            boolean rle = (header >>> 1 & 3) == 1;
            total += header >>> 3;
            p += 3 + (rle ? 1 : header >>> 3);
            if ((header & 1) != 0) {
                return total;
            }
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            bytes.writeBytes(part);
        }
        return bytes.toByteArray();
    }

    @Test
    void shouldRejectChecksumMismatch() {
        byte[] bad = goodFrame.clone();
        bad[bad.length - 1] ^= 1;
        ZstdException e = assertRejectedThenRecovers(bad, ZstdException.Reason.CHECKSUM);
        assertTrue(e.errorName().toLowerCase().contains("checksum"), e.errorName());
    }

    @Test
    void shouldRejectTruncatedFrame() {
        assertRejectedThenRecovers(Arrays.copyOf(goodFrame, goodFrame.length / 2), ZstdException.Reason.TRUNCATED);
        assertRejectedThenRecovers(Arrays.copyOf(goodFrame, 5), ZstdException.Reason.TRUNCATED);
    }

    @Test
    void shouldRejectInputThatIsNotZstd() {
        ZstdException e = assertRejectedThenRecovers("hello, this is not zstd".getBytes(), ZstdException.Reason.NOT_ZSTD);
        assertTrue(e.getMessage().contains("not a zstd frame"), e.getMessage());
        assertRejectedThenRecovers(new byte[] {1, 2}, ZstdException.Reason.NOT_ZSTD);
    }

    /**
     * A frame cut inside its magic number (the first 1 to 3 of 28 B5 2F FD) is a truncated frame on
     * every path, like a frame cut anywhere later, and as libzstd reads it (srcSize_wrong: it waits
     * for more). Bytes that the magic does not start with stay NOT_ZSTD, also one byte long.
     */
    @Test
    void shouldReportAMagicNumberCutShortAsTruncatedOnEveryPath() throws Throwable {
        for (int n = 1; n < 4; n++) {
            byte[] cut = Arrays.copyOf(goodFrame, n);
            assertEquals(LibZstd.ERR_SRC_SIZE_WRONG, libzstdErrorCode(cut), "libzstd, length=" + n);
            ZstdException e = assertRejectedThenRecovers(cut, ZstdException.Reason.TRUNCATED);
            assertEquals("frame incomplete: length=" + n + ", cut inside the magic number, needs at least " + (9 - n)
                    + " more bytes", e.getMessage());
            assertHeaderReadersRefuse(cut, ZstdException.Reason.TRUNCATED);
            assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(cut).reason(), "stream, length=" + n);
            byte[] frameThenCut = Arrays.copyOf(goodFrame, goodFrame.length + n);
            System.arraycopy(goodFrame, 0, frameThenCut, goodFrame.length, n);
            assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(frameThenCut).reason(), "stream, frame then " + n);
        }
        for (byte[] other : new byte[][] {{0x29}, {0x28, 0x00}, {0x28, (byte) 0xB5, 0x2E}, {(byte) 0xB5, 0x2F, (byte) 0xFD}}) {
            String what = HexFormat.of().formatHex(other);
            assertEquals(LibZstd.ERR_PREFIX_UNKNOWN, libzstdErrorCode(other), "libzstd: " + what);
            ZstdException e = assertRejectedThenRecovers(other, ZstdException.Reason.NOT_ZSTD);
            assertEquals("not a zstd frame: length=" + other.length + ", magic mismatch", e.getMessage());
            assertHeaderReadersRefuse(other, ZstdException.Reason.NOT_ZSTD);
            assertEquals(ZstdException.Reason.NOT_ZSTD, streamFailure(other).reason(), "stream: " + what);
        }
    }

    /**
     * ZSTD_findFrameCompressedSize's error code for {@code input}: it reads a short input's bytes
     * as the magic's start or not (ZSTD_getFrameHeader), as ZSTD_decompressStream does, where
     * ZSTD_decompressDCtx calls anything under 5 bytes srcSize_wrong unread.
     */
    private int libzstdErrorCode(byte[] input) throws Throwable {
        MemorySegment src = arena.allocateFrom(JAVA_BYTE, input);
        long r = (long) LibZstd.FIND_FRAME_COMPRESSED_SIZE_RAW.invokeExact(src.address(), src.byteSize());
        assertTrue(LibZstd.isError(r), "libzstd read a frame in " + HexFormat.of().formatHex(input));
        return LibZstd.errorCode(r);
    }

    /** ZstdFrames' header readers refuse {@code input} for {@code reason}. */
    private static void assertHeaderReadersRefuse(byte[] input, ZstdException.Reason reason) {
        MemorySegment seg = MemorySegment.ofArray(input);
        String what = HexFormat.of().formatHex(input);
        assertEquals(reason, assertThrows(ZstdException.class, () -> ZstdFrames.contentSize(seg)).reason(), "contentSize: " + what);
        assertEquals(reason, assertThrows(ZstdException.class, () -> ZstdFrames.dictionaryId(seg)).reason(), "dictionaryId: " + what);
        assertEquals(reason, assertThrows(ZstdException.class, () -> ZstdFrames.compressedSize(seg)).reason(), "compressedSize: " + what);
    }

    /** What a ZstdInputStream over {@code input} (on this test's decompressor) throws after reading all it can. */
    private ZstdStreamException streamFailure(byte[] input) throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), decompressor)) {
            return assertThrows(ZstdStreamException.class, in::readAllBytes);
        }
    }

    /**
     * One input of the one-shot paths is exactly one zstd frame, so a skippable frame (magic
     * 50..5F 2A 4D 18) is NOT_ZSTD there, whole or cut: no more bytes would make it acceptable. A
     * stream steps over skippable frames, so there one cut anywhere, inside its magic included, is
     * TRUNCATED, as it was from the fourth byte on.
     */
    @Test
    void shouldReportACutSkippableFrameAsNotZstdOneShotAndTruncatedInAStream() throws Throwable {
        byte[] skippable = {0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'};
        for (int n = 1; n <= skippable.length; n++) {
            byte[] cut = Arrays.copyOf(skippable, n);
            String what = HexFormat.of().formatHex(cut);
            ZstdException e = assertRejectedThenRecovers(cut, ZstdException.Reason.NOT_ZSTD);
            assertEquals("not a zstd frame: length=" + n + ", " + (n < 4 ? "magic mismatch"
                    : "a skippable frame (magic 0x184D2A5A), not a zstd frame: a one-shot call takes one zstd frame;"
                    + " ZstdInputStream reads past skippable frames"), e.getMessage(), what);
            assertHeaderReadersRefuse(cut, ZstdException.Reason.NOT_ZSTD);
            if (n < skippable.length) {
                assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(cut).reason(), "stream: " + what);
                byte[] frameThenCut = Arrays.copyOf(goodFrame, goodFrame.length + n);
                System.arraycopy(cut, 0, frameThenCut, goodFrame.length, n);
                assertEquals(ZstdException.Reason.TRUNCATED, streamFailure(frameThenCut).reason(), "stream, frame then " + what);
            }
        }
        byte[] skippableThenFrame = Arrays.copyOf(skippable, skippable.length + goodFrame.length);
        System.arraycopy(goodFrame, 0, skippableThenFrame, skippable.length, goodFrame.length);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(skippableThenFrame), decompressor)) {
            assertArrayEquals(GOOD, in.readAllBytes());
        }
    }

    /** Frames of zstd before 0.8 (v0.1's magic, v0.2 to v0.7's) are named as legacy, not as any bytes. */
    @Test
    void shouldNameALegacyFrameAsLegacy() {
        int[][] magics = {{0x1EB52FFD, 1}, {0xFD2FB522, 2}, {0xFD2FB525, 5}, {0xFD2FB527, 7}};
        for (int[] m : magics) {
            byte[] frame = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(m[0]).array();
            ZstdException e = assertRejectedThenRecovers(frame, ZstdException.Reason.NOT_ZSTD);
            assertEquals("not a zstd frame: length=12, a legacy zstd frame (format v0." + m[1]
                    + ", before zstd 0.8), which this library does not read", e.getMessage());
        }
        byte[] v08Neighbour = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0xFD2FB529).array();
        assertEquals("not a zstd frame: length=12, magic mismatch",
                assertRejectedThenRecovers(v08Neighbour, ZstdException.Reason.NOT_ZSTD).getMessage());
    }

    @Test
    void shouldRejectBytesAfterTheFrame() {
        byte[] two = Arrays.copyOf(goodFrame, 2 * goodFrame.length);
        System.arraycopy(goodFrame, 0, two, goodFrame.length, goodFrame.length);
        ZstdException e = assertRejectedThenRecovers(two, ZstdException.Reason.CORRUPT);
        assertTrue(e.getMessage().contains("bytes after the frame: frame=" + goodFrame.length), e.getMessage());
        byte[] trailing = Arrays.copyOf(goodFrame, goodFrame.length + 1);
        assertRejectedThenRecovers(trailing, ZstdException.Reason.CORRUPT);
    }

    @Test
    void shouldRejectEmptyInput() {
        assertRejectedThenRecovers(new byte[0], ZstdException.Reason.EMPTY);
    }

    @Test
    void shouldRejectFrameAboveLimitFromItsHeader() {
        byte[] big = TestData.text((int) LIMIT + 1, 2);
        byte[] frame;
        try (ZstdCompressor c = new ZstdCompressor(1)) {
            frame = c.compress(big);
        }
        ZstdException e = assertRejectedThenRecovers(frame, ZstdException.Reason.TOO_LARGE);
        assertEquals("frame larger than limit: declared=" + (LIMIT + 1) + ", limit=" + LIMIT, e.getMessage());
    }

    @Test
    void shouldStopUndeclaredFrameAtLimit() throws Exception {
        byte[] big = TestData.text((int) LIMIT + 100_000, 3);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(bytes, 3)) {
            out.write(big);
        }
        byte[] frame = bytes.toByteArray();
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(frame)));
        ZstdException e = assertRejectedThenRecovers(frame, ZstdException.Reason.TOO_LARGE);
        assertTrue(e.getMessage().startsWith("frame larger than limit: declared=unknown, limit=" + LIMIT), e.getMessage());
    }

    /** A frame as a streaming compressor writes it: no content size, level 3's 2^21 window. */
    private static byte[] sizelessFrame(byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(bytes, 3)) {
            out.write(content);
        }
        byte[] frame = bytes.toByteArray();
        assertEquals(0, frame[4], "descriptor: no content size, not single segment, no checksum, no dictionary");
        assertEquals(WINDOW_2_21, frame[WINDOW_DESCRIPTOR]);
        return frame;
    }

    private static final int WINDOW_DESCRIPTOR = 5;
    /** Window descriptors: exponent (log2 - 10) in bits 7-3, eighths to add in bits 2-0. */
    private static final byte WINDOW_2_21 = (byte) (11 << 3);
    private static final byte WINDOW_2_23 = (byte) (13 << 3);
    private static final byte WINDOW_2_23_PLUS_EIGHTH = (byte) (13 << 3 | 1);
    private static final byte WINDOW_2_27 = (byte) (17 << 3);
    private static final byte WINDOW_2_32 = (byte) (22 << 3);

    private static byte[] withWindow(byte[] frame, byte descriptor) {
        byte[] patched = frame.clone();
        patched[WINDOW_DESCRIPTOR] = descriptor; // a larger window keeps every block valid
        return patched;
    }

    @Test
    void shouldRefuseSizelessFrameWhoseWindowExceedsTheAllowance() throws Exception {
        byte[] content = TestData.text(5000, 6);
        byte[] hostile = withWindow(sizelessFrame(content), WINDOW_2_27);
        assertTrue(hostile.length < 2000);
        ZstdException e = assertRejectedThenRecovers(hostile, ZstdException.Reason.TOO_LARGE);
        assertEquals("frame window larger than limit: window=134217728, limit=8388608 (from maxDecompressedSize="
                + LIMIT + "); a maxDecompressedSize above 67108864 allows it", e.getMessage());
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(hostile), decompressor)) {
            assertEquals(ZstdException.Reason.TOO_LARGE, assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
        }
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(goodFrame), decompressor)) {
            assertArrayEquals(GOOD, in.readAllBytes(), "usable after the refusal");
        }
        assertArrayEquals(content, decompressor.decompress(withWindow(hostile, WINDOW_2_23)), "2^23 is allowed");
    }

    /**
     * A window above 2^31, more than any limit allows, is TOO_LARGE like one above the allowance, on
     * every path and in frame inspection (it was CORRUPT, "frame header invalid"), and libzstd itself
     * calls it too large.
     */
    @Test
    void shouldRefuseAWindowAboveAnyLimitAsTooLarge() throws Exception {
        byte[] hostile = withWindow(sizelessFrame(TestData.text(5000, 6)), WINDOW_2_32);
        ZstdException e = assertRejectedThenRecovers(hostile, ZstdException.Reason.TOO_LARGE);
        assertEquals("frame window larger than any limit: windowLog=32, max=31", e.getMessage());
        assertEquals(ZstdException.Reason.TOO_LARGE,
                assertThrows(ZstdException.class, () -> ZstdFrames.contentSize(MemorySegment.ofArray(hostile))).reason());
        // as their Javadoc says (before 2026-11-26 it listed no TOO_LARGE for these two)
        assertEquals(ZstdException.Reason.TOO_LARGE,
                assertThrows(ZstdException.class, () -> ZstdFrames.dictionaryId(MemorySegment.ofArray(hostile))).reason());
        assertEquals(ZstdException.Reason.TOO_LARGE,
                assertThrows(ZstdException.class, () -> ZstdFrames.compressedSize(MemorySegment.ofArray(hostile))).reason());
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(hostile), decompressor)) {
            assertEquals(ZstdException.Reason.TOO_LARGE, assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
        }
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame), "usable after the refusal");
    }

    /**
     * Frame inspection refuses a window by its exponent (windowLog above 31), as libzstd's header
     * reader does: a window of 2^31 plus seven eighths (exponent 31, mantissa 7) is read, as
     * libzstd reads it, and refused by the decompressor under the largest limit. The Javadoc
     * said inspection refused any window above 2^31.
     */
    @Test
    void shouldReadAWindowOf2To31PlusEighthsAndRefuseItWhenDecompressing() throws Throwable {
        byte[] frame = withWindow(sizelessFrame(TestData.text(5000, 6)), (byte) ((21 << 3) | 7));
        MemorySegment n = arena.allocateFrom(JAVA_BYTE, frame);
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN,
                (long) LibZstd.GET_FRAME_CONTENT_SIZE_RAW.invokeExact(n.address(), (long) frame.length), "libzstd reads it");
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(n));
        assertEquals(frame.length, ZstdFrames.compressedSize(n));
        try (ZstdDecompressor largest = ZstdDecompressor.builder().maxDecompressedSize(Long.MAX_VALUE).build()) {
            ZstdException e = assertThrows(ZstdException.class, () -> largest.decompress(frame));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertEquals("frame window larger than limit: window=4026531840, limit=2147483648 (from maxDecompressedSize="
                    + Long.MAX_VALUE + "); no maxDecompressedSize allows it: the largest window taken is 2147483648 (2^31)",
                    e.getMessage());
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), largest)) {
                assertEquals(ZstdException.Reason.TOO_LARGE, assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
            }
        }
    }

    /**
     * A frame refused for its window says which limit would take it, and a decompressor with that
     * limit reads it while one at the bound still refuses it; a window above 2^31 says no limit
     * does. Before 2026-11-29 the message stopped at "(from maxDecompressedSize=…)": the caller
     * had to work out the window allowance's rounding, and was sent to raise a limit for a window
     * that no limit allows.
     */
    @Test
    void shouldSayWhichLimitTakesAWindowAboveTheAllowance() throws Exception {
        byte[] content = TestData.text(5000, 6);
        byte[] sizeless = sizelessFrame(content);
        byte[] eighth = withWindow(sizeless, WINDOW_2_23_PLUS_EIGHTH);
        ZstdException e = assertRejectedThenRecovers(eighth, ZstdException.Reason.TOO_LARGE);
        assertEquals("frame window larger than limit: window=9437184, limit=8388608 (from maxDecompressedSize=" + LIMIT
                + "); a maxDecompressedSize above 8388608 allows it", e.getMessage());
        try (ZstdDecompressor atBound = ZstdDecompressor.builder().maxDecompressedSize(1 << 23).build();
             ZstdDecompressor above = ZstdDecompressor.builder().maxDecompressedSize((1 << 23) + 1).build()) {
            assertEquals(ZstdException.Reason.TOO_LARGE,
                    assertThrows(ZstdException.class, () -> atBound.decompress(eighth)).reason());
            assertArrayEquals(content, above.decompress(eighth), "the limit the message names takes the frame");
        }
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(withWindow(sizeless, WINDOW_2_27)), decompressor)) {
            String message = assertThrows(ZstdStreamException.class, in::readAllBytes).getMessage();
            assertTrue(message.contains("; a maxDecompressedSize above 67108864 allows it; in the stream: frame=1"), message);
        }
        for (byte descriptor : new byte[] {(byte) (21 << 3 | 1), (byte) (21 << 3 | 7)}) { // 2^31 and one or seven eighths
            ZstdException none = assertRejectedThenRecovers(withWindow(sizeless, descriptor), ZstdException.Reason.TOO_LARGE);
            assertTrue(none.getMessage().endsWith("; no maxDecompressedSize allows it: the largest window taken is 2147483648"
                    + " (2^31)"), none.getMessage());
        }
        ZstdException exactly31 = assertRejectedThenRecovers(withWindow(sizeless, (byte) (21 << 3)), ZstdException.Reason.TOO_LARGE);
        assertTrue(exactly31.getMessage().endsWith("; a maxDecompressedSize above 1073741824 allows it"), exactly31.getMessage());
    }

    /** The Java header check and libzstd's ZSTD_d_windowLogMax draw the line at the same place. */
    @Test
    void shouldAgreeWithLibzstdWhereTheWindowAllowanceEnds() throws Throwable {
        assertEquals(23, ZstdDecompressor.windowLogMax(LIMIT));
        byte[] content = TestData.text(3000, 8);
        byte[] normal = sizelessFrame(content);
        for (byte descriptor : new byte[] {WINDOW_2_21, WINDOW_2_23, WINDOW_2_23_PLUS_EIGHTH, WINDOW_2_27}) {
            byte[] frame = withWindow(normal, descriptor);
            long nativeResult = streamWithWindowLogMax(frame, 23, content.length + 100);
            boolean libzstdAccepts = !LibZstd.isError(nativeResult);
            if (!libzstdAccepts) {
                assertEquals(LibZstd.ERR_WINDOW_TOO_LARGE, LibZstd.errorCode(nativeResult));
                assertEquals(ZstdException.Reason.TOO_LARGE, ZstdException.reasonOf(LibZstd.ERR_WINDOW_TOO_LARGE));
            }
            boolean javaAccepts;
            try {
                javaAccepts = Arrays.equals(content, decompressor.decompress(frame));
            } catch (ZstdException e) {
                assertEquals(ZstdException.Reason.TOO_LARGE, e.reason(), e.getMessage());
                javaAccepts = false;
            }
            assertEquals(libzstdAccepts, javaAccepts, "window descriptor=" + (descriptor & 0xFF));
            assertEquals(descriptor == WINDOW_2_21 || descriptor == WINDOW_2_23, javaAccepts);
        }
    }

    /** One ZSTD_decompressStream over {@code frame} on a fresh DCtx: the output size or the error. */
    private static long streamWithWindowLogMax(byte[] frame, int windowLogMax, int capacity) throws Throwable {
        long dctx = (long) LibZstd.CREATE_DCTX.invokeExact();
        try (Arena a = Arena.ofConfined()) {
            long r = (long) LibZstd.DCTX_SET_PARAMETER.invokeExact(dctx, LibZstd.D_WINDOW_LOG_MAX, windowLogMax);
            assertTrue(!LibZstd.isError(r));
            MemorySegment src = a.allocateFrom(JAVA_BYTE, frame);
            MemorySegment dst = a.allocate(capacity);
            MemorySegment in = a.allocate(JAVA_LONG, 3);
            MemorySegment out = a.allocate(JAVA_LONG, 3);
            in.setAtIndex(JAVA_LONG, 0, src.address());
            in.setAtIndex(JAVA_LONG, 1, frame.length);
            out.setAtIndex(JAVA_LONG, 0, dst.address());
            out.setAtIndex(JAVA_LONG, 1, capacity);
            r = (long) LibZstd.DECOMPRESS_STREAM_RAW.invokeExact(dctx, out.address(), in.address());
            return LibZstd.isError(r) ? r : out.getAtIndex(JAVA_LONG, 2);
        } finally {
            long ignored = (long) LibZstd.FREE_DCTX.invokeExact(dctx);
        }
    }

    @Test
    void shouldDecodeStreamingFramesUnderASmallLimitAndStopThemAtIt() throws Exception {
        long limit = 64 * 1024;
        byte[] fits = TestData.text(50_000, 9);
        byte[] tooLong = TestData.text(100_000, 10);
        try (ZstdDecompressor small = ZstdDecompressor.builder().maxDecompressedSize(limit).build()) {
            byte[] frame = sizelessFrame(fits);
            assertArrayEquals(fits, small.decompress(frame));
            byte[] heapOut = new byte[200_000];
            assertEquals(fits.length, small.decompress(MemorySegment.ofArray(frame), MemorySegment.ofArray(heapOut)));
            MemorySegment nativeOut = arena.allocate(200_000);
            assertEquals(fits.length, small.decompress(arena.allocateFrom(JAVA_BYTE, frame), nativeOut));
            assertEquals(-1, nativeOut.asSlice(0, fits.length).mismatch(MemorySegment.ofArray(fits)));
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), small)) {
                assertArrayEquals(fits, in.readAllBytes());
            }
            byte[] past = sizelessFrame(tooLong);
            for (MemorySegment dst : new MemorySegment[] {MemorySegment.ofArray(new byte[200_000]), arena.allocate(200_000)}) {
                ZstdException e = assertThrows(ZstdException.class, () -> small.decompress(MemorySegment.ofArray(past), dst));
                assertEquals("frame larger than limit: declared=unknown, limit=" + limit, e.getMessage());
            }
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(past), small)) {
                assertEquals(ZstdException.Reason.TOO_LARGE, assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
            }
            assertArrayEquals(fits, small.decompress(frame), "usable after the limit");
        }
    }

    @Test
    void shouldDeriveTheWindowAllowanceFromTheLimit() {
        assertEquals(23, ZstdDecompressor.windowLogMax(0));
        assertEquals(23, ZstdDecompressor.windowLogMax(1024));
        assertEquals(23, ZstdDecompressor.windowLogMax(1 << 23));
        assertEquals(24, ZstdDecompressor.windowLogMax((1 << 23) + 1));
        assertEquals(28, ZstdDecompressor.windowLogMax(ZstdDecompressor.DEFAULT_MAX_DECOMPRESSED_SIZE));
        assertEquals(31, ZstdDecompressor.windowLogMax(Long.MAX_VALUE));
    }

    /**
     * README, Errors: {@code errorCode()} and {@code errorName()} are 0 and "" when zmq-zstd found
     * the problem before calling zstd: an empty input, a bad magic, a header declaring more than
     * the limit, a dictionary the decompressor lacks, a frame cut short (found by the block walk),
     * bytes after the frame, and the same from a stream; the decompressor then decodes a good frame.
     */
    @Test
    void shouldGiveNoZstdCodeForProblemsFoundBeforeCallingZstd() throws IOException {
        byte[] tooLarge;
        try (ZstdCompressor c = new ZstdCompressor(1)) {
            tooLarge = c.compress(new byte[(int) LIMIT + 1]);
        }
        byte[] withDictionary;
        try (ZstdDictionary dict = ZstdDictionary.train(samples(0), 8192);
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build()) {
            withDictionary = c.compress(GOOD);
        }
        byte[] twoFrames = Arrays.copyOf(goodFrame, goodFrame.length * 2);
        System.arraycopy(goodFrame, 0, twoFrames, goodFrame.length, goodFrame.length);
        Object[][] cases = {
            {new byte[0], ZstdException.Reason.EMPTY},
            {"not a zstd frame".getBytes(StandardCharsets.US_ASCII), ZstdException.Reason.NOT_ZSTD},
            {tooLarge, ZstdException.Reason.TOO_LARGE},
            {withDictionary, ZstdException.Reason.DICTIONARY_MISSING},
            {Arrays.copyOf(goodFrame, 5), ZstdException.Reason.TRUNCATED},
            {Arrays.copyOf(goodFrame, goodFrame.length - 2), ZstdException.Reason.TRUNCATED},
            {twoFrames, ZstdException.Reason.CORRUPT},
        };
        for (Object[] c : cases) {
            byte[] input = (byte[]) c[0];
            ZstdException e = assertThrows(ZstdException.class, () -> decompressor.decompress(input));
            assertEquals(c[1], e.reason(), e.getMessage());
            assertEquals(0, e.errorCode(), "found before zstd: " + e.getMessage());
            assertEquals("", e.errorName(), "found before zstd: " + e.getMessage());
            if (c[1] != ZstdException.Reason.CORRUPT) { // a stream reads on past the first frame
                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), decompressor)) {
                    ZstdStreamException streamed = assertThrows(ZstdStreamException.class, in::readAllBytes);
                    assertEquals(c[1], streamed.reason(), streamed.getMessage());
                    assertEquals(0, streamed.errorCode(), "found before zstd, in a stream: " + streamed.getMessage());
                    assertEquals("", streamed.errorName(), "found before zstd, in a stream: " + streamed.getMessage());
                }
            }
            assertArrayEquals(GOOD, decompressor.decompress(goodFrame), "usable after " + c[1]);
        }
    }

    private static List<byte[]> samples(long seed) {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            samples.add(TestData.text(200, seed + i));
        }
        return samples;
    }

    @Test
    void shouldRefuseFrameMadeWithAnotherDictionary() {
        try (ZstdDictionary a = ZstdDictionary.train(samples(0), 8192);
             ZstdDictionary b = ZstdDictionary.train(samples(500_000), 8192);
             ZstdCompressor withA = ZstdCompressor.builder().dictionary(a).build();
             ZstdCompressor withB = ZstdCompressor.builder().dictionary(b).build();
             ZstdDecompressor holdingB = ZstdDecompressor.builder().maxDecompressedSize(LIMIT).dictionary(b).build()) {
            assertNotEquals(a.id(), b.id());
            byte[] message = TestData.text(300, 77);
            ZstdException e = assertRejectedThenRecovers(holdingB, withA.compress(message),
                    ZstdException.Reason.DICTIONARY_MISSING);
            assertEquals("frame needs a dictionary this decompressor lacks: dictionaryId=" + Integer.toUnsignedString(a.id())
                    + ", known=[" + Integer.toUnsignedString(b.id()) + "]", e.getMessage());
            assertArrayEquals(message, holdingB.decompress(withB.compress(message)), "its own dictionary still works");
        }
    }

    /**
     * A raw-content dictionary (no dictionary header: ID 0) cannot be named by a frame, so it
     * cannot be missed by ID either. Its frames carry a checksum, so a receiver with no dictionary
     * or another raw one reports an error instead of returning wrong bytes.
     */
    @Test
    void shouldChecksumFramesOfARawContentDictionaryAndRefuseThemWithoutIt() {
        byte[] message = TestData.text(400, 44);
        try (ZstdDictionary raw = ZstdDictionary.of(TestData.text(8192, 42));
             ZstdDictionary otherRaw = ZstdDictionary.of(TestData.text(8192, 43));
             ZstdCompressor c = ZstdCompressor.builder().dictionary(raw).build();
             ZstdCompressor plain = new ZstdCompressor(3);
             ZstdDecompressor right = ZstdDecompressor.builder().maxDecompressedSize(LIMIT).dictionary(raw).build();
             ZstdDecompressor wrong = ZstdDecompressor.builder().maxDecompressedSize(LIMIT).dictionary(otherRaw).build()) {
            assertEquals(0, raw.id());
            byte[] frame = c.compress(message);
            assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
            assertEquals(ZstdFrames.CHECKSUM_FLAG, frame[4] & ZstdFrames.CHECKSUM_FLAG, "checksum although not asked for");
            assertTrue(frame.length < plain.compress(message).length, "the raw content serves as a dictionary");
            assertArrayEquals(message, right.decompress(frame));
            assertRejectedThenRecovers(wrong, frame, ZstdException.Reason.CHECKSUM);
            assertRejectedThenRecovers(decompressor, frame, ZstdException.Reason.CORRUPT);
            assertArrayEquals(message, right.decompress(frame));
        }
    }

    @Test
    void shouldNameTheMissingDictionary() {
        try (ZstdDictionary dict = ZstdDictionary.train(samples(0), 8192);
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build()) {
            byte[] frame = c.compress(TestData.text(300, 99_999));
            assertEquals(dict.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
            ZstdException e = assertRejectedThenRecovers(frame, ZstdException.Reason.DICTIONARY_MISSING);
            assertTrue(e.getMessage().contains("dictionaryId=" + Integer.toUnsignedString(dict.id())), e.getMessage());
        }
    }

    @Test
    void shouldRefuseDestinationTooSmall() {
        MemorySegment dst = arena.allocate(GOOD.length - 1);
        ZstdException e = assertThrows(ZstdException.class,
                () -> decompressor.decompress(arena.allocateFrom(JAVA_BYTE, goodFrame), dst));
        assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ZstdException ce = assertThrows(ZstdException.class,
                    () -> c.compress(arena.allocateFrom(JAVA_BYTE, GOOD), arena.allocate(10)));
            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, ce.reason());
            byte[] large = TestData.text(400_000, 12);
            // Heap source: one call below 128 KiB, chunks above, output to a heap destination
            // through scratch or straight into a native one.
            for (byte[] input : new byte[][] {GOOD, large}) {
                for (MemorySegment small : new MemorySegment[] {MemorySegment.ofArray(new byte[1000]), arena.allocate(1000)}) {
                    ZstdException heap = assertThrows(ZstdException.class,
                            () -> c.compress(MemorySegment.ofArray(input), small));
                    assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, heap.reason(), heap.getMessage());
                }
            }
            assertArrayEquals(GOOD, decompressor.decompress(c.compress(GOOD)), "compressor usable after error");
        }
    }

    /**
     * libzstd's one-call compressor writes its bit streams 8 bytes at a time, so it refuses a
     * destination of exactly the frame's size (and up to 16 bytes more, measured on 1.5.4) that
     * the streaming path fills exactly. The javadoc said DESTINATION_TOO_SMALL meant "the frame
     * does not fit", and the one-call message named neither the capacity nor the input size
     * ("ZSTD_compressCCtx failed: Destination buffer is too small ..."), unlike the chunked path.
     */
    @Test
    void shouldNameCapacityAndInputWhenTheOneCallCompressorWantsRoomToSpare() {
        try (ZstdCompressor plain = new ZstdCompressor(3);
             ZstdCompressor checksummed = ZstdCompressor.builder().checksum(true).build()) {
            for (ZstdCompressor c : new ZstdCompressor[] {plain, checksummed}) {
                byte[] frame = c.compress(GOOD);
                for (MemorySegment exact : new MemorySegment[] {MemorySegment.ofArray(new byte[frame.length]),
                        arena.allocate(frame.length)}) {
                    ZstdException e = assertThrows(ZstdException.class, () -> c.compress(arena.allocateFrom(JAVA_BYTE, GOOD), exact));
                    assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
                    assertTrue(e.getMessage().startsWith("destination too small: capacity=" + frame.length + ", srcLength="
                            + GOOD.length + " ("), e.getMessage());
                    assertTrue(e.getMessage().contains("maxCompressedSize=" + ZstdCompressor.maxCompressedSize(GOOD.length)),
                            e.getMessage());
                    assertEquals(LibZstd.ERR_DST_SIZE_TOO_SMALL, e.errorCode(), "zstd's code kept");
                }
                MemorySegment roomy = arena.allocate(ZstdCompressor.maxCompressedSize(GOOD.length));
                assertEquals(frame.length, c.compress(arena.allocateFrom(JAVA_BYTE, GOOD), roomy), "usable after the error");
            }
        }
    }

    /**
     * decompress(byte[]) allocates the declared size before decoding. A 17-byte frame declaring
     * 200 MiB (within the default limit) over one 1-byte raw block made it allocate 200 MiB
     * before libzstd said CORRUPT: a few such frames at once are an OutOfMemoryError, not a
     * clear exception. The blocks, walked anyway, hold at most their raw and RLE sizes plus the
     * block maximum per compressed block; a declared size above that is refused first.
     */
    @Test
    void shouldRefuseAFrameDeclaringMoreThanItsBlocksHoldBeforeAllocatingIt() throws IOException {
        long declared = 200L << 20;
        byte[] frame = new byte[4 + 1 + 8 + 3 + 1];
        java.nio.ByteBuffer.wrap(frame).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(ZstdFrames.MAGIC)
                .put((byte) (3 << 6 | 1 << 5)) // 8-byte content size, single segment
                .putLong(declared).put((byte) (1 << 3 | 1)).put((byte) 0).put((byte) 0) // last raw block of 1 byte
                .put((byte) 7);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            long start = threads.getCurrentThreadAllocatedBytes();
            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(frame));
            long allocated = threads.getCurrentThreadAllocatedBytes() - start;
            assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
            assertEquals("frame declares more content than its blocks hold: declared=" + declared + ", most=1", e.getMessage());
            assertTrue(allocated < 1 << 20, "allocated " + allocated + " bytes for a 17-byte frame");
            byte[] plain = TestData.text(1 << 20, 17); // compressed blocks count the block maximum each
            try (ZstdCompressor c = new ZstdCompressor(3)) {
                assertArrayEquals(plain, d.decompress(c.compress(plain)));
            }
        }
    }

    @Test
    void shouldRejectFrameWhoseContentExceedsItsDeclaredSize() {
        byte[] data = TestData.random(200, 5);
        byte[] frame = new byte[(int) ZstdFrames.rawFrameSize(data.length)];
        ZstdFrames.writeRawFrame(MemorySegment.ofArray(data), 0, data.length, MemorySegment.ofArray(frame), 0, frame.length);
        frame[5] = (byte) 100; // single segment, 1-byte content size: declares 100 of the block's 200
        assertEquals(100, ZstdFrames.contentSize(MemorySegment.ofArray(frame)));
        ZstdException e = assertRejectedThenRecovers(frame, ZstdException.Reason.CORRUPT);
        assertEquals("frame content longer than its header declares: declared=100", e.getMessage());
        assertEquals(LibZstd.ERR_DST_SIZE_TOO_SMALL, e.errorCode());
    }

    @Test
    void shouldRejectBoundsOutsideTheSegment() {
        MemorySegment src = arena.allocateFrom(JAVA_BYTE, goodFrame);
        assertThrows(IndexOutOfBoundsException.class,
                () -> decompressor.decompress(src, 1, goodFrame.length, arena.allocate(GOOD.length), 0, GOOD.length));
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame));
    }

    /**
     * A compression source range outside its segment is refused in the same words on every kind of
     * source and destination (since 2026-11-29 "source range out of bounds: srcOffset=-1,
     * srcLength=10, byteSize=100", {@link SegmentSideErrorTest}; the JDK's "Range [-1, -1 + 10) out
     * of bounds for length 100" before), and the compressor goes on. Before, a heap source up
     * to 128 KiB (and so every {@code compress(byte[], int, int, byte[], int, int)}) was refused
     * only by its copy into the scratch memory, in FFM's words: "Out of bound access on segment
     * MemorySegment{ kind: heap, heapBase: [B@…, address: 0x0, byteSize: 100 }; new offset = -1;
     * new length = 10", a segment the caller of the array overload never made.
     */
    @Test
    void shouldNameASourceRangeOutsideItsSegmentAsEveryOtherRange() {
        byte[] array = TestData.text(100, 2);
        byte[] out = new byte[1000];
        long[][] bad = {{-1, 10}, {0, 101}, {95, 10}, {101, 0}, {Long.MIN_VALUE, 10}};
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            List<MemorySegment> sources = List.of(arena.allocateFrom(JAVA_BYTE, array), MemorySegment.ofArray(array));
            List<MemorySegment> destinations = List.of(arena.allocate(out.length), MemorySegment.ofArray(out));
            for (long[] range : bad) {
                String expected = "source range out of bounds: srcOffset=" + range[0] + ", srcLength=" + range[1] + ", byteSize=100";
                for (MemorySegment src : sources) {
                    for (MemorySegment dst : destinations) {
                        String where = Arrays.toString(range) + " src native=" + src.isNative() + " dst native=" + dst.isNative();
                        assertEquals(expected, assertThrows(IndexOutOfBoundsException.class,
                                () -> c.compress(src, range[0], range[1], dst, 0, dst.byteSize()), where).getMessage(), where);
                        long n = c.compress(src, 0, array.length, dst, 0, dst.byteSize());
                        assertArrayEquals(array, decompressor.decompress(dst.asSlice(0, n).toArray(JAVA_BYTE)), where);
                    }
                }
                if (range[0] >= Integer.MIN_VALUE) {
                    String where = Arrays.toString(range) + " byte[]";
                    assertEquals(expected, assertThrows(IndexOutOfBoundsException.class,
                            () -> c.compress(array, (int) range[0], (int) range[1], out, 0, out.length), where).getMessage(), where);
                }
            }
        }
    }

    /** A null array is named, as FFM's own {@code MemorySegment.ofArray(null)} does not: its NPE has no message. */
    @Test
    void shouldNameTheNullArrayOfEveryByteArrayOverload() {
        byte[] buf = new byte[GOOD.length];
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            assertNullNamed("src", () -> c.compress(null));
            assertNullNamed("src", () -> c.compress(null, 0, 0, buf, 0, buf.length));
            assertNullNamed("dst", () -> c.compress(GOOD, 0, 10, null, 0, 0));
            assertNullNamed("src", () -> decompressor.decompress(null));
            assertNullNamed("src", () -> decompressor.decompress(null, 0, 0, buf, 0, buf.length));
            assertNullNamed("dst", () -> decompressor.decompress(goodFrame, 0, goodFrame.length, null, 0, 0));
        }
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame));
    }

    private static void assertNullNamed(String argument, org.junit.jupiter.api.function.Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertEquals(argument, e.getMessage());
    }

    @Test
    void shouldThrowIllegalStateAfterCloseAndCloseTwice() {
        ZstdCompressor c = new ZstdCompressor(3);
        ZstdDecompressor d = new ZstdDecompressor();
        c.close();
        c.close();
        d.close();
        d.close();
        MemorySegment seg = arena.allocate(100);
        assertThrows(IllegalStateException.class, () -> c.compress(seg, seg));
        assertThrows(IllegalStateException.class, () -> c.compress(GOOD));
        assertThrows(IllegalStateException.class, c::level);
        assertThrows(IllegalStateException.class, () -> d.decompress(goodFrame));
        assertThrows(IllegalStateException.class, () -> d.decompress(seg, seg));
        assertThrows(IllegalStateException.class, d::maxDecompressedSize);
        try (ZstdDictionary raw = ZstdDictionary.of(GOOD)) {
            assertThrows(IllegalStateException.class, () -> d.addDictionary(raw));
        }
    }

    @Test
    void shouldRejectSegmentWhoseArenaIsClosed() {
        MemorySegment src;
        try (Arena a = Arena.ofConfined()) {
            src = a.allocateFrom(JAVA_BYTE, goodFrame);
        }
        MemorySegment dst = arena.allocate(GOOD.length);
        Function<MemorySegment, Long> call = s -> decompressor.decompress(s, dst);
        assertThrows(IllegalStateException.class, () -> call.apply(src));
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame));
    }

    /**
     * A segment whose arena is closed, where the codec reads or writes it in Java (a frame's header,
     * a frame of raw blocks copied without libzstd, a raw frame written): until 2026-11-29 FFM's bare
     * "Already closed", which names nothing and reads like a closed decompressor. Now named as a
     * segment passed to libzstd by address is, FFM's error as the cause; the decompressor goes on.
     */
    @Test
    void shouldNameTheSegmentWhoseArenaIsClosedWhereItIsReadInJava() {
        MemorySegment deadFrame;
        MemorySegment deadDst;
        try (Arena a = Arena.ofConfined()) {
            deadFrame = a.allocateFrom(JAVA_BYTE, goodFrame);
            deadDst = a.allocate(100_000);
        }
        MemorySegment frame = deadFrame;
        MemorySegment dst = deadDst;
        String frameClosed = "frame segment is no longer alive: its arena is closed";
        String dstClosed = "destination segment is no longer alive: its arena is closed";
        byte[] small = TestData.text(500, 2);
        // Heap segments on the other side: two native ranges are compared for overlap first, and
        // memory malloc hands out again for them would be refused as that (a test of its own)
        MemorySegment rawFrame = MemorySegment.ofArray(new byte[(int) ZstdFrames.rawFrameSize(small.length)]);
        ZstdFrames.writeRawFrame(small, 0, small.length, rawFrame, 0, rawFrame.byteSize());
        List<Function<Void, Object>> frameReads = List.of(
                v -> decompressor.decompress(frame, MemorySegment.ofArray(new byte[GOOD.length])),
                v -> ZstdFrames.contentSize(frame),
                v -> ZstdFrames.dictionaryId(frame),
                v -> ZstdFrames.compressedSize(frame),
                v -> ZstdFrames.contentBound(frame, 0, frame.byteSize()));
        for (Function<Void, Object> read : frameReads) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> read.apply(null));
            assertEquals(frameClosed, e.getMessage());
            assertEquals("Already closed", e.getCause().getMessage(), "FFM's own error as the cause");
        }
        IllegalStateException copy = assertThrows(IllegalStateException.class, () -> decompressor.decompress(rawFrame, dst));
        assertEquals(dstClosed, copy.getMessage(), "a frame of raw blocks, copied in Java");
        IllegalStateException raw = assertThrows(IllegalStateException.class,
                () -> ZstdFrames.writeRawFrame(small, 0, small.length, dst, 0, 1000));
        assertEquals(dstClosed, raw.getMessage());
        IllegalStateException rawSource = assertThrows(IllegalStateException.class,
                () -> ZstdFrames.writeRawFrame(frame, 0, 100, MemorySegment.ofArray(new byte[1000]), 0, 1000));
        assertEquals("source segment is no longer alive: its arena is closed", rawSource.getMessage());
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame), "goes on");
        assertEquals(small.length, decompressor.decompress(rawFrame, arena.allocate(small.length)), "goes on");
    }

    /**
     * A closed arena's memory may be handed out again at once, here for the destination: the dead
     * source then overlaps it by address. It is refused as closed, not as an overlap (until
     * 2026-11-27 the overlap was reported, and {@link #shouldRejectSegmentWhoseArenaIsClosed}
     * failed whenever malloc reused the freed block). Compressing too.
     */
    @Test
    void shouldRejectAClosedSegmentWhoseMemoryTheDestinationNowHolds() {
        MemorySegment dst = arena.allocate(100_000);
        MemorySegment dead;
        try (Arena a = Arena.ofConfined()) {
            dead = dst.reinterpret(a, null);
        }
        MemorySegment closed = dead;
        IllegalStateException d = assertThrows(IllegalStateException.class, () -> decompressor.decompress(closed, dst));
        assertTrue(d.getMessage().contains("no longer alive"), d.getMessage());
        try (ZstdCompressor c = ZstdCompressor.builder().build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.compress(closed.asSlice(0, 1000), dst));
            assertTrue(e.getMessage().contains("no longer alive"), e.getMessage());
        }
        assertArrayEquals(GOOD, decompressor.decompress(goodFrame));
    }

    /**
     * A segment of another thread's confined arena is refused, as FFM refuses any access to it,
     * source and destination, compressing and decompressing: passed by raw address, zstd would
     * otherwise read memory its owner may free at any moment.
     */
    @Test
    void shouldRefuseASegmentConfinedToAnotherThread() throws Exception {
        byte[] data = TestData.text(10_000, 3);
        byte[] frame;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            frame = c.compress(data);
        }
        MemorySegment[] theirs = new MemorySegment[2];
        CountDownLatch made = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread owner = Thread.ofPlatform().start(() -> {
            try (Arena confined = Arena.ofConfined()) {
                theirs[0] = confined.allocateFrom(JAVA_BYTE, frame);
                theirs[1] = confined.allocate(ZstdCompressor.maxCompressedSize(data.length));
                made.countDown();
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            made.await();
            MemorySegment mine = arena.allocate(ZstdCompressor.maxCompressedSize(data.length));
            MemorySegment src = arena.allocateFrom(JAVA_BYTE, data);
            assertThrows(WrongThreadException.class, () -> d.decompress(theirs[0], mine));
            assertThrows(WrongThreadException.class, () -> d.decompress(MemorySegment.ofArray(frame), theirs[1]));
            assertThrows(WrongThreadException.class, () -> c.compress(theirs[0], mine));
            assertThrows(WrongThreadException.class, () -> c.compress(src, theirs[1]));
            assertArrayEquals(data, d.decompress(c.compress(data)), "both stay usable");
        } finally {
            done.countDown();
            owner.join();
        }
    }

    /** zstd writes through a raw address: a read-only destination is refused first, as FFM's own writes refuse it. */
    @Test
    void shouldRefuseAReadOnlyDestination() {
        byte[] data = TestData.text(100_000, 2);
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment src = arena.allocateFrom(JAVA_BYTE, data);
            MemorySegment dst = arena.allocate(ZstdCompressor.maxCompressedSize(data.length));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.compress(src, dst.asReadOnly()));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            assertEquals(0, dst.get(JAVA_BYTE, 0), "nothing was written");
            // the chunked path (heap source above the one-shot size) checks too
            MemorySegment big = MemorySegment.ofArray(TestData.text(3 << 20, 4));
            MemorySegment bigDst = arena.allocate(ZstdCompressor.maxCompressedSize(big.byteSize()));
            assertThrows(IllegalArgumentException.class, () -> c.compress(big, bigDst.asReadOnly()));

            MemorySegment frame = arena.allocateFrom(JAVA_BYTE, c.compress(data));
            MemorySegment out = arena.allocate(data.length);
            assertThrows(IllegalArgumentException.class, () -> d.decompress(frame, out.asReadOnly()));
            assertEquals(0, out.get(JAVA_BYTE, 0), "nothing was written");
            // both stay usable
            assertArrayEquals(data, d.decompress(c.compress(data)));
        }
    }

    @Test
    void shouldRefuseASourceSizeWhoseBoundOverflows() {
        for (long size : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 4096, 0x7F80_7F80_7F80_8000L}) {
            long bound;
            try {
                bound = ZstdCompressor.maxCompressedSize(size);
            } catch (IllegalArgumentException expected) {
                continue;
            }
            assertTrue(bound >= size, "maxCompressedSize(" + size + ") = " + bound + ": not a bound, and not refused");
        }
    }

    /**
     * A frame that does not declare its size and holds more than an array can: TOO_LARGE, as for a
     * declared size, not the OutOfMemoryError that reading it all gave when the limit allowed more
     * than 2 GiB. Shown with a small array limit (the real one is 2 GiB): exactly at it, one byte
     * past it, and past the decompressor's own limit, which still comes first.
     */
    @Test
    void shouldRefuseAnUndeclaredFrameLargerThanAnArray() throws IOException {
        byte[] content = TestData.text(100_000, 4);
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(frame, 3)) {
            out.write(content);
        }
        byte[] src = frame.toByteArray();
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(src)));
        try (ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(4L << 30).build();
             ZstdDecompressor small = ZstdDecompressor.builder().maxDecompressedSize(99_999).build()) {
            assertArrayEquals(content, d.decompressUndeclared(src, 100_000));
            ZstdException e = assertThrows(ZstdException.class, () -> d.decompressUndeclared(src, 99_999));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertEquals("frame larger than a byte[]: declared=unknown, limit=99999", e.getMessage());
            assertArrayEquals(content, d.decompress(src), "usable after the refusal");
            ZstdException limit = assertThrows(ZstdException.class, () -> small.decompressUndeclared(src, 100_000));
            assertEquals(ZstdException.Reason.TOO_LARGE, limit.reason());
            assertTrue(limit.getMessage().contains("limit=99999"), limit.getMessage());
        }
    }
}

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Pins what the Java walk over a frame's block headers answers, branch by branch, through the
 * three public ways in: {@link ZstdFrames#compressedSize} (the walk), the segment
 * {@code decompress} (the walk, then the block maximum check once the walk ran out of input) and
 * {@code decompress(byte[])} (the same, then the content bound before it allocates a declared size
 * above 256 KiB). Each frame is made by hand so that one branch decides it; the expected answers
 * are what the code said before the three loops became one, a cut frame's message since naming
 * where it is cut and the fewest bytes it still needs.
 */
class BlockWalkTest {

    private static final int RAW = 0;
    private static final int RLE = 1;
    private static final int COMPRESSED = 2;
    private static final int RESERVED = 3;

    /** No content size, window 2^10 + exponent: {@code windowHeader(0)} names 1 KiB. */
    private static byte[] windowHeader(int exponent, boolean checksum) {
        return new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, (byte) (checksum ? 1 << 2 : 0), (byte) (exponent << 3)};
    }

    /** Single segment with a 1-byte content size: the window, so the block maximum, is that size. */
    private static byte[] singleSegmentHeader(int contentSize, boolean checksum) {
        return new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, (byte) (1 << 5 | (checksum ? 1 << 2 : 0)), (byte) contentSize};
    }

    /** Single segment with a 4-byte content size. */
    private static byte[] singleSegmentHeader4(int contentSize) {
        return ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).putInt(ZstdFrames.MAGIC)
                .put((byte) (2 << 6 | 1 << 5)).putInt(contentSize).array();
    }

    /** A window of 2^(10 + exponent) and a 4-byte content size. */
    private static byte[] declaringHeader(int exponent, int contentSize) {
        return ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).putInt(ZstdFrames.MAGIC)
                .put((byte) (2 << 6)).put((byte) (exponent << 3)).putInt(contentSize).array();
    }

    private static byte[] blockHeader(int size, int type, boolean last) {
        int header = size << 3 | type << 1 | (last ? 1 : 0);
        return new byte[] {(byte) header, (byte) (header >>> 8), (byte) (header >>> 16)};
    }

    private static byte[] bytes(int n) {
        return TestData.text(n, n);
    }

    private static byte[] frame(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /**
     * A frame and what each way in answers: a length, or a refusal as {@link #outcome} writes it.
     * Most frames are decided before the content bound, so both decompress paths answer alike.
     */
    private record Case(String name, byte[] frame, String compressedSize, String segment, String array) {

        Case(String name, byte[] frame, String compressedSize, String decompressed) {
            this(name, frame, compressedSize, decompressed, decompressed);
        }

        /** A frame every way in refuses alike. */
        Case(String name, byte[] frame, String refusedByAll) {
            this(name, frame, refusedByAll, refusedByAll);
        }

        String expected() {
            return "compressedSize=" + compressedSize + "; segment=" + segment + "; array=" + array;
        }
    }

    private static final String FROM_LIBZSTD_CORRUPT = "CORRUPT (from libzstd)";
    private static final String FROM_LIBZSTD_CHECKSUM = "CHECKSUM (from libzstd)";

    /** What the frame's header and block headers tell about a cut: where, and the fewest bytes that could end the frame. */
    private static String truncated(int length, String where, int needsAtLeast) {
        return refused(ZstdException.Reason.TRUNCATED, "frame incomplete: length=" + length + ", " + where
                + ", needs at least " + needsAtLeast + (needsAtLeast == 1 ? " more byte" : " more bytes"));
    }

    private static String aboveMaximum(int at, String blockSize, int max) {
        return corrupt("block larger than the block maximum: at=" + at + ", blockSize=" + blockSize + ", max=" + max
                + " (min(window, 128 KiB))");
    }

    private static String corrupt(String message) {
        return refused(ZstdException.Reason.CORRUPT, message);
    }

    private static String refused(ZstdException.Reason reason, String message) {
        return reason + " \"" + message + "\"";
    }

    private static List<Case> cases() {
        byte[] w1k = windowHeader(0, false);
        byte[] w1kChecksum = windowHeader(0, true);
        byte[] w64k = windowHeader(6, false);
        byte[] w1m = windowHeader(10, false);
        byte[] w1mChecksum = windowHeader(10, true);
        byte[] x = {'x'};
        List<Case> cases = new ArrayList<>();
        // The walk: where it runs out, what it refuses, what it steps over
        cases.add(new Case("no block header", w1k,
                truncated(6, "cut in block 1's header (at offset 6)", 3)));
        cases.add(new Case("first block header cut", frame(w1k, new byte[2]),
                truncated(8, "cut in block 1's header (at offset 6)", 1)));
        cases.add(new Case("later block header cut", frame(w1k, blockHeader(10, RAW, false), bytes(10), new byte[1]),
                truncated(20, "cut in block 2's header (at offset 19)", 2)));
        cases.add(new Case("reserved first block", frame(w1k, blockHeader(0, RESERVED, true)),
                corrupt("reserved block type: at=6"), corrupt("reserved block type: at=6")));
        cases.add(new Case("reserved later block", frame(w1k, blockHeader(3, RAW, false), bytes(3), blockHeader(3, RESERVED, true), bytes(3)),
                corrupt("reserved block type: at=12"), corrupt("reserved block type: at=12")));
        cases.add(new Case("raw block cut", frame(w1k, blockHeader(10, RAW, true), bytes(5)),
                truncated(14, "cut inside block 1 (raw, of declared size 10 at offset 6)", 5)));
        cases.add(new Case("RLE block cut before its byte", frame(w1k, blockHeader(10, RLE, true)),
                truncated(9, "cut inside block 1 (RLE, of declared size 10 at offset 6: the one byte it repeats is missing)", 1)));
        cases.add(new Case("compressed block cut", frame(w1k, blockHeader(10, COMPRESSED, true), bytes(5)),
                truncated(14, "cut inside block 1 (compressed, of declared size 10 at offset 6)", 5)));
        cases.add(new Case("raw, RLE and raw blocks", frame(w1k, blockHeader(5, RAW, false), bytes(5), blockHeader(4, RLE, false), x,
                blockHeader(2, RAW, true), bytes(2)),
                "23", "11"));
        cases.add(new Case("one raw block", frame(w1k, blockHeader(5, RAW, true), bytes(5)),
                "14", "5"));
        cases.add(new Case("checksum present (and wrong)", frame(w1mChecksum, blockHeader(5, RAW, true), bytes(5), new byte[4]),
                "18", FROM_LIBZSTD_CHECKSUM));
        cases.add(new Case("checksum cut", frame(w1mChecksum, blockHeader(5, RAW, true), bytes(5), new byte[2]),
                truncated(16, "cut in the checksum (at offset 14)", 2)));
        cases.add(new Case("checksum missing", frame(w1mChecksum, blockHeader(5, RAW, true), bytes(5)),
                truncated(14, "cut in the checksum (at offset 14)", 4)));
        cases.add(new Case("a byte after the frame", frame(w1k, blockHeader(5, RAW, true), bytes(5), x),
                "14", corrupt("bytes after the frame: frame=14, input=15 (one zstd frame per input)")));
        cases.add(new Case("compressed block of garbage", frame(w1k, blockHeader(2, COMPRESSED, true), bytes(2)),
                "11", FROM_LIBZSTD_CORRUPT));
        // The block maximum, checked once the walk has run out of input
        cases.add(new Case("raw block above a 1 KiB window, cut", frame(w1k, blockHeader(2000, RAW, true), bytes(10)),
                truncated(19, "cut inside block 1 (raw, of declared size 2000 at offset 6)", 1990), aboveMaximum(6, "2000", 1024)));
        cases.add(new Case("compressed block above a 64 KiB window, later, cut", frame(w64k, blockHeader(5, RAW, false), bytes(5),
                blockHeader(70_000, COMPRESSED, true), bytes(3)),
                truncated(20, "cut inside block 2 (compressed, of declared size 70000 at offset 14)", 69997), aboveMaximum(14, "70000", 65536)));
        cases.add(new Case("raw block above 128 KiB in a 1 MiB window, cut", frame(w1m, blockHeader(131_073, RAW, true), bytes(3)),
                truncated(12, "cut inside block 1 (raw, of declared size 131073 at offset 6)", 131070), aboveMaximum(6, "131073", 131072)));
        cases.add(new Case("raw block at 128 KiB in a 1 MiB window, cut", frame(w1m, blockHeader(131_072, RAW, true), bytes(3)),
                truncated(12, "cut inside block 1 (raw, of declared size 131072 at offset 6)", 131069)));
        cases.add(new Case("raw block above a declared 100, cut", frame(singleSegmentHeader(100, false), blockHeader(101, RAW, true), bytes(3)),
                truncated(12, "cut inside block 1 (raw, of declared size 101 at offset 6)", 98), aboveMaximum(6, "101", 100)));
        cases.add(new Case("raw block above 128 KiB, declared 200,000, cut", frame(singleSegmentHeader4(200_000),
                blockHeader(131_073, RAW, true), bytes(3)),
                truncated(15, "cut inside block 1 (raw, of declared size 131073 at offset 9)", 131070), aboveMaximum(9, "131073", 131072)));
        cases.add(new Case("RLE block above the maximum, checksum missing", frame(w1kChecksum, blockHeader(2000, RLE, true), x),
                truncated(10, "cut in the checksum (at offset 10)", 4), aboveMaximum(6, "2000 (RLE)", 1024)));
        cases.add(new Case("RLE block above the maximum, next header cut", frame(w1k, blockHeader(2000, RLE, false), x, new byte[2]),
                truncated(12, "cut in block 2's header (at offset 10)", 1), aboveMaximum(6, "2000 (RLE)", 1024)));
        cases.add(new Case("RLE block above the maximum cut before its byte", frame(w1k, blockHeader(2000, RLE, true)),
                truncated(9, "cut inside block 1 (RLE, of declared size 2000 at offset 6: the one byte it repeats is missing)", 1)));
        cases.add(new Case("RLE block, declared 0, cut before its byte", frame(singleSegmentHeader(0, false), blockHeader(0, RLE, true)),
                truncated(9, "cut inside block 1 (RLE, of declared size 0 at offset 6: the one byte it repeats is missing)", 1), aboveMaximum(6, "1", 0)));
        cases.add(new Case("RLE block of 0, declared 0, checksum missing", frame(singleSegmentHeader(0, true), blockHeader(0, RLE, true), x),
                truncated(10, "cut in the checksum (at offset 10)", 4), aboveMaximum(6, "0 (RLE)", 0)));
        cases.add(new Case("third block above the maximum, cut", frame(w1k, blockHeader(10, RAW, false), bytes(10),
                blockHeader(1000, RAW, false), bytes(1000), blockHeader(2000, RAW, true), bytes(5)),
                truncated(1030, "cut inside block 3 (raw, of declared size 2000 at offset 1022)", 1995), aboveMaximum(1022, "2000", 1024)));
        cases.add(new Case("legal raw and RLE blocks, then a header cut", frame(w1k, blockHeader(10, RAW, false), bytes(10),
                blockHeader(10, RLE, false), x, new byte[1]),
                truncated(24, "cut in block 3's header (at offset 23)", 2)));
        cases.add(new Case("raw block above the maximum, whole, checksum missing", frame(w1kChecksum, blockHeader(2000, RAW, true),
                bytes(2000)),
                truncated(2009, "cut in the checksum (at offset 2009)", 4), aboveMaximum(6, "2000", 1024)));
        cases.add(new Case("raw block of the maximum, cut", frame(w1k, blockHeader(1024, RAW, true), bytes(100)),
                truncated(109, "cut inside block 1 (raw, of declared size 1024 at offset 6)", 924)));
        // The content bound: decompress(byte[]) of a frame declaring more than 256 KiB
        byte[] declared300k = declaringHeader(10, 300_000);
        cases.add(new Case("RLE, RLE and raw blocks holding what they declare", frame(declared300k,
                blockHeader(131_072, RLE, false), x, blockHeader(131_072, RLE, false), x, blockHeader(37_856, RAW, true), bytes(37_856)),
                "37877", "300000"));
        cases.add(new Case("RLE, compressed and raw blocks holding less than declared", frame(declared300k,
                blockHeader(1000, RLE, false), x, blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(3, RAW, true), bytes(3)),
                "25", FROM_LIBZSTD_CORRUPT, corrupt("frame declares more content than its blocks hold: declared=300000, most=132075")));
        cases.add(new Case("compressed blocks in a 64 KiB window holding less than declared", frame(declaringHeader(6, 300_000),
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(5, RLE, true), x),
                "24", FROM_LIBZSTD_CORRUPT, corrupt("frame declares more content than its blocks hold: declared=300000, most=131077")));
        cases.add(new Case("compressed blocks that could hold what is declared", frame(declared300k,
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(2, COMPRESSED, false), bytes(2),
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(1, RAW, true), x),
                "29", FROM_LIBZSTD_CORRUPT));
        return cases;
    }

    @Test
    void shouldAnswerEachBranchOfTheBlockWalkAsBefore() {
        List<String> mismatches = new ArrayList<>();
        StringBuilder actualTable = new StringBuilder();
        try (Arena arena = Arena.ofConfined(); ZstdDecompressor d = new ZstdDecompressor()) {
            for (Case c : cases()) {
                String actual = outcomes(d, arena, c.frame());
                actualTable.append(c.name()).append(" => ").append(actual).append('\n');
                if (!actual.equals(c.expected())) {
                    mismatches.add(c.name() + ": expected <" + c.expected() + "> but was <" + actual + ">");
                }
            }
        }
        assertEquals(List.of(), mismatches, actualTable.toString());
    }

    /**
     * {@link ZstdFrames#contentBound(MemorySegment, long, long)}, which a receiver asks before it
     * sizes memory from a header: the sum of what each block can decode to, a refusal of a frame
     * declaring more, and the walk's refusals (with the block maximum checked once it ran out).
     */
    @Test
    void shouldBoundTheContentByTheBlocksAlone() {
        byte[] w1k = windowHeader(0, false);
        byte[] w64k = windowHeader(6, false);
        byte[] declared300k = declaringHeader(10, 300_000);
        byte[] x = {'x'};
        Map<String, byte[]> frames = new LinkedHashMap<>();
        frames.put("raw 5, RLE 4, raw 2", frame(w1k, blockHeader(5, RAW, false), bytes(5), blockHeader(4, RLE, false), x,
                blockHeader(2, RAW, true), bytes(2)));
        frames.put("a compressed block in a 1 KiB window", frame(w1k, blockHeader(2, COMPRESSED, true), bytes(2)));
        frames.put("two compressed blocks in a 64 KiB window, RLE 5", frame(w64k, blockHeader(2, COMPRESSED, false), bytes(2),
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(5, RLE, true), x));
        frames.put("a byte after the frame", frame(w1k, blockHeader(5, RAW, true), bytes(5), x));
        frames.put("declared 300,000 in RLE, RLE and raw blocks", frame(declared300k, blockHeader(131_072, RLE, false), x,
                blockHeader(131_072, RLE, false), x, blockHeader(37_856, RAW, true), bytes(37_856)));
        frames.put("declared 300,000, three compressed blocks and raw 1", frame(declared300k,
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(2, COMPRESSED, false), bytes(2),
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(1, RAW, true), x));
        frames.put("declared 300,000, blocks holding 132,075", frame(declared300k, blockHeader(1000, RLE, false), x,
                blockHeader(2, COMPRESSED, false), bytes(2), blockHeader(3, RAW, true), bytes(3)));
        frames.put("declared 2^40, one empty raw block", ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(ZstdFrames.MAGIC).put((byte) 0xE0).putLong(1L << 40).put(blockHeader(0, RAW, true)).array());
        frames.put("raw block cut", frame(w1k, blockHeader(10, RAW, true), bytes(5)));
        frames.put("raw block above a 1 KiB window, cut", frame(w1k, blockHeader(2000, RAW, true), bytes(10)));
        frames.put("reserved block", frame(w1k, blockHeader(0, RESERVED, true)));
        StringBuilder actual = new StringBuilder();
        frames.forEach((name, frame) -> actual.append(name).append(" => ")
                .append(outcome(() -> ZstdFrames.contentBound(MemorySegment.ofArray(frame), 0, frame.length))).append('\n'));
        assertEquals("""
                raw 5, RLE 4, raw 2 => 11
                a compressed block in a 1 KiB window => 1024
                two compressed blocks in a 64 KiB window, RLE 5 => 131077
                a byte after the frame => 5
                declared 300,000 in RLE, RLE and raw blocks => 300000
                declared 300,000, three compressed blocks and raw 1 => 393217
                declared 300,000, blocks holding 132,075 => %s
                declared 2^40, one empty raw block => %s
                raw block cut => %s
                raw block above a 1 KiB window, cut => %s
                reserved block => %s
                """.formatted(corrupt("frame declares more content than its blocks hold: declared=300000, most=132075"),
                corrupt("frame declares more content than its blocks hold: declared=1099511627776, most=0"),
                truncated(14, "cut inside block 1 (raw, of declared size 10 at offset 6)", 5), aboveMaximum(6, "2000", 1024), corrupt("reserved block type: at=6")), actual.toString());
    }

    /** compressedSize, segment decompress and array decompress: each a length or a refusal. */
    private static String outcomes(ZstdDecompressor d, Arena arena, byte[] frame) {
        MemorySegment src = arena.allocateFrom(JAVA_BYTE, frame);
        MemorySegment dst = arena.allocate(1 << 20);
        return "compressedSize=" + outcome(() -> ZstdFrames.compressedSize(MemorySegment.ofArray(frame)))
                + "; segment=" + outcome(() -> d.decompress(src, 0, frame.length, dst, 0, dst.byteSize()))
                + "; array=" + outcome(() -> d.decompress(frame).length);
    }

    private static String outcome(LongSupplier call) {
        try {
            return Long.toString(call.getAsLong());
        } catch (ZstdException e) {
            // libzstd's own wording may change between versions: its errors count by reason only
            return e.errorCode() != 0 ? e.reason() + " (from libzstd)" : e.reason() + " \"" + e.getMessage() + "\"";
        }
    }
}

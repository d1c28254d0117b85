package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code decompress(byte[])} of frames that do not declare their content size, as streaming
 * producers write them ({@code cat f | zstd -c}, a {@link ZstdOutputStream} without a pledged
 * size): the content, its limits and errors, and what a call allocates.
 */
class UndeclaredFrameTest {

    private static final int KIB = 1024;
    private static final int[] SIZES = {0, 1, 100, 128 * KIB - 1, 128 * KIB, 256 * KIB - 1, 256 * KIB, 256 * KIB + 1,
        1024 * KIB, 5 * 1024 * KIB};

    @TempDir
    Path dir;

    /** A frame from a {@link ZstdOutputStream} without a pledged size, written in pieces of {@code piece} bytes. */
    static byte[] streamed(byte[] content, int piece, boolean flushEachPiece) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdCompressor c = ZstdCompressor.builder().level(3).checksum(true).build();
             ZstdOutputStream out = new ZstdOutputStream(bytes, c)) {
            if (content.length == 0) {
                out.flush(); // opens the frame: closing an untouched stream writes one that declares 0
            }
            for (int p = 0; p < content.length; p += piece) {
                out.write(content, p, Math.min(piece, content.length - p));
                if (flushEachPiece) {
                    out.flush();
                }
            }
        }
        return undeclared(bytes.toByteArray(), "ZstdOutputStream, " + content.length + " B");
    }

    private static byte[] undeclared(byte[] frame, String what) {
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(frame)), what);
        return frame;
    }

    /**
     * A frame from the {@code zstd} command line reading its standard input: no content size,
     * except for empty input, which zstd 1.5.4 declares as 0 bytes.
     */
    private byte[] fromCommandLine(byte[] content, String level) throws Exception {
        Path in = dir.resolve("content");
        Path out = dir.resolve("content.zst");
        Files.write(in, content);
        InteropTest.zstd(in, out, level, "-c");
        byte[] frame = Files.readAllBytes(out);
        return content.length == 0 ? frame : undeclared(frame, "zstd " + level + " from stdin, " + content.length + " B");
    }

    @Test
    void shouldDecodeStreamedFramesOfEverySize() throws Exception {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : SIZES) {
                for (byte[] content : List.of(TestData.text(size, size), TestData.random(size, size))) {
                    String what = "size=" + size + ", compressible=" + (content.length == 0 || content[0] != TestData.random(1, size)[0]);
                    assertArrayEquals(content, d.decompress(streamed(content, 64 * KIB, false)), what);
                    // Many small blocks: their bound (128 KiB each) is far above the content.
                    assertArrayEquals(content, d.decompress(streamed(content, 3000, true)), what + ", flushed every 3000 B");
                }
            }
        }
    }

    @Test
    void shouldDecodeCommandLineFramesOfEverySize() throws Exception {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : SIZES) {
                byte[] text = TestData.text(size, size);
                assertArrayEquals(text, d.decompress(fromCommandLine(text, "-3")), "text, size=" + size);
                byte[] random = TestData.random(size, size);
                assertArrayEquals(random, d.decompress(fromCommandLine(random, "-1")), "random, size=" + size);
            }
        }
    }

    /** A good frame of each kind on {@code d}, within its limit: an error before left it usable. */
    private static void assertRecovers(ZstdDecompressor d, String after) throws IOException {
        byte[] content = TestData.text((int) Math.min(300_000, d.maxDecompressedSize()), 5);
        assertArrayEquals(content, d.decompress(streamed(content, 64 * KIB, false)), "undeclared, after " + after);
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            assertArrayEquals(content, d.decompress(c.compress(content)), "declared, after " + after);
        }
    }

    private static ZstdException assertRefused(ZstdDecompressor d, byte[] frame, ZstdException.Reason reason, String what)
            throws IOException {
        ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(frame), what);
        assertEquals(reason, e.reason(), what + ": " + e.getMessage());
        assertRecovers(d, what);
        return e;
    }

    @Test
    void shouldRefuseCutFramesAndRecover() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            for (byte[] content : List.of(TestData.text(1024 * KIB, 7), TestData.random(300_000, 7))) {
                byte[] frame = streamed(content, 64 * KIB, false);
                int[] cuts = {1, 3, 4, 5, 6, 9, frame.length / 3, frame.length / 2, frame.length - 5, frame.length - 1};
                for (int cut : cuts) {
                    assertRefused(d, Arrays.copyOf(frame, cut), ZstdException.Reason.TRUNCATED, "cut at " + cut + " of " + frame.length);
                }
            }
        }
    }

    @Test
    void shouldRefuseBytesAfterTheFrameAndDamageAndRecover() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] frame = streamed(TestData.text(400_000, 8), 64 * KIB, false);
            for (byte[] trailing : List.of(new byte[] {0}, new byte[] {1, 2, 3}, frame)) {
                byte[] bad = Arrays.copyOf(frame, frame.length + trailing.length);
                System.arraycopy(trailing, 0, bad, frame.length, trailing.length);
                ZstdException e = assertRefused(d, bad, ZstdException.Reason.CORRUPT, trailing.length + " bytes after the frame");
                assertEquals("bytes after the frame: frame=" + frame.length + ", input=" + bad.length
                        + " (one zstd frame per input)", e.getMessage());
            }
            // Late in the frame: the content before it has been decoded into the result already.
            for (int at : new int[] {frame.length / 2, frame.length - 10}) {
                byte[] damaged = frame.clone();
                damaged[at] ^= 0x55;
                ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(damaged));
                assertTrue(e.reason() == ZstdException.Reason.CORRUPT || e.reason() == ZstdException.Reason.CHECKSUM,
                        "damaged at " + at + ": " + e.getMessage());
                assertRecovers(d, "damage at " + at);
            }
        }
    }

    /**
     * The limit, met exactly and passed by one byte, for content that ends in the first step,
     * just past the 256 KiB scratch and well past it.
     */
    @Test
    void shouldHoldTheLimitToTheByteAndRecover() throws IOException {
        for (int size : new int[] {100, 256 * KIB + 1, 1024 * KIB}) {
            byte[] content = TestData.text(size, 9);
            byte[] frame = streamed(content, 64 * KIB, false);
            try (ZstdDecompressor atLimit = ZstdDecompressor.builder().maxDecompressedSize(size).build();
                 ZstdDecompressor below = ZstdDecompressor.builder().maxDecompressedSize(size - 1).build()) {
                assertArrayEquals(content, atLimit.decompress(frame), "size=" + size + ", limit=" + size);
                ZstdException e = assertRefused(below, frame, ZstdException.Reason.TOO_LARGE, "size=" + size + ", limit=" + (size - 1));
                assertEquals("frame larger than limit: declared=unknown, limit=" + (size - 1), e.getMessage());
            }
        }
    }

    /**
     * The array limit (2 GiB less 8 in use), given smaller through the package-private entry:
     * met exactly, passed by one byte, and, when it equals the decompressor's limit, named as
     * that limit, as a stream over the frame names it.
     */
    @Test
    void shouldHoldTheArrayLimitToTheByteAndRecover() throws IOException {
        for (int size : new int[] {100, 256 * KIB + 1, 1024 * KIB}) {
            byte[] content = TestData.text(size, 10);
            byte[] frame = streamed(content, 64 * KIB, false);
            try (ZstdDecompressor d = new ZstdDecompressor();
                 ZstdDecompressor tie = ZstdDecompressor.builder().maxDecompressedSize(size - 1).build()) {
                assertArrayEquals(content, d.decompressUndeclared(frame, size), "size=" + size + ", array limit=" + size);
                ZstdException e = assertThrows(ZstdException.class, () -> d.decompressUndeclared(frame, size - 1));
                assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
                assertEquals("frame larger than a byte[]: declared=unknown, limit=" + (size - 1), e.getMessage());
                assertRecovers(d, "the array limit, size=" + size);
                ZstdException limit = assertThrows(ZstdException.class, () -> tie.decompressUndeclared(frame, size - 1));
                assertEquals("frame larger than limit: declared=unknown, limit=" + (size - 1), limit.getMessage());
                assertRecovers(tie, "the limit equal to the array limit, size=" + size);
            }
        }
    }

    /**
     * A destination of exactly the limit's size, the content one byte longer: the limit is what
     * stopped the frame, so it is {@code TOO_LARGE} naming the limit, as the same frame into a
     * larger destination, into an array or through a stream is. Until 2026-11-27 the segment
     * paths said {@code DESTINATION_TOO_SMALL} ("destination too small: capacity=…"), which
     * invites a retry with a larger destination that then fails on the limit. A destination
     * below the limit is still too small, and a frame that fits the limit exactly decodes.
     * Sizes: one call through the scratch (heap) or in place (native), and chunks past 256 KiB.
     */
    @Test
    void shouldNameTheLimitWhenADestinationOfTheLimitsSizeOverflows() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            for (int limit : new int[] {100, 256 * KIB + 1}) {
                byte[] fits = TestData.text(limit, 3);
                byte[] past = TestData.text(limit + 1, 4);
                byte[] fitsFrame = streamed(fits, 64 * KIB, false);
                byte[] pastFrame = streamed(past, 64 * KIB, false);
                try (ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(limit).build()) {
                    for (boolean nativeMemory : new boolean[] {false, true}) {
                        String what = "limit=" + limit + (nativeMemory ? ", native" : ", heap");
                        MemorySegment atLimit = nativeMemory ? arena.allocate(limit) : MemorySegment.ofArray(new byte[limit]);
                        MemorySegment belowLimit = atLimit.asSlice(0, limit - 1);
                        MemorySegment src = nativeMemory ? arena.allocateFrom(JAVA_BYTE, pastFrame) : MemorySegment.ofArray(pastFrame);

                        ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(src, atLimit), what);
                        assertEquals(ZstdException.Reason.TOO_LARGE, e.reason(), what + ": " + e.getMessage());
                        assertEquals("frame larger than limit: declared=unknown, limit=" + limit, e.getMessage(), what);
                        assertRecovers(d, what);

                        e = assertThrows(ZstdException.class, () -> d.decompress(src, belowLimit), what);
                        assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason(), what + ": " + e.getMessage());
                        assertEquals("destination too small: capacity=" + (limit - 1), e.getMessage(), what);

                        assertEquals(limit, d.decompress(MemorySegment.ofArray(fitsFrame), atLimit), what);
                        assertEquals(-1, atLimit.mismatch(MemorySegment.ofArray(fits)), what);
                    }
                    assertRefused(d, pastFrame, ZstdException.Reason.TOO_LARGE, "limit=" + limit + ", byte[]");
                }
            }
        }
    }

    /**
     * Rounds of calls measured, at most; a call passes at its first round within the bound. As in
     * NativeLifetimeTest, one-off JDK work can land in one round; a per-call allocation shows in all.
     */
    private static final int MAX_ROUNDS = 20;

    /**
     * A 100-byte message in a frame without a content size: the call allocates its result and
     * little else. Through a {@link ZstdInputStream} it allocated the stream's 256 KiB input
     * buffer, a ByteArrayInputStream and readNBytes' buffers: over 256 KiB per call.
     */
    @Test
    void shouldAllocateLittleMoreThanTheResultPerUndeclaredFrame() throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] content = TestData.text(100, 11);
        byte[] frame = streamed(content, 64 * KIB, false);
        long resultBytes = 16 + ((content.length + 7) & ~7); // array header and 8-byte alignment
        long perCallBound = resultBytes + 256;
        int calls = 2000;
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            long sink = 0;
            for (int i = 0; i < 5 * calls; i++) { // warm-up: let the JIT compile the path
                sink += d.decompress(frame).length;
            }
            long[] rounds = new long[MAX_ROUNDS];
            int measured = 0;
            do {
                long start = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < calls; i++) {
                    sink += d.decompress(frame).length;
                }
                rounds[measured++] = (threads.getCurrentThreadAllocatedBytes() - start) / calls;
            } while (rounds[measured - 1] > perCallBound && measured < MAX_ROUNDS);
            String recorded = Arrays.toString(Arrays.copyOf(rounds, measured));
            System.out.println("decompress(byte[]) of a " + content.length + " B undeclared frame (" + frame.length
                    + " B): allocated per call, by round of " + calls + ": " + recorded + " B");
            assertTrue(rounds[measured - 1] <= perCallBound, "allocated more than " + perCallBound
                    + " B per call in every round of " + calls + ": " + recorded + " B");
            assertEquals((long) (5 * calls + measured * calls) * content.length, sink);
            assertArrayEquals(content, d.decompress(frame));
        }
    }
}

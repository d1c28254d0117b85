package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@link ZstdInputStream} read of {@link ZstdInputStream#DIRECT_MIN_BYTES} or more, with no
 * decoded bytes held, has zstd decode into the caller's array in place (up to
 * {@link ZstdInputStream#DIRECT_MAX_BYTES} per call) instead of into the native scratch and a copy
 * from there. Every behaviour of the stream stays: frames, skippable frames, the limit, errors and
 * where they are, a source's timeout, {@code skip} and {@code available()}.
 */
class StreamDirectReadTest {

    private static final byte[] A = TestData.text(300_000, 11);
    private static final byte[] B = TestData.text(700_000, 12);
    private static final byte[] C = TestData.random(5_000, 13);
    /** Fills the output scratch before a test: a step into it overwrites this. */
    private static final byte SENTINEL = (byte) 0xA5;

    /** A skippable frame, A declaring its size, an empty skippable frame, B without a declared size, C. */
    private static byte[] input() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            out.write(TestData.skippable(900));
            out.write(c.compress(A));
            out.write(TestData.skippable(0));
            out.write(undeclared(c, B));
            out.write(c.compress(C));
        }
        return out.toByteArray();
    }

    private static byte[] undeclared(ZstdCompressor c, byte[] content) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        try (ZstdOutputStream z = new ZstdOutputStream(frame, c)) {
            z.write(content);
        }
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(frame.toByteArray())));
        return frame.toByteArray();
    }

    private static byte[] content() {
        byte[] all = Arrays.copyOf(A, A.length + B.length + C.length);
        System.arraycopy(B, 0, all, A.length, B.length);
        System.arraycopy(C, 0, all, A.length + B.length, C.length);
        return all;
    }

    private static void fillScratch(ZstdDecompressor d) {
        d.enter();
        try {
            d.buffers().scratchOut.fill(SENTINEL);
        } finally {
            d.exit();
        }
    }

    /** Whether no step has written into the output scratch since {@link #fillScratch}. */
    private static boolean scratchUntouched(ZstdDecompressor d) {
        d.enter();
        try {
            MemorySegment out = d.buffers().scratchOut;
            for (long i = 0; i < out.byteSize(); i++) {
                if (out.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                    return false;
                }
            }
            return true;
        } finally {
            d.exit();
        }
    }

    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {1, 4095, 4096, 8192, 65536, 1 << 20})
    void shouldReturnEveryByteAtEveryReadSizeDecodingLargeReadsInPlace(int size) throws IOException {
        byte[] expected = content();
        ByteArrayOutputStream got = new ByteArrayOutputStream(expected.length);
        try (ZstdDecompressor d = new ZstdDecompressor();
                ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()), d)) {
            fillScratch(d);
            byte[] buf = new byte[size + 3];
            int n;
            while ((n = in.read(buf, 3, size)) >= 0) {
                assertTrue(n > 0 && n <= Math.min(size, ZstdInputStream.DIRECT_MAX_BYTES + StreamBuffers.SCRATCH_BYTES));
                got.write(buf, 3, n);
            }
            // at 4096 and above zstd wrote into buf itself; below, through the scratch as always
            assertEquals(size >= ZstdInputStream.DIRECT_MIN_BYTES, scratchUntouched(d), "scratch untouched");
            assertEquals(-1, in.read(buf, 0, size), "the end stays the end");
        }
        assertArrayEquals(expected, got.toByteArray());
    }

    /** read(), small and large read(b) and skip in a seeded random order: every byte where it belongs. */
    @Test
    void shouldKeepItsPlaceAcrossMixedReadsSkipsAndSingleBytes() throws IOException {
        byte[] expected = content();
        Random random = new Random(42);
        byte[] buf = new byte[300_000];
        int position = 0;
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()))) {
            while (position < expected.length) {
                int held = in.available();
                int op = random.nextInt(5);
                if (held > 0 && op == 0) {
                    // what it holds comes from the scratch, all of it, without reading the source
                    assertEquals(held, in.read(buf, 0, held));
                    assertArrayEquals(Arrays.copyOfRange(expected, position, position + held), Arrays.copyOf(buf, held));
                    position += held;
                } else if (op == 1) {
                    assertEquals(expected[position] & 0xFF, in.read(), "byte at " + position);
                    position++;
                } else if (op == 2) {
                    long skipped = in.skip(random.nextInt(200_000));
                    assertTrue(skipped >= 0);
                    position += (int) skipped;
                } else {
                    int len = op == 3 ? 1 + random.nextInt(ZstdInputStream.DIRECT_MIN_BYTES) : random.nextInt(buf.length - 7) + 1;
                    int n = in.read(buf, 7, len);
                    assertTrue(n > 0 && n <= len, "n=" + n + ", len=" + len + " at " + position);
                    assertArrayEquals(Arrays.copyOfRange(expected, position, position + n), Arrays.copyOfRange(buf, 7, 7 + n),
                            "at " + position);
                    position += n;
                }
            }
            assertEquals(expected.length, position);
            assertEquals(-1, in.read(buf, 0, 65536));
            assertEquals(0, in.skip(10));
        }
    }

    /**
     * Frame A declaring 300,000 bytes, then B without a declared size, limit 400,000: large reads
     * return exactly the limit's worth (each step into the array capped by what the limit
     * leaves), and the read past it fails as before, naming the limit and the frame.
     */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {65536, 1 << 20})
    void shouldStopAtTheLimitInTheMiddleOfALargeRead(int size) throws IOException {
        int limit = 400_000;
        byte[] expected = content();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(limit).build();
                ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()), d)) {
            byte[] buf = new byte[size];
            ZstdException e = assertThrows(ZstdException.class, () -> {
                int n;
                while ((n = in.read(buf, 0, size)) >= 0) {
                    got.write(buf, 0, n);
                }
            });
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertTrue(e.getMessage().matches("stream larger than limit: decompressed=\\d+, limit=400000 \\(the limit holds for all"
                    + " frames of a stream\\); in the stream: frame=4, inputOffset=\\d+, contentOffset=300000"), e.getMessage());
            long decompressed = Long.parseLong(e.getMessage().replaceAll(".*decompressed=(\\d+),.*", "$1"));
            assertTrue(decompressed > limit, e.getMessage());
            assertThrows(IOException.class, () -> in.read(buf, 0, size), "stream failed earlier");
            // the decompressor was reset: it reads a whole frame at once
            assertArrayEquals(C, d.decompress(compress(C)));
        }
        assertEquals(limit, got.size(), "content up to the limit, none past it");
        assertArrayEquals(Arrays.copyOf(expected, limit), got.toByteArray());
    }

    /** A first frame without a declared size past the limit: "frame larger than limit", as before. */
    @Test
    void shouldNameTheLimitOfAFirstUndeclaredFrameInALargeRead() throws IOException {
        byte[] frame;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            frame = undeclared(c, B);
        }
        try (ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(300_000).build();
                ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), d)) {
            byte[] got = new byte[B.length];
            int[] filled = {0};
            ZstdException e = assertThrows(ZstdException.class, () -> {
                int n;
                while ((n = in.read(got, filled[0], got.length - filled[0])) > 0) {
                    filled[0] += n;
                }
            });
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertTrue(e.getMessage().startsWith("frame larger than limit: declared=unknown, limit=300000; in the stream: frame=1,"),
                    e.getMessage());
            assertEquals(300_000, filled[0]);
            assertArrayEquals(Arrays.copyOf(B, 300_000), Arrays.copyOf(got, 300_000));
        }
    }

    private static byte[] compress(byte[] content) {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            return c.compress(content);
        }
    }

    /** Input cut inside B: TRUNCATED, naming B; every byte returned before it is right. */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {4096, 65536, 1 << 20})
    void shouldRefuseATruncatedFrameInLargeReads(int size) throws IOException {
        byte[] input = input();
        byte[] cut = Arrays.copyOf(input, input.length - compress(C).length - 1000);
        ZstdException e = readFailing(cut, size);
        assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
        assertTrue(e.getMessage().startsWith("frame truncated: input ended inside a frame, decompressed="), e.getMessage());
        assertTrue(e.getMessage().contains("in the stream: frame=4,"), e.getMessage());
    }

    /** B's third block marked reserved (type 3): a zstd error naming B; every byte returned before it is right. */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {4096, 65536, 1 << 20})
    void shouldRefuseACorruptFrameInLargeReads(int size) throws IOException {
        byte[] input = input();
        int bStart = 8 + 900 + compress(A).length + 8;
        int block = bStart + 6; // magic, descriptor, window: no content size, no dictionary ID
        for (int i = 0; i < 2; i++) {
            int header = (input[block] & 0xFF) | (input[block + 1] & 0xFF) << 8 | (input[block + 2] & 0xFF) << 16;
            assertEquals(0, header & 1, "not B's last block");
            block += 3 + ((header >>> 1 & 3) == 1 ? 1 : header >>> 3); // an RLE block holds one byte
        }
        byte[] bad = input.clone();
        bad[block] |= 0b110;
        ZstdException e = readFailing(bad, size);
        assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("in the stream: frame=4, inputOffset=" + bStart + ", contentOffset=300000"),
                e.getMessage());
    }

    /** Reads {@code input} in reads of {@code size} until it fails; checks the bytes before the failure. */
    private static ZstdException readFailing(byte[] input, int size) throws IOException {
        byte[] expected = content();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (ZstdDecompressor d = new ZstdDecompressor();
                ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), d)) {
            byte[] buf = new byte[size];
            ZstdException e = assertThrows(ZstdException.class, () -> {
                int n;
                while ((n = in.read(buf, 0, size)) >= 0) {
                    got.write(buf, 0, n);
                }
            });
            assertEquals(0, in.available());
            IOException again = assertThrows(IOException.class, () -> in.read(buf, 0, size));
            assertTrue(again.getMessage().startsWith("stream failed earlier: "), again.getMessage());
            assertArrayEquals(C, d.decompress(compress(C)), "the decompressor goes on");
            assertTrue(got.size() < expected.length);
            assertArrayEquals(Arrays.copyOf(expected, got.size()), got.toByteArray());
            return e;
        }
    }

    /** Every other source read throws {@link InterruptedIOException}, then gives at most {@code chunk} bytes. */
    private static final class InterruptingSource extends ByteArrayInputStream {
        private final int chunk;
        private boolean interruptNext;
        int interrupts;

        InterruptingSource(byte[] data, int chunk) {
            super(data);
            this.chunk = chunk;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            interruptNext = !interruptNext;
            if (interruptNext && available() > 0) {
                interrupts++;
                throw new UncheckedInterrupt();
            }
            return super.read(b, off, Math.min(len, chunk));
        }
    }

    /** Carries an InterruptedIOException out of a read that declares none. */
    private static final class UncheckedInterrupt extends RuntimeException {
    }

    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {4096, 65536, 1 << 20})
    void shouldResumeALargeReadAfterTheSourceWasInterruptedMidFrame(int size) throws IOException {
        byte[] expected = content();
        InterruptingSource source = new InterruptingSource(input(), 5_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int caught = 0;
        try (ZstdInputStream in = new ZstdInputStream(new java.io.FilterInputStream(source) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return super.read(b, off, len);
                } catch (UncheckedInterrupt e) {
                    throw new InterruptedIOException("interrupted");
                }
            }
        })) {
            byte[] buf = new byte[size];
            while (true) {
                int n;
                try {
                    n = in.read(buf, 0, size);
                } catch (InterruptedIOException e) {
                    caught++;
                    continue;
                }
                if (n < 0) {
                    break;
                }
                got.write(buf, 0, n);
            }
        }
        assertEquals(source.interrupts, caught);
        assertTrue(caught > 20, "interrupted mid-frame many times: " + caught);
        assertArrayEquals(expected, got.toByteArray());
    }

    /** A borrowed decompressor closed, or used for a one-call decompression, between large reads. */
    @Test
    void shouldRefuseTheNextLargeReadOnceTheDecompressorIsClosedOrTakenOver() throws IOException {
        byte[] buf = new byte[65536];
        try (ZstdDecompressor d = new ZstdDecompressor(); ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()), d)) {
            assertTrue(in.read(buf) > 0);
            assertArrayEquals(C, d.decompress(compress(C)));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.read(buf));
            assertTrue(e.getMessage().startsWith("decompressor was used by a one-call decompress"), e.getMessage());
        }
        ZstdDecompressor d = new ZstdDecompressor();
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()), d)) {
            assertTrue(in.read(buf) > 0);
            d.close();
            assertEquals(0, in.available());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.read(buf));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    /** Large reads into one reused array allocate nothing per read: the array's segment is made once. */
    @Test
    void shouldAllocateNothingPerLargeReadIntoAReusedArray() throws IOException {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        byte[] input = input();
        byte[] buf = new byte[65536];
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            long perRound = 0;
            for (int round = 0; round < 3; round++) { // the first rounds compile
                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), d)) {
                    assertTrue(in.read(buf) > 0); // the stream and the array's segment are made
                    int reads = 0;
                    long before = threads.getCurrentThreadAllocatedBytes();
                    while (in.read(buf) >= 0) {
                        reads++;
                    }
                    perRound = threads.getCurrentThreadAllocatedBytes() - before;
                    assertTrue(reads > 10, "reads=" + reads);
                }
            }
            System.out.println("allocated over a stream's large reads, last round: " + perRound + " B");
            assertTrue(perRound < 1024, "allocated " + perRound + " B over a stream's reads of 64 KiB");
        }
    }
}

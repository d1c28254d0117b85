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
 * {@link ZstdInputStream} read in sizes from 1 byte to 1 MiB, below and above its 256 KiB output
 * window, over concatenated frames with skippable frames between them, one frame declaring its
 * size and one not: every byte where it belongs, mixed with {@code read()}, {@code skip} and
 * {@code available()}; errors that name the frame and its offsets in large reads; a source's
 * timeouts in the middle of large reads; a borrowed decompressor closed or taken over between them.
 */
class StreamReadSizesTest {

    private static final byte[] A = TestData.text(300_000, 11);
    private static final byte[] B = TestData.text(700_000, 12);
    private static final byte[] C = TestData.random(5_000, 13);

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

    private static byte[] compress(byte[] content) {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            return c.compress(content);
        }
    }

    /**
     * Reads of one size at an offset into the array: each returns what the stream holds, up to
     * the size (all of it when it holds that much), and the whole content arrives in order.
     */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {1, 4095, 4096, 8192, 65536, 1 << 20})
    void shouldReturnEveryByteAtEveryReadSize(int size) throws IOException {
        byte[] expected = content();
        ByteArrayOutputStream got = new ByteArrayOutputStream(expected.length);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input()))) {
            byte[] buf = new byte[size + 3];
            while (true) {
                int held = in.available();
                int n = in.read(buf, 3, size);
                if (n < 0) {
                    break;
                }
                assertTrue(n > 0 && n <= Math.min(size, StreamBuffers.SCRATCH_BYTES), "n=" + n + " at " + got.size());
                if (held > 0) {
                    assertEquals(Math.min(size, held), n, "what it held, up to the size, at " + got.size());
                }
                got.write(buf, 3, n);
            }
            assertEquals(-1, in.read(buf, 0, size), "the end stays the end");
            assertEquals(0, in.available());
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
                    // what it holds is returned, all of it, without reading the source
                    assertEquals(held, in.read(buf, 0, held));
                    assertArrayEquals(Arrays.copyOfRange(expected, position, position + held), Arrays.copyOf(buf, held));
                    position += held;
                } else if (op == 1) {
                    assertEquals(expected[position] & 0xFF, in.read(), "byte at " + position);
                    position++;
                } else if (op == 2) {
                    int asked = random.nextInt(200_000);
                    long skipped = in.skip(asked);
                    assertEquals(Math.min(asked, expected.length - position), skipped, "skip stops only at n or the end");
                    position += (int) skipped;
                } else {
                    int len = op == 3 ? 1 + random.nextInt(4096) : random.nextInt(buf.length - 7) + 1;
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

    /** Input cut inside B: TRUNCATED, naming B; every byte returned before it is right. */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {4096, 65536, 1 << 20})
    void shouldRefuseATruncatedFrameInLargeReads(int size) throws IOException {
        byte[] input = input();
        byte[] cut = Arrays.copyOf(input, input.length - compress(C).length - 1000);
        ZstdStreamException e = readFailing(cut, size);
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
        ZstdStreamException e = readFailing(bad, size);
        assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("in the stream: frame=4, inputOffset=" + bStart + ", contentOffset=300000"),
                e.getMessage());
    }

    /** Reads {@code input} in reads of {@code size} until it fails; checks the bytes before the failure. */
    private static ZstdStreamException readFailing(byte[] input, int size) throws IOException {
        byte[] expected = content();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (ZstdDecompressor d = new ZstdDecompressor();
                ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input), d)) {
            byte[] buf = new byte[size];
            ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> {
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

    /** An InterruptedIOException before every 5,000 bytes of input: large reads resume where the source stopped. */
    @ParameterizedTest(name = "read={0}")
    @ValueSource(ints = {4096, 65536, 1 << 20})
    void shouldResumeALargeReadAfterTheSourceWasInterruptedMidFrame(int size) throws IOException {
        byte[] input = input();
        TimingOutSource source = new TimingOutSource(input, 5_000, new InterruptedIOException("interrupted"));
        try (ZstdInputStream in = new ZstdInputStream(source)) {
            assertArrayEquals(content(), source.readThrough(in, size));
        }
        assertTrue(source.timeouts >= input.length / 5_000, "interrupted before each chunk: " + source.timeouts);
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

    /** Large reads into one reused array allocate nothing per read. */
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
                    assertTrue(in.read(buf) > 0);
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

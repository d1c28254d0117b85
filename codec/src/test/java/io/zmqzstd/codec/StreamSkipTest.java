package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * {@link ZstdInputStream#skip(long)} drops decoded bytes in the decompressor's native window:
 * it skips exactly what {@link InputStream#skip(long)}, reading, skipped (across frames, a
 * skippable one and an empty one, across the 256 KiB window, up to the end), and allocates nothing
 * per call, where the inherited method made an array of up to 2 KiB per call.
 */
class StreamSkipTest {

    private static final byte[] A = TestData.text(1000, 21);
    private static final byte[] B = TestData.text(600_000, 22);
    private static final byte[] C = TestData.text(5000, 23);
    private static final byte[] CONTENT = concat(A, B, C);
    /** A, a skippable frame, B, an empty frame, and C in a frame that declares no size. */
    private static final byte[] INPUT;

    static {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ByteBuffer skippable = ByteBuffer.allocate(8 + 16).order(ByteOrder.LITTLE_ENDIAN).putInt(0x184D2A5A).putInt(16);
            ByteArrayOutputStream undeclared = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(undeclared, c)) {
                out.write(C);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            INPUT = concat(c.compress(A), skippable.array(), c.compress(B), c.compress(new byte[0]), undeclared.toByteArray());
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            all.writeBytes(p);
        }
        return all.toByteArray();
    }

    /** The same stream's reads behind {@link InputStream}'s own {@code skip}: what skip returned before. */
    private static InputStream inheritedSkip(ZstdInputStream in) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return in.read(b, off, len);
            }
        };
    }

    @Test
    void shouldSkipWhatTheInheritedSkipSkippedAcrossFramesAndAtTheEnd() throws IOException {
        long[] skips = {0, -3, 1, 997, 1, 2, 262_144, 300_000, 0, 37_852, 1, 2, Long.MIN_VALUE, 4990, 3, 1, 100, Long.MAX_VALUE, 5};
        try (ZstdInputStream mine = new ZstdInputStream(new ByteArrayInputStream(INPUT));
             ZstdInputStream theirs = new ZstdInputStream(new ByteArrayInputStream(INPUT))) {
            InputStream reference = inheritedSkip(theirs);
            long pos = 0;
            for (long n : skips) {
                long skipped = mine.skip(n);
                assertEquals(reference.skip(n), skipped, "skip(" + n + ") at " + pos);
                pos += skipped;
                int next = mine.read();
                assertEquals(reference.read(), next, "the byte after skip(" + n + ") at " + pos);
                assertEquals(pos < CONTENT.length ? CONTENT[(int) pos] & 0xFF : -1, next, "content at " + pos);
                pos += next < 0 ? 0 : 1;
            }
            assertEquals(CONTENT.length, pos, "the skips reached the end");
            assertEquals(0, mine.skip(10), "at the end");
            assertEquals(-1, mine.read());
        }
    }

    @Test
    void shouldSkipAcrossTheWindowInOneCallUpToTheEnd() throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(INPUT))) {
            assertEquals(A.length + 300_000, in.skip(A.length + 300_000), "from frame A into B, past a window");
            assertEquals(B[300_000] & 0xFF, in.read());
            assertEquals(CONTENT.length - A.length - 300_001, in.skip(Long.MAX_VALUE), "stops at the end");
            assertEquals(0, in.skip(1));
            assertEquals(-1, in.read());
        }
    }

    @Test
    void shouldAllocateNothingPerSkip() throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] content = TestData.text(4 << 20, 24);
        byte[] frame;
        try (ZstdCompressor c = new ZstdCompressor(1)) {
            frame = c.compress(content);
        }
        int step = 4096;
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            long perSkip = Long.MAX_VALUE;
            for (int round = 0; round < 5 && perSkip > 0; round++) { // the first rounds compile
                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), d)) {
                    long skipped = 0;
                    long calls = 0;
                    long before = threads.getCurrentThreadAllocatedBytes();
                    for (long n; (n = in.skip(step)) > 0; calls++) {
                        skipped += n;
                    }
                    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                    assertEquals(content.length, skipped);
                    perSkip = allocated / calls;
                    System.out.println("round " + round + ": " + allocated + " B over " + calls + " skips of " + step);
                }
            }
            assertTrue(perSkip < 1, perSkip + " B per skip(" + step + ")");
        }
    }
}

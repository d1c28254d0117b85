package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class StreamTest {

    private static byte[] streamCompress(byte[] data, int writeSize, ZstdCompressor c, long pledged) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdOutputStream out = pledged < 0 ? new ZstdOutputStream(bytes, c) : new ZstdOutputStream(bytes, c, pledged)) {
            for (int p = 0; p < data.length; p += writeSize) {
                out.write(data, p, Math.min(writeSize, data.length - p));
                if (p % (7 * writeSize) == 0) {
                    out.flush();
                }
            }
        }
        return bytes.toByteArray();
    }

    /** Reads in odd-sized pieces, one byte from a trickling source at a time. */
    private static byte[] readAll(InputStream in, int readSize) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[readSize];
        int n;
        while ((n = in.read(buf)) >= 0) {
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    @Test
    void shouldRoundTripThroughStreams() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : new int[] {1, 1000, 3_000_000}) {
                byte[] data = TestData.text(size, size);
                byte[] frame = streamCompress(data, 1 + size / 13, c, -1);
                assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(frame)));
                try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), d)) {
                    assertArrayEquals(data, readAll(in, 1 + size / 7));
                }
                assertArrayEquals(data, d.decompress(frame), "one-shot reads stream frames");
                byte[] declared = streamCompress(data, 4096, c, size);
                assertEquals(size, ZstdFrames.contentSize(MemorySegment.ofArray(declared)));
                try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.trickling(declared))) {
                    assertArrayEquals(data, in.readAllBytes());
                }
            }
            // One-shot frames and concatenated frames read through a stream.
            byte[] a = TestData.text(5000, 1);
            byte[] b = TestData.text(7000, 2);
            byte[] both = concat(c.compress(a), c.compress(b));
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(both), d)) {
                assertArrayEquals(concat(a, b), in.readAllBytes());
            }
        }
    }

    @Test
    void shouldHonourTheLimitWhileStreaming() throws IOException {
        byte[] data = TestData.text(500_000, 3);
        try (ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(400_000).build()) {
            byte[] undeclared = streamCompress(data, 10_000, c, -1);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(undeclared), d)) {
                ZstdStreamException e = assertThrows(ZstdStreamException.class, in::readAllBytes);
                assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            }
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(c.compress(data)), d)) {
                ZstdStreamException e = assertThrows(ZstdStreamException.class, in::readAllBytes);
                assertEquals("frame larger than limit: declared=500000, limit=400000"
                        + "; in the stream: frame=1, inputOffset=0, contentOffset=0", e.getMessage());
            }
            byte[] small = TestData.text(1000, 4);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(c.compress(small)), d)) {
                assertArrayEquals(small, in.readAllBytes(), "usable after TOO_LARGE");
            }
        }
    }

    /**
     * The limit holds for all a stream returns, not per frame: frames that each declare a size
     * within it still stop the stream once their total passes it. The message said "frame larger
     * than limit: declared=unknown" (before 2026-11-27), naming neither the total nor that the
     * frames had declared their sizes. A frame that declares more than the limit leaves is refused
     * from its header, before any of it is decoded (until 2026-11-27 the stream decoded a scratch's
     * worth of it first, 262,144 bytes here, and then failed); one that declares nothing when it passes.
     */
    @Test
    void shouldNameTheStreamTotalWhenFramesTogetherPassTheLimit() throws IOException {
        byte[] data = TestData.text(300_000, 8);
        try (ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(400_000).build()) {
            byte[] frame = c.compress(data);
            byte[] two = Arrays.copyOf(frame, 2 * frame.length);
            System.arraycopy(frame, 0, two, frame.length, frame.length);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(two), d)) {
                byte[] buffer = new byte[8192];
                long returned = 0;
                ZstdStreamException e = null;
                try {
                    for (int n; (n = in.read(buffer)) > 0;) {
                        returned += n;
                    }
                } catch (ZstdStreamException thrown) {
                    e = thrown;
                }
                assertEquals(300_000, returned, "the first frame whole, nothing of the second");
                assertEquals(ZstdException.Reason.TOO_LARGE, e == null ? null : e.reason());
                assertEquals("stream larger than limit: decompressed=300000 and the next frame declares 300000, limit=400000"
                        + " (the limit holds for all frames of a stream); in the stream: frame=2, inputOffset="
                        + frame.length + ", contentOffset=300000", e.getMessage());
            }
            ByteArrayOutputStream undeclared = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(undeclared, 3)) {
                out.write(data);
            }
            byte[] undeclaredTwice = Arrays.copyOf(undeclared.toByteArray(), 2 * undeclared.size());
            System.arraycopy(undeclared.toByteArray(), 0, undeclaredTwice, undeclared.size(), undeclared.size());
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(undeclaredTwice), d)) {
                ZstdStreamException e = assertThrows(ZstdStreamException.class, in::readAllBytes);
                assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
                assertTrue(e.getMessage().startsWith("stream larger than limit: decompressed="), e.getMessage());
                assertTrue(e.getMessage().endsWith(", limit=400000 (the limit holds for all frames of a stream); in the stream:"
                        + " frame=2, inputOffset=" + undeclared.size() + ", contentOffset=300000"), e.getMessage());
            }
        }
    }

    @Test
    void shouldReportTruncatedAndEmptyStreams() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] frame = c.compress(TestData.text(200_000, 5));
            byte[] cut = Arrays.copyOf(frame, frame.length - 10);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(cut), d)) {
                assertEquals(ZstdException.Reason.TRUNCATED,
                        assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
            }
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(new byte[0]), d)) {
                assertEquals(ZstdException.Reason.EMPTY, assertThrows(ZstdStreamException.class, in::read).reason());
            }
            // EMPTY is for no bytes at all: frames of no content (and skippable ones) are an empty stream that ends
            byte[] empty = c.compress(new byte[0]);
            byte[] emptyFrames = Arrays.copyOf(empty, 2 * empty.length + 8);
            System.arraycopy(empty, 0, emptyFrames, empty.length, empty.length);
            System.arraycopy(skippable(0x184D2A50, 0), 0, emptyFrames, 2 * empty.length, 8);
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(emptyFrames), d)) {
                assertEquals(-1, in.read());
                assertEquals(-1, in.read(), "-1 again");
            }
        }
    }

    @Test
    void shouldCloseTheUnderlyingStreamWhenEndingTheFrameFails() throws IOException {
        byte[] data = TestData.text(50, 6);
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ClosingOutput pledgedMore = new ClosingOutput(false);
            ZstdOutputStream out = new ZstdOutputStream(pledgedMore, c, 100);
            out.write(data);
            ZstdStreamException e = assertThrows(ZstdStreamException.class, out::close);
            assertTrue(e.errorCode() != 0, e.getMessage());
            assertTrue(pledgedMore.closed, "closed although the pledged size was not met");
            assertArrayEquals(data, new ZstdDecompressor().decompress(c.compress(data)), "borrowed compressor usable");
        }
        long liveContexts = LibZstd.LIVE_CCTX.get();
        ClosingOutput failing = new ClosingOutput(true);
        ZstdOutputStream out = new ZstdOutputStream(failing, 3);
        out.write(data); // zstd buffers it: nothing written yet
        assertEquals("disk full", assertThrows(IOException.class, out::close).getMessage());
        assertTrue(failing.closed, "closed although writing the frame failed");
        assertEquals(liveContexts, LibZstd.LIVE_CCTX.get(), "its own compressor freed");
        out.close();
    }

    /**
     * A write that fails (here more than the pledged size) leaves the frame
     * incomplete: later writes and close() throw instead of ending a valid frame with the wrong
     * content, which they did before 2026-11-25 (close() wrote an empty frame and returned).
     */
    @Test
    void shouldNotEndAFrameOnceAWriteHasFailed() throws IOException {
        byte[] data = TestData.text(1 << 20, 2);
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            ZstdOutputStream out = new ZstdOutputStream(sink, c, 10); // pledges 10 bytes, writes 1 MiB
            ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> out.write(data));
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
            IOException later = assertThrows(IOException.class, () -> out.write(1), "a failed stream must refuse more data");
            assertEquals("stream failed earlier: " + e.getMessage(), later.getMessage());
            assertSame(e, later.getCause());
            IOException closed = assertThrows(IOException.class, out::close, "close must not end the frame as if nothing went wrong");
            assertEquals("stream failed earlier, frame not ended: " + e.getMessage(), closed.getMessage());
            assertSame(e, closed.getCause());
            byte[] written = sink.toByteArray();
            try (ZstdDecompressor d = new ZstdDecompressor()) {
                assertThrows(ZstdException.class, () -> d.decompress(written),
                        "what a failed stream wrote must not decode as a valid frame: " + HexFormat.of().formatHex(written));
                assertArrayEquals(data, d.decompress(c.compress(data)), "borrowed compressor usable");
            }
        }
    }

    /**
     * A write that takes the content past the pledged size fails at that write, whatever the
     * pledge, and hands none of its bytes on. libzstd checks the pledge only when it compresses a
     * block: before 2026-11-29 a pledge of 200,000 bytes took a write of 200,001 (and one of
     * 205,000) without a word, the error coming only at the next flush or close, while the javadoc
     * and the README said the write that passes the pledge fails.
     */
    @Test
    void shouldRefuseTheWriteThatPassesThePledgedSize() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int pledge : new int[] {200_000, 1 << 20, 0, 10}) {
                for (int extra : new int[] {1, 5000}) {
                    byte[] data = TestData.text(pledge + extra, pledge);
                    ByteArrayOutputStream sink = new ByteArrayOutputStream();
                    ZstdOutputStream out = new ZstdOutputStream(sink, c, pledge);
                    int first = pledge / 2;
                    out.write(data, 0, first);
                    int before = sink.size();
                    ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> out.write(data, first, data.length - first),
                            "pledge=" + pledge + ", written=" + data.length);
                    assertEquals(ZstdException.Reason.TRUNCATED, e.reason(), e.getMessage());
                    assertEquals("more content than the frame declares: pledged=" + pledge + ", written=" + first
                            + ", this write=" + (data.length - first), e.getMessage());
                    assertEquals(before, sink.size(), "nothing of the refused write handed on");
                    assertSame(e, assertThrows(IOException.class, out::close).getCause(), "a failed write, as before");
                }
                byte[] exact = TestData.text(pledge, pledge);
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                try (ZstdOutputStream out = new ZstdOutputStream(sink, c, pledge)) {
                    out.write(exact, 0, pledge / 3);
                    out.flush();
                    out.write(exact, pledge / 3, pledge - pledge / 3);
                    out.write(exact, 0, 0);
                }
                assertArrayEquals(exact, d.decompress(sink.toByteArray()), "the pledged size in pieces, pledge=" + pledge);
            }
        }
    }

    @Test
    void shouldRefuseReadsAfterAFailureAndLeaveTheDecompressorUsable() throws IOException {
        byte[] data = TestData.text(200_000, 7);
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] frame = c.compress(data);
            InputStream[] sources = {
                new ByteArrayInputStream(Arrays.copyOf(frame, frame.length / 2)),
                new RecordingInput(Arrays.copyOf(frame, frame.length / 2), new IOException("connection reset")),
            };
            for (InputStream source : sources) {
                ZstdInputStream in = new ZstdInputStream(source, d);
                Exception first = assertThrows(Exception.class, in::readAllBytes);
                assertInstanceOf(IOException.class, first, "bad input and a failing source alike");
                IOException later = assertThrows(IOException.class, in::read);
                assertEquals("stream failed earlier: " + first.getMessage(), later.getMessage());
                assertSame(first, later.getCause());
                in.close();
                assertArrayEquals(data, d.decompress(frame), "one-shot after a failed stream");
                try (ZstdInputStream again = new ZstdInputStream(new ByteArrayInputStream(frame), d)) {
                    assertArrayEquals(data, again.readAllBytes(), "a new stream after a failed one");
                }
            }
            ZstdInputStream orphan = new ZstdInputStream(new ByteArrayInputStream(frame), d);
            d.close();
            assertThrows(IllegalStateException.class, orphan::read, "borrowed decompressor closed: an error, not a crash");
            assertThrows(IOException.class, orphan::read);
        }
    }

    /** Discards what it is given and records close(); optionally fails every write, as a full disk would. */
    private static final class ClosingOutput extends OutputStream {
        private final boolean failWrites;
        boolean closed;

        ClosingOutput(boolean failWrites) {
            this.failWrites = failWrites;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (failWrites) {
                throw new IOException("disk full");
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            r.writeBytes(part);
        }
        return r.toByteArray();
    }

    /**
     * A source whose read returns 0 (a non-blocking channel wrapped as a stream does) is asked
     * again, as InputStream.readNBytes asks again: before 2026-11-26 each empty read went to
     * ZSTD_decompressStream as a call without input, and after 16 of them libzstd's no-progress
     * check failed the stream (OTHER, "Operation made no progress").
     */
    @Test
    void shouldReadASourceThatSometimesReturnsNothing() throws IOException {
        byte[] data = TestData.text(100_000, 9);
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] frame = c.compress(data);
            try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.hesitant(frame, 20), d)) {
                assertArrayEquals(data, in.readAllBytes());
            }
            byte[] cut = Arrays.copyOf(frame, frame.length / 2);
            try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.hesitant(cut, 20), d)) {
                assertEquals(ZstdException.Reason.TRUNCATED, assertThrows(ZstdStreamException.class, in::readAllBytes).reason());
            }
        }
    }

    /**
     * On a live connection the reader must return what the bytes received so far decode to
     * before it reads again: the peer may wait for an answer. A complete frame shorter than 18
     * bytes (a 1-byte payload is 10) waited for 18 bytes of input before 2026-11-26, the
     * longest frame header, and so for the next frame or the end of the connection.
     */
    @Test
    void shouldReturnAShortCompleteFrameWithoutReadingPastIt() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (byte[] data : new byte[][] {{42}, TestData.text(5, 1)}) {
                byte[] frame = c.compress(data);
                assertTrue(frame.length < 18, "frame length " + frame.length);
                try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.stalling(concat(frame, frame)), d)) {
                    assertArrayEquals(concat(data, data), in.readNBytes(2 * data.length));
                }
            }
            byte[] skip = skippable(0x184D2A50, 0);
            byte[] frame = c.compress(new byte[] {7});
            try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.stalling(concat(skip, frame)), d)) {
                assertEquals(7, in.read(), "an 8-byte skippable frame, then a 10-byte frame");
            }
        }
    }

    /**
     * flush() makes what was written so far decodable: the reader must return all of it without
     * reading further. Before 2026-11-26 it read the source again as soon as the 256 KiB output
     * scratch had been filled and the input was used up, although zstd still held decoded bytes
     * for it; on a connection whose writer waits for an answer, both would wait for ever.
     */
    @Test
    void shouldReturnAllOfAFlushedPrefixWithoutReadingPastIt() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : new int[] {1, 1000, 300_000, 3_000_000}) {
                byte[] data = TestData.text(size, size);
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                ZstdOutputStream out = new ZstdOutputStream(sink, c);
                out.write(data);
                out.flush();
                try (ZstdInputStream in = new ZstdInputStream(ScriptedInput.stalling(sink.toByteArray()), d)) {
                    assertArrayEquals(data, in.readNBytes(size), "size=" + size);
                }
                out.close();
            }
        }
    }

    /** RFC 8878 3.1.2: skippable frames (pzstd, the seekable format) belong to a zstd stream; zstd -d steps over them. */
    @Test
    void shouldStepOverSkippableFrames() throws IOException {
        byte[] a = TestData.text(5000, 3);
        byte[] b = TestData.text(300_000, 4);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            all.write(skippable(0x184D2A50, 4));
            all.write(c.compress(a));
            all.write(skippable(0x184D2A5F, 600_000)); // longer than the stream's input scratch
            all.write(c.compress(b));
            all.write(skippable(0x184D2A53, 0));
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(a);
        expected.write(b);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(all.toByteArray()))) {
            assertArrayEquals(expected.toByteArray(), in.readAllBytes());
        }
        // A skippable frame cut short is a truncated input, like a cut zstd frame.
        byte[] cut = Arrays.copyOf(skippable(0x184D2A50, 100), 50);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(cut))) {
            ZstdStreamException e = assertThrows(ZstdStreamException.class, in::readAllBytes);
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason(), e.getMessage());
        }
    }

    /**
     * One stream of every kind of frame (skippable, dictionary, empty, one-shot, streamed with
     * flushes) read from sources that give 1 byte to 1 MiB a read, around the 256 KiB input
     * scratch, into buffers of other odd sizes: each frame boundary, header and skippable
     * frame lands somewhere else in the scratch each time.
     */
    @Test
    void shouldReadMixedFramesWhateverSizesTheSourceGives() throws IOException {
        byte[] a = TestData.text(5000, 3);
        byte[] b = TestData.text(300_000, 4);
        java.util.List<byte[]> samples = new java.util.ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            samples.add(TestData.text(180, i));
        }
        try (ZstdDictionary dict = ZstdDictionary.train(samples, 4096);
             ZstdCompressor withDict = ZstdCompressor.builder().dictionary(dict).checksum(true).build();
             ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build()) {
            byte[] all = concat(skippable(0x184D2A5F, 3), withDict.compress(a), c.compress(b), skippable(0x184D2A50, 0),
                    streamCompress(b, 262_145, c, -1), withDict.compress(new byte[0]), withDict.compress(a),
                    skippable(0x184D2A51, 1));
            byte[] expected = concat(a, b, b, a);
            int[] sizes = {1, 2, 3, 7, 17, 4096, 262_143, 262_144, 262_145, 1 << 20};
            for (int i = 0; i < sizes.length; i++) {
                try (ZstdInputStream in = new ZstdInputStream(new ScriptedInput(all, sizes[i], 0, false), d)) {
                    assertArrayEquals(expected, readAll(in, sizes[sizes.length - 1 - i] % 100_000 + 1), "read size " + sizes[i]);
                }
            }
        }
    }

    private static byte[] skippable(int magic, int userBytes) {
        byte[] f = new byte[8 + userBytes];
        java.nio.ByteBuffer.wrap(f).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(magic).putInt(userBytes);
        Arrays.fill(f, 8, f.length, (byte) 0x5A);
        return f;
    }

    /**
     * A source that hands out {@code data} the way a network source may: at most
     * {@code maxPerRead} bytes a read, {@code zeros} reads returning 0 before each read that gives
     * bytes, and at the end either -1 or, {@code failAtEnd}, an IOException (a connection whose
     * peer has sent all it will until answered).
     */
    private static final class ScriptedInput extends InputStream {
        private final byte[] data;
        private final int maxPerRead;
        private final int zeros;
        private final boolean failAtEnd;
        private int pos;
        private int calls;

        private ScriptedInput(byte[] data, int maxPerRead, int zeros, boolean failAtEnd) {
            this.data = data;
            this.maxPerRead = maxPerRead;
            this.zeros = zeros;
            this.failAtEnd = failAtEnd;
        }

        /** At most 3 bytes a read, as a slow socket might give. */
        static ScriptedInput trickling(byte[] data) {
            return new ScriptedInput(data, 3, 0, false);
        }

        /** Returns 0 from {@code zeros} reads out of every {@code zeros + 1}, at most 100 bytes from the others. */
        static ScriptedInput hesitant(byte[] data, int zeros) {
            return new ScriptedInput(data, 100, zeros, false);
        }

        /** Gives its bytes, then fails the next read. */
        static ScriptedInput stalling(byte[] data) {
            return new ScriptedInput(data, Integer.MAX_VALUE, 0, true);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n;
            do {
                n = read(one, 0, 1); // a zero read is asked again: read() gives a byte or the end
            } while (n == 0);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos == data.length) {
                if (failAtEnd) {
                    throw new IOException("read past what the peer sent: " + pos + " bytes");
                }
                return -1;
            }
            if (calls++ % (zeros + 1) != 0) {
                return 0;
            }
            int n = Math.min(Math.min(len, maxPerRead), data.length - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /**
     * A stream over a borrowed compressor or decompressor moves its bytes through the owner's heap
     * chunk, made once: before 2026-11-29 each stream made its own 256 KiB array, so 200 small
     * streams allocated over 50 MiB. Each round trip here round-trips a 100-byte frame and must
     * allocate well under one chunk; the frames decode to what went in.
     */
    @Test
    void shouldAllocateNoChunkPerStreamOverABorrowedCompressorOrDecompressor() throws IOException {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        byte[] data = TestData.text(100, 7);
        byte[] back = new byte[data.length];
        ByteArrayOutputStream sink = new ByteArrayOutputStream(256);
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            long before = 0;
            int streams = 200;
            for (int round = 0; round < 2; round++) { // the first round makes the chunks and compiles
                if (round == 1) {
                    before = threads.getCurrentThreadAllocatedBytes();
                }
                for (int i = 0; i < streams; i++) {
                    sink.reset();
                    try (ZstdOutputStream out = new ZstdOutputStream(sink, c)) {
                        out.write(data);
                    }
                    try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(sink.toByteArray()), d)) {
                        assertEquals(data.length, in.readNBytes(back, 0, back.length));
                        assertEquals(-1, in.read());
                    }
                    assertArrayEquals(data, back);
                }
            }
            long perStream = (threads.getCurrentThreadAllocatedBytes() - before) / streams;
            assertTrue(perStream < StreamBuffers.SCRATCH_BYTES / 8,
                    perStream + " bytes allocated per output and input stream pair over a borrowed compressor and decompressor");
        }
    }
}

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
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** ZstdInputStream and ZstdOutputStream against the java.io contracts of InputStream and OutputStream. */
class StreamContractTest {

    private static final byte[] DATA = TestData.text(300_000, 11);
    private static final byte[] FRAME;

    static {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            FRAME = c.compress(DATA);
        }
    }

    @Test
    void shouldCheckReadBoundsAndReadNothingForAnEmptyRead() throws IOException {
        RecordingInput source = new RecordingInput(FRAME);
        try (ZstdInputStream in = new ZstdInputStream(source)) {
            byte[] buf = new byte[10];
            for (int[] bad : new int[][] {{-1, 1}, {0, -1}, {0, 11}, {5, 6}, {11, 0}, {Integer.MAX_VALUE, 1}}) {
                assertThrows(IndexOutOfBoundsException.class, () -> in.read(buf, bad[0], bad[1]), Arrays.toString(bad));
            }
            assertThrows(NullPointerException.class, () -> in.read(null, 0, 1));
            assertEquals(0, in.read(buf, 10, 0));
            assertEquals(0, in.read(new byte[0]));
            assertEquals(0, source.reads, "a read of 0 bytes reads nothing from the source");
            assertArrayEquals(DATA, in.readAllBytes(), "usable after refused reads");
        }
    }

    @Test
    void shouldReturnMinusOneAtTheEndEveryTime() throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME))) {
            assertEquals(DATA.length, in.skip(DATA.length + 1000L), "skip stops at the end");
            for (int i = 0; i < 3; i++) {
                assertEquals(-1, in.read());
                assertEquals(-1, in.read(new byte[4], 1, 3));
                assertEquals(0, in.skip(10));
                assertEquals(0, in.available());
                assertEquals(0, in.readAllBytes().length);
                assertEquals(0, in.transferTo(OutputStream.nullOutputStream()));
            }
        }
    }

    /**
     * available() says how many decoded bytes the stream holds: a read of that many returns them
     * without reading the source, as the InputStream contract has it; InputStreamReader.ready()
     * and BufferedInputStream.available() rely on it. It was always 0 (InputStream's own), so a
     * reader on a live connection could not tell that content was waiting.
     */
    /**
     * A stream that has returned -1 holds nothing in its borrowed decompressor, so closing that
     * decompressor changes nothing for it: it goes on returning -1, as the README says of an ended
     * stream. Before 2026-11-29 its next read threw IllegalStateException "decompressor is closed",
     * and every read after that "stream failed earlier" (a reader that closes its decompressor
     * before the stream it wraps, or reads again after both, saw an error at a clean end).
     */
    @Test
    void shouldGoOnReturningTheEndOnceItsBorrowedDecompressorIsClosed() throws IOException {
        ZstdDecompressor d = new ZstdDecompressor();
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME), d);
        assertArrayEquals(DATA, in.readAllBytes());
        d.close();
        for (int i = 0; i < 2; i++) {
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(new byte[4], 1, 3));
            assertEquals(0, in.skip(10));
            assertEquals(0, in.readAllBytes().length);
            assertEquals(0, in.available());
        }
        in.close();
        assertIOException(in::read, "read()");
    }

    @Test
    void shouldReportTheDecodedBytesItHoldsAsAvailable() throws IOException {
        RecordingInput source = new RecordingInput(FRAME);
        ZstdInputStream in = new ZstdInputStream(source);
        assertEquals(0, in.available(), "nothing decoded before the first read");
        assertEquals(DATA[0] & 0xFF, in.read());
        int held = in.available();
        assertTrue(held > 0 && held < DATA.length, "available=" + held);
        int reads = source.reads;
        byte[] buf = new byte[held + 100];
        assertEquals(held, in.read(buf, 0, buf.length));
        assertArrayEquals(Arrays.copyOfRange(DATA, 1, 1 + held), Arrays.copyOf(buf, held));
        assertEquals(reads, source.reads, "the available bytes came without reading the source");
        in.close();
        assertIOException(in::available, "available");
    }

    @Test
    void shouldSkipAndTransferContent() throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME))) {
            assertEquals(0, in.skip(0));
            assertEquals(0, in.skip(-5));
            assertEquals(1000, in.skip(1000));
            assertEquals(DATA[1000] & 0xFF, in.read());
            in.skipNBytes(99_000);
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            assertEquals(DATA.length - 100_001, in.transferTo(rest));
            assertArrayEquals(Arrays.copyOfRange(DATA, 100_001, DATA.length), rest.toByteArray());
            assertThrows(NullPointerException.class, () -> in.transferTo(null));
        }
    }

    @Test
    void shouldRefuseEveryReadAfterCloseWithIOException() throws IOException {
        RecordingInput source = new RecordingInput(FRAME);
        ZstdInputStream in = new ZstdInputStream(source);
        assertEquals(DATA[0] & 0xFF, in.read());
        in.close();
        in.close();
        assertEquals(1, source.closes, "close is idempotent: the source is closed once");
        assertIOException(in::read, "read()");
        assertIOException(() -> in.read(new byte[8]), "read(byte[])");
        assertIOException(() -> in.read(new byte[8], 0, 0), "read(byte[], 0, 0)");
        assertIOException(() -> in.skip(5), "skip");
        // InputStream.skip returns 0 for n <= 0 without a read: it said 0 here (before 2026-11-27)
        assertIOException(() -> in.skip(0), "skip(0)");
        assertIOException(() -> in.skip(-1), "skip(-1)");
        assertIOException(in::readAllBytes, "readAllBytes");
        assertIOException(() -> in.transferTo(OutputStream.nullOutputStream()), "transferTo");
    }

    /** The constructors over a borrowed compressor or decompressor refuse a closed one, as documented. */
    @Test
    void shouldRefuseAClosedCompressorOrDecompressorWhenMade() {
        ZstdCompressor c = new ZstdCompressor(3);
        ZstdDecompressor d = new ZstdDecompressor();
        c.close();
        d.close();
        CountingOutput sink = new CountingOutput();
        assertEquals("compressor is closed", assertThrows(IllegalStateException.class, () -> new ZstdOutputStream(sink, c)).getMessage());
        assertEquals("compressor is closed", assertThrows(IllegalStateException.class, () -> new ZstdOutputStream(sink, c, 10)).getMessage());
        assertEquals("decompressor is closed", assertThrows(IllegalStateException.class,
                () -> new ZstdInputStream(new ByteArrayInputStream(FRAME), d)).getMessage());
        assertEquals(0, sink.closes, "nothing made, nothing closed");
    }

    /**
     * A null borrowed compressor or decompressor is named, as a null stream is. Before 2026-11-29
     * it gave the JVM's generic message about a field of the stream.
     */
    @Test
    void shouldNameANullCompressorOrDecompressor() {
        CountingOutput sink = new CountingOutput();
        assertEquals("compressor", assertThrows(NullPointerException.class, () -> new ZstdOutputStream(sink, null)).getMessage());
        assertEquals("compressor", assertThrows(NullPointerException.class, () -> new ZstdOutputStream(sink, null, 10)).getMessage());
        assertEquals("decompressor", assertThrows(NullPointerException.class,
                () -> new ZstdInputStream(new ByteArrayInputStream(FRAME), null)).getMessage());
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            assertEquals("in", assertThrows(NullPointerException.class, () -> new ZstdInputStream(null, d)).getMessage());
        }
        assertEquals(0, sink.closes, "nothing made, nothing closed");
    }

    @Test
    void shouldRefuseEveryWriteAfterCloseWithIOException() throws IOException {
        CountingOutput sink = new CountingOutput();
        ZstdOutputStream out = new ZstdOutputStream(sink, 3);
        out.write(DATA);
        out.close();
        out.close();
        assertEquals(1, sink.closes, "close is idempotent: the sink is closed once");
        assertArrayEquals(DATA, decompress(sink.bytes.toByteArray()), "one frame, ended once");
        assertIOException(() -> out.write(1), "write(int)");
        assertIOException(() -> out.write(new byte[8]), "write(byte[])");
        assertIOException(() -> out.write(new byte[8], 0, 0), "write(byte[], 0, 0)");
        assertIOException(out::flush, "flush");
    }

    @Test
    void shouldCheckWriteBoundsAndStayUsable() throws IOException {
        CountingOutput sink = new CountingOutput();
        try (ZstdOutputStream out = new ZstdOutputStream(sink, 3)) {
            byte[] buf = new byte[10];
            for (int[] bad : new int[][] {{-1, 1}, {0, -1}, {0, 11}, {5, 6}, {11, 0}, {Integer.MAX_VALUE, 1}}) {
                assertThrows(IndexOutOfBoundsException.class, () -> out.write(buf, bad[0], bad[1]), Arrays.toString(bad));
            }
            assertThrows(NullPointerException.class, () -> out.write(null, 0, 1));
            out.write(buf, 10, 0);
            out.write(DATA);
        }
        assertArrayEquals(DATA, decompress(sink.bytes.toByteArray()), "nothing of the refused writes in the frame");
    }

    /**
     * A source that fails mid-frame: its exception reaches the caller unchanged, later reads refuse,
     * close() closes the source and frees the stream's own decompressor.
     */
    @Test
    void shouldPropagateASourceFailureAndFreeTheContextOnClose() throws IOException {
        long live = LibZstd.LIVE_DCTX.get();
        IOException reset = new IOException("connection reset");
        RecordingInput source = new RecordingInput(Arrays.copyOf(FRAME, FRAME.length / 2), reset);
        ZstdInputStream in = new ZstdInputStream(source);
        assertSame(reset, assertThrows(IOException.class, in::readAllBytes));
        assertSame(reset, assertThrows(IOException.class, in::read).getCause());
        in.close();
        assertEquals(1, source.closes);
        assertEquals(live, LibZstd.LIVE_DCTX.get(), "the stream's decompressor freed");
        in.close();
    }

    /**
     * A source whose read returns a count outside -1 to what it was asked for (a broken wrapper)
     * is named, with the count, and the stream refuses more. Before 2026-11-29 a count past what
     * was asked failed in FFM's words ("Range [0, 0 + 262154) out of bounds for length 262144"),
     * naming neither the source nor the count, and -2 read as the end of the input: "frame
     * truncated" after the first bytes, "input is empty" at once.
     */
    @Test
    void shouldNameASourceThatReturnsACountNoReadMayReturn() throws IOException {
        for (int[] broken : new int[][] {{1, 10}, {1, -2}, {0, -2}, {3, Integer.MIN_VALUE}}) {
            int goodReads = broken[0];
            int bad = broken[1];
            InputStream source = new ByteArrayInputStream(FRAME) {
                private int reads;

                @Override
                public synchronized int read(byte[] b, int off, int len) {
                    if (reads++ < goodReads) {
                        return super.read(b, off, Math.min(len, 1000));
                    }
                    super.read(b, off, len);
                    return bad > 0 ? len + bad : bad; // more than asked, or below -1
                }
            };
            try (ZstdDecompressor d = new ZstdDecompressor()) {
                ZstdInputStream in = new ZstdInputStream(source, d);
                IOException e = assertThrows(IOException.class, in::readAllBytes, Arrays.toString(broken));
                Matcher m = Pattern.compile("source returned (-?\\d+) from read\\(byte\\[\\], 0, (\\d+)\\), which returns -1 to (\\d+): (.*)")
                        .matcher(e.getMessage());
                assertTrue(m.matches(), e.getMessage());
                int asked = Integer.parseInt(m.group(2));
                assertEquals(bad > 0 ? asked + bad : bad, Integer.parseInt(m.group(1)), e.getMessage());
                assertEquals(asked, Integer.parseInt(m.group(3)), e.getMessage());
                assertEquals(source.getClass().getName(), m.group(4));
                assertSame(e, assertThrows(IOException.class, in::read).getCause(), "refused after it");
                in.close();
                assertArrayEquals(DATA, d.decompress(FRAME), "the decompressor goes on");
            }
        }
    }

    /**
     * An Error from the source is an error too: later reads refuse with it as the cause, as the
     * javadoc promises after any error. Before 2026-11-29 only exceptions counted, and the next
     * read went on decoding (correctly here) after the source had thrown an AssertionError.
     */
    @Test
    void shouldRefuseReadsAfterAnErrorFromTheSource() throws IOException {
        AssertionError broke = new AssertionError("source broke");
        int[] reads = {0};
        InputStream source = new ByteArrayInputStream(FRAME) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                if (++reads[0] == 2) {
                    throw broke;
                }
                return super.read(b, off, Math.min(len, 50_000));
            }
        };
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdInputStream in = new ZstdInputStream(source, d);
            byte[] buf = new byte[DATA.length];
            assertSame(broke, assertThrows(AssertionError.class, () -> in.readNBytes(buf, 0, buf.length)));
            IOException later = assertThrows(IOException.class, in::read, "a read after the source's Error");
            assertEquals("stream failed earlier: source broke", later.getMessage());
            assertSame(broke, later.getCause());
            in.close();
            assertArrayEquals(DATA, d.decompress(FRAME), "borrowed decompressor usable");
        }
    }

    /**
     * A sink that fails mid-frame: its exception reaches the caller unchanged, later writes and
     * close() refuse to end the frame, close() closes the sink and frees the stream's own compressor.
     */
    @Test
    void shouldPropagateASinkFailureAndFreeTheContextOnClose() throws IOException {
        long live = LibZstd.LIVE_CCTX.get();
        IOException full = new IOException("disk full");
        CountingOutput sink = new CountingOutput();
        sink.failWrites = full;
        ZstdOutputStream out = new ZstdOutputStream(sink, 1);
        assertSame(full, assertThrows(IOException.class, () -> out.write(TestData.random(1 << 20, 3))));
        assertSame(full, assertThrows(IOException.class, () -> out.write(1)).getCause());
        assertSame(full, assertThrows(IOException.class, out::close).getCause());
        assertEquals(1, sink.closes);
        assertEquals(live, LibZstd.LIVE_CCTX.get(), "the stream's compressor freed");
        out.close();
    }

    /**
     * An Error from the sink is a failed write too: a ByteArrayOutputStream that cannot grow past
     * 2 GiB throws OutOfMemoryError. Only IOException and RuntimeException counted before
     * 2026-11-29, so the close() of a try-with-resources that the Error left ended the frame
     * without the output the Error lost: here 1 MiB of incompressible data decoded, without an
     * error, to its first 168,928 bytes.
     */
    @Test
    void shouldNotEndTheFrameAfterAnErrorFromTheSink() throws IOException {
        byte[] data = TestData.random(1 << 20, 5);
        OutOfMemoryError full = new OutOfMemoryError("Required array length too large");
        CountingOutput sink = new CountingOutput();
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            OutOfMemoryError thrown = assertThrows(OutOfMemoryError.class, () -> {
                try (ZstdOutputStream out = new ZstdOutputStream(sink, c)) {
                    for (int i = 0; i < data.length; i += 100_000) {
                        out.write(data, i, Math.min(100_000, data.length - i));
                        if (sink.bytes.size() > 0 && i < 500_000) {
                            sink.failWritesWith = full; // the next output the sink is given is lost, later ones kept
                        }
                    }
                }
            });
            assertSame(full, thrown);
            byte[] written = sink.bytes.toByteArray();
            assertThrows(ZstdException.class, () -> decompress(written),
                    () -> "what reached the sink must not decode as a whole frame: " + written.length + " bytes decoded to "
                            + decompress(written).length + " of " + data.length);
            assertEquals(1, thrown.getSuppressed().length, "close() refused to end the frame");
            IOException notEnded = (IOException) thrown.getSuppressed()[0];
            assertEquals("stream failed earlier, frame not ended: " + full.getMessage(), notEnded.getMessage());
            assertSame(full, notEnded.getCause());
            assertEquals(1, sink.closes);
            assertArrayEquals(data, decompress(c.compress(data)), "borrowed compressor usable");
        }
    }

    /**
     * The sink's own flush failing is a failed flush too (the README: after a failed write or
     * flush the stream takes nothing more): what zstd handed the sink may be lost, so later
     * writes and close() refuse instead of ending a frame that lacks it. Only zstd's and the
     * sink's write failures counted; after a failed sink flush, close() ended the frame.
     */
    @Test
    void shouldTakeNothingMoreAfterTheSinksFlushFailed() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            IOException lost = new IOException("connection reset while flushing");
            CountingOutput sink = new CountingOutput();
            sink.failFlush = lost;
            ZstdOutputStream out = new ZstdOutputStream(sink, c);
            out.write(DATA, 0, 1000);
            assertSame(lost, assertThrows(IOException.class, out::flush));
            sink.failFlush = null;
            assertSame(lost, assertThrows(IOException.class, () -> out.write(DATA, 1000, 1000)).getCause());
            assertSame(lost, assertThrows(IOException.class, out::close).getCause());
            assertEquals(1, sink.closes);
            assertArrayEquals(DATA, decompress(c.compress(DATA)), "borrowed compressor usable");
        }
    }

    /**
     * Streams closed mid-frame, or failing at close, leave a borrowed decompressor or compressor
     * ready for one-shot calls and for new streams.
     */
    @Test
    void shouldLeaveBorrowedContextsReadyAfterAStreamClosedMidFrame() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdInputStream partly = new ZstdInputStream(new ByteArrayInputStream(FRAME), d);
            assertEquals(1000, partly.readNBytes(1000).length);
            partly.close();
            assertArrayEquals(DATA, d.decompress(FRAME), "one-shot after a stream closed mid-frame");
            try (ZstdInputStream again = new ZstdInputStream(new ByteArrayInputStream(FRAME), d)) {
                assertArrayEquals(DATA, again.readAllBytes(), "a new stream after one closed mid-frame");
            }
            CountingOutput sink = new CountingOutput();
            ZstdOutputStream out = new ZstdOutputStream(sink, c);
            out.write(DATA);
            sink.failWrites = new IOException("disk full");
            assertSame(sink.failWrites, assertThrows(IOException.class, out::close));
            assertArrayEquals(DATA, d.decompress(c.compress(DATA)), "one-shot after a stream failed at close");
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            try (ZstdOutputStream next = new ZstdOutputStream(frame, c)) {
                next.write(DATA);
            }
            assertArrayEquals(DATA, d.decompress(frame.toByteArray()), "a new stream after one failed at close");
        }
    }

    /**
     * A borrowed compressor or decompressor closed under its stream (which the streams forbid)
     * is named: before, the stream touched the freed scratch memory first and FFM said only
     * "Already closed". The stream then refuses more, and close() still closes the sink.
     */
    @Test
    void shouldNameABorrowedContextClosedUnderTheStream() throws IOException {
        for (boolean writeFirst : new boolean[] {true, false}) {
            ZstdCompressor c = new ZstdCompressor(3);
            CountingOutput sink = new CountingOutput();
            ZstdOutputStream out = new ZstdOutputStream(sink, c);
            out.write(DATA, 0, 1000);
            c.close();
            Executable call = writeFirst ? () -> out.write(DATA, 0, 10) : out::flush;
            assertEquals("compressor is closed", assertThrows(IllegalStateException.class, call).getMessage());
            IOException later = assertThrows(IOException.class, out::close);
            assertEquals("compressor is closed", later.getCause().getMessage());
            assertEquals(1, sink.closes);
        }
        ZstdCompressor c = new ZstdCompressor(3);
        CountingOutput sink = new CountingOutput();
        ZstdOutputStream out = new ZstdOutputStream(sink, c);
        c.close();
        assertEquals("compressor is closed", assertThrows(IllegalStateException.class, out::close).getMessage());
        assertEquals(1, sink.closes);

        ZstdDecompressor d = new ZstdDecompressor();
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME), d);
        assertEquals(1000, in.readNBytes(1000).length); // more decoded bytes are held in d's scratch
        d.close();
        assertEquals("decompressor is closed", assertThrows(IllegalStateException.class, in::read).getMessage());
        assertEquals("decompressor is closed", assertThrows(IOException.class, in::read).getCause().getMessage());
        in.close();
    }

    /**
     * A borrowed decompressor closed under its stream mid-frame: available() is 0, as after any
     * error, since the next read refuses ("decompressor is closed") and returns none of the bytes
     * decoded before. Before 2026-11-29 it said 262,143 here: bytes no read could return.
     */
    @Test
    void shouldHaveNothingAvailableOnceItsBorrowedDecompressorIsClosed() throws IOException {
        ZstdDecompressor d = new ZstdDecompressor();
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME), d);
        assertEquals(DATA[0] & 0xFF, in.read());
        assertTrue(in.available() > 0, "decoded bytes held: " + in.available());
        d.close();
        assertEquals(0, in.available(), "nothing a read can return");
        assertEquals("decompressor is closed", assertThrows(IllegalStateException.class, in::read).getMessage());
        assertEquals(0, in.available());
        in.close();
    }

    /**
     * An underlying stream whose own close() fails: the failure reaches the caller unchanged, the
     * stream's own context is freed all the same (the frame was ended before: it decodes), and a
     * second close() does nothing, not even a second close of the underlying stream.
     */
    @Test
    void shouldFreeTheContextAndSurfaceTheFailureWhenTheUnderlyingCloseFails() throws IOException {
        long live = LibZstd.liveNativeObjects();
        IOException failedClose = new IOException("close failed");
        CountingOutput sink = new CountingOutput();
        sink.failClose = failedClose;
        ZstdOutputStream out = new ZstdOutputStream(sink, 3);
        out.write(DATA);
        assertSame(failedClose, assertThrows(IOException.class, out::close));
        out.close();
        assertEquals(1, sink.closes);
        assertArrayEquals(DATA, decompress(sink.bytes.toByteArray()), "the frame was ended before the sink's close");

        int[] closes = {0};
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME) {
            @Override
            public void close() throws IOException {
                closes[0]++;
                throw failedClose;
            }
        });
        assertEquals(DATA[0] & 0xFF, in.read());
        assertSame(failedClose, assertThrows(IOException.class, in::close));
        in.close();
        assertEquals(1, closes[0]);
        assertIOException(in::read, "read()");
        assertEquals(live, LibZstd.liveNativeObjects(), "both streams' own contexts and scratch freed");
    }

    /**
     * A source or sink that closes the stream it feeds: that close runs inside the stream's own
     * call, so freeing the stream's own decompressor or compressor is refused
     * (IllegalStateException, "… close it once that call has returned"). Closing the stream again
     * once the call has returned frees it. Before 2026-11-29 the first close had already marked the
     * stream closed, so the second returned at once and the context and its scratch stayed live
     * until a collection found them, reported as "was not closed".
     */
    @Test
    void shouldFreeItsOwnContextWhenClosedAgainAfterACloseFromInsideItsOwnCall() throws IOException {
        long live = LibZstd.liveNativeObjects();
        ZstdInputStream[] in = new ZstdInputStream[1];
        IllegalStateException[] inside = new IllegalStateException[1];
        InputStream closingSource = new ByteArrayInputStream(FRAME) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                if (inside[0] == null) {
                    inside[0] = assertThrows(IllegalStateException.class, in[0]::close);
                }
                return super.read(b, off, len);
            }
        };
        in[0] = new ZstdInputStream(closingSource);
        in[0].read();
        assertTrue(inside[0].getMessage().startsWith("decompressor closed from inside a call on it"), inside[0].getMessage());
        assertIOException(in[0]::read, "read()");
        in[0].close();
        assertEquals(live, LibZstd.liveNativeObjects(), "the stream's own decompressor and scratch freed by the second close");
        in[0].close();

        ZstdOutputStream[] out = new ZstdOutputStream[1];
        CountingOutput sink = new CountingOutput() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (inside[0] != null) {
                    inside[0] = null;
                    assertThrows(IllegalStateException.class, out[0]::close);
                }
                super.write(b, off, len);
            }
        };
        out[0] = new ZstdOutputStream(sink, 3);
        out[0].write(DATA);
        assertThrows(IOException.class, out[0]::flush, "closed from inside the write");
        out[0].close();
        assertEquals(live, LibZstd.liveNativeObjects(), "the stream's own compressor and scratch freed by the second close");
        assertEquals(1, sink.closes);
    }

    /**
     * README, Errors: the streams' {@code read(byte[], off, len)} and {@code write(byte[], off,
     * len)} refuse a range outside their array as the JDK's streams do, in the JDK's words, before
     * anything else: on a closed stream too the range is what is named, and a refused write hands
     * nothing on.
     */
    @Test
    void shouldRefuseARangeOutsideTheArrayInTheJdksWordsBeforeAnythingElse() throws IOException {
        byte[] buf = new byte[10];
        String words = "Range [5, 5 + 6) out of bounds for length 10";
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME));
        assertEquals(words, assertThrows(IndexOutOfBoundsException.class, () -> in.read(buf, 5, 6)).getMessage());
        in.close();
        assertEquals(words, assertThrows(IndexOutOfBoundsException.class, () -> in.read(buf, 5, 6)).getMessage(),
                "closed: the range is checked first");

        CountingOutput sink = new CountingOutput();
        ZstdOutputStream out = new ZstdOutputStream(sink, 3);
        assertEquals(words, assertThrows(IndexOutOfBoundsException.class, () -> out.write(buf, 5, 6)).getMessage());
        out.close();
        assertEquals(words, assertThrows(IndexOutOfBoundsException.class, () -> out.write(buf, 5, 6)).getMessage(),
                "closed: the range is checked first");
        assertEquals(0, decompress(sink.bytes.toByteArray()).length, "the refused write handed nothing on");
    }

    /**
     * README, Streams: after an error a ZstdInputStream holds nothing ({@code available()} 0) and
     * {@code skip} refuses ("stream failed earlier"), whatever {@code n}, its {@code n <= 0}
     * included, where {@code InputStream.skip} returns 0 without looking.
     */
    @Test
    void shouldHaveNothingAvailableAndRefuseEverySkipAfterAnError() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(Arrays.copyOf(FRAME, FRAME.length / 2)), d);
            ZstdStreamException cut = assertThrows(ZstdStreamException.class, in::readAllBytes);
            assertEquals(ZstdException.Reason.TRUNCATED, cut.reason());
            assertEquals(0, in.available(), "nothing held after an error");
            for (long n : new long[] {5, 0, -1}) {
                IOException e = assertThrows(IOException.class, () -> in.skip(n), "skip(" + n + ")");
                assertEquals("stream failed earlier: " + cut.getMessage(), e.getMessage());
                assertSame(cut, e.getCause());
            }
            in.close();
            assertArrayEquals(DATA, d.decompress(FRAME), "the borrowed decompressor goes on");
        }
    }

    /**
     * README, Ownership: {@code ZstdOutputStream.close()} closes the underlying stream even when
     * ending the frame fails (here a pledged size not met), and throws that failure; a second close
     * closes nothing again, and the borrowed compressor goes on.
     */
    @Test
    void shouldCloseTheSinkWhenEndingTheFrameFails() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            CountingOutput sink = new CountingOutput();
            ZstdOutputStream out = new ZstdOutputStream(sink, c, 1000);
            out.write(DATA, 0, 10);
            ZstdStreamException e = assertThrows(ZstdStreamException.class, out::close);
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
            assertEquals("less content than the frame declares: pledged=1000, written=10", e.getMessage());
            assertEquals(1, sink.closes, "the sink is closed although the frame could not be ended");
            out.close();
            assertEquals(1, sink.closes, "closed once");
            assertArrayEquals(DATA, decompress(c.compress(DATA)), "the borrowed compressor goes on");
        }
    }

    /**
     * The first error of a stream for bad input is an IOException, as the JDK's compressed streams
     * throw ZipException for bad data: until 2026-11-29 it was the unchecked ZstdException, which a
     * {@code catch (IOException e)}, {@code InputStream.transferTo} or {@code Files.copy} let
     * through, while every later call threw IOException ("stream failed earlier"). The reason,
     * zstd's code and name and the message (where in the stream) are those of the ZstdException,
     * which is the cause.
     */
    @Test
    void shouldThrowTheFirstErrorForBadInputAsAnIOExceptionKeepingReasonCodeAndMessage() throws IOException {
        byte[] cut = Arrays.copyOf(FRAME, FRAME.length / 2);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(cut))) {
            ZstdStreamException e = caughtAsIOException(() -> in.transferTo(OutputStream.nullOutputStream()), "transferTo");
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
            assertTrue(e.getMessage().startsWith("frame truncated: input ended inside a frame, decompressed="), e.getMessage());
            assertTrue(e.getMessage().endsWith("; in the stream: frame=1, inputOffset=0, contentOffset=0"), e.getMessage());
            assertCarries(e);
            IOException later = assertThrows(IOException.class, in::read);
            assertEquals("stream failed earlier: " + e.getMessage(), later.getMessage());
            assertSame(e, later.getCause());
        }

        byte[] small;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            small = c.compress(Arrays.copyOf(DATA, 5_000));
        }
        for (int i = 20; i < small.length - 4; i += 7) {
            small[i] ^= (byte) 0x5A;
        }
        byte[] damaged = small;
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(damaged))) {
            ZstdStreamException e = caughtAsIOException(() -> in.read(new byte[100_000]), "read");
            assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
            assertTrue(e.errorCode() != 0 && !e.errorName().isEmpty(), "zstd's code and name: " + e.getMessage());
            assertCarries(e);
        }

        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream("garbage!".getBytes()))) {
            ZstdStreamException e = caughtAsIOException(() -> in.skip(10), "skip");
            assertEquals(ZstdException.Reason.NOT_ZSTD, e.reason(), e.getMessage());
            assertTrue(e.getMessage().endsWith("; in the stream: frame=1, inputOffset=0, contentOffset=0"), e.getMessage());
            assertCarries(e);
        }

        try (ZstdCompressor c = new ZstdCompressor(3)) {
            CountingOutput sink = new CountingOutput();
            ZstdOutputStream out = new ZstdOutputStream(sink, c, 10);
            ZstdStreamException e = caughtAsIOException(() -> out.write(DATA, 0, 11), "write past the pledge");
            assertEquals(ZstdException.Reason.TRUNCATED, e.reason());
            assertEquals("more content than the frame declares: pledged=10, written=0, this write=11", e.getMessage());
            assertCarries(e);
            IOException later = assertThrows(IOException.class, () -> out.write(1));
            assertEquals("stream failed earlier: " + e.getMessage(), later.getMessage());
            assertSame(e, later.getCause());
            assertEquals("stream failed earlier, frame not ended: " + e.getMessage(),
                    assertThrows(IOException.class, out::close).getMessage());
        }
    }

    /** An I/O call that may throw IOException. */
    private interface IoCall {
        void run() throws IOException;
    }

    /** What {@code catch (IOException e)} around {@code call} catches: the stream's ZstdStreamException. */
    private static ZstdStreamException caughtAsIOException(IoCall call, String what) {
        try {
            call.run();
        } catch (IOException e) {
            return assertInstanceOf(ZstdStreamException.class, e, what);
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": escaped catch (IOException e) as " + e, e);
        }
        throw new AssertionError(what + ": no error");
    }

    /** {@code e} carries its cause's message, reason, code and name. */
    private static void assertCarries(ZstdStreamException e) {
        ZstdException cause = assertInstanceOf(ZstdException.class, e.getCause());
        assertEquals(cause.getMessage(), e.getMessage());
        assertEquals(cause.reason(), e.reason());
        assertEquals(cause.errorCode(), e.errorCode());
        assertEquals(cause.errorName(), e.errorName());
    }

    private static void assertIOException(Executable call, String what) {
        IOException e = assertThrows(IOException.class, call, what + " after close");
        assertTrue(e.getMessage().contains("closed"), what + ": " + e.getMessage());
    }

    private static byte[] decompress(byte[] frame) {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            return d.decompress(frame);
        }
    }

    /** Keeps what it is given, counting closes; fails every write with {@link #failWrites}, the next with {@link #failWritesWith}, when set. */
    private static class CountingOutput extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        IOException failWrites;
        /** Thrown by the next write when set, then cleared: an Error, as a ByteArrayOutputStream that cannot grow throws. */
        Error failWritesWith;
        IOException failFlush;
        IOException failClose;
        int closes;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (failWrites != null) {
                throw failWrites;
            }
            if (failWritesWith != null) {
                Error once = failWritesWith;
                failWritesWith = null;
                throw once;
            }
            bytes.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (failFlush != null) {
                throw failFlush;
            }
        }

        @Override
        public void close() throws IOException {
            closes++;
            if (failClose != null) {
                throw failClose;
            }
        }
    }
}

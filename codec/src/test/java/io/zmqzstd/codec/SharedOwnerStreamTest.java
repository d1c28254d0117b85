package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A stream over a borrowed compressor or decompressor keeps its frame in the owner's context and
 * scratch (the heap chunk included) between its calls. A one-call compression or decompression,
 * or a second stream, on the same owner meanwhile takes them over. Before, the first stream went
 * on regardless: its frame decoded to wrong bytes without an error, its reads returned another
 * frame's bytes, and a one-call compression between two writes crashed the JVM inside libzstd
 * (SIGSEGV in memcpy from {@code ZSTD_compressStream2}). Now what took the owner over works, and
 * the first stream's next call refuses, naming what happened; the owner goes on.
 */
class SharedOwnerStreamTest {

    private static final byte[] A = TestData.text(5000, 1);
    private static final byte[] B = TestData.text(7000, 2);
    private static final byte[] FRAME_A;
    private static final byte[] FRAME_B;

    static {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            FRAME_A = c.compress(A);
            FRAME_B = c.compress(B);
        }
    }

    private static byte[] decode(byte[] frame) throws IOException {
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame))) {
            return in.readAllBytes();
        }
    }

    private static void assertTakenOver(IllegalStateException e, String by) {
        assertTrue(e.getMessage().contains(" was used by " + by) && e.getMessage().contains("while this stream was open"),
                e.getMessage());
    }

    /** Level only (ZSTD_compressCCtx, which crashed the stream's next write) and with a checksum (ZSTD_compress2). */
    private static ZstdCompressor[] compressors() {
        return new ZstdCompressor[] {new ZstdCompressor(3), ZstdCompressor.builder().level(3).checksum(true).build()};
    }

    @Test
    void shouldRefuseAnOutputStreamsNextCallOnceAOneCallCompressionTookItsCompressor() throws IOException {
        for (ZstdCompressor c : compressors()) {
            try (c; ZstdDecompressor d = new ZstdDecompressor()) {
                for (int call = 0; call < 3; call++) { // the stream's next call: write, flush, close
                    ByteArrayOutputStream sink = new ByteArrayOutputStream();
                    ZstdOutputStream out = new ZstdOutputStream(sink, c);
                    out.write(A, 0, 2500);
                    assertArrayEquals(B, d.decompress(c.compress(B)), "the one-call compression is whole");
                    IllegalStateException e = switch (call) {
                        case 0 -> assertThrows(IllegalStateException.class, () -> out.write(A, 2500, 2500));
                        case 1 -> assertThrows(IllegalStateException.class, out::flush);
                        default -> assertThrows(IllegalStateException.class, out::close);
                    };
                    assertTakenOver(e, "a one-call compress");
                    if (call < 2) {
                        IOException later = assertThrows(IOException.class, out::close);
                        assertSame(e, later.getCause(), "close refuses to end the frame, naming the first failure");
                    }
                    out.close(); // idempotent
                    assertArrayEquals(B, d.decompress(c.compress(B)), "the compressor goes on");
                }
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                try (ZstdOutputStream out = new ZstdOutputStream(sink, c)) {
                    out.write(A);
                }
                assertArrayEquals(A, decode(sink.toByteArray()), "a new stream over it works");
                assertNull(c.stream, "a closed stream is not kept by its compressor");
            }
        }
    }

    @Test
    void shouldRefuseTheFirstOutputStreamOnceASecondTookItsCompressor() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ByteArrayOutputStream first = new ByteArrayOutputStream();
            ByteArrayOutputStream second = new ByteArrayOutputStream();
            ZstdOutputStream out1 = new ZstdOutputStream(first, c);
            out1.write(A, 0, 2500);
            try (ZstdOutputStream out2 = new ZstdOutputStream(second, c)) {
                out2.write(B, 0, 3000);
                assertTakenOver(assertThrows(IllegalStateException.class, () -> out1.write(A, 2500, 2500)),
                        "another ZstdOutputStream");
                out2.write(B, 3000, B.length - 3000);
            }
            assertArrayEquals(B, decode(second.toByteArray()), "the second stream's frame is whole");
            assertThrows(IOException.class, out1::close);
            assertEquals(0, first.size(), "the first frame was never ended: nothing of it passes for whole");
        }
    }

    @Test
    void shouldRefuseAnInputStreamsNextReadOnceAOneCallDecompressionTookItsDecompressor() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] got = new byte[A.length];
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d)) {
                assertEquals(100, in.readNBytes(got, 0, 100));
                assertTrue(in.available() > 0);
                assertArrayEquals(B, d.decompress(FRAME_B), "the one-call decompression is whole");
                assertEquals(0, in.available(), "nothing a read could return");
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.read(got, 100, 100));
                assertTakenOver(e, "a one-call decompress");
                assertSame(e, assertThrows(IOException.class, in::read).getCause());
            }
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d)) {
                assertArrayEquals(A, in.readAllBytes(), "a new stream over it works");
            }
        }
    }

    @Test
    void shouldRefuseTheFirstInputStreamOnceASecondTookItsDecompressor() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdInputStream in1 = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d);
            assertEquals(100, in1.readNBytes(new byte[100], 0, 100));
            try (ZstdInputStream in2 = new ZstdInputStream(new ByteArrayInputStream(FRAME_B), d)) {
                assertArrayEquals(B, in2.readAllBytes());
            }
            assertTakenOver(assertThrows(IllegalStateException.class, in1::read), "a one-call decompress (or a stream since closed)");
            in1.close();

            in1 = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d);
            ZstdInputStream in2 = new ZstdInputStream(new ByteArrayInputStream(FRAME_B), d);
            assertTakenOver(assertThrows(IllegalStateException.class, in1::read), "another ZstdInputStream");
            assertArrayEquals(B, in2.readAllBytes(), "the second stream is whole");
        }
    }

    @Test
    void shouldGoOnReturningTheEndOnceTheDecompressorServesAnotherFrame() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d); // read to its end, left unclosed
            assertArrayEquals(A, in.readAllBytes());
            assertNull(d.stream, "a stream at its end is not kept by its decompressor");
            assertArrayEquals(B, d.decompress(FRAME_B));
            try (ZstdInputStream other = new ZstdInputStream(new ByteArrayInputStream(FRAME_B), d)) {
                assertEquals(-1, in.read(), "the ended stream holds nothing in the decompressor");
                assertArrayEquals(B, other.readAllBytes());
            }
        }
    }

    /**
     * A stream closed mid-frame is done with its borrowed decompressor, which must not keep it (nor
     * its source, nor what that holds) reachable. Before 2026-11-29 the decompressor's owner check
     * held the closed stream until the decompressor's next use: a service that reads the start of
     * each message through a stream over one long-lived decompressor kept the last stream and its
     * source alive for as long as it idled.
     */
    @Test
    void shouldNotKeepAnInputStreamClosedMidFrameReachableFromItsDecompressor() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            WeakReference<ZstdInputStream> closed = readPartlyAndClose(d);
            assertCollected(closed, "the input stream closed mid-frame");
            assertNull(d.stream, "the decompressor forgot the stream closed mid-frame");
            assertArrayEquals(B, d.decompress(FRAME_B), "the decompressor goes on");
        }
    }

    /**
     * Ending the frame in close() lets a borrowed compressor go of its stream; a close refused from
     * inside the stream's own write (its sink closing it) cannot, and the close after it, once the
     * write has returned, must. Before 2026-11-29 that second close did nothing, and the compressor
     * kept the stream and its sink reachable until its next use.
     */
    @Test
    void shouldNotKeepAnOutputStreamClosedFromItsSinkReachableFromItsCompressor() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            WeakReference<ZstdOutputStream> closed = closeFromItsSinkThenAgain(c);
            assertCollected(closed, "the output stream closed from its sink, then again");
            assertNull(c.stream, "the compressor forgot the stream closed again");
            assertArrayEquals(A, decode(c.compress(A)), "the compressor goes on");
        }
    }

    /**
     * README, Ownership: the owner's reference to its open stream is dropped, without the stream's
     * close, when the stream reads to the end of its input and when it fails, and for a stream
     * still mid-frame when the owner is closed; so a stream dropped unclosed then is not kept
     * reachable, nor its source or sink.
     */
    @Test
    void shouldForgetAStreamThatEndedOrFailedOrWhoseOwnerWasClosed() throws IOException {
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            WeakReference<ZstdInputStream> ended = readToTheEndUnclosed(d, FRAME_A, A);
            assertNull(d.stream, "the decompressor forgot the stream read to its end");
            assertCollected(ended, "the input stream read to its end, not closed");
            WeakReference<ZstdInputStream> failed = readToTheEndUnclosed(d, Arrays.copyOf(FRAME_A, FRAME_A.length - 5), null);
            assertNull(d.stream, "the decompressor forgot the stream that failed");
            assertCollected(failed, "the input stream that failed, not closed");
            assertArrayEquals(B, d.decompress(FRAME_B), "the decompressor goes on");
        }
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            ZstdOutputStream failing = new ZstdOutputStream(new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new IOException("sink full");
                }
            }, c);
            failing.write(A);
            assertThrows(IOException.class, failing::flush);
            assertNull(c.stream, "the compressor forgot the stream whose sink failed");
            assertArrayEquals(A, decode(c.compress(A)), "the compressor goes on");
        }

        ZstdDecompressor d = new ZstdDecompressor();
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d);
        assertEquals(100, in.readNBytes(100).length);
        ZstdCompressor c = new ZstdCompressor(3);
        ZstdOutputStream out = new ZstdOutputStream(OutputStream.nullOutputStream(), c);
        out.write(A);
        assertSame(in, d.stream, "mid-frame: held");
        assertSame(out, c.stream, "mid-frame: held");
        d.close();
        c.close();
        assertNull(d.stream, "the closed decompressor forgot its stream mid-frame");
        assertNull(c.stream, "the closed compressor forgot its stream mid-frame");
    }

    /** Reads {@code frame} to its end (or its error, {@code content} null) through a stream over {@code d}, never closed. */
    private static WeakReference<ZstdInputStream> readToTheEndUnclosed(ZstdDecompressor d, byte[] frame, byte[] content)
            throws IOException {
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame), d);
        if (content == null) {
            assertThrows(ZstdStreamException.class, in::readAllBytes);
        } else {
            assertArrayEquals(content, in.readAllBytes());
        }
        return new WeakReference<>(in);
    }

    private static WeakReference<ZstdInputStream> readPartlyAndClose(ZstdDecompressor d) throws IOException {
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(FRAME_A), d);
        assertEquals(100, in.readNBytes(100).length);
        in.close();
        return new WeakReference<>(in);
    }

    private static WeakReference<ZstdOutputStream> closeFromItsSinkThenAgain(ZstdCompressor c) throws IOException {
        ZstdOutputStream[] out = new ZstdOutputStream[1];
        IllegalStateException[] inside = new IllegalStateException[1];
        OutputStream closingSink = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                if (inside[0] == null) {
                    inside[0] = assertThrows(IllegalStateException.class, out[0]::close);
                }
                super.write(b, off, len);
            }
        };
        out[0] = new ZstdOutputStream(closingSink, c);
        out[0].write(A);
        out[0].flush(); // the sink's first write: it closes the stream from inside, refused
        assertThrows(IOException.class, () -> out[0].write(A), "closed from inside the flush");
        assertTrue(inside[0].getMessage().startsWith("compressor used again from inside a call on it"), inside[0].getMessage());
        out[0].close();
        return new WeakReference<>(out[0]);
    }

    /** Collections until {@code ref} is cleared, at most 50: a weak reference is cleared by the collection that finds it. */
    private static void assertCollected(WeakReference<?> ref, String what) {
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        assertNull(ref.get(), what + " is still reachable after 50 collections");
    }

    @Test
    void shouldServeOneCallCompressionsAndNewStreamsAfterAStreamDroppedMidFrame() throws IOException {
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            ZstdOutputStream dropped = new ZstdOutputStream(OutputStream.nullOutputStream(), c);
            dropped.write(A);
            assertArrayEquals(B, d.decompress(c.compress(B)));
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(sink, c)) {
                out.write(A);
            }
            assertArrayEquals(A, decode(sink.toByteArray()));
            assertTrue(Arrays.equals(A, d.decompress(sink.toByteArray())));
        }
    }
}

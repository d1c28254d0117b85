package io.zmqzstd.benchmark.stream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.CRC32C;

/**
 * One library's compressing and decompressing {@code java.io} streams over a payload, with everything a
 * careful user keeps between frames: the sink, the source, the read buffer, and what the library lets one
 * reuse. {@link #write()} and {@link #read()} each move one whole payload through the way's streams, in
 * calls of {@code chunk} bytes, and check it; what they allocate is the way's own.
 *
 * <p>A subclass says how a stream is opened over the sink or source and, when its library can reuse a
 * stream across frames, how a frame's stream is given back ({@link #endRead}).
 */
public abstract class StreamWay implements AutoCloseable {

    private final String name;
    private final byte[] payload;
    private final int chunk;
    private final ReusedSink sink;
    private final byte[] readBuffer;
    private final CRC32C crc = new CRC32C();
    private final long expectedCrc;
    private int expectedFrameBytes = -1;
    private ReusedSource source;

    protected StreamWay(String name, byte[] payload, int chunk) {
        if (chunk < 1) {
            throw new IllegalArgumentException("chunk must be at least 1 byte: chunk=" + chunk + ", way=" + name);
        }
        this.name = name;
        this.payload = payload.clone();
        this.chunk = chunk;
        // room for any of the ways' frames of a payload that does not compress: zstd's bound is about
        // size/256 more, deflate's size/16000 more, plus their headers
        this.sink = new ReusedSink(payload.length + (payload.length >>> 6) + 1024);
        this.readBuffer = new byte[chunk];
        crc.update(this.payload);
        this.expectedCrc = crc.getValue();
    }

    /** The way's name, as {@link StreamWays#create} takes it. */
    public final String name() {
        return name;
    }

    /**
     * Writes the payload through a compressing stream over the reused sink, {@code chunk} bytes a call,
     * and closes the stream, which ends the frame. Returns the frame's length, checked against the first
     * frame's (the same payload at the same settings always gives the same frame).
     */
    public final long write() {
        sink.rewind();
        try (OutputStream stream = openWriter(sink)) {
            for (int at = 0; at < payload.length; at += chunk) {
                stream.write(payload, at, Math.min(chunk, payload.length - at));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("write failed: way=" + name + ", size=" + payload.length, e);
        }
        int frameBytes = sink.length();
        if (expectedFrameBytes < 0) {
            expectedFrameBytes = frameBytes;
        } else if (frameBytes != expectedFrameBytes) {
            throw new IllegalStateException("frame length changed: way=" + name + ", size=" + payload.length
                    + ", frameBytes=" + frameBytes + ", expected=" + expectedFrameBytes);
        }
        return frameBytes;
    }

    /**
     * Reads the frame the way's first {@link #write()} made back through a decompressing stream over the
     * reused source, into one {@code chunk}-byte array until the stream ends, and checks every byte: the
     * total length and a CRC-32C of the content must be the payload's. Returns the CRC.
     */
    public final long read() {
        ReusedSource from = frameSource();
        from.rewind();
        crc.reset();
        long total = 0;
        try {
            InputStream stream = openReader(from);
            try {
                for (int n; (n = stream.read(readBuffer, 0, chunk)) != -1; ) {
                    crc.update(readBuffer, 0, n);
                    total += n;
                }
            } finally {
                endRead(stream);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("read failed: way=" + name + ", size=" + payload.length, e);
        }
        long value = crc.getValue();
        if (total != payload.length || value != expectedCrc) {
            throw new IllegalStateException("read back differs from the payload: way=" + name + ", size="
                    + payload.length + ", read=" + total + ", crc32c=" + Long.toHexString(value) + ", expected="
                    + Long.toHexString(expectedCrc));
        }
        return value;
    }

    /** A copy of the frame {@link #read()} reads, for verification only (made by the first write). */
    public final byte[] frameCopy() {
        ReusedSource from = frameSource();
        byte[] copy = new byte[from.length()];
        from.rewind();
        from.read(copy, 0, copy.length);
        return copy;
    }

    /** The frame of the first write, kept as the read's source; the first call writes it. */
    private ReusedSource frameSource() {
        if (source == null) {
            write();
            source = new ReusedSource(sink.bytes(), sink.length());
        }
        return source;
    }

    /** A new compressing stream over {@code sink}, whose {@code close()} ends the frame. */
    protected abstract OutputStream openWriter(OutputStream sink) throws IOException;

    /** A decompressing stream over {@code source}, positioned at its first frame. */
    protected abstract InputStream openReader(InputStream source) throws IOException;

    /** Done with a frame's stream: closed, unless the way reuses it for the next frame. */
    protected void endRead(InputStream stream) throws IOException {
        stream.close();
    }

    /** Frees what the way keeps across frames; by default nothing. */
    @Override
    public void close() {
    }
}

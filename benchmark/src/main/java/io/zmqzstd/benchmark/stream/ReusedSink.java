package io.zmqzstd.benchmark.stream;

import java.io.OutputStream;

/**
 * A sink over one array made once: every {@code write} copies into it, {@link #rewind()} starts the next
 * frame at 0, and nothing is allocated per write or per frame (a {@code ByteArrayOutputStream} would grow
 * and copy, and {@code -prof gc} would count that as the stream's). Writing past its capacity is an
 * {@link IllegalStateException} naming both, never a silent cut. {@link #close()} does nothing, so a stream
 * may close it at the end of each frame.
 */
final class ReusedSink extends OutputStream {

    private final byte[] bytes;
    private int length;

    ReusedSink(int capacityBytes) {
        bytes = new byte[capacityBytes];
    }

    void rewind() {
        length = 0;
    }

    /** Bytes written since the last {@link #rewind()}. */
    int length() {
        return length;
    }

    /** The array the bytes are in, {@code [0, length())}; the sink's own, overwritten by the next frame. */
    byte[] bytes() {
        return bytes;
    }

    @Override
    public void write(int b) {
        ensureRoom(1);
        bytes[length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        ensureRoom(len);
        System.arraycopy(b, off, bytes, length, len);
        length += len;
    }

    private void ensureRoom(int len) {
        if (len > bytes.length - length) {
            throw new IllegalStateException("sink full: capacity=" + bytes.length + ", length=" + length
                    + ", write=" + len);
        }
    }
}

package io.zmqzstd.benchmark.stream;

import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * A source over a copy of one frame, made once: {@link #rewind()} rewinds it for the next operation, and
 * a read copies out of it and allocates nothing ({@code ByteArrayInputStream}'s {@code reset} would do the
 * same, but its methods are synchronized, a cost none of the streams asks for). {@link #close()} does
 * nothing, so a stream may close it at the end of each frame.
 */
final class ReusedSource extends InputStream {

    private final byte[] bytes;
    private int position;

    ReusedSource(byte[] bytes, int length) {
        this.bytes = Arrays.copyOf(bytes, length);
    }

    void rewind() {
        position = 0;
    }

    /** The frame's length in bytes. */
    int length() {
        return bytes.length;
    }

    @Override
    public int read() {
        return position < bytes.length ? bytes[position++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        int n = Math.min(len, bytes.length - position);
        if (n <= 0) {
            return -1;
        }
        System.arraycopy(bytes, position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public int available() {
        return bytes.length - position;
    }
}

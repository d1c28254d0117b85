package io.zmqzstd.codec;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Gives its bytes, counting reads and closes; at the end -1, or the given exception, as a dropped
 * connection would.
 */
final class RecordingInput extends InputStream {
    private final ByteArrayInputStream data;
    private final IOException failAtEnd;
    int reads;
    int closes;

    RecordingInput(byte[] data) {
        this(data, null);
    }

    /** @param failAtEnd thrown by each read at the end instead of -1; null for -1 */
    RecordingInput(byte[] data, IOException failAtEnd) {
        this.data = new ByteArrayInputStream(data);
        this.failAtEnd = failAtEnd;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        reads++;
        int n = data.read(b, off, len);
        if (n < 0 && failAtEnd != null) {
            throw failAtEnd;
        }
        return n;
    }

    @Override
    public void close() {
        closes++;
    }
}

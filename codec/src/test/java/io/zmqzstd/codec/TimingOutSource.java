package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;

/**
 * A source that throws {@code timeout} before every read that would give bytes, then gives at
 * most {@code chunk} bytes: each chunk of the input comes after a timeout.
 */
final class TimingOutSource extends ByteArrayInputStream {
    private final int chunk;
    private final InterruptedIOException timeout;
    private boolean timeOutNext = true;
    /** The timeouts thrown so far. */
    int timeouts;

    TimingOutSource(byte[] data, int chunk, InterruptedIOException timeout) {
        super(data);
        this.chunk = chunk;
        this.timeout = timeout;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) {
        if (timeOutNext && available() > 0) {
            timeOutNext = false;
            timeouts++;
            throw sneaky(timeout);
        }
        timeOutNext = true;
        return super.read(b, off, Math.min(len, chunk));
    }

    /**
     * Reads {@code in}, a stream over this source, to its end in reads of {@code readBytes},
     * reading on after each timeout; checks that each was this source's own and that all reached
     * the caller.
     *
     * @return every byte the reads returned, in order
     */
    byte[] readThrough(InputStream in, int readBytes) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[readBytes];
        int caught = 0;
        while (true) {
            int n;
            try {
                n = in.read(buf, 0, readBytes);
            } catch (InterruptedIOException e) {
                assertSame(timeout, e, "the source's own exception");
                caught++;
                continue;
            }
            if (n < 0) {
                break;
            }
            got.write(buf, 0, n);
        }
        assertEquals(timeouts, caught, "every timeout reached the caller");
        return got.toByteArray();
    }

    /** Throws a checked exception from a read that declares none (ByteArrayInputStream's). */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}

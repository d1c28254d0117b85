package io.zmqzstd.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A buffered writer for received messages: copies native memory (the receiver's output region)
 * through one reused array to an output stream, so writing a message allocates nothing. The
 * caller decides when to {@link #flush()} (recv flushes whenever no message is waiting).
 *
 * <p>It counts messages as the stream takes them: a message {@link #endMessage() ended} here is
 * {@link #writtenMessages() written} once a write that held its last byte has returned, so a
 * message still in the buffer, or cut by a failed write, is not.
 */
final class OutputSink implements AutoCloseable {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final OutputStream out;
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int used;
    /** Messages whose last byte is in the buffer or written. */
    private long endedMessages;
    /** Messages whose every byte the stream took. */
    private long writtenMessages;

    OutputSink(OutputStream out) {
        this.out = out;
    }

    /** Copies {@code [offset, offset + length)} of {@code src}; the segment is not kept. */
    void write(MemorySegment src, long offset, long length) throws IOException {
        while (length > 0) {
            if (used == buf.length) {
                drain();
            }
            int n = (int) Math.min(length, buf.length - used);
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, buf, used, n);
            used += n;
            offset += n;
            length -= n;
        }
    }

    void write(byte[] bytes) throws IOException {
        int off = 0;
        while (off < bytes.length) {
            if (used == buf.length) {
                drain();
            }
            int n = Math.min(bytes.length - off, buf.length - used);
            System.arraycopy(bytes, off, buf, used, n);
            used += n;
            off += n;
        }
    }

    /** The message written since the last call ended here (its delimiter included). */
    void endMessage() {
        endedMessages++;
    }

    /** Messages {@link #endMessage() ended} so far, written or still in the buffer. */
    long endedMessages() {
        return endedMessages;
    }

    /** Messages the stream took whole: ended, and every write of their bytes returned. */
    long writtenMessages() {
        return writtenMessages;
    }

    /** Writes out what is buffered and flushes the stream. */
    void flush() throws IOException {
        drain();
        out.flush();
    }

    private void drain() throws IOException {
        if (used > 0) {
            out.write(buf, 0, used);
            used = 0;
        }
        writtenMessages = endedMessages; // a message in progress is not ended yet
    }

    /** Flushes; the stream stays open (it is standard output). */
    @Override
    public void close() throws IOException {
        flush();
    }
}

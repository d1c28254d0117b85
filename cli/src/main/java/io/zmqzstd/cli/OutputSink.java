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
 *
 * <p>A full buffer is written up to the end of its last whole message and the message in progress
 * is kept, so that what the stream has taken ends between messages: standard error's lines (bad
 * frames, progress, events), written by other code and threads at any time, then fall between
 * messages when both go to one file ({@code recv > all.log 2>&1}). A message longer than the
 * buffer is written in pieces as it fills.
 */
final class OutputSink implements AutoCloseable {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final OutputStream out;
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int used;
    /** Where the last message ended in {@link #buf} (0: none since the last write). */
    private int endOfMessages;
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
        endOfMessages = used;
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
        writeOut(used);
        out.flush();
    }

    /** The buffer is full: write its whole messages, or all of it when one message fills it. */
    private void drain() throws IOException {
        writeOut(endOfMessages > 0 ? endOfMessages : used);
    }

    /** Writes the first {@code bytes} of the buffer and keeps the rest, a message in progress, at its start. */
    private void writeOut(int bytes) throws IOException {
        if (bytes > 0) {
            out.write(buf, 0, bytes);
            System.arraycopy(buf, bytes, buf, 0, used - bytes);
            used -= bytes;
        }
        endOfMessages = 0;
        writtenMessages = endedMessages; // every ended message was in what went out
    }

    /** Flushes; the stream stays open (it is standard output). */
    @Override
    public void close() throws IOException {
        flush();
    }
}

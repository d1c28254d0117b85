package io.zmqzstd.cli;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Cuts an input stream into messages: at a one-byte delimiter (lines by default), into chunks of
 * a fixed size, or the whole stream as one message. Binary-safe in every mode.
 *
 * <p>One buffer is reused for every message: after {@link #next()} the message is
 * {@code [offset(), offset() + length())} of {@link #array()} (also {@link #segment()}), valid until
 * the next call. The buffer grows to the longest message seen and is kept, so a steady stream
 * allocates nothing.
 *
 * <p>Delimiter mode: a delimiter ends a message and is not part of it; the last message needs no
 * delimiter after it, and a delimiter at the very end makes no extra empty message (as with text
 * lines). Two delimiters in a row make an empty message. {@code read} returns whatever the stream
 * has, so a line typed on a terminal is a message at once.
 */
final class MessageReader {

    private static final int INITIAL_BYTES = 64 * 1024;
    /** The largest Java array we ask for. */
    private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 16;

    private enum Mode { DELIMITED, CHUNKED, WHOLE }

    private final InputStream in;
    private final Mode mode;
    private final byte delimiter;
    private final int chunkBytes;
    private byte[] buf;
    private MemorySegment segment;
    /** Unconsumed input is [start, end). */
    private int start;
    private int end;
    private boolean eof;
    private boolean wholeDone;
    private int offset;
    private int length;

    private MessageReader(InputStream in, Mode mode, byte delimiter, int chunkBytes) {
        this.in = in;
        this.mode = mode;
        this.delimiter = delimiter;
        this.chunkBytes = chunkBytes;
        // A chunk buffer grows to the chunk size as input comes, not at once: --chunk 1G on a few
        // bytes of input took a 1 GiB array (and an OutOfMemoryError on a small heap) up front.
        this.buf = new byte[mode == Mode.CHUNKED ? Math.min(Math.max(chunkBytes, 1), INITIAL_BYTES) : INITIAL_BYTES];
        this.segment = MemorySegment.ofArray(buf);
    }

    /** Messages end at {@code delimiter} (e.g. {@code '\n'}). */
    static MessageReader delimited(InputStream in, byte delimiter) {
        return new MessageReader(in, Mode.DELIMITED, delimiter, 0);
    }

    /** Messages of {@code chunkBytes} each; the last one may be shorter. */
    static MessageReader chunked(InputStream in, int chunkBytes) {
        if (chunkBytes <= 0) {
            throw new IllegalArgumentException("chunkBytes=" + chunkBytes);
        }
        return new MessageReader(in, Mode.CHUNKED, (byte) 0, chunkBytes);
    }

    /** The whole stream is one message (an empty stream is one empty message). */
    static MessageReader whole(InputStream in) {
        return new MessageReader(in, Mode.WHOLE, (byte) 0, 0);
    }

    /**
     * Reads the next message.
     *
     * @return false at the end of the input (no message)
     */
    boolean next() throws IOException {
        return switch (mode) {
            case DELIMITED -> nextDelimited();
            case CHUNKED -> nextChunk();
            case WHOLE -> nextWhole();
        };
    }

    /** The buffer holding the current message (owned by this reader, valid until {@link #next()}). */
    byte[] array() {
        return buf;
    }

    /** {@link #array()} as a heap segment; the same object until the buffer grows. */
    MemorySegment segment() {
        return segment;
    }

    int offset() {
        return offset;
    }

    int length() {
        return length;
    }

    /** A copy of the current message that the caller owns. */
    byte[] copy() {
        return Arrays.copyOfRange(buf, offset, offset + length);
    }

    private boolean nextDelimited() throws IOException {
        int scanned = start;
        for (;;) {
            for (int i = scanned; i < end; i++) {
                if (buf[i] == delimiter) {
                    take(start, i - start);
                    start = i + 1;
                    return true;
                }
            }
            if (eof) {
                if (start < end) {
                    take(start, end - start);
                    start = end;
                    return true;
                }
                return false;
            }
            scanned = end - start;
            fill(end - start + 1);
            scanned += start; // fill() may have moved the data to 0
        }
    }

    private boolean nextChunk() throws IOException {
        while (end - start < chunkBytes && !eof) {
            fill(Math.min(chunkBytes, Math.max(end - start + 1, Math.min(buf.length, chunkBytes))));
        }
        if (start == end) {
            return false;
        }
        int n = Math.min(chunkBytes, end - start);
        take(start, n);
        start += n;
        return true;
    }

    private boolean nextWhole() throws IOException {
        if (wholeDone) {
            return false;
        }
        while (!eof) {
            fill(end - start + 1);
        }
        take(start, end - start);
        start = end;
        wholeDone = true;
        return true;
    }

    private void take(int from, int n) {
        offset = from;
        length = n;
    }

    /**
     * One read into the buffer, first making room for {@code wanted} unconsumed bytes: moves them
     * to the front, or grows the buffer.
     */
    private void fill(int wanted) throws IOException {
        if (start > 0 && buf.length - start < wanted) {
            System.arraycopy(buf, start, buf, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end == buf.length || buf.length - start < wanted) {
            if (buf.length >= MAX_ARRAY_BYTES) {
                throw new IOException("message longer than " + MAX_ARRAY_BYTES + " bytes: bytes=" + (end - start));
            }
            long grown = Math.max((long) buf.length * 2, (long) start + wanted);
            if (mode == Mode.CHUNKED) {
                grown = Math.min(grown, Math.max(chunkBytes, (long) start + wanted)); // never past a chunk
            }
            buf = Arrays.copyOf(buf, (int) Math.min(MAX_ARRAY_BYTES, grown));
            segment = MemorySegment.ofArray(buf);
        }
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
            eof = true;
        } else {
            end += n;
        }
    }
}

package io.zmqzstd.cli;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
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
    /** The largest Java array we ask for, so the longest message: 2 GiB - 17 bytes. */
    static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 16;

    /**
     * A message longer than this reader can hold: longer than its limit ({@link #heap()} false),
     * or than the Java heap could give a buffer for ({@link #heap()} true). Nothing of it was
     * returned.
     */
    static final class TooLongException extends IOException {

        private static final long serialVersionUID = 1L;

        private final long limitBytes;
        private final boolean heap;

        TooLongException(long limitBytes, boolean heap, String message) {
            super(message);
            this.limitBytes = limitBytes;
            this.heap = heap;
        }

        /** The limit passed, or the size the heap could not hold. */
        long limitBytes() {
            return limitBytes;
        }

        /** True: the Java heap ran out below the limit. */
        boolean heap() {
            return heap;
        }
    }

    private enum Mode { DELIMITED, CHUNKED, WHOLE }

    private final InputStream in;
    private final Mode mode;
    private final byte delimiter;
    private final int chunkBytes;
    /** The longest message; the buffer never grows past it (plus nothing: see {@link #nextWhole()}). */
    private final int maxBytes;
    private byte[] buf;
    private MemorySegment segment;
    /** Unconsumed input is [start, end). */
    private int start;
    private int end;
    private boolean eof;
    private boolean wholeDone;
    private int offset;
    private int length;
    private long reads;

    private MessageReader(InputStream in, Mode mode, byte delimiter, int chunkBytes, int maxBytes) {
        this.in = in;
        this.mode = mode;
        this.delimiter = delimiter;
        this.chunkBytes = chunkBytes;
        this.maxBytes = maxBytes;
        // A chunk buffer grows to the chunk size as input comes, not at once: --chunk 1G on a few
        // bytes of input took a 1 GiB array (and an OutOfMemoryError on a small heap) up front.
        this.buf = new byte[mode == Mode.CHUNKED ? Math.min(Math.max(chunkBytes, 1), INITIAL_BYTES)
                : Math.min(INITIAL_BYTES, Math.max(maxBytes, 1))];
        this.segment = MemorySegment.ofArray(buf);
    }

    /** Messages end at {@code delimiter} (e.g. {@code '\n'}), each shorter than {@link #MAX_ARRAY_BYTES}. */
    static MessageReader delimited(InputStream in, byte delimiter) {
        return delimited(in, delimiter, MAX_ARRAY_BYTES);
    }

    /**
     * Messages end at {@code delimiter}: {@link #next()} throws {@link TooLongException} once
     * {@code maxBytes} bytes have come without one (so a message is shorter than {@code maxBytes}).
     */
    static MessageReader delimited(InputStream in, byte delimiter, int maxBytes) {
        return new MessageReader(in, Mode.DELIMITED, delimiter, 0, checkMax(maxBytes));
    }

    /** Messages of {@code chunkBytes} each; the last one may be shorter. */
    static MessageReader chunked(InputStream in, int chunkBytes) {
        if (chunkBytes <= 0) {
            throw new IllegalArgumentException("chunkBytes=" + chunkBytes);
        }
        return new MessageReader(in, Mode.CHUNKED, (byte) 0, chunkBytes, MAX_ARRAY_BYTES);
    }

    /**
     * The whole stream is one message (an empty stream is one empty message) of at most
     * {@code maxBytes}: {@link #next()} throws {@link TooLongException} once the stream has given
     * one byte more, without reading further.
     */
    static MessageReader whole(InputStream in, int maxBytes) {
        return new MessageReader(in, Mode.WHOLE, (byte) 0, 0, checkMax(maxBytes));
    }

    private static int checkMax(int maxBytes) {
        if (maxBytes < 0 || maxBytes > MAX_ARRAY_BYTES) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + ", range=0.." + MAX_ARRAY_BYTES);
        }
        return maxBytes;
    }

    /**
     * The bytes left to read in {@code in} when it is a file whose size is known (a regular file,
     * e.g. standard input redirected from one), or -1: a pipe, a terminal, a device, any other
     * stream. Reads nothing.
     */
    static long knownRemainingBytes(InputStream in) {
        if (!(in instanceof FileInputStream f)) {
            return -1;
        }
        try {
            FileChannel channel = f.getChannel();
            long size = channel.size(); // 0 for a pipe or a device: not known
            return size > 0 ? Math.max(0, size - channel.position()) : -1;
        } catch (IOException e) {
            return -1; // a pipe cannot tell its position (ESPIPE)
        }
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

    /**
     * Ends the input here, as if the stream had ended: the bytes read and not yet returned (a line
     * without its delimiter, a chunk not yet full, what {@code --whole} has read) are what the next
     * calls of {@link #next()} return, no further byte is read. send calls it when a signal ended
     * a read of standard input that waited, so that nothing it had read is lost.
     */
    void endInput() {
        eof = true;
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

    /**
     * How many reads of the input this reader has made: one per line from a pipe fed line by line,
     * one per buffer (64 KiB and more) from a file; it changes when time may have passed waiting for
     * input, not at every message.
     */
    long reads() {
        return reads;
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
            if (end - start >= maxBytes) {
                // the limit is reached: one more byte is one too many, the end of the input is fine
                if (in.read() >= 0) {
                    throw new TooLongException(maxBytes, false, "input longer than the limit: limit=" + maxBytes + " bytes");
                }
                eof = true;
                break;
            }
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
            if (buf.length >= maxBytes) {
                throw new TooLongException(maxBytes, false, "message longer than " + maxBytes + " bytes: bytes=" + (end - start));
            }
            long wantedBytes = Math.max((long) buf.length * 2, (long) start + wanted);
            if (mode == Mode.CHUNKED) {
                wantedBytes = Math.min(wantedBytes, Math.max(chunkBytes, (long) start + wanted)); // never past a chunk
            }
            int grown = (int) Math.min(maxBytes, wantedBytes);
            try {
                buf = Arrays.copyOf(buf, grown);
            } catch (OutOfMemoryError e) {
                // one large array the heap cannot give: the old buffer is intact, the run ends here with a clear line
                throw new TooLongException(grown, true, "not enough Java heap for a message of more than " + (end - start)
                        + " bytes: needed a buffer of " + grown + " bytes, max heap=" + Runtime.getRuntime().maxMemory() + " bytes");
            }
            segment = MemorySegment.ofArray(buf);
        }
        reads++;
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
            eof = true;
        } else {
            end += n;
        }
    }
}

package io.zmqzstd.pipeline;

/**
 * A message that {@link DecompressingReceiver#receiveInto receiveInto} took off the socket but
 * did not write to the caller's destination ({@link #reason()}): a part did not fit in what was
 * left of it, or it could not be written (a fault in its memory, a mapping of a file shortened since
 * it was mapped; its arena closed by another thread during the call). The message has left the
 * socket's queue, so this exception carries it, every part decompressed, as
 * {@link io.zmqzstd.transport.UndeliveredFrameException} carries a frame: use
 * {@link #part(int)}, or copy it into other memory. The socket stands at the next message; the
 * receiver counts the message in {@link PipelineStats#undeliveredMessages()}.
 *
 * <p>Copies, not a view: the receiver's {@link ReceivedMessage} stays what it is after any failed
 * receive (no message to read), and these arrays are the caller's, valid for as long as it keeps
 * them, whatever the receiver does next. Made on the failure path only; a successful receive pays
 * nothing for it.
 */
public final class UndeliveredMessageException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** Why the destination did not take the message. */
    public enum Reason {
        /**
         * A payload part did not fit in what was left of the destination: its declared size, or,
         * for a frame that declares none, its content ran out of room part-way. The frame was
         * fine; the message is handed back whole all the same, that part included. Give room for
         * the largest message the receiver's limits let in.
         */
        DESTINATION_TOO_SMALL,
        /**
         * The destination could not be written once the message was taken: a fault in its memory
         * (a mapping of a file shortened since it was mapped) or its arena closed by another
         * thread; the codec's exception is the cause.
         */
        DESTINATION_UNWRITABLE
    }

    /** Why the destination did not take the message. */
    private final Reason reason;

    /** Each part's bytes, or null for a part too large for an array. */
    @SuppressWarnings("serial") // a byte[][] is serializable
    private final byte[][] parts;

    /** Each part's size, known even when its bytes are not. */
    @SuppressWarnings("serial") // a long[] is serializable
    private final long[] sizes;

    /** True for a payload part (decompressed), false for an envelope part. */
    @SuppressWarnings("serial") // a boolean[] is serializable
    private final boolean[] compressed;

    UndeliveredMessageException(Reason reason, String message, byte[][] parts, long[] sizes, boolean[] compressed,
                                Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.parts = parts;
        this.sizes = sizes;
        this.compressed = compressed;
    }

    /**
     * Why the destination did not take the message.
     *
     * @return {@link Reason#DESTINATION_TOO_SMALL} (no cause) or
     *     {@link Reason#DESTINATION_UNWRITABLE} (the codec's exception as the cause)
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The number of parts of the message, envelope parts included.
     *
     * @return the part count, at least 1
     */
    public int parts() {
        return parts.length;
    }

    /**
     * Part {@code i} as the receive would have delivered it: the decompressed payload, or the
     * envelope bytes as received.
     *
     * @param i the part's index from 0
     * @return its bytes (the array itself, not a copy), or null when the part is too large for a
     *     {@code byte[]} (over {@code Integer.MAX_VALUE - 8} bytes: then it is lost, as the message
     *     says)
     * @throws IndexOutOfBoundsException when {@code i} is not a part's index: "part index out of
     *     range: index=…, parts=…"
     */
    public byte[] part(int i) {
        return parts[checkIndex(i)];
    }

    /**
     * Part {@code i}'s size in bytes, known even when {@link #part(int)} is null.
     *
     * @param i the part's index from 0
     * @return its size
     * @throws IndexOutOfBoundsException when {@code i} is not a part's index, as for {@link #part(int)}
     */
    public long partSize(int i) {
        return sizes[checkIndex(i)];
    }

    /**
     * Whether part {@code i} is a payload part, as {@link ReceivedMessage#isCompressed(int)}.
     *
     * @param i the part's index from 0
     * @return true for a payload part (decompressed), false for an envelope part
     * @throws IndexOutOfBoundsException when {@code i} is not a part's index, as for {@link #part(int)}
     */
    public boolean isCompressed(int i) {
        return compressed[checkIndex(i)];
    }

    /**
     * {@code i}, when it is a part's index; otherwise refused as {@link ReceivedMessage}'s accessors
     * refuse it, naming the index and the part count (until 2026-11-29 the JDK's bare
     * {@link ArrayIndexOutOfBoundsException}, "Index 2 out of bounds for length 2").
     */
    private int checkIndex(int i) {
        if (i < 0 || i >= parts.length) {
            throw ReceivedMessage.partIndexOutOfRange(i, parts.length);
        }
        return i;
    }
}

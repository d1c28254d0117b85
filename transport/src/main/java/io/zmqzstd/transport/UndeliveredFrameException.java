package io.zmqzstd.transport;

/**
 * A received frame that could not be written where the caller asked: a fault in the destination's
 * memory, such as a mapping of a file shortened since it was mapped, whose pages past the file's
 * new end raise SIGBUS. The frame has left the socket's queue, so this exception carries it:
 * {@link #frame()} holds its bytes (all of them, not only what the destination had room for), and
 * {@link ZmqSocket#hasMore()} tells whether more parts of the same message follow, still queued.
 *
 * <p>Thrown on the error path only; making it allocates the copy of the frame.
 */
public final class UndeliveredFrameException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The frame's bytes, or null when it is too large for an array. */
    @SuppressWarnings("serial") // a byte[] is serializable
    private final byte[] frame;

    /** The frame's size in bytes, known even when {@link #frame} is null. */
    private final long frameSize;

    UndeliveredFrameException(String message, byte[] frame, long frameSize, Throwable cause) {
        super(message, cause);
        this.frame = frame;
        this.frameSize = frameSize;
    }

    /**
     * The frame the receive took off the queue, whole.
     *
     * @return its bytes (the array itself, not a copy), or null when the frame is too large for a
     *     {@code byte[]} (over {@code Integer.MAX_VALUE - 8} bytes: then it is lost, as the
     *     message says)
     */
    public byte[] frame() {
        return frame;
    }

    /**
     * The frame's size in bytes, known even when {@link #frame()} is null.
     *
     * @return its size
     */
    public long frameSize() {
        return frameSize;
    }
}

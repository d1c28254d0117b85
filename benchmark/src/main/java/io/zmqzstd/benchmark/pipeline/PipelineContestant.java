package io.zmqzstd.benchmark.pipeline;

/**
 * One end-to-end contestant: compress, send, receive, decompress. Its sender runs on its own thread; the
 * thread that calls {@link #receive} is the receiver and checks every message (length and sequence
 * number of the decompressed bytes) as it arrives.
 */
public interface PipelineContestant extends AutoCloseable {

    /** Lets the sender send {@code count} more messages and returns at once. */
    void grant(int count);

    /**
     * Returns once {@code count} more messages have been received, decompressed and checked (in sequence
     * order). Throws when a message is wrong or the sender failed.
     */
    void receive(int count);

    /** {@link #grant} then {@link #receive} the same number: a whole batch, nothing left in flight. */
    default void transfer(int count) {
        grant(count);
        receive(count);
    }

    /**
     * Turns on or off the check of every byte of each received payload against the source's (length and
     * sequence are checked always); called by the receiving thread between receives. The benchmarks' set-up
     * turns it on for its checked batch ({@link io.zmqzstd.benchmark.PayloadCheck}).
     */
    void checkEveryByte(boolean on);

    /** The kernel's id of the sender thread, for {@link io.zmqzstd.benchmark.Affinity}. */
    int senderThreadId();

    /**
     * The endpoint the receiver's PULL (SUB for {@link ZmqZstdPubSub}) is bound to. Over tcp another process
     * or context can connect a PUSH (PUB) to it and deliver a frame the sender never sent: how the tests show
     * that {@link #receive} refuses a wrong message.
     */
    String receiverEndpoint();

    /** Compressed bytes sent so far, for the compression ratio. */
    long compressedBytes();

    /** Stops the sender, closes sockets and contexts. */
    @Override
    void close();
}

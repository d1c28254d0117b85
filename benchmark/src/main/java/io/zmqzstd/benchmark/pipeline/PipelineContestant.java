package io.zmqzstd.benchmark.pipeline;

/**
 * One end-to-end contestant: compress, send, receive, decompress. Its sender runs on its own thread; the
 * thread that calls {@link #transfer} is the receiver and checks every message (length and sequence
 * number of the decompressed bytes) as it arrives.
 */
public interface PipelineContestant extends AutoCloseable {

    /**
     * Lets the sender send {@code count} more messages and returns once all of them have been received,
     * decompressed and checked. Throws when a message is wrong or the sender failed.
     */
    void transfer(int count);

    /** Compressed bytes sent so far, for the compression ratio. */
    long compressedBytes();

    /** Stops the sender, closes sockets and contexts. */
    @Override
    void close();
}

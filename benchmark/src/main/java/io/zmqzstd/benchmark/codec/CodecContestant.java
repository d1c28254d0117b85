package io.zmqzstd.benchmark.codec;

/**
 * One compressor/decompressor pair under test, holding everything a careful user would keep between
 * messages: contexts, the input, an output buffer for frames, and one for decompressed bytes.
 * {@link #compress()} and {@link #decompress()} each process one message and allocate nothing of their own.
 */
public interface CodecContestant extends AutoCloseable {

    /** Compresses the input into the contestant's frame buffer; returns the frame length. */
    long compress();

    /** Decompresses the frame made by the last {@link #compress()}; returns the decompressed length. */
    long decompress();

    /** A copy of the frame made by the last {@link #compress()}, for verification only. */
    byte[] frameCopy();

    /** A copy of the output of the last {@link #decompress()}, for verification only. */
    byte[] outputCopy();

    @Override
    void close();
}

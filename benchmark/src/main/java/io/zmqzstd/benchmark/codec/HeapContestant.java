package io.zmqzstd.benchmark.codec;

import java.util.Arrays;

/** A contestant working on {@code byte[]}: input, frame buffer and output allocated once, reused. */
abstract class HeapContestant implements CodecContestant {

    private final byte[] input;
    private final byte[] frame;
    private final byte[] output;
    private int frameLength;
    private int outputLength;

    HeapContestant(byte[] input, long maxFrameBytes) {
        this.input = input.clone();
        this.frame = new byte[Math.toIntExact(maxFrameBytes)];
        this.output = new byte[input.length];
    }

    protected abstract int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap);

    protected abstract int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap);

    @Override
    public final long compress() {
        frameLength = compress(input, 0, input.length, frame, 0, frame.length);
        return frameLength;
    }

    @Override
    public final long decompress() {
        outputLength = decompress(frame, 0, frameLength, output, 0, output.length);
        return outputLength;
    }

    @Override
    public byte[] frameCopy() {
        return Arrays.copyOf(frame, frameLength);
    }

    @Override
    public byte[] outputCopy() {
        return Arrays.copyOf(output, outputLength);
    }

    @Override
    public void close() {
    }
}

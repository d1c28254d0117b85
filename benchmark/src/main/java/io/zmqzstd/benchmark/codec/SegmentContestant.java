package io.zmqzstd.benchmark.codec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * A contestant working on native memory: input, frame buffer and output are segments of one arena opened
 * once per trial (never one per message). Subclasses that speak {@link ByteBuffer} use the direct-buffer
 * views made here once.
 */
abstract class SegmentContestant implements CodecContestant {

    private final Arena arena = Arena.ofShared();
    protected final MemorySegment input;
    protected final MemorySegment frame;
    protected final MemorySegment output;
    protected final ByteBuffer inputBuffer;
    protected final ByteBuffer frameBuffer;
    protected final ByteBuffer outputBuffer;
    private long frameLength;
    private long outputLength;

    SegmentContestant(byte[] input, long maxFrameBytes) {
        this.input = arena.allocate(input.length, 64);
        this.input.copyFrom(MemorySegment.ofArray(input));
        this.frame = arena.allocate(maxFrameBytes, 64);
        this.output = arena.allocate(input.length, 64);
        this.inputBuffer = this.input.asByteBuffer();
        this.frameBuffer = this.frame.asByteBuffer();
        this.outputBuffer = this.output.asByteBuffer();
    }

    /** Compresses all of {@link #input} into {@link #frame}; returns the frame length. */
    protected abstract long compressInput();

    /** Decompresses {@code frameLength} bytes of {@link #frame} into {@link #output}. */
    protected abstract long decompressFrame(long frameLength);

    @Override
    public final long compress() {
        frameLength = compressInput();
        return frameLength;
    }

    @Override
    public final long decompress() {
        outputLength = decompressFrame(frameLength);
        return outputLength;
    }

    @Override
    public byte[] frameCopy() {
        return frame.asSlice(0, frameLength).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public byte[] outputCopy() {
        return output.asSlice(0, outputLength).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        closeCodec();
        arena.close();
    }

    protected void closeCodec() {
    }
}

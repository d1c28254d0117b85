package io.zmqzstd.benchmark;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;

/**
 * zstd-jni the {@code byte[]} way, as a careful user runs it in the {@code byte[]} contestants: one
 * compression and one decompression context kept for the contestant's life (the dictionary loaded into
 * both), frames that carry their content size, and decompression sized from the frame header. Each call
 * returns a new array, because that is what these APIs return. The two contexts are independent: one
 * thread may compress while another decompresses.
 */
public final class ZstdJniCodec implements AutoCloseable {

    private final ZstdCompressCtx compressor = new ZstdCompressCtx();
    private final ZstdDecompressCtx decompressor = new ZstdDecompressCtx();

    /** {@code dictionary} is raw zstd dictionary bytes, or null for none. */
    public ZstdJniCodec(int level, byte[] dictionary) {
        compressor.setLevel(level);
        compressor.setContentSize(true);
        if (dictionary != null) {
            compressor.loadDict(dictionary);
            decompressor.loadDict(dictionary);
        }
    }

    /** One frame of {@code payload}, in a new array. */
    public byte[] compress(byte[] payload) {
        return compressor.compress(payload);
    }

    /** The content of {@code frame}, in a new array of the size its header declares. */
    public byte[] decompress(byte[] frame) {
        long contentSize = Zstd.getFrameContentSize(frame);
        if (contentSize < 0 || contentSize > Integer.MAX_VALUE) {
            throw new IllegalStateException("frame without a usable content size: contentSize=" + contentSize);
        }
        return decompressor.decompress(frame, (int) contentSize);
    }

    @Override
    public void close() {
        compressor.close();
        decompressor.close();
    }
}

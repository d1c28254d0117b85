package io.zmqzstd.benchmark;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;

/**
 * zstd-jni the {@code byte[]} way, as a careful user runs it in the {@code byte[]} contestants: one
 * compression and one decompression context kept for the contestant's life (the dictionary loaded into
 * both), frames that carry their content size, and decompression sized from the frame header.
 * {@link #compress} and {@link #decompress} return a new array per call (the short way these APIs
 * offer); {@link #compressInto} and {@link #decompressInto} write into the caller's arrays
 * ({@code compressByteArray}, {@code decompressByteArray}) and allocate nothing. The two contexts are
 * independent: one thread may compress while another decompresses.
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

    /** One frame of {@code payload} written into {@code frame} from index 0; its length. */
    public int compressInto(byte[] payload, byte[] frame) {
        return compressor.compressByteArray(frame, 0, frame.length, payload, 0, payload.length);
    }

    /** The content of {@code frame}, in a new array of the size its header declares. */
    public byte[] decompress(byte[] frame) {
        return decompressor.decompress(frame, contentSize(frame, frame.length));
    }

    /**
     * The content size {@code frame[0, length)} declares, checked to fit an array: what a caller sizes
     * (or grows) its output array by before {@link #decompressInto}.
     */
    public static int contentSize(byte[] frame, int length) {
        long contentSize = Zstd.getFrameContentSize(frame, 0, length);
        if (contentSize < 0 || contentSize > Integer.MAX_VALUE) {
            throw new IllegalStateException("frame without a usable content size: contentSize=" + contentSize);
        }
        return (int) contentSize;
    }

    /** The content of {@code frame[0, length)} written into {@code out} from index 0; its length. */
    public int decompressInto(byte[] frame, int length, byte[] out) {
        return decompressor.decompressByteArray(out, 0, out.length, frame, 0, length);
    }

    @Override
    public void close() {
        compressor.close();
        decompressor.close();
    }
}

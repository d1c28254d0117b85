package io.zmqzstd.benchmark.codec;

import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import io.airlift.compress.v3.zstd.ZstdJavaDecompressor;
import io.airlift.compress.v3.zstd.ZstdNativeCompressor;
import io.airlift.compress.v3.zstd.ZstdNativeDecompressor;

/** aircompressor-v3: its FFM binding of the libzstd it bundles, and its pure-Java zstd. */
final class AircompressorContestants {

    private AircompressorContestants() {
    }

    /**
     * {@code aircompressor-native}: {@link ZstdNativeCompressor} on native segments, its zero-copy form
     * (its {@code byte[]} form has to move heap bytes to native memory first).
     */
    static final class Native extends SegmentContestant {
        private final ZstdNativeCompressor compressor;
        private final ZstdNativeDecompressor decompressor = new ZstdNativeDecompressor();

        Native(byte[] input, int level) {
            super(input, new ZstdNativeCompressor(level).maxCompressedLength(input.length));
            if (!ZstdNativeCompressor.isEnabled()) {
                throw new IllegalStateException("aircompressor native zstd is not available on this platform");
            }
            compressor = new ZstdNativeCompressor(level);
        }

        @Override
        protected long compressInput() {
            return compressor.compress(input, frame);
        }

        @Override
        protected long decompressFrame(long frameLength) {
            return decompressor.decompress(frame.asSlice(0, frameLength), output);
        }
    }

    /**
     * {@code aircompressor-java}: the pure-Java zstd on {@code byte[]}, its natural form. It has no level
     * setting (it compresses at its single built-in level), so the {@code level} parameter does not apply,
     * no way to keep a compression context: each {@code compress} call makes its own, and no way to leave out
     * the content checksum: its frames alone carry one (XXH64, computed by compress and verified by decompress).
     */
    static final class Java extends HeapContestant {
        private final ZstdJavaCompressor compressor = new ZstdJavaCompressor();
        private final ZstdJavaDecompressor decompressor = new ZstdJavaDecompressor();

        Java(byte[] input) {
            super(input, new ZstdJavaCompressor().maxCompressedLength(input.length));
        }

        @Override
        protected int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return compressor.compress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }

        @Override
        protected int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return decompressor.decompress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }
    }
}

package io.zmqzstd.benchmark.codec;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;

/** zstd-jni with one {@link ZstdCompressCtx} and one {@link ZstdDecompressCtx} per contestant, reused. */
final class ZstdJniContestants {

    private ZstdJniContestants() {
    }

    private static long check(long result) {
        if (Zstd.isError(result)) {
            throw new IllegalStateException("zstd-jni failed: error=" + Zstd.getErrorName(result));
        }
        return result;
    }

    /** {@code zstdjni-bytes}: {@code compressByteArray}/{@code decompressByteArray} on reused arrays. */
    static final class Bytes extends HeapContestant {
        private final ZstdCompressCtx compressor = new ZstdCompressCtx();
        private final ZstdDecompressCtx decompressor = new ZstdDecompressCtx();

        Bytes(byte[] input, int level) {
            super(input, Zstd.compressBound(input.length));
            compressor.setLevel(level);
        }

        @Override
        protected int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return (int) check(compressor.compressByteArray(dst, dstOff, dstCap, src, srcOff, srcLen));
        }

        @Override
        protected int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return (int) check(decompressor.decompressByteArray(dst, dstOff, dstCap, src, srcOff, srcLen));
        }

        @Override
        public void close() {
            compressor.close();
            decompressor.close();
        }
    }

    /** {@code zstdjni-direct}: {@code compressDirectByteBuffer}/{@code decompressDirectByteBuffer}. */
    static final class Direct extends SegmentContestant {
        private final ZstdCompressCtx compressor = new ZstdCompressCtx();
        private final ZstdDecompressCtx decompressor = new ZstdDecompressCtx();

        Direct(byte[] input, int level) {
            super(input, Zstd.compressBound(input.length));
            compressor.setLevel(level);
        }

        @Override
        protected long compressInput() {
            return check(compressor.compressDirectByteBuffer(frameBuffer, 0, frameBuffer.capacity(),
                    inputBuffer, 0, inputBuffer.capacity()));
        }

        @Override
        protected long decompressFrame(long frameLength) {
            return check(decompressor.decompressDirectByteBuffer(outputBuffer, 0, outputBuffer.capacity(),
                    frameBuffer, 0, (int) frameLength));
        }

        @Override
        protected void closeCodec() {
            compressor.close();
            decompressor.close();
        }
    }
}

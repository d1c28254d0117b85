package io.zmqzstd.benchmark.codec;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;

/** This project's codec: one compressor and one decompressor per contestant, reused for every message. */
final class ZmqZstdContestants {

    private ZmqZstdContestants() {
    }

    /** {@code zmqzstd-segment}: native segments in and out, the path the pipeline uses. */
    static final class Segment extends SegmentContestant {
        private final ZstdCompressor compressor;
        private final ZstdDecompressor decompressor = new ZstdDecompressor();

        Segment(byte[] input, int level) {
            super(input, ZstdCompressor.maxCompressedSize(input.length));
            compressor = new ZstdCompressor(level);
        }

        @Override
        protected long compressInput() {
            return compressor.compress(input, 0, input.byteSize(), frame, 0, frame.byteSize());
        }

        @Override
        protected long decompressFrame(long frameLength) {
            return decompressor.decompress(frame, 0, frameLength, output, 0, output.byteSize());
        }

        @Override
        protected void closeCodec() {
            compressor.close();
            decompressor.close();
        }
    }

    /** {@code zmqzstd-bytes}: {@code byte[]} in and out, arrays reused. */
    static final class Bytes extends HeapContestant {
        private final ZstdCompressor compressor;
        private final ZstdDecompressor decompressor = new ZstdDecompressor();

        Bytes(byte[] input, int level) {
            super(input, ZstdCompressor.maxCompressedSize(input.length));
            compressor = new ZstdCompressor(level);
        }

        @Override
        protected int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return compressor.compress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }

        @Override
        protected int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCap) {
            return decompressor.decompress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }

        @Override
        public void close() {
            compressor.close();
            decompressor.close();
        }
    }
}

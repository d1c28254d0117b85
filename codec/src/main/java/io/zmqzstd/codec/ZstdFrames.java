package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteOrder;

/**
 * Reading a zstd frame's header without decompressing it, and writing frames made of raw
 * (stored) blocks without a compressor. Static, allocation free on success, thread-safe.
 *
 * <pre>
 * Frame (RFC 8878 §3.1.1), little-endian:
 *   magic 28 B5 2F FD | FHD | [window descriptor] | [dictionary ID 0/1/2/4] | [content size 0/1/2/4/8]
 *   | block* | [checksum 4]
 * FHD bits: 7-6 content-size flag, 5 single segment, 2 checksum, 1-0 dictionary-ID flag.
 * Block header, 3 bytes LE: bit 0 last block, bits 1-2 type (0 = raw), bits 3-23 size.
 * </pre>
 */
public final class ZstdFrames {

    private ZstdFrames() {
    }

    /** {@link #contentSize} of a frame that does not declare its size (e.g. written by a stream). */
    public static final long CONTENT_SIZE_UNKNOWN = LibZstd.CONTENTSIZE_UNKNOWN;

    /** The zstd frame magic number, as read little-endian. */
    public static final int MAGIC = 0xFD2FB528;

    /** Largest block: raw blocks carry at most this much payload (ZSTD_BLOCKSIZE_MAX). */
    static final int BLOCK_SIZE_MAX = 128 * 1024;
    private static final int BLOCK_HEADER_SIZE = 3;
    private static final int RAW_BLOCK = 0;
    /** Window descriptor for 2^17 = 128 KiB: exponent 7 (windowLog 10 + 7), mantissa 0. */
    private static final byte WINDOW_128K = (byte) (7 << 3);

    private static final java.lang.foreign.ValueLayout.OfInt INT_LE = JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfShort SHORT_LE = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfLong LONG_LE = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** {@link #contentSize(MemorySegment, long, long)} over the whole segment. */
    public static long contentSize(MemorySegment frame) {
        return contentSize(frame, 0, frame.byteSize());
    }

    /**
     * The decompressed size the frame at {@code frame[offset, offset + length)} declares, or
     * {@link #CONTENT_SIZE_UNKNOWN}. Reads the header only.
     *
     * @throws ZstdException {@code EMPTY}, {@code NOT_ZSTD}, or {@code TRUNCATED} when the header is incomplete
     */
    public static long contentSize(MemorySegment frame, long offset, long length) {
        checkMagic(frame, offset, length);
        long r;
        try {
            if (frame.isNative()) {
                r = (long) LibZstd.GET_FRAME_CONTENT_SIZE_RAW.invokeExact(Segments.address(frame, offset, length), length);
            } else {
                r = (long) LibZstd.GET_FRAME_CONTENT_SIZE_HEAP.invokeExact(frame.asSlice(offset, length), length);
            }
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(frame);
        }
        if (r == LibZstd.CONTENTSIZE_ERROR) {
            // The magic is right, so the header is cut short (or has reserved bits set).
            throw new ZstdException(ZstdException.Reason.TRUNCATED,
                    "frame header incomplete or invalid: length=" + length);
        }
        return r;
    }

    /** {@link #dictionaryId(MemorySegment, long, long)} over the whole segment. */
    public static int dictionaryId(MemorySegment frame) {
        return dictionaryId(frame, 0, frame.byteSize());
    }

    /**
     * The dictionary ID the frame names, or 0 when it names none (no dictionary, or the
     * compressor left the ID out). Reads the header only.
     *
     * @throws ZstdException {@code EMPTY} or {@code NOT_ZSTD}
     */
    public static int dictionaryId(MemorySegment frame, long offset, long length) {
        checkMagic(frame, offset, length);
        try {
            if (frame.isNative()) {
                return (int) LibZstd.GET_DICT_ID_FROM_FRAME_RAW.invokeExact(Segments.address(frame, offset, length), length);
            }
            return (int) LibZstd.GET_DICT_ID_FROM_FRAME_HEAP.invokeExact(frame.asSlice(offset, length), length);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(frame);
        }
    }

    /** {@link #compressedSize(MemorySegment, long, long)} over the whole segment. */
    public static long compressedSize(MemorySegment frame) {
        return compressedSize(frame, 0, frame.byteSize());
    }

    /**
     * The length of the first frame in {@code frame[offset, offset + length)}, header to
     * checksum. Walks the block headers; reads no block content.
     *
     * @throws ZstdException {@code EMPTY}, {@code NOT_ZSTD}, or {@code TRUNCATED}
     */
    public static long compressedSize(MemorySegment frame, long offset, long length) {
        checkMagic(frame, offset, length);
        long r;
        try {
            if (frame.isNative()) {
                r = (long) LibZstd.FIND_FRAME_COMPRESSED_SIZE_RAW.invokeExact(Segments.address(frame, offset, length), length);
            } else {
                r = (long) LibZstd.FIND_FRAME_COMPRESSED_SIZE_HEAP.invokeExact(frame.asSlice(offset, length), length);
            }
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(frame);
        }
        if (LibZstd.isError(r)) {
            throw ZstdException.fromResult("ZSTD_findFrameCompressedSize", r);
        }
        return r;
    }

    /** Throws unless the range starts with the frame magic. Allocation free on success. */
    static void checkMagic(MemorySegment frame, long offset, long length) {
        Segments.check(frame, offset, length);
        if (length == 0) {
            throw new ZstdException(ZstdException.Reason.EMPTY, "input is empty: length=0");
        }
        if (length < 4 || frame.get(INT_LE, offset) != MAGIC) {
            throw new ZstdException(ZstdException.Reason.NOT_ZSTD,
                    "not a zstd frame: length=" + length + ", magic mismatch");
        }
    }

    /**
     * The size of the frame {@link #writeRawFrame} writes for a payload of {@code payloadSize}
     * bytes: the payload plus a few header bytes and 3 bytes per 128 KiB block.
     */
    public static long rawFrameSize(long payloadSize) {
        if (payloadSize < 0) {
            throw new IllegalArgumentException("payloadSize=" + payloadSize);
        }
        long blocks = Math.max(1, (payloadSize + BLOCK_SIZE_MAX - 1) / BLOCK_SIZE_MAX);
        return headerSize(payloadSize) + blocks * BLOCK_HEADER_SIZE + payloadSize;
    }

    private static boolean singleSegment(long payloadSize) {
        // Single segment: window = content size, no window descriptor. Above one block, name a
        // 128 KiB window instead so streaming decoders do not reserve the whole payload.
        return payloadSize <= BLOCK_SIZE_MAX;
    }

    private static int contentSizeFlag(long payloadSize) {
        if (payloadSize < 256 && singleSegment(payloadSize)) {
            return 0; // 1 byte, only allowed with single segment
        }
        if (payloadSize >= 256 && payloadSize < 65536 + 256) {
            return 1; // 2 bytes, value - 256
        }
        return payloadSize <= 0xFFFF_FFFFL ? 2 : 3;
    }

    private static int headerSize(long payloadSize) {
        int fcs = switch (contentSizeFlag(payloadSize)) {
            case 0 -> 1;
            case 1 -> 2;
            case 2 -> 4;
            default -> 8;
        };
        return 4 + 1 + (singleSegment(payloadSize) ? 0 : 1) + fcs;
    }

    /**
     * Writes {@code src[srcOffset, srcOffset + srcLength)} as one valid zstd frame made of raw
     * blocks, content size set, no checksum, no compressor call: for parts too small or too
     * random to gain. Any zstd decoder reads it. Allocation free.
     *
     * @return bytes written at {@code dst[dstOffset]}, exactly {@link #rawFrameSize(long) rawFrameSize(srcLength)}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} when {@code dstCapacity} is less than that
     */
    public static long writeRawFrame(MemorySegment src, long srcOffset, long srcLength,
                                     MemorySegment dst, long dstOffset, long dstCapacity) {
        Segments.check(src, srcOffset, srcLength);
        Segments.check(dst, dstOffset, dstCapacity);
        long total = rawFrameSize(srcLength);
        if (total > dstCapacity) {
            throw new ZstdException(ZstdException.Reason.DESTINATION_TOO_SMALL,
                    "destination too small for raw frame: needed=" + total + ", capacity=" + dstCapacity);
        }
        long p = dstOffset;
        dst.set(INT_LE, p, MAGIC);
        p += 4;
        int fcsFlag = contentSizeFlag(srcLength);
        boolean single = singleSegment(srcLength);
        dst.set(JAVA_BYTE, p++, (byte) ((fcsFlag << 6) | (single ? 1 << 5 : 0)));
        if (!single) {
            dst.set(JAVA_BYTE, p++, WINDOW_128K);
        }
        switch (fcsFlag) {
            case 0 -> dst.set(JAVA_BYTE, p++, (byte) srcLength);
            case 1 -> {
                dst.set(SHORT_LE, p, (short) (srcLength - 256));
                p += 2;
            }
            case 2 -> {
                dst.set(INT_LE, p, (int) srcLength);
                p += 4;
            }
            default -> {
                dst.set(LONG_LE, p, srcLength);
                p += 8;
            }
        }
        long done = 0;
        do {
            int block = (int) Math.min(BLOCK_SIZE_MAX, srcLength - done);
            boolean last = done + block == srcLength;
            int header = (block << 3) | (RAW_BLOCK << 1) | (last ? 1 : 0);
            dst.set(JAVA_BYTE, p, (byte) header);
            dst.set(JAVA_BYTE, p + 1, (byte) (header >>> 8));
            dst.set(JAVA_BYTE, p + 2, (byte) (header >>> 16));
            p += BLOCK_HEADER_SIZE;
            MemorySegment.copy(src, srcOffset + done, dst, p, block);
            p += block;
            done += block;
        } while (done < srcLength);
        return p - dstOffset;
    }
}

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.internal.MemoryFaults;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Objects;

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
    /** The frame checksum at its end when the descriptor's checksum flag is set: xxh64's low 32 bits. */
    private static final int CHECKSUM_SIZE = 4;
    /** Magic, descriptor and one byte of window descriptor or single-segment content size. */
    private static final int MIN_HEADER_SIZE = 6;
    private static final int RAW_BLOCK = 0;
    /** Window descriptor for 2^17 = 128 KiB: exponent 7 (windowLog 10 + 7), mantissa 0. */
    private static final byte WINDOW_128K = (byte) (7 << 3);

    private static final int SKIPPABLE_MAGIC = 0x184D2A50;
    private static final int SKIPPABLE_MAGIC_MASK = 0xFFFFFFF0;
    static final int SKIPPABLE_HEADER_SIZE = 8;
    /** A little-endian int at any offset, as zstd writes them (also read by ZstdDictionary). */
    static final java.lang.foreign.ValueLayout.OfInt INT_LE = JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfShort SHORT_LE = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfLong LONG_LE = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * {@link #contentSize(MemorySegment, long, long)} over the whole segment.
     *
     * @param frame a segment that starts with the frame's header
     * @return the declared content size in bytes, or {@link #CONTENT_SIZE_UNKNOWN}
     * @throws ZstdException as {@link #contentSize(MemorySegment, long, long)}
     */
    public static long contentSize(MemorySegment frame) {
        return contentSize(frame, 0, frame.byteSize());
    }

    // The header is read here in Java rather than through ZSTD_getFrameContentSize,
    // ZSTD_getDictID_fromFrame and ZSTD_findFrameCompressedSize: a few bytes read in place cost
    // less than three downcalls, which at 64-byte messages were most of a decompression's time.
    // FramesTest checks these readers against libzstd's on valid, truncated and mutated frames.

    /**
     * The decompressed size the frame at {@code frame[offset, offset + length)} declares, or
     * {@link #CONTENT_SIZE_UNKNOWN}. Reads the header only.
     *
     * <p>The size is an unsigned 64-bit value, as the format defines it: a header declaring
     * 2<sup>63</sup> bytes or more comes back negative, so compare it with
     * {@link Long#compareUnsigned} (and print it with {@link Long#toUnsignedString(long)}). A
     * header declaring 2<sup>64</sup>&nbsp;&minus;&nbsp;1 reads as {@link #CONTENT_SIZE_UNKNOWN},
     * as libzstd's {@code ZSTD_getFrameContentSize} reads it.
     *
     * @param frame the segment holding the frame
     * @param offset where the frame starts in {@code frame}, in bytes
     * @param length the bytes available from {@code offset}
     * @return the declared content size in bytes (unsigned), or {@link #CONTENT_SIZE_UNKNOWN}
     * @throws ZstdException {@code EMPTY} for a range of 0 bytes; {@code NOT_ZSTD} when it does not
     *     start with the zstd magic (a skippable frame's magic included); {@code TRUNCATED} when
     *     the header is incomplete, also when the range is 1 to 3 bytes that the magic starts
     *     with; {@code CORRUPT} when its reserved bit is set; {@code TOO_LARGE} when its window's
     *     exponent is above 31 (2^32 or more), as libzstd's header reader refuses it; a window of
     *     2^31 plus eighths is read here, as there, and refused by every decompressor
     * @throws IllegalStateException when {@code frame} is a file mapping that faulted (a file
     *     shortened since it was mapped: "frame could not be read: a fault in its memory …", naming
     *     the range, with the JDK's {@link InternalError} as its cause)
     * @throws IndexOutOfBoundsException when the range is not within {@code frame} ("frame range out
     *     of bounds: offset=…, length=…, byteSize=…")
     * @throws WrongThreadException when {@code frame} is confined to another thread ("frame segment
     *     is confined to another thread than …")
     */
    public static long contentSize(MemorySegment frame, long offset, long length) {
        try {
            return contentSizeOf(frame, offset, descriptor(frame, offset, length));
        } catch (InternalError | IndexOutOfBoundsException | IllegalStateException | WrongThreadException e) {
            throw inspectionFailed(e, frame, offset, length);
        }
    }

    /**
     * The error an inspector throws for {@code e}, which names nothing: a fault reading a file
     * mapping whose file was shortened since it was mapped (the JDK's bare {@link InternalError}),
     * a range outside {@code frame} (the JDK's "Range [-1, -1 + 10) out of bounds for length 100"),
     * or FFM's "Already closed" or "Attempted access outside owning thread", each named as the
     * frame's ({@link Segments#namedRange}, {@link Segments#named}). Error path only.
     */
    private static RuntimeException inspectionFailed(Throwable e, MemorySegment frame, long offset, long length) {
        if (e instanceof InternalError fault) {
            return MemoryFaults.unreadable("frame", frame, offset, length, "the frame was not inspected", fault);
        }
        if (e instanceof IndexOutOfBoundsException range) {
            return Segments.namedRange(range, "frame", frame, offset, length);
        }
        return Segments.named((RuntimeException) e, frame, "frame segment");
    }

    /** {@link #contentSize(MemorySegment, long, long)} of a header {@link #descriptor} has checked. */
    static long contentSizeOf(MemorySegment frame, long offset, int fhd) {
        int fcsFlag = fhd >>> 6;
        boolean single = (fhd & SINGLE_SEGMENT) != 0;
        long at = offset + 5 + (single ? 0 : 1) + DICT_ID_BYTES[fhd & 3];
        return switch (fcsFlag) {
            case 0 -> single ? frame.get(JAVA_BYTE, at) & 0xFFL : CONTENT_SIZE_UNKNOWN;
            case 1 -> (frame.get(SHORT_LE, at) & 0xFFFFL) + 256;
            case 2 -> frame.get(INT_LE, at) & 0xFFFF_FFFFL;
            default -> frame.get(LONG_LE, at);
        };
    }

    /**
     * {@link #dictionaryId(MemorySegment, long, long)} over the whole segment.
     *
     * @param frame a segment that starts with the frame's header
     * @return the dictionary ID, an unsigned 32-bit value, or 0 when the frame names none
     * @throws ZstdException as {@link #dictionaryId(MemorySegment, long, long)}
     */
    public static int dictionaryId(MemorySegment frame) {
        return dictionaryId(frame, 0, frame.byteSize());
    }

    /**
     * The dictionary ID the frame names, or 0 when it names none (no dictionary, or the
     * compressor left the ID out). Reads the header only.
     *
     * @param frame the segment holding the frame
     * @param offset where the frame starts in {@code frame}, in bytes
     * @param length the bytes available from {@code offset}
     * @return the dictionary ID, an unsigned 32-bit value, or 0
     * @throws ZstdException {@code EMPTY}, {@code NOT_ZSTD}, {@code TRUNCATED}, {@code CORRUPT} or
     *     {@code TOO_LARGE} (a window exponent above 31) as {@link #contentSize(MemorySegment, long, long)}
     * @throws IllegalStateException when {@code frame} is a file mapping that faulted (a file
     *     shortened since it was mapped: "frame could not be read: a fault in its memory …", naming
     *     the range, with the JDK's {@link InternalError} as its cause)
     * @throws IndexOutOfBoundsException when the range is not within {@code frame} ("frame range out
     *     of bounds: offset=…, length=…, byteSize=…")
     * @throws WrongThreadException when {@code frame} is confined to another thread ("frame segment
     *     is confined to another thread than …")
     */
    public static int dictionaryId(MemorySegment frame, long offset, long length) {
        try {
            return dictionaryIdOf(frame, offset, descriptor(frame, offset, length));
        } catch (InternalError | IndexOutOfBoundsException | IllegalStateException | WrongThreadException e) {
            throw inspectionFailed(e, frame, offset, length);
        }
    }

    /** {@link #dictionaryId(MemorySegment, long, long)} of a header {@link #descriptor} has checked. */
    static int dictionaryIdOf(MemorySegment frame, long offset, int fhd) {
        long at = offset + 5 + ((fhd & SINGLE_SEGMENT) != 0 ? 0 : 1);
        return switch (fhd & 3) {
            case 0 -> 0;
            case 1 -> frame.get(JAVA_BYTE, at) & 0xFF;
            case 2 -> frame.get(SHORT_LE, at) & 0xFFFF;
            default -> frame.get(INT_LE, at);
        };
    }

    /**
     * {@link #compressedSize(MemorySegment, long, long)} over the whole segment.
     *
     * @param frame a segment that starts with the frame
     * @return the first frame's length in bytes
     * @throws ZstdException as {@link #compressedSize(MemorySegment, long, long)}
     */
    public static long compressedSize(MemorySegment frame) {
        return compressedSize(frame, 0, frame.byteSize());
    }

    /**
     * The length of the first frame in {@code frame[offset, offset + length)}, header to
     * checksum. Walks the block headers; reads no block content.
     *
     * @param frame the segment holding the frame
     * @param offset where the frame starts in {@code frame}, in bytes
     * @param length the bytes available from {@code offset}; more frames may follow the first
     * @return the first frame's length in bytes
     * @throws ZstdException {@code EMPTY}, {@code NOT_ZSTD} or {@code TRUNCATED} as
     *     {@link #contentSize(MemorySegment, long, long)}, also {@code TRUNCATED} when the range
     *     ends inside a block or the checksum; {@code CORRUPT} as there, and for a reserved block
     *     type; {@code TOO_LARGE} as there (a window exponent above 31)
     * @throws IllegalStateException when {@code frame} is a file mapping that faulted (a file
     *     shortened since it was mapped: "frame could not be read: a fault in its memory …", naming
     *     the range, with the JDK's {@link InternalError} as its cause)
     * @throws IndexOutOfBoundsException when the range is not within {@code frame} ("frame range out
     *     of bounds: offset=…, length=…, byteSize=…")
     * @throws WrongThreadException when {@code frame} is confined to another thread ("frame segment
     *     is confined to another thread than …")
     */
    public static long compressedSize(MemorySegment frame, long offset, long length) {
        try {
            return walk(frame, offset, length, descriptor(frame, offset, length)) & ~ONLY_STORED_BLOCKS;
        } catch (InternalError | IndexOutOfBoundsException | IllegalStateException | WrongThreadException e) {
            throw inspectionFailed(e, frame, offset, length);
        }
    }

    /**
     * The most content the first frame in {@code frame[offset, offset + length)} can decode to,
     * read from its block headers alone: a raw or RLE block its size, a compressed block the block
     * maximum (the smaller of the window and 128 KiB). A receiver sizing memory for a frame from
     * its header checks the header against this first: a few bytes of header can declare hundreds
     * of MiB, and only the blocks show whether the frame could hold them. Reads no block content;
     * allocation free.
     *
     * @param frame the segment holding the frame
     * @param offset where the frame starts in {@code frame}, in bytes
     * @param length the bytes available from {@code offset}; more frames may follow the first
     * @return the most content the frame's blocks can decode to, at least its declared size
     * @throws ZstdException as {@link #compressedSize(MemorySegment, long, long)}, except that a
     *     range ending inside a frame whose block header names more than the block maximum is
     *     {@code CORRUPT}, as libzstd's decoders say; also {@code CORRUPT} when the frame declares
     *     more content than its blocks can hold ("frame declares more content than its blocks
     *     hold"), which no decoder accepts
     * @throws IllegalStateException when {@code frame} is a file mapping that faulted (a file
     *     shortened since it was mapped: "frame could not be read: a fault in its memory …", naming
     *     the range, with the JDK's {@link InternalError} as its cause)
     * @throws IndexOutOfBoundsException when the range is not within {@code frame} ("frame range out
     *     of bounds: offset=…, length=…, byteSize=…")
     * @throws WrongThreadException when {@code frame} is confined to another thread ("frame segment
     *     is confined to another thread than …")
     */
    public static long contentBound(MemorySegment frame, long offset, long length) {
        try {
            return contentBoundChecked(frame, offset, length);
        } catch (InternalError | IndexOutOfBoundsException | IllegalStateException | WrongThreadException e) {
            throw inspectionFailed(e, frame, offset, length);
        }
    }

    /** {@link #contentBound(MemorySegment, long, long)} but for naming a fault in a mapping. */
    private static long contentBoundChecked(MemorySegment frame, long offset, long length) {
        int fhd = descriptor(frame, offset, length);
        try {
            walk(frame, offset, length, fhd);
        } catch (ZstdException e) {
            if (e.reason() == ZstdException.Reason.TRUNCATED) {
                checkBlockSizes(frame, offset, length, fhd);
            }
            throw e;
        }
        long most = contentBoundOf(frame, offset, fhd);
        checkDeclaredFits(contentSizeOf(frame, offset, fhd), most);
        return most;
    }

    /**
     * Throws {@code CORRUPT} when {@code declared} (a frame's declared content size, or
     * {@link #CONTENT_SIZE_UNKNOWN}) is more than {@code most}, its {@link #contentBoundOf}.
     */
    static void checkDeclaredFits(long declared, long most) {
        if (declared != CONTENT_SIZE_UNKNOWN && Long.compareUnsigned(declared, most) > 0) {
            throw new ZstdException(ZstdException.Reason.CORRUPT, "frame declares more content than its blocks hold: "
                    + "declared=" + Long.toUnsignedString(declared) + ", most=" + most);
        }
    }

    /**
     * Set in {@link #walk}'s result when every block of the frame is raw or RLE: only then can
     * {@link #copyStoredFrame} decode it, so a frame with a compressed block skips that attempt.
     */
    static final long ONLY_STORED_BLOCKS = 1L << 62;

    /**
     * {@link #compressedSize(MemorySegment, long, long)} of a header {@link #descriptor} has
     * checked, with {@link #ONLY_STORED_BLOCKS} set when no block is compressed:
     * one walk over the block headers answers both questions.
     */
    static long walk(MemorySegment frame, long offset, long length, int fhd) {
        long end = offset + length;
        long p = offset + headerSize(fhd);
        long stored = ONLY_STORED_BLOCKS;
        for (;;) {
            if (end - p < BLOCK_HEADER_SIZE) {
                throw truncated(frame, offset, length);
            }
            int header = blockHeader(frame, p);
            int type = (header >>> 1) & 3;
            if (type == RESERVED_BLOCK) {
                throw new ZstdException(ZstdException.Reason.CORRUPT, "reserved block type: at=" + (p - offset));
            }
            if (type == COMPRESSED_BLOCK) {
                stored = 0;
            }
            long body = type == RLE_BLOCK ? 1 : header >>> 3;
            if (end - p - BLOCK_HEADER_SIZE < body) {
                throw truncated(frame, offset, length);
            }
            p += BLOCK_HEADER_SIZE + body;
            if ((header & 1) != 0) {
                break;
            }
        }
        if ((fhd & CHECKSUM_FLAG) != 0) {
            if (end - p < CHECKSUM_SIZE) {
                throw truncated(frame, offset, length);
            }
            p += CHECKSUM_SIZE;
        }
        return (p - offset) | stored;
    }

    /**
     * The block maximum (RFC 8878 §3.1.1.2): the smaller of the window and
     * {@link #BLOCK_SIZE_MAX}, a single-segment frame's window being its declared content size.
     * libzstd's decoders refuse a block header naming more ("Block Size Exceeds Maximum").
     */
    private static long blockSizeMax(MemorySegment frame, long offset, int fhd) {
        long window = (fhd & SINGLE_SEGMENT) != 0
                ? contentSizeOf(frame, offset, fhd) : windowSize(frame.get(JAVA_BYTE, offset + 5));
        return Long.compareUnsigned(window, BLOCK_SIZE_MAX) < 0 ? window : BLOCK_SIZE_MAX;
    }

    /**
     * For a frame whose {@link #walk} ran out of input: throws {@code CORRUPT} when a block header
     * within {@code frame[offset, offset + length)} names a block above {@link #blockSizeMax},
     * which no more input could make valid (the streaming decoder refuses it as soon as it reads
     * the header), and returns when the input ends inside a block of legal size or a header, so
     * the caller's {@code TRUNCATED} stands. An RLE block stores one byte and regenerates the size
     * its header names: that size is checked once the byte is there, as the streaming decoder
     * checks what a block decodes to ({@code zstd -d} calls an RLE block cut before its byte a
     * "premature end"). Not part of {@link #walk}: {@link #compressedSize}
     * answers as libzstd's {@code ZSTD_findFrameCompressedSize}, which does not check the block
     * maximum, and the one-shot paths only need this once the walk has failed.
     */
    static void checkBlockSizes(MemorySegment frame, long offset, long length, int fhd) {
        long max = blockSizeMax(frame, offset, fhd);
        long end = offset + length;
        for (long p = offset + headerSize(fhd); end - p >= BLOCK_HEADER_SIZE; ) {
            int header = blockHeader(frame, p);
            boolean rle = ((header >>> 1) & 3) == RLE_BLOCK;
            long size = header >>> 3;
            long body = rle ? 1 : size;
            // The stored size from the header alone (an RLE block's 1 byte too, as libzstd compares
            // it), the size an RLE block regenerates once its byte is within the input
            boolean rleComplete = rle && end - p - BLOCK_HEADER_SIZE >= body;
            if (body > max || (rleComplete && size > max)) {
                throw new ZstdException(ZstdException.Reason.CORRUPT, "block larger than the block maximum: at="
                        + (p - offset) + ", blockSize=" + (rleComplete ? size + " (RLE)" : body) + ", max=" + max
                        + " (min(window, 128 KiB))");
            }
            p += BLOCK_HEADER_SIZE + body;
            if ((header & 1) != 0) {
                return;
            }
        }
    }

    /**
     * The most content the blocks of a frame {@link #walk} has found complete can decode to: a raw
     * or RLE block its size, a compressed block the {@link #blockSizeMax block maximum}. A header
     * declaring more is damaged; {@code decompress(byte[])} checks it before allocating the
     * declared size, which a few bytes of header could otherwise make hundreds of MiB.
     */
    static long contentBoundOf(MemorySegment frame, long offset, int fhd) {
        long max = blockSizeMax(frame, offset, fhd);
        long bound = 0;
        for (long p = offset + headerSize(fhd); ; ) {
            int header = blockHeader(frame, p);
            int type = (header >>> 1) & 3;
            long size = header >>> 3;
            bound += type == COMPRESSED_BLOCK ? max : size;
            p += BLOCK_HEADER_SIZE + (type == RLE_BLOCK ? 1 : size);
            if ((header & 1) != 0) {
                return bound;
            }
        }
    }

    /** Frames whose content is at most this are candidates for {@link #copyStoredFrame}. */
    static final long STORED_COPY_MAX_BYTES = 16 * 1024;

    /**
     * Decodes a frame made only of raw and RLE blocks, with no checksum, by copying: no call
     * into libzstd, whose per-frame setup costs more than the copy for small parts (a 64-byte
     * event does not compress and travels as a raw block). Returns the content length written at
     * {@code dst[dstOffset]}, or -1 when the frame needs libzstd: a compressed block, a checksum,
     * content above {@link #STORED_COPY_MAX_BYTES}, or anything libzstd would refuse (content size
     * differing from the blocks, a block above the block size limit, output above
     * {@code capacity}), so that libzstd's own error is the one reported. The caller has checked
     * that the frame spans exactly {@code length} bytes ({@link #compressedSize}), and passes the
     * header's checked descriptor and declared content size.
     */
    static long copyStoredFrame(MemorySegment frame, long offset, int fhd, long declared,
                                MemorySegment dst, long dstOffset, long capacity) {
        if ((fhd & CHECKSUM_FLAG) != 0) {
            return -1;
        }
        if (declared != CONTENT_SIZE_UNKNOWN && declared > Math.min(capacity, STORED_COPY_MAX_BYTES)) {
            return -1;
        }
        long blockMax = blockSizeMax(frame, offset, fhd);
        long start = offset + headerSize(fhd);
        long total = 0;
        for (long p = start; ; ) {
            int header = blockHeader(frame, p);
            int type = (header >>> 1) & 3;
            long size = header >>> 3;
            if ((type != RAW_BLOCK && type != RLE_BLOCK) || size > blockMax) {
                return -1;
            }
            total += size;
            if (total > STORED_COPY_MAX_BYTES || total > capacity) {
                return -1;
            }
            p += BLOCK_HEADER_SIZE + (type == RLE_BLOCK ? 1 : size);
            if ((header & 1) != 0) {
                break;
            }
        }
        if (declared != CONTENT_SIZE_UNKNOWN && total != declared) {
            return -1;
        }
        long out = dstOffset;
        for (long p = start; ; ) {
            int header = blockHeader(frame, p);
            int size = header >>> 3;
            if (((header >>> 1) & 3) == RLE_BLOCK) {
                byte b = frame.get(JAVA_BYTE, p + BLOCK_HEADER_SIZE);
                for (int i = 0; i < size; i++) {
                    dst.set(JAVA_BYTE, out + i, b);
                }
                p += BLOCK_HEADER_SIZE + 1;
            } else {
                MemorySegment.copy(frame, p + BLOCK_HEADER_SIZE, dst, out, size);
                p += BLOCK_HEADER_SIZE + size;
            }
            out += size;
            if ((header & 1) != 0) {
                return total;
            }
        }
    }

    /**
     * The window the frame's header names (RFC 8878 §3.1.1.1.2): the memory a streaming decoder
     * must keep. {@link #CONTENT_SIZE_UNKNOWN} for a single-segment frame, whose window is its
     * declared content size. Reads the header only; {@code fhd} is from {@link #descriptor}.
     */
    static long windowSizeOf(MemorySegment frame, long offset, int fhd) {
        return (fhd & SINGLE_SEGMENT) != 0 ? CONTENT_SIZE_UNKNOWN : windowSize(frame.get(JAVA_BYTE, offset + 5));
    }

    /** The longest header {@link #writeHeaderWithoutContentSize} writes: magic, descriptor, window, 4-byte ID. */
    static final int HEADER_WITHOUT_CONTENT_SIZE_MAX = 4 + 1 + 1 + 4;

    /**
     * Writes at {@code out}'s start the header of the frame at {@code frame[offset]} as it would be
     * without its content size: the same dictionary ID and checksum flag, a window descriptor (a
     * single-segment frame's window, its declared size, rounded up to a power of two, at most
     * 2^{@value #WINDOW_LOG_MAX}); its blocks follow at {@code frame[offset + headerSize(fhd)]}.
     * Error path only: decoding such a copy counts what the blocks hold, which libzstd, checking the
     * declared size after the last block, does not say. Returns the header's length.
     */
    static int writeHeaderWithoutContentSize(MemorySegment frame, long offset, int fhd, MemorySegment out) {
        boolean single = (fhd & SINGLE_SEGMENT) != 0;
        byte window;
        if (single) {
            long declared = contentSizeOf(frame, offset, fhd);
            int log = 64 - Long.numberOfLeadingZeros(Math.max(1, declared) - 1); // ceil(log2)
            window = (byte) (Math.clamp(log, 10, WINDOW_LOG_MAX) - 10 << 3);
        } else {
            window = frame.get(JAVA_BYTE, offset + 5);
        }
        int idBytes = DICT_ID_BYTES[fhd & 3];
        out.set(INT_LE, 0, MAGIC);
        out.set(JAVA_BYTE, 4, (byte) (fhd & (CHECKSUM_FLAG | 3))); // no content size, no single segment
        out.set(JAVA_BYTE, 5, window);
        MemorySegment.copy(frame, offset + 5 + (single ? 0 : 1), out, 6, idBytes);
        return 6 + idBytes;
    }

    /** Window descriptor: exponent (bits 7-3) over 2^10, plus mantissa (bits 2-0) eighths. */
    private static long windowSize(byte descriptor) {
        int wd = descriptor & 0xFF;
        long base = 1L << (10 + (wd >>> 3));
        return base + (base >>> 3) * (wd & 7);
    }

    private static int blockHeader(MemorySegment frame, long p) {
        return (frame.get(JAVA_BYTE, p) & 0xFF) | (frame.get(JAVA_BYTE, p + 1) & 0xFF) << 8
                | (frame.get(JAVA_BYTE, p + 2) & 0xFF) << 16;
    }

    private static final int SINGLE_SEGMENT = 1 << 5;
    private static final int RESERVED_BIT = 1 << 3;
    static final int CHECKSUM_FLAG = 1 << 2;
    private static final int RLE_BLOCK = 1;
    private static final int COMPRESSED_BLOCK = 2;
    private static final int RESERVED_BLOCK = 3;
    private static final int[] DICT_ID_BYTES = {0, 1, 2, 4};
    /** ZSTD_WINDOWLOG_MAX on 64-bit targets: libzstd refuses headers naming a larger window. */
    static final int WINDOW_LOG_MAX = 31;
    private static final int[] CONTENT_SIZE_BYTES = {0, 2, 4, 8};

    /**
     * The frame header descriptor byte, after checking the magic, the reserved bit, the window
     * and that the whole header is within {@code length}: the one validation the readers that
     * take it rely on, so a caller reading several fields checks the header once.
     */
    static int descriptor(MemorySegment frame, long offset, long length) {
        checkMagic(frame, offset, length);
        if (length < 5) {
            throw truncated(frame, offset, length);
        }
        int fhd = frame.get(JAVA_BYTE, offset + 4) & 0xFF;
        if ((fhd & RESERVED_BIT) != 0) {
            throw new ZstdException(ZstdException.Reason.CORRUPT, "frame header invalid: reserved bit set");
        }
        if (length < headerSize(fhd)) {
            throw truncated(frame, offset, length);
        }
        if ((fhd & SINGLE_SEGMENT) == 0) {
            int windowLog = 10 + ((frame.get(JAVA_BYTE, offset + 5) & 0xFF) >>> 3);
            if (windowLog > WINDOW_LOG_MAX) {
                // Above any limit one can set (the window allowance stops at 2^31): TOO_LARGE, as a
                // window above the allowance is, and as libzstd's frameParameter_windowTooLarge says
                throw new ZstdException(ZstdException.Reason.TOO_LARGE,
                        "frame window larger than any limit: windowLog=" + windowLog + ", max=" + WINDOW_LOG_MAX);
            }
        }
        return fhd;
    }

    /** Magic, descriptor, window descriptor, dictionary ID and content size fields: where the first block starts. */
    static int headerSize(int fhd) {
        boolean single = (fhd & SINGLE_SEGMENT) != 0;
        int fcsFlag = fhd >>> 6;
        int fcs = fcsFlag == 0 ? (single ? 1 : 0) : CONTENT_SIZE_BYTES[fcsFlag];
        return 4 + 1 + (single ? 0 : 1) + DICT_ID_BYTES[fhd & 3] + fcs;
    }

    /**
     * {@code TRUNCATED} for the frame at {@code frame[offset, offset + length)}, which
     * {@link #checkMagic}, {@link #descriptor} or {@link #walk} found cut (as much of the magic as
     * is there right, its reserved bit clear, no reserved block before the cut): where it is cut,
     * inside the magic, in the header, in block K's header, inside block K or in the checksum, and
     * the fewest bytes that could end the frame (a block that is
     * not the last needs at least one more block header after it, a checksum flag 4 bytes at the
     * end). Error path only: walks the header and block headers again, so the walk that succeeds
     * pays nothing for it.
     */
    private static ZstdException truncated(MemorySegment frame, long offset, long length) {
        String where;
        long frameBytesAtLeast;
        if (length < 5) {
            where = length < 4 ? "cut inside the magic number" : "cut in the frame header after the magic number";
            frameBytesAtLeast = MIN_HEADER_SIZE + BLOCK_HEADER_SIZE;
        } else {
            int fhd = frame.get(JAVA_BYTE, offset + 4) & 0xFF;
            int checksum = (fhd & CHECKSUM_FLAG) != 0 ? CHECKSUM_SIZE : 0;
            long p = headerSize(fhd);
            if (length < p) {
                where = "cut in the frame header (of " + p + " bytes)";
                frameBytesAtLeast = p + BLOCK_HEADER_SIZE + checksum;
            } else {
                for (int k = 1; ; k++) {
                    if (length - p < BLOCK_HEADER_SIZE) {
                        where = "cut in block " + k + "'s header (at offset " + p + ")";
                        frameBytesAtLeast = p + BLOCK_HEADER_SIZE + checksum;
                        break;
                    }
                    int header = blockHeader(frame, offset + p);
                    int type = (header >>> 1) & 3;
                    long size = header >>> 3;
                    long body = type == RLE_BLOCK ? 1 : size;
                    boolean last = (header & 1) != 0;
                    if (length - p - BLOCK_HEADER_SIZE < body) {
                        where = "cut inside block " + k + " (" + (type == RLE_BLOCK ? "RLE" : type == RAW_BLOCK ? "raw" : "compressed")
                                + ", of declared size " + size + " at offset " + p
                                + (type == RLE_BLOCK ? ": the one byte it repeats is missing)" : ")");
                        frameBytesAtLeast = p + BLOCK_HEADER_SIZE + body + (last ? 0 : BLOCK_HEADER_SIZE) + checksum;
                        break;
                    }
                    p += BLOCK_HEADER_SIZE + body;
                    if (last) { // the walk found the checksum cut: it stops at a whole last block otherwise
                        where = "cut in the checksum (at offset " + p + ")";
                        frameBytesAtLeast = p + CHECKSUM_SIZE;
                        break;
                    }
                }
            }
        }
        return new ZstdException(ZstdException.Reason.TRUNCATED, "frame incomplete: length=" + length + ", " + where
                + ", needs at least " + (frameBytesAtLeast - length) + (frameBytesAtLeast - length == 1 ? " more byte" : " more bytes"));
    }

    /**
     * Whether the range starts with the whole magic number of a skippable frame (RFC 8878 3.1.2:
     * {@code 0x184D2A50} to {@code 0x184D2A5F} little-endian, then the 4-byte size of the user data
     * that follows). Such a frame carries user data and no content: {@link ZstdInputStream} steps
     * over it, the one-shot calls refuse it as {@code NOT_ZSTD}. Reads at most the first 4 bytes;
     * allocation free.
     *
     * @param frame the segment holding the bytes
     * @param offset where they start in {@code frame}, in bytes
     * @param length the bytes available from {@code offset}
     * @return true when {@code length} is at least 4 and those bytes are a skippable frame's magic;
     *     false for fewer bytes (the start of a magic cut short is not taken for one)
     * @throws IndexOutOfBoundsException when the range is not within {@code frame} ("frame range out
     *     of bounds: offset=…, length=…, byteSize=…")
     * @throws IllegalStateException when {@code frame} is a file mapping that faulted, naming the
     *     range, or when its arena is closed
     * @throws WrongThreadException when {@code frame} is confined to another thread
     */
    public static boolean startsWithSkippableMagic(MemorySegment frame, long offset, long length) {
        try {
            Segments.check(frame, offset, length);
            return length >= 4 && isSkippableMagic(frame.get(INT_LE, offset));
        } catch (InternalError | IndexOutOfBoundsException | IllegalStateException | WrongThreadException e) {
            throw inspectionFailed(e, frame, offset, length);
        }
    }

    /** Whether {@code magic}, as read little-endian, is one of the sixteen skippable frame magics. */
    private static boolean isSkippableMagic(int magic) {
        return (magic & SKIPPABLE_MAGIC_MASK) == SKIPPABLE_MAGIC;
    }

    /**
     * Whether the range starts with the magic of a skippable frame (RFC 8878 3.1.2:
     * {@code 0x184D2A50} to {@code 0x184D2A5F}, then the 4-byte little-endian size of the user data
     * that follows): frames that carry no content, which decoders step over. A range of 1 to 3
     * bytes that such a magic starts with counts: it is a skippable frame cut short.
     */
    static boolean isSkippable(MemorySegment src, long offset, long length) {
        if (length < 4) {
            return startsMagic(src, offset, length, SKIPPABLE_MAGIC, SKIPPABLE_MAGIC_MASK);
        }
        return isSkippableMagic(src.get(INT_LE, offset));
    }

    /**
     * Whether the {@code length} bytes (fewer than 4) at {@code offset} are the first bytes of
     * {@code magic} as written little-endian, comparing only the bits set in {@code mask}: a
     * magic number cut short, which more input could complete.
     */
    private static boolean startsMagic(MemorySegment src, long offset, long length, int magic, int mask) {
        for (int i = 0; i < length; i++) {
            int shift = 8 * i;
            if (((src.get(JAVA_BYTE, offset + i) ^ (magic >>> shift)) & (mask >>> shift) & 0xFF) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * How many bytes from {@code offset} a stream must hold before it can read the header there:
     * 5 while it holds fewer (magic and frame header descriptor), 8 for a skippable frame, the
     * header's own size for a zstd frame, 0 for any other magic (nothing more to wait for). Never
     * more than the frame is long, so a reader need not wait for bytes after a short frame.
     */
    static int headerBytesNeeded(MemorySegment src, long offset, long length) {
        if (length < 5) {
            return 5; // the shortest skippable frame is 8 bytes, the shortest zstd frame 9
        }
        if (isSkippable(src, offset, length)) {
            return SKIPPABLE_HEADER_SIZE;
        }
        if (src.get(INT_LE, offset) != MAGIC) {
            return 0;
        }
        return headerSize(src.get(JAVA_BYTE, offset + 4) & 0xFF);
    }

    /** The whole length of the skippable frame at {@code offset}, header included; 8 bytes must be there. */
    static long skippableFrameLength(MemorySegment src, long offset) {
        return SKIPPABLE_HEADER_SIZE + Integer.toUnsignedLong(src.get(INT_LE, offset + 4));
    }

    /**
     * Throws unless the range starts with the frame magic: {@code EMPTY} for no bytes,
     * {@code TRUNCATED} for 1 to 3 bytes that the magic starts with (libzstd too waits for more
     * there), {@code NOT_ZSTD} otherwise. Allocation free on success.
     */
    static void checkMagic(MemorySegment frame, long offset, long length) {
        Segments.check(frame, offset, length);
        if (length == 0) {
            throw new ZstdException(ZstdException.Reason.EMPTY, "input is empty: length=0");
        }
        if (length < 4 && startsMagic(frame, offset, length, MAGIC, -1)) {
            throw truncated(frame, offset, length); // with the bytes it needs, as a cut anywhere later
        }
        if (length < 4 || frame.get(INT_LE, offset) != MAGIC) {
            throw notZstd(length < 4 ? 0 : frame.get(INT_LE, offset), length);
        }
    }

    /** zstd's frame formats before 0.8 (v0.1, then v0.2 to v0.7): libzstd reads them only when built to. */
    private static final int LEGACY_MAGIC_V01 = 0x1EB52FFD;
    private static final int LEGACY_MAGIC_V02 = 0xFD2FB522;
    private static final int LEGACY_MAGIC_V07 = 0xFD2FB527;

    /**
     * NOT_ZSTD for {@code length} bytes starting with {@code magic}: a skippable frame and a
     * legacy frame are named as what they are, since a one-shot call takes one zstd frame.
     */
    private static ZstdException notZstd(int magic, long length) {
        String what;
        if (length >= 4 && isSkippableMagic(magic)) {
            what = "a skippable frame (magic 0x" + Integer.toHexString(magic).toUpperCase(java.util.Locale.ROOT)
                    + "), not a zstd frame: a one-shot call takes one zstd frame; ZstdInputStream reads past"
                    + " skippable frames";
        } else if (length >= 4 && (magic == LEGACY_MAGIC_V01 || magic >= LEGACY_MAGIC_V02 && magic <= LEGACY_MAGIC_V07)) {
            what = "a legacy zstd frame (format v0." + (magic == LEGACY_MAGIC_V01 ? 1 : magic - LEGACY_MAGIC_V02 + 2)
                    + ", before zstd 0.8), which this library does not read";
        } else {
            what = "magic mismatch";
        }
        return new ZstdException(ZstdException.Reason.NOT_ZSTD, "not a zstd frame: length=" + length + ", " + what);
    }

    /**
     * The size of the frame {@link #writeRawFrame} writes for a payload of {@code payloadSize}
     * bytes: the payload plus a few header bytes and 3 bytes per 128 KiB block.
     *
     * @param payloadSize the payload's size in bytes, 0 or more
     * @return the frame's size in bytes
     * @throws IllegalArgumentException when {@code payloadSize} is negative, or its frame's size
     *     would be more than {@link Long#MAX_VALUE} (a payload within 3 bytes per 128 KiB of 2^63)
     */
    public static long rawFrameSize(long payloadSize) {
        if (payloadSize < 0) {
            throw new IllegalArgumentException("payloadSize=" + payloadSize);
        }
        long blocks = Math.max(1, Math.ceilDiv(payloadSize, BLOCK_SIZE_MAX));
        long size = headerSize(payloadSize) + blocks * BLOCK_HEADER_SIZE + payloadSize;
        // Headers and block headers are far below 2^62: past Long.MAX_VALUE the sum wraps negative
        if (size < 0) {
            throw new IllegalArgumentException("payloadSize too large for a frame: payloadSize=" + payloadSize
                    + " (frame size past Long.MAX_VALUE)");
        }
        return size;
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
     * @param src the payload
     * @param srcOffset where the payload starts in {@code src}, in bytes
     * @param srcLength the payload's length in bytes
     * @param dst the destination
     * @param dstOffset where the frame is written in {@code dst}, in bytes
     * @param dstCapacity the bytes available at {@code dst[dstOffset]}
     * @return bytes written at {@code dst[dstOffset]}, exactly {@link #rawFrameSize(long) rawFrameSize(srcLength)}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} when {@code dstCapacity} is less than that
     * @throws IndexOutOfBoundsException when a range is not within its segment, naming the side:
     *     "source range out of bounds: srcOffset=…, srcLength=…, byteSize=…" or "destination range
     *     …: dstOffset=…, dstCapacity=…, byteSize=…" (both, when both are)
     * @throws IllegalArgumentException when {@code dst} is read-only, or the source and destination
     *     ranges share memory ("source and destination overlap")
     * @throws IllegalStateException when the arena of either segment is closed ("source segment is
     *     no longer alive: …", "destination segment …"), or a file mapping on either side faulted
     *     (a file shortened since it was mapped: "src could not be read: a fault in its memory …"
     *     or "dst could not be written: …", naming the range, with the JDK's {@link InternalError}
     *     as its cause)
     * @throws WrongThreadException when either segment is confined to another thread ("source
     *     segment is confined to another thread than …", "destination segment …")
     */
    public static long writeRawFrame(MemorySegment src, long srcOffset, long srcLength,
                                     MemorySegment dst, long dstOffset, long dstCapacity) {
        try {
            // the checks inside the try, so that its catches name the side of what they refuse
            Segments.check(src, srcOffset, srcLength);
            Segments.check(dst, dstOffset, dstCapacity);
            Segments.checkWritable(dst);
            Segments.checkDisjoint(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
            return writeRaw(src, null, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (InternalError e) { // only a file mapping's Java copy faults (a file shortened since)
            throw Segments.fault(e, src, srcOffset, srcLength, dst, dstOffset, dstCapacity, RAW_FRAME_NOT_WRITTEN);
        } catch (IndexOutOfBoundsException e) { // the JDK's words, naming neither side
            throw Segments.namedRange(e, "source", src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (IllegalStateException | WrongThreadException e) { // FFM's closed or thread check: which side
            throw Segments.named(Segments.named(e, src, "source segment"), dst, "destination segment");
        }
    }

    /** What a fault in a mapping leaves, for {@link Segments#fault}. */
    private static final String RAW_FRAME_NOT_WRITTEN = "no frame was written, dst may hold part of one";

    /**
     * {@link #writeRawFrame(MemorySegment, long, long, MemorySegment, long, long)} with the payload
     * in an array, copied from it straight into the frame: no heap segment is made over
     * {@code src} (the one small object {@code MemorySegment.ofArray} costs per call), so into a
     * native destination this allocates nothing.
     *
     * @param src the payload
     * @param srcOffset where the payload starts in {@code src}
     * @param srcLength the payload's length in bytes
     * @param dst the destination
     * @param dstOffset where the frame is written in {@code dst}, in bytes
     * @param dstCapacity the bytes available at {@code dst[dstOffset]}
     * @return bytes written at {@code dst[dstOffset]}, exactly {@link #rawFrameSize(long) rawFrameSize(srcLength)}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} when {@code dstCapacity} is less than that
     * @throws IndexOutOfBoundsException when a range is not within its array or segment, naming
     *     the side as {@link #writeRawFrame(MemorySegment, long, long, MemorySegment, long, long)}
     *     does
     * @throws IllegalArgumentException when {@code dst} is read-only, or is a segment over
     *     {@code src} whose range shares bytes with the payload ("source and destination overlap")
     * @throws IllegalStateException when the arena of {@code dst} is closed ("destination segment
     *     is no longer alive: …"), or {@code dst} is a file mapping that faulted (a file shortened
     *     since it was mapped: "dst could not be written: a fault in its memory …", with the JDK's
     *     {@link InternalError} as its cause)
     * @throws WrongThreadException when {@code dst} is confined to another thread ("destination
     *     segment is confined to another thread than …")
     */
    public static long writeRawFrame(byte[] src, int srcOffset, int srcLength,
                                     MemorySegment dst, long dstOffset, long dstCapacity) {
        try {
            // the checks inside the try, so that its catches name the side of what they refuse
            Objects.checkFromIndexSize(srcOffset, srcLength, src.length);
            Segments.check(dst, dstOffset, dstCapacity);
            Segments.checkWritable(dst);
            if (!dst.isNative()) {
                // Only a heap destination can be over the same array: the wrapper is made for it alone
                Segments.checkDisjoint(MemorySegment.ofArray(src), srcOffset, srcLength, dst, dstOffset, dstCapacity);
            }
            return writeRaw(null, src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (InternalError e) { // only a mapped destination faults: an array is the JVM's own memory
            throw Segments.fault(e, MemorySegment.ofArray(src), srcOffset, srcLength, dst, dstOffset, dstCapacity,
                    RAW_FRAME_NOT_WRITTEN);
        } catch (IndexOutOfBoundsException e) { // the JDK's words, naming neither side
            throw Segments.namedRange(e, "source", srcOffset, srcLength, src.length, dstOffset, dstCapacity, dst.byteSize());
        } catch (IllegalStateException | WrongThreadException e) { // FFM's closed or thread check, of dst
            throw Segments.named(e, dst, "destination segment");
        }
    }

    /** The raw frame of a checked payload in {@code segment}, else in {@code array}. */
    private static long writeRaw(MemorySegment segment, byte[] array, long srcOffset, long srcLength,
                                 MemorySegment dst, long dstOffset, long dstCapacity) {
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
            if (segment != null) {
                MemorySegment.copy(segment, srcOffset + done, dst, p, block);
            } else {
                MemorySegment.copy(array, (int) (srcOffset + done), dst, JAVA_BYTE, p, block);
            }
            p += block;
            done += block;
        } while (done < srcLength);
        return p - dstOffset;
    }
}

package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.MemorySegment;

/**
 * How a sender turns a payload into a frame: level, checksum, dictionary, the raw-frame limit and
 * the zero-copy threshold. One place for the rules both senders follow ({@link CompressingSender},
 * {@link ParallelCompressingSender}): their builders fill it, {@link #resolve} checks the
 * combination and fills in the defaults, and each compressing thread encodes with
 * {@link #encode} through a compressor of its own ({@link #newCompressor}).
 */
final class FrameOptions {

    /** libzstd's ZSTD_minCLevel() (1.5.x: -ZSTD_TARGETLENGTH_MAX, 128 Ki); a lower level is clamped to it. */
    static final int MIN_LEVEL = -(1 << 17);
    /** libzstd's ZSTD_maxCLevel(); a higher level is clamped to it. */
    static final int MAX_LEVEL = 22;

    int level = ZstdCompressor.DEFAULT_LEVEL;
    boolean checksum;
    ZstdDictionary dictionary;
    /** False: frames leave the dictionary's ID out ({@link ZstdCompressor.Builder#dictionaryIdInFrame}). */
    boolean dictionaryIdInFrame = true;
    /**
     * Set by the user, or -1 until {@link #resolve} fills in the pool's
     * {@link NativeBufferPool#zeroCopyThresholdBytes()}; never applied below the socket's
     * ({@link #zeroCopyThreshold}).
     */
    long zeroCopyThresholdBytes = -1;
    long rawFrameBelowBytes = -1;
    /** Raw frames for payloads that look incompressible: null until {@link #resolve} decides. */
    Boolean rawIncompressible;

    void level(int level) {
        // libzstd clamps a level out of range: refused here, so that 1000 is not silently 22
        if (level < MIN_LEVEL || level > MAX_LEVEL) {
            throw new IllegalArgumentException("level must be " + MIN_LEVEL + " to " + MAX_LEVEL + ": level=" + level);
        }
        this.level = level;
    }

    void zeroCopyThresholdBytes(long bytes) {
        zeroCopyThresholdBytes = Settings.atLeastZero("zeroCopyThresholdBytes", bytes);
    }

    void rawFrameBelowBytes(long bytes) {
        rawFrameBelowBytes = Settings.atLeastZero("rawFrameBelowBytes", bytes);
    }

    /**
     * A copy of the settings as set, for one sender: a builder's own set keeps changing with its
     * setters, and each {@code build()} resolves its defaults anew (before 2026-11-26 the sender
     * kept the builder's set, so a setter called after {@code build()} changed that sender, past
     * the checks, and a second {@code build()} found the first one's defaults as if set).
     */
    FrameOptions copy() {
        FrameOptions c = new FrameOptions();
        c.level = level;
        c.checksum = checksum;
        c.dictionary = dictionary;
        c.dictionaryIdInFrame = dictionaryIdInFrame;
        c.zeroCopyThresholdBytes = zeroCopyThresholdBytes;
        c.rawFrameBelowBytes = rawFrameBelowBytes;
        c.rawIncompressible = rawIncompressible;
        return c;
    }

    /**
     * Refuses contradicting settings (a zero-copy threshold below the socket's), then fills in the
     * defaults: the pool's zero-copy threshold for other than inproc-only sockets (8 KiB by
     * default, on every socket: end to end, zero-copy from the inproc threshold of 512 B measured no
     * faster, BENCHMARKS.md, "A threshold per kind of socket"), and raw frames below
     * {@link CompressingSender#DEFAULT_RAW_FRAME_BELOW_BYTES} unless a dictionary or a checksum is
     * set. Idempotent.
     */
    FrameOptions resolve(ZmqSocket socket) {
        if (dictionary != null && rawFrameBelowBytes > 0) {
            throw new IllegalArgumentException("rawFrameBelowBytes with a dictionary: rawFrameBelowBytes="
                    + rawFrameBelowBytes + ", dictionaryId=" + Integer.toUnsignedString(dictionary.id()));
        }
        if (checksum && rawFrameBelowBytes > 0) {
            throw new IllegalArgumentException("rawFrameBelowBytes with checksum: rawFrameBelowBytes="
                    + rawFrameBelowBytes + " (raw frames carry no checksum)");
        }
        if (rawFrameBelowBytes < 0) {
            rawFrameBelowBytes = dictionary != null || checksum ? 0 : CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES;
        }
        if (Boolean.TRUE.equals(rawIncompressible) && (dictionary != null || checksum)) {
            throw new IllegalArgumentException("rawIncompressible with " + (checksum ? "checksum (raw frames carry no checksum)"
                    : "a dictionary: dictionaryId=" + Integer.toUnsignedString(dictionary.id())));
        }
        if (rawIncompressible == null) {
            rawIncompressible = dictionary == null && !checksum;
        }
        long socketThreshold = socket.zeroCopyThresholdBytes();
        if (zeroCopyThresholdBytes >= 0 && zeroCopyThresholdBytes < socketThreshold) {
            // ZmqSocket.sendPooled copies frames below the socket's threshold: a lower one here
            // would rent buffers without ever sending one zero-copy.
            throw new IllegalArgumentException("zeroCopyThresholdBytes below the socket's: zeroCopyThresholdBytes="
                    + zeroCopyThresholdBytes + ", socketZeroCopyThresholdBytes=" + socketThreshold
                    + " (lower the pool's with NativeBufferPool.builder().zeroCopyThresholdBytes"
                    + " or .inprocZeroCopyThresholdBytes for inproc-only sockets)");
        }
        if (zeroCopyThresholdBytes < 0) {
            zeroCopyThresholdBytes = socket.context().bufferPool().zeroCopyThresholdBytes();
        }
        return this;
    }

    /**
     * The threshold in force for the next frame: the sender's, never below the socket's (which
     * rises when an endpoint of another transport joins an inproc-only socket).
     */
    long zeroCopyThreshold(ZmqSocket socket) {
        return Math.max(zeroCopyThresholdBytes, socket.zeroCopyThresholdBytes());
    }

    /**
     * A compressor with these settings; the caller owns it. Its {@code build()} is where
     * {@code dictionaryIdInFrame(false)} without a dictionary is refused, for both senders.
     */
    ZstdCompressor newCompressor() {
        return ZstdCompressor.builder().level(level).checksum(checksum).dictionary(dictionary)
                .dictionaryIdInFrame(dictionaryIdInFrame).build();
    }

    /** A check of this sender's settings for one compressing thread, or null when it is off. */
    IncompressibleCheck newIncompressibleCheck() {
        return rawIncompressible ? new IncompressibleCheck() : null;
    }

    /**
     * Whether {@code src[offset, offset + length)} goes out as a raw-block frame: shorter than the
     * raw-frame limit (0 with a dictionary or checksum, see {@link #resolve}), or judged
     * incompressible by the compressing thread's {@code check} (null: off).
     */
    boolean raw(IncompressibleCheck check, MemorySegment src, long offset, long length) {
        return length < rawFrameBelowBytes || check != null && check.looksIncompressible(src, offset, length);
    }

    /** The most bytes the frame of a payload of {@code length} can take. */
    static long bound(long length, boolean raw) {
        return raw ? ZstdFrames.rawFrameSize(length) : ZstdCompressor.maxCompressedSize(length);
    }

    /**
     * Writes the frame of {@code src[offset, offset + length)} at {@code dst[0, ...)}, raw as
     * {@link #raw} decided, and tells the compressing thread's {@code check} (null: off) what a
     * compressed frame saved; returns the frame's size.
     */
    static long encode(ZstdCompressor compressor, IncompressibleCheck check, boolean raw, MemorySegment src,
            long offset, long length, MemorySegment dst, long capacity) {
        if (raw) {
            return ZstdFrames.writeRawFrame(src, offset, length, dst, 0, capacity);
        }
        long n = compressor.compress(src, offset, length, dst, 0, capacity);
        if (check != null) {
            check.compressed(length, n);
        }
        return n;
    }
}

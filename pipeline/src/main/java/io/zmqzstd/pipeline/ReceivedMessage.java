package io.zmqzstd.pipeline;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The message a {@link DecompressingReceiver} delivered last: its parts, decompressed payloads
 * and raw envelope parts, laid out one after another in the receiver's native output region.
 * One object per receiver, re-pointed by every receive: it allocates nothing.
 *
 * <p>Lifetime: everything here (and every segment {@link #part(int)} or {@link #region()}
 * returned) is valid until the receiver's next {@code receive} or {@code close}, and belongs to
 * the receiver. The accessors check that: after a receive that did not return
 * {@link DecompressingReceiver#RECEIVED}, or after close, they throw
 * {@link IllegalStateException}; a segment kept across a receive that had to grow the region, or
 * across close, throws on access. A segment kept across a receive that reused the region shows
 * the new message: copy ({@link #partBytes}) what must outlive the next receive.
 *
 * <p>Threading: the receiver's thread only.
 */
public final class ReceivedMessage {

    private final DecompressingReceiver receiver;
    private MemorySegment region;
    private long[] offsets = new long[4];
    private long[] sizes = new long[4];
    private boolean[] compressed = new boolean[4];
    private int parts;
    private long sequence;
    private boolean valid;

    ReceivedMessage(DecompressingReceiver receiver) {
        this.receiver = receiver;
    }

    /** Number of parts, envelope parts included. */
    public int parts() {
        checkValid();
        return parts;
    }

    /**
     * Part {@code i}: the decompressed payload, or the envelope bytes as received. A slice of the
     * receiver's region (allocates one small segment object; zero-allocation readers use
     * {@link #region()}, {@link #partOffset} and {@link #partSize}). Valid until the next receive.
     */
    public MemorySegment part(int i) {
        checkIndex(i);
        return region.asSlice(offsets[i], sizes[i]);
    }

    /** Where part {@code i} starts in {@link #region()}. */
    public long partOffset(int i) {
        checkIndex(i);
        return offsets[i];
    }

    /** Bytes in part {@code i} (after decompression). */
    public long partSize(int i) {
        checkIndex(i);
        return sizes[i];
    }

    /** True when part {@code i} arrived as a zstd frame; false for envelope parts. */
    public boolean isCompressed(int i) {
        checkIndex(i);
        return compressed[i];
    }

    /** A copy of part {@code i} in a new array that the caller owns (allocates). */
    public byte[] partBytes(int i) {
        checkIndex(i);
        byte[] out = new byte[Math.toIntExact(sizes[i])];
        MemorySegment.copy(region, ValueLayout.JAVA_BYTE, offsets[i], out, 0, out.length);
        return out;
    }

    /** Sum of all parts' sizes. */
    public long totalSize() {
        checkValid();
        long n = 0;
        for (int i = 0; i < parts; i++) {
            n += sizes[i];
        }
        return n;
    }

    /**
     * The receiver's whole output region; the parts lie at {@link #partOffset} for
     * {@link #partSize}. The same segment object from message to message until the region
     * grows. Valid until the next receive or close.
     */
    public MemorySegment region() {
        checkValid();
        return region;
    }

    /** 1 for the first message this receiver delivered, then 2, 3, ...: tells messages apart. */
    public long sequence() {
        checkValid();
        return sequence;
    }

    /** True when this view describes a delivered message (the last receive returned RECEIVED). */
    public boolean isValid() {
        return valid && !receiver.isClosed();
    }

    // ---- filled by the receiver ----

    void begin(MemorySegment region) {
        this.region = region;
        this.parts = 0;
        this.valid = false;
    }

    void invalidate() {
        valid = false;
        parts = 0;
    }

    /** The region moved (grew) while parts were being laid out. */
    void region(MemorySegment region) {
        this.region = region;
    }

    void add(long offset, long size, boolean isCompressed) {
        if (parts == offsets.length) {
            offsets = Arrays.copyOf(offsets, parts * 2);
            sizes = Arrays.copyOf(sizes, parts * 2);
            compressed = Arrays.copyOf(compressed, parts * 2);
        }
        offsets[parts] = offset;
        sizes[parts] = size;
        compressed[parts] = isCompressed;
        parts++;
    }

    int partCount() {
        return parts;
    }

    void complete() {
        sequence++;
        valid = true;
    }

    private void checkValid() {
        if (!valid) {
            throw new IllegalStateException("no message to read: the last receive did not return RECEIVED");
        }
        if (receiver.isClosed()) {
            throw new IllegalStateException("receiver is closed: message views ended");
        }
    }

    private void checkIndex(int i) {
        checkValid();
        if (i < 0 || i >= parts) {
            throw new IndexOutOfBoundsException("part index out of range: index=" + i + ", parts=" + parts);
        }
    }
}

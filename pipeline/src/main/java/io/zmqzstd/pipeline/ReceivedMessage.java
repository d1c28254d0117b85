package io.zmqzstd.pipeline;

import io.zmqzstd.nativelib.internal.JavaArrays;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The message a {@link DecompressingReceiver} delivered last: its parts, decompressed payloads
 * and raw envelope parts. After {@link DecompressingReceiver#receive(int) receive} they lie one
 * after another in the receiver's native output region ({@link #region()}); after
 * {@link DecompressingReceiver#receiveInto receiveInto} the payload parts lie one after another
 * in the caller's destination from offset 0, the envelope parts in the region.
 * {@link #segment(int)} names the segment of each part. One object per receiver, re-pointed by
 * every receive: it allocates nothing.
 *
 * <p>Lifetime: everything here (and every segment {@link #part(int)} or {@link #region()}
 * returned) is valid until the receiver's next {@code receive} or {@code close}, and belongs to
 * the receiver. The accessors check that: after a receive that did not return
 * {@link DecompressingReceiver#RECEIVED}, or after close, they throw
 * {@link IllegalStateException}. A segment kept past that is checked only partly: one kept
 * across a receive that had to grow the region, or across close, throws on access; one kept
 * across a receive that reused the region <b>silently shows the later message's bytes</b>
 * (checking that would cost an arena per message). Copy ({@link #partBytes}) what must outlive
 * the next receive. Payload parts in a caller's destination stay there until the caller
 * overwrites them; only this view of them ends.
 *
 * <p>Threading: the receiver's thread only.
 */
public final class ReceivedMessage {

    private final DecompressingReceiver receiver;
    private MemorySegment region;
    /** The caller's destination for payload parts (receiveInto), or null: everything is in the region. */
    private MemorySegment destination;
    private long[] offsets = new long[4];
    private long[] sizes = new long[4];
    private boolean[] compressed = new boolean[4];
    private int parts;
    private long sequence;
    private boolean valid;

    ReceivedMessage(DecompressingReceiver receiver) {
        this.receiver = receiver;
    }

    /**
     * Number of parts, envelope parts included.
     *
     * @return the number of parts, at least 1
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public int parts() {
        checkValid();
        return parts;
    }

    /**
     * Part {@code i}: the decompressed payload, or the envelope bytes as received. A slice of
     * {@link #segment(int)} (allocates one small segment object; zero-allocation readers use
     * {@link #segment(int)}, {@link #partOffset} and {@link #partSize}). Valid until the next
     * receive; kept longer, see the class comment.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return a slice of {@link #segment(int)} of {@link #partSize(int)} bytes
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public MemorySegment part(int i) {
        checkIndex(i);
        return segment(i).asSlice(offsets[i], sizes[i]);
    }

    /**
     * The segment part {@code i} lies in, at {@link #partOffset} for {@link #partSize} bytes: the
     * caller's destination for a payload part received by {@code receiveInto} (the very object
     * passed in), {@link #region()} otherwise. Allocation-free.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the caller's destination (the object passed to {@code receiveInto}) or
     *     {@link #region()}
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public MemorySegment segment(int i) {
        checkIndex(i);
        return destination != null && compressed[i] ? destination : region;
    }

    /**
     * Where part {@code i} starts in {@link #segment(int)}.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the offset in {@link #segment(int)}, in bytes
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public long partOffset(int i) {
        checkIndex(i);
        return offsets[i];
    }

    /**
     * Bytes in part {@code i} (after decompression).
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the size in bytes, 0 or more
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public long partSize(int i) {
        checkIndex(i);
        return sizes[i];
    }

    /**
     * True when part {@code i} arrived as a zstd frame; false for envelope parts.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return true for a payload part (decompressed), false for an envelope part
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public boolean isCompressed(int i) {
        checkIndex(i);
        return compressed[i];
    }

    /**
     * A copy of part {@code i} in a new array that the caller owns (allocates).
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the part's bytes
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed,
     *     or the part is too large for a {@code byte[]} (over {@code Integer.MAX_VALUE - 8}
     *     bytes, the JVM's limit): the message names the part and its size, and the message stays
     *     readable through {@link #part(int)} and {@link #segment(int)}
     */
    public byte[] partBytes(int i) {
        long size = partSize(i);
        if (size > JavaArrays.MAX_LENGTH) {
            throw new IllegalStateException("part too large for a byte[]: part=" + i + ", size=" + size + ", max="
                    + JavaArrays.MAX_LENGTH + " (read it through part(i) or segment(i))");
        }
        byte[] out = new byte[(int) size];
        MemorySegment.copy(segment(i), ValueLayout.JAVA_BYTE, offsets[i], out, 0, out.length);
        return out;
    }

    /**
     * Sum of all parts' sizes.
     *
     * @return the sum in bytes, envelope parts included
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public long totalSize() {
        checkValid();
        long n = 0;
        for (int i = 0; i < parts; i++) {
            n += sizes[i];
        }
        return n;
    }

    /**
     * The receiver's whole output region: after {@code receive} every part lies there at
     * {@link #partOffset} for {@link #partSize}; after {@code receiveInto} the envelope parts
     * only (see {@link #segment(int)}). The same segment object from message to message until
     * the region grows. Valid until the next receive or close.
     *
     * @return the receiver's output region
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public MemorySegment region() {
        checkValid();
        return region;
    }

    /**
     * 1 for the first message this receiver delivered, then 2, 3, ...: tells messages apart.
     *
     * @return the message's number, from 1
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed
     */
    public long sequence() {
        checkValid();
        return sequence;
    }

    /**
     * True when this view describes a delivered message (the last receive returned RECEIVED).
     *
     * @return whether the accessors may be called; false after close
     */
    public boolean isValid() {
        return valid;
    }

    // ---- filled by the receiver ----

    void begin(MemorySegment region, MemorySegment destination) {
        this.region = region;
        this.destination = destination;
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
        // close() invalidates the view under the receiver's owner check, so one flag answers both;
        // the receiver is consulted only to say which
        if (!valid) {
            throw new IllegalStateException(receiver.isClosed() ? "receiver is closed: message views ended"
                    : "no message to read: the last receive did not return RECEIVED");
        }
    }

    private void checkIndex(int i) {
        checkValid();
        if (i < 0 || i >= parts) {
            throw new IndexOutOfBoundsException("part index out of range: index=" + i + ", parts=" + parts);
        }
    }
}

package io.zmqzstd.pipeline;

import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.JavaArrays;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p>Threading: one thread at a time, as the receiver. The region lies in a shared arena (a
 * receiver may change threads), so FFM refuses no thread: a thread the receiver, or the view, was
 * handed to with a happens-before edge after a receive reads that message as the receiving thread
 * does. A read that overlaps a receive on another thread (two threads at once) is refused: each
 * accessor throws {@link IllegalStateException} naming both threads ("message view read while
 * another thread receives: thread=…, receiving=…") when a receive is in progress as it starts or
 * begins before it returns ({@link #partBytes}: up to the end of its copy); what an accessor
 * returns otherwise is the last delivered message's, whole. A segment it returned is not checked
 * when read later: it ends or shows the next message's bytes as said above. (Until 2026-11-29 such
 * a read passed the validity check, then found the part count the next receive had just reset and
 * threw {@code IndexOutOfBoundsException} "part index out of range: index=0, parts=0", or said that
 * the last receive did not return {@code RECEIVED}, or copied a part torn between two messages.)
 * Checking costs each accessor two reads of a version the receiver moves twice per receive; no
 * allocation.
 *
 * <p>The failed envelope: a second view per receiver, {@link DecompressingReceiver#failedEnvelope()},
 * holds the envelope parts of a message the last receive refused ({@code BAD_FRAME}), for an error
 * reply. Its accessors answer as these do while no receive has come after that one, and throw
 * {@link IllegalStateException} ("no failed envelope to read: …", "receiver is closed: …") after;
 * every one of its parts is an envelope part ({@link #isCompressed(int)} false), and its
 * {@link #sequence()} is 0.
 */
public final class ReceivedMessage {

    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(ReceivedMessage.class, "version", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final DecompressingReceiver receiver;
    /**
     * For the receiver's failed-envelope view ({@link DecompressingReceiver#failedEnvelope()}): the
     * receiver's message view, whose version every receive moves; null for that message view itself.
     * The failed envelope holds while that version is the one its BAD_FRAME receive ended with, so
     * that no receive has to touch this view to end it: only a refusal writes it.
     */
    private final ReceivedMessage envelopeOf;
    /** The failed envelope's: the message view's version after the BAD_FRAME receive that filled it; -1 for none. */
    private int badFrameVersion = -1;
    /** The failed envelope's: the message view's sequence then (with the version, it tells a later receive apart). */
    private long badFrameSequence;
    /**
     * Odd while the receiver rewrites the view (from {@link #beginWrite} to {@link #endWrite}),
     * even otherwise: a sequence lock, so that a read on another thread that overlaps a receive is
     * told apart from one that does not, without a lock or an allocation on either side.
     */
    @SuppressWarnings("unused") // through VERSION
    private int version;
    /** The thread in the receive that rewrites the view, for the messages; written before the version turns odd. */
    private Thread writer;
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
        this(receiver, null);
    }

    /** The failed-envelope view of {@code receiver}, whose message view is {@code envelopeOf}. */
    ReceivedMessage(DecompressingReceiver receiver, ReceivedMessage envelopeOf) {
        this.receiver = receiver;
        this.envelopeOf = envelopeOf;
    }

    /**
     * Number of parts, envelope parts included.
     *
     * @return the number of parts, at least 1
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public int parts() {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        readEnd(v, ok);
        return n;
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
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public MemorySegment part(int i) {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        MemorySegment in = segmentOf(i, n);
        long offset = at(offsets, i, n);
        long size = at(sizes, i, n);
        readEnd(v, ok, i, n);
        return in.asSlice(offset, size);
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
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public MemorySegment segment(int i) {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        MemorySegment in = segmentOf(i, n);
        readEnd(v, ok, i, n);
        return in;
    }

    /**
     * Where part {@code i} starts in {@link #segment(int)}.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the offset in {@link #segment(int)}, in bytes
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public long partOffset(int i) {
        return partField(false, i);
    }

    /**
     * Bytes in part {@code i} (after decompression).
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the size in bytes, 0 or more
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public long partSize(int i) {
        return partField(true, i);
    }

    /**
     * True when part {@code i} arrived as a zstd frame; false for envelope parts.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return true for a payload part (decompressed), false for an envelope part
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public boolean isCompressed(int i) {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        boolean[] c = compressed;
        boolean answer = i >= 0 && i < n && i < c.length && c[i];
        readEnd(v, ok, i, n);
        return answer;
    }

    /**
     * A copy of part {@code i} in a new array that the caller owns (allocates). On another thread
     * than the receiving one it is the part whole, or refused naming both threads when a receive
     * began before or during the copy.
     *
     * @param i the part's index, 0 to {@code parts() - 1}, envelope parts included
     * @return the part's bytes
     * @throws IndexOutOfBoundsException when {@code i} is not in {@code [0, parts())}
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call,
     *     or the part is too large for a {@code byte[]} (over {@code Integer.MAX_VALUE - 8}
     *     bytes, the JVM's limit): the message names the part and its size, and the message stays
     *     readable through {@link #part(int)} and {@link #segment(int)}
     */
    public byte[] partBytes(int i) {
        int v = readBegin(); // before part(i)'s own: a receive from here to the copy's end is refused
        MemorySegment part = part(i);
        long size = part.byteSize();
        if (size > JavaArrays.MAX_LENGTH) {
            throw new IllegalStateException("part too large for a byte[]: part=" + i + ", size=" + size + ", max="
                    + JavaArrays.MAX_LENGTH + " (read it through part(i) or segment(i))");
        }
        byte[] out = new byte[(int) size];
        try {
            MemorySegment.copy(part, ValueLayout.JAVA_BYTE, 0, out, 0, out.length);
        } catch (IllegalStateException e) {
            readEnd(v); // a receive on another thread that grew the region closed it under the copy: say so
            throw e;
        }
        readEnd(v); // a receive on another thread that began during the copy may have torn it
        if (envelopeOf != null) {
            checkValid(false); // a failed envelope's receive is the message view's: one that began during the copy
        }
        return out;
    }

    /**
     * Sum of all parts' sizes.
     *
     * @return the sum in bytes, envelope parts included
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public long totalSize() {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        long[] s = sizes;
        long total = 0;
        for (int k = 0; k < n && k < s.length; k++) {
            total += s[k];
        }
        readEnd(v, ok);
        return total;
    }

    /**
     * The receiver's whole output region: after {@code receive} every part lies there at
     * {@link #partOffset} for {@link #partSize}; after {@code receiveInto} the envelope parts
     * only (see {@link #segment(int)}). The same segment object from message to message until
     * the region grows. Valid until the next receive or close.
     *
     * @return the receiver's output region
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public MemorySegment region() {
        int v = readBegin();
        boolean ok = valid;
        MemorySegment r = region;
        readEnd(v, ok);
        return r;
    }

    /**
     * 1 for the first message this receiver delivered, then 2, 3, ...: tells messages apart.
     *
     * @return the message's number, from 1
     * @throws IllegalStateException when the last receive did not return
     *     {@link DecompressingReceiver#RECEIVED}, or the receiver is closed, or (named) a receive
     *     on another thread overlaps the call
     */
    public long sequence() {
        int v = readBegin();
        boolean ok = valid;
        long s = sequence;
        readEnd(v, ok);
        return s;
    }

    /**
     * True when this view describes a delivered message (the last receive returned RECEIVED).
     * Never throws: on another thread, false while a receive there rewrites the view.
     *
     * @return whether the accessors may be called; false after close
     */
    public boolean isValid() {
        int v = (int) VERSION.getAcquire(this);
        boolean ok = valid;
        VarHandle.acquireFence();
        return (ok || failedEnvelopeHolds()) && (v & 1) == 0 && (int) VERSION.getAcquire(this) == v;
    }

    // ---- filled by the receiver ----

    /**
     * A receive starts rewriting the view: a read on another thread is refused from now until
     * {@link #end()}. The receiver calls {@link #end()} in a {@code finally}.
     */
    void begin(MemorySegment region, MemorySegment destination) {
        beginWrite();
        this.region = region;
        this.destination = destination;
        this.parts = 0;
        this.valid = false;
    }

    /** The receive that {@link #begin} began is over, whatever it returned or threw. */
    void end() {
        VERSION.setRelease(this, version + 1);
    }

    /** The receiver's close: no message any more, refused as such on every thread. */
    void close() {
        beginWrite();
        invalidate();
        end();
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

    /**
     * The payload parts laid out in the destination so far were copied into the region at
     * {@code shift} (a receiveInto whose destination failed goes on in the region): they are read
     * there now. Failure path only.
     */
    void payloadMoved(long shift) {
        for (int i = 0; i < parts; i++) {
            if (compressed[i]) {
                offsets[i] += shift;
            }
        }
        destination = null;
    }

    /**
     * Copies of every part laid out so far, all in the region (after {@link #payloadMoved}), for a
     * message handed back to the caller in an exception that says {@code why}. Failure path only:
     * allocates the copies.
     */
    UndeliveredMessageException undelivered(UndeliveredMessageException.Reason reason, String why, Throwable cause) {
        int n = parts;
        byte[][] bytes = new byte[n][];
        for (int i = 0; i < n; i++) {
            bytes[i] = sizes[i] > JavaArrays.MAX_LENGTH ? null
                    : region.asSlice(offsets[i], sizes[i]).toArray(ValueLayout.JAVA_BYTE);
        }
        return new UndeliveredMessageException(reason, why, bytes, Arrays.copyOf(sizes, n), Arrays.copyOf(compressed, n), cause);
    }

    int partCount() {
        return parts;
    }

    void complete() {
        sequence++;
        valid = true;
    }

    /** Turns the version odd before any field changes: the writer first, for the messages. */
    private void beginWrite() {
        writer = Thread.currentThread();
        VERSION.setRelease(this, version + 1);
        VarHandle.storeStoreFence(); // the odd version is seen before any field written after it
    }

    /** Starts a read: the version, refused at once while a receive on another thread rewrites the view. */
    private int readBegin() {
        int v = (int) VERSION.getAcquire(this);
        if ((v & 1) != 0) {
            throw overlapped();
        }
        return v;
    }

    /** Ends a read begun at {@code v}: refused when a receive began since, whatever was read meanwhile. */
    private void readEnd(int v) {
        VarHandle.acquireFence(); // the reads before stay before the version's
        if ((int) VERSION.getAcquire(this) != v) {
            throw overlapped();
        }
    }

    /** {@link #readEnd(int)}, then the view's validity as read ({@code ok}). */
    private void readEnd(int v, boolean ok) {
        readEnd(v);
        checkValid(ok);
    }

    /** {@link #readEnd(int, boolean)}, then index {@code i} against the {@code n} parts read. */
    private void readEnd(int v, boolean ok, int i, int n) {
        readEnd(v, ok);
        if (i < 0 || i >= n) {
            throw partIndexOutOfRange(i, n);
        }
    }

    /**
     * The refusal of part index {@code i} of a message of {@code n} parts, in the words every part
     * accessor uses, this view's and {@link UndeliveredMessageException}'s. Failure path only.
     */
    static IndexOutOfBoundsException partIndexOutOfRange(int i, int n) {
        return new IndexOutOfBoundsException("part index out of range: index=" + i + ", parts=" + n);
    }

    private IllegalStateException overlapped() {
        Thread w = writer;
        return new IllegalStateException("message view read while another thread receives: thread="
                + CallGuard.nameOf(Thread.currentThread()) + ", receiving=" + (w == null ? "unknown" : CallGuard.nameOf(w))
                + " (use the view from one thread at a time: read it on the receiving thread, or hand it over"
                + " with a happens-before edge after the receive)");
    }

    /** {@code a[i]}, or 0 outside the parts or the array: an overlapped read is refused after, not here. */
    private static long at(long[] a, int i, int n) {
        return i >= 0 && i < n && i < a.length ? a[i] : 0;
    }

    /** The segment part {@code i} of {@code n} lies in, read as {@link #at} reads. */
    private MemorySegment segmentOf(int i, int n) {
        boolean[] c = compressed;
        MemorySegment d = destination;
        return d != null && i >= 0 && i < n && i < c.length && c[i] ? d : region;
    }

    /**
     * Part {@code i}'s size or offset, checked: the body of {@link #partSize} and
     * {@link #partOffset}. The array is read after the version, as every field is: a receive may
     * replace it.
     */
    private long partField(boolean size, int i) {
        int v = readBegin();
        boolean ok = valid;
        int n = parts;
        long value = at(size ? sizes : offsets, i, n);
        readEnd(v, ok, i, n);
        return value;
    }

    private void checkValid(boolean ok) {
        // close() invalidates the view under the receiver's owner check, so one flag answers both;
        // the receiver is consulted only to say which. A failed envelope's flag is always false: it
        // is asked here, off the message view's path, whether the receive that filled it is the last
        if (!ok && !failedEnvelopeHolds()) {
            throw new IllegalStateException(receiver.isClosed() ? "receiver is closed: message views ended"
                    : envelopeOf == null ? "no message to read: the last receive did not return RECEIVED"
                    : "no failed envelope to read: the last receive did not return BAD_FRAME for a message whose"
                    + " envelope arrived whole (the view of a failed message's envelope ends at the next receive)");
        }
    }

    /**
     * For the failed-envelope view: whether the receive that filled it (a BAD_FRAME with the
     * envelope whole) is the receiver's last, none having begun since. Read after the fields, as a
     * sequence lock's end: a receive that began meanwhile moved the message view's version. False
     * for the message view itself.
     */
    private boolean failedEnvelopeHolds() {
        if (envelopeOf == null || parts == 0) {
            return false;
        }
        VarHandle.acquireFence();
        return heldByLastReceive();
    }

    // ---- the failed envelope: written on the refusal path only ----

    /**
     * Failure path, inside the receive that refuses a part of {@code m} (this being its receiver's
     * failed-envelope view): holds the leading uncompressed parts among the first {@code before}
     * parts {@code m} laid out, where they lie in the region (the envelope is copied there first,
     * and nothing later in the message is written below it, nor moved when the region grows), until
     * the next receive. {@code before} 0 holds none: the envelope was not received whole. The
     * message view's arrays are shared, not copied: the next receive, which rewrites them, ends this
     * view. No allocation.
     */
    void holdEnvelope(ReceivedMessage m, int before) {
        beginWrite();
        int k = 0;
        while (k < before && k < m.parts && !m.compressed[k]) {
            k++;
        }
        region = m.region;
        destination = null;
        offsets = m.offsets;
        sizes = m.sizes;
        compressed = m.compressed;
        parts = k;
        badFrameVersion = m.version + 1; // what the receive's end() makes it
        badFrameSequence = m.sequence;
        end();
    }

    /** Failure path: the receive that refused a part threw after all; nothing is held. */
    void releaseEnvelope() {
        beginWrite();
        parts = 0;
        badFrameVersion = -1;
        end();
    }

    /**
     * Whether the last receive of this failed-envelope view's receiver returned BAD_FRAME, and
     * this view then holds its envelope parts (as many as {@link #partCount()}: 0 when the
     * envelope was not received whole). On the receiving thread.
     */
    boolean heldByLastReceive() {
        return (int) VERSION.getAcquire(envelopeOf) == badFrameVersion && envelopeOf.sequence == badFrameSequence;
    }

}

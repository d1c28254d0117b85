package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.zmqzstd.nativelib.internal.MemoryFaults;
import io.zmqzstd.nativelib.internal.RawSegments;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Bounds and liveness checks before a segment's raw address is handed to C, and the error for a
 * file mapping that faulted under a Java copy.
 */
final class Segments {

    /**
     * The stride of {@link #readFaults}: the smallest page size of the platforms the JDK runs on,
     * so that a read every this many bytes touches every page whatever the page size.
     */
    private static final long PROBE_STRIDE_BYTES = 4096;

    /**
     * The name {@link #address} and {@link #checkUsable(MemorySegment, MemorySegment)} give a
     * segment they refuse: they check either side and take no name, so that the success path
     * passes nothing more. The public method's catch names the side ({@link #named}).
     */
    private static final String UNNAMED = "segment";

    private Segments() {
    }

    /**
     * The raw address of {@code segment[offset, offset + length)}, after checking the range, that
     * the segment's arena is still open, and that this thread may use it. Allocation free. The
     * caller keeps {@code segment} reachable until the native call returns
     * ({@code Reference.reachabilityFence}).
     *
     * <p>The thread check is FFM's own: a segment of another thread's confined arena is refused
     * with {@link WrongThreadException}, as any access to it from here would be. Passed to C by
     * raw address it would otherwise be read while its owner may close the arena and free it.
     */
    static long address(MemorySegment segment, long offset, long length) {
        check(segment, offset, length);
        checkUsable(segment);
        return segment.address() + offset;
    }

    /**
     * The checks {@link #address} makes, for two segments copied in Java instead (file mappings):
     * a closed or other thread's one is refused before any work, as one given by address is,
     * not by the copy after libzstd has run.
     */
    static void checkUsable(MemorySegment src, MemorySegment dst) {
        checkUsable(src);
        checkUsable(dst);
    }

    /** The liveness and thread checks of {@link #address} alone, for one segment. */
    static void checkUsable(MemorySegment segment) {
        RawSegments.checkUsable(segment, UNNAMED);
    }

    /** Refuses a segment zstd would write through its raw address if it is read-only, as FFM's own writes do. */
    static void checkWritable(MemorySegment segment) {
        RawSegments.checkWritable(segment, "destination segment");
    }

    /**
     * Refuses a source range that shares memory with a destination range: zstd reads its input
     * while it writes its output, and the heap paths copy block by block, so an overlap made a
     * compressed frame that decoded to other bytes without an error, a raw frame whose header
     * overwrote its payload, and decompressions that blamed a sound frame ("frame content longer
     * than its header declares"). Allocation free unless the two segments are over the same array
     * (native ranges are compared by address; heap ones only when they share an array).
     */
    static void checkDisjoint(MemorySegment src, long srcOffset, long srcLength,
                              MemorySegment dst, long dstOffset, long dstLength) {
        if (srcLength == 0 || dstLength == 0 || src.isNative() != dst.isNative()) {
            return;
        }
        if (!src.isNative() && src.asOverlappingSlice(dst).isEmpty()) {
            return; // different arrays
        }
        long s = src.address() + srcOffset;
        long d = dst.address() + dstOffset;
        if (s < d + dstLength && d < s + srcLength) {
            // a range outside its segment, or a segment no longer alive, is that error first: a
            // closed arena's memory handed out again for the destination overlaps it by address
            address(src, srcOffset, srcLength);
            address(dst, dstOffset, dstLength);
            throw new IllegalArgumentException("source and destination overlap: src=[" + srcOffset + ", +" + srcLength
                    + "), dst=[" + dstOffset + ", +" + dstLength + "), " + (d - s) + " bytes apart"
                    + " (zstd reads the source while it writes the destination: use separate memory)");
        }
    }

    /**
     * The error of a segment refused where its side is not known, named as {@code name}:
     * FFM's own {@link IllegalStateException} from a Java read or write of a segment whose arena is
     * closed says only "Already closed", naming nothing (a caller may take it for a closed
     * compressor or decompressor), and its {@link WrongThreadException} from one confined to another
     * thread only "Attempted access outside owning thread"; {@link #address} and
     * {@link #checkUsable(MemorySegment)}, which check either side, say "segment …". Each becomes the
     * error a segment passed by address gets ({@link RawSegments#checkUsable}, "… is no longer alive:
     * its arena is closed", "… is confined to another thread than …"), of the same type, with
     * {@code e} as its cause. {@code e} itself when {@code segment} is not refused that way (the
     * error is another's: the other segment's, a closed compressor's) or when {@code e} names its
     * segment already. Error path only: a catch on a public method's existing {@code try}, so the
     * calls that read a segment in Java, or check one before giving its address to libzstd, pay
     * nothing for a name.
     */
    static RuntimeException named(RuntimeException e, MemorySegment segment, String name) {
        boolean confined = e instanceof WrongThreadException;
        boolean refused = segment.scope().isAlive()
                ? confined && !segment.isAccessibleBy(Thread.currentThread())
                : !confined;
        String message = e.getMessage();
        if (!refused || message != null && !message.startsWith(UNNAMED + " ")
                && (message.endsWith(RawSegments.NOT_ALIVE) || message.contains(RawSegments.CONFINED))) {
            return e; // another's error, or one that names its segment already
        }
        try {
            RawSegments.checkUsable(segment, name);
        } catch (IllegalStateException | WrongThreadException named) {
            named.initCause(e);
            return named;
        }
        return e;
    }

    static void check(MemorySegment segment, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
    }

    /**
     * The range error of a call over {@code src} and {@code dst} that says which side is wrong,
     * with its offset, length and the segment's size ("source range out of bounds: srcOffset=-1,
     * srcLength=10, byteSize=100", both sides when both are), {@code e} as its cause: the JDK's
     * own words ("Range [-1, -1 + 10) out of bounds for length 100", or FFM's from a copy into the
     * scratch memory) name neither. {@code e} itself when both ranges are within their segments
     * (the error is another's). Error path only: a catch on the public method's {@code try}; every
     * call checks its ranges with {@link #check} as before.
     *
     * @param srcName what the source is, for the message ("source", "frame")
     */
    static IndexOutOfBoundsException namedRange(IndexOutOfBoundsException e, String srcName,
                                                MemorySegment src, long srcOffset, long srcLength,
                                                MemorySegment dst, long dstOffset, long dstCapacity) {
        return namedRange(e, srcName, srcOffset, srcLength, src.byteSize(), dstOffset, dstCapacity, dst.byteSize());
    }

    /**
     * {@link #namedRange(IndexOutOfBoundsException, String, MemorySegment, long, long, MemorySegment,
     * long, long)} by the sizes of the source and destination, for a source in an array.
     */
    static IndexOutOfBoundsException namedRange(IndexOutOfBoundsException e, String srcName,
                                                long srcOffset, long srcLength, long srcSize,
                                                long dstOffset, long dstCapacity, long dstSize) {
        String srcError = rangeError(srcName, "srcOffset", srcOffset, "srcLength", srcLength, srcSize);
        String dstError = rangeError("destination", "dstOffset", dstOffset, "dstCapacity", dstCapacity, dstSize);
        return named(e, srcError == null ? dstError : dstError == null ? srcError : srcError + "; " + dstError);
    }

    /**
     * The range error of a call over one segment, {@code name}d ("frame range out of bounds:
     * offset=-1, length=10, byteSize=100"), as {@link #namedRange(IndexOutOfBoundsException,
     * String, MemorySegment, long, long, MemorySegment, long, long)} names each side.
     */
    static IndexOutOfBoundsException namedRange(IndexOutOfBoundsException e, String name,
                                                MemorySegment segment, long offset, long length) {
        return named(e, rangeError(name, "offset", offset, "length", length, segment.byteSize()));
    }

    /** {@code e} itself when {@code message} is null (no range was out), else a new error with it, {@code e} as its cause. */
    private static IndexOutOfBoundsException named(IndexOutOfBoundsException e, String message) {
        if (message == null) {
            return e;
        }
        IndexOutOfBoundsException named = new IndexOutOfBoundsException(message);
        named.initCause(e);
        return named;
    }

    /** What is wrong with {@code [offset, offset + length)} of {@code size} bytes, or null when it is within them. */
    private static String rangeError(String name, String offsetName, long offset, String lengthName, long length, long size) {
        if ((offset | length) >= 0 && length <= size - offset) {
            return null; // as Objects.checkFromIndexSize, which check uses
        }
        return name + " range out of bounds: " + offsetName + "=" + offset + ", " + lengthName + "=" + length
                + ", byteSize=" + size;
    }

    /**
     * The error for a fault a Java copy met in a call over {@code src} and {@code dst} at least one
     * of which is a file mapping ({@link MemorySegment#isMapped()}): a page past the end of a file
     * shortened since it was mapped, which the JDK reports as {@code e}. The codec never hands a
     * mapping to libzstd by address (its SIGBUS there ends the process); it copies it through its
     * scratch memory in Java, so the fault is in whichever of the two is mapped, and when both are,
     * in {@code src} exactly when a read of it faults again ({@link #readFaults}: error path only).
     *
     * @param consequence what became of the call's output, for the message
     */
    static IllegalStateException fault(InternalError e, MemorySegment src, long srcOffset, long srcLength,
                                       MemorySegment dst, long dstOffset, long dstLength, String consequence) {
        boolean inSource = !dst.isMapped() || (src.isMapped() && readFaults(src, srcOffset, srcLength));
        return inSource ? MemoryFaults.unreadable("src", src, srcOffset, srcLength, consequence, e)
                : MemoryFaults.unwritable("dst", dst, dstOffset, dstLength, consequence, e);
    }

    /**
     * Whether a Java read of {@code segment[offset, offset + length)} faults: one byte per
     * {@value #PROBE_STRIDE_BYTES} bytes and the last, stopping at the first fault. Error path
     * only: it reads, and may page in, every page of the range before the fault.
     */
    static boolean readFaults(MemorySegment segment, long offset, long length) {
        try {
            for (long p = 0; p < length; p += PROBE_STRIDE_BYTES) {
                byte ignored = segment.get(JAVA_BYTE, offset + p);
            }
            if (length > 0) {
                byte ignored = segment.get(JAVA_BYTE, offset + length - 1);
            }
            return false;
        } catch (InternalError e) {
            return true;
        }
    }

    /**
     * Whether libzstd may be given {@code segment} by address: native memory that is not a file
     * mapping (a page past the end of a file shortened since it was mapped would raise SIGBUS in
     * libzstd, where a Java copy reports it). Heap memory and mappings go through the owner's
     * scratch memory instead.
     */
    static boolean byAddress(MemorySegment segment) {
        return segment.isNative() && !segment.isMapped();
    }
}

package io.zmqzstd.codec;

import io.zmqzstd.nativelib.internal.RawSegments;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Bounds and liveness checks before a segment's raw address is handed to C. */
final class Segments {

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
        RawSegments.checkUsable(segment, "segment");
        return segment.address() + offset;
    }

    /** Refuses a segment zstd would write through its raw address if it is read-only, as FFM's own writes do. */
    static void checkWritable(MemorySegment segment) {
        RawSegments.checkWritable(segment, "destination segment");
    }

    static void check(MemorySegment segment, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
    }

    /** True when both can be passed to C by raw address. */
    static boolean bothNative(MemorySegment a, MemorySegment b) {
        return a.isNative() && b.isNative();
    }
}

package io.zmqzstd.codec;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Bounds and liveness checks before a segment's raw address is handed to C. */
final class Segments {

    private Segments() {
    }

    /**
     * The raw address of {@code segment[offset, offset + length)}, after checking the range and
     * that the segment's arena is still open. Allocation free. The caller keeps {@code segment}
     * reachable until the native call returns ({@code Reference.reachabilityFence}).
     */
    static long address(MemorySegment segment, long offset, long length) {
        check(segment, offset, length);
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("segment's arena is closed");
        }
        return segment.address() + offset;
    }

    /** Refuses a segment zstd would write through its raw address if it is read-only, as FFM's own writes do. */
    static void checkWritable(MemorySegment segment) {
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException("destination segment is read-only");
        }
    }

    static void check(MemorySegment segment, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
    }

    /** True when both can be passed to C by raw address. */
    static boolean bothNative(MemorySegment a, MemorySegment b) {
        return a.isNative() && b.isNative();
    }
}

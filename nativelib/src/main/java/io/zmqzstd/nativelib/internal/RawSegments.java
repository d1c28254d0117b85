package io.zmqzstd.nativelib.internal;

import java.lang.foreign.MemorySegment;

/**
 * The checks FFM makes on every access of a segment, made once by code that passes the segment to
 * C by its raw address and so bypasses them: codec, transport and pipeline share these. Not API.
 * Allocation free unless they throw.
 */
public final class RawSegments {

    private RawSegments() {
    }

    /** How {@link #checkUsable} ends its message for a segment whose arena is closed, after the name. */
    public static final String NOT_ALIVE = " is no longer alive: its arena is closed";

    /** What {@link #checkUsable} says of a segment confined to another thread, after the name and before this thread's. */
    public static final String CONFINED = " is confined to another thread than ";

    /**
     * Throws unless C may use {@code segment} during a call from this thread: its arena open
     * ({@link IllegalStateException}), and not confined to another thread
     * ({@link WrongThreadException}), whose owner could close the arena and free the memory
     * mid-call.
     *
     * @param segment the segment about to be passed by address
     * @param name what it is, for the message (e.g. {@code "dst"})
     */
    public static void checkUsable(MemorySegment segment, String name) {
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException(name + NOT_ALIVE);
        }
        if (!segment.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException(name + CONFINED + CallGuard.nameOf(Thread.currentThread()));
        }
    }

    /**
     * Throws {@link IllegalArgumentException} when C would write through the address of a
     * read-only {@code segment} ({@code asReadOnly()}, a {@code READ_ONLY} mapping), as FFM's own
     * writes refuse it.
     *
     * @param segment the segment C is about to write
     * @param name what it is, for the message
     */
    public static void checkWritable(MemorySegment segment, String name) {
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException(name + " is read-only: byteSize=" + segment.byteSize());
        }
    }
}

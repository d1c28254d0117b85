package io.zmqzstd.nativelib.internal;

import java.lang.foreign.MemorySegment;

/**
 * The errors for a fault in a caller's memory during a Java copy: the JDK reports the SIGBUS of a
 * mapping's page past the end of a file shortened since it was mapped as an {@link InternalError}
 * ("a fault occurred in an unsafe memory access operation"), which names neither the segment nor
 * the cause. These say which segment, which bytes, what became of the frame, and keep the JDK's
 * error as the cause. Shared by the transport's copies and the pipeline's parallel sender, so that
 * every such error reads alike. Not API.
 */
public final class MemoryFaults {

    private MemoryFaults() {
    }

    /**
     * The text shared by every such error.
     *
     * @param name the parameter's name ({@code data}, {@code src}, {@code dst})
     * @param verb {@code "read"} or {@code "written"}
     */
    public static String describe(String name, String verb, MemorySegment segment, long offset, long length) {
        return name + " could not be " + verb + ": a fault in its memory (a mapped file shortened since it was mapped?): offset="
                + offset + ", length=" + length + ", mapped=" + segment.isMapped();
    }

    /** A segment the call could not read; {@code consequence} says what became of the frame or message. */
    public static IllegalStateException unreadable(String name, MemorySegment segment, long offset, long length, String consequence,
            InternalError cause) {
        return new IllegalStateException(describe(name, "read", segment, offset, length) + " (" + consequence + ")", cause);
    }

    /** A segment the call could not write; {@code consequence} says what became of the frame. */
    public static IllegalStateException unwritable(String name, MemorySegment segment, long offset, long length, String consequence,
            InternalError cause) {
        return new IllegalStateException(describe(name, "written", segment, offset, length) + " (" + consequence + ")", cause);
    }
}

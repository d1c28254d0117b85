package io.zmqzstd.pipeline;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Where a sender reads a payload given as a {@code byte[]} or a {@code ByteBuffer}, without a heap
 * object per call: a {@code MemorySegment.ofArray} or {@code ofBuffer} per call cost 72 B that the
 * JIT did not remove (before 2026-11-27). One per sender: {@link #send} hands the bytes from the
 * buffer's position to its limit (neither is changed) to the sender's own send of an array or a
 * segment range. The sender calls it only past its owner check (the view is not thread-safe) and
 * only while open (so that a closed sender refers to no buffer):
 * <ul>
 * <li>a buffer whose array is accessible ({@code hasArray()}: a heap buffer, not read-only):
 *     its array from {@code arrayOffset() + position()}, read as an array payload is;</li>
 * <li>a direct buffer: from {@code position()} in a segment over the buffer's
 *     whole capacity made the first time that buffer (by identity) comes and reused while the
 *     same buffer keeps coming: a direct buffer's address and capacity never change. The view so
 *     keeps a reference to the last direct buffer until another one comes or the sender is
 *     closed ({@link #clear}). A sender that alternates between direct buffers makes a segment
 *     (and a duplicate of the buffer) at each change;</li>
 * <li>a read-only heap buffer, whose array is not accessible: {@code MemorySegment.ofBuffer},
 *     one small heap object per call.</li>
 * </ul>
 */
final class BufferPayload {

    /** A sender's send of {@code array[offset, offset + length)}, or when it is null of {@code segment}'s. */
    interface Sink {
        boolean send(byte[] array, MemorySegment segment, long offset, long length, int flags);
    }

    private final Sink sink;
    /** The last direct buffer seen, and a segment over all of its capacity. */
    private ByteBuffer direct;
    private MemorySegment directSegment;

    /** A view that hands each payload to {@code sink}, made once per sender. */
    BufferPayload(Sink sink) {
        this.sink = sink;
    }

    /** Sends {@code buffer}'s bytes from its position to its limit through the sink, and returns what it returned. */
    boolean send(ByteBuffer buffer, int flags) {
        int position = buffer.position();
        int length = buffer.limit() - position;
        if (buffer.hasArray()) {
            return sink.send(buffer.array(), null, buffer.arrayOffset() + position, length, flags);
        }
        if (buffer.isDirect()) {
            if (buffer != direct) {
                directSegment = MemorySegment.ofBuffer(buffer.duplicate().clear());
                direct = buffer;
            }
            return sink.send(null, directSegment, position, length, flags);
        }
        // read-only heap buffer: its array is not accessible; the wrapper covers position to limit
        return sink.send(null, MemorySegment.ofBuffer(buffer), 0, length, flags);
    }

    /** Drops the reference to the last direct buffer (the sender's close()). */
    void clear() {
        direct = null;
        directSegment = null;
    }

    /**
     * Copies {@code array[offset, offset + length)} to {@code dst[0, length)}, or when
     * {@code array} is null {@code segment[offset, offset + length)}: an array straight, through
     * no wrapper segment.
     */
    static void copy(byte[] array, MemorySegment segment, long offset, long length, MemorySegment dst) {
        if (array != null) {
            MemorySegment.copy(array, (int) offset, dst, ValueLayout.JAVA_BYTE, 0, (int) length);
        } else {
            MemorySegment.copy(segment, offset, dst, 0, length);
        }
    }
}

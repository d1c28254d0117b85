package io.zmqzstd.transport;

import io.zmqzstd.nativelib.internal.OwnerCleaner;
import io.zmqzstd.transport.internal.LibC;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The memory of one unpooled buffer (a rent above the pool's largest class, or of a class that ran
 * dry): freed as soon as the buffer comes back, not at the next garbage collection.
 *
 * <p>Until 2026-11-29 it came from {@code Arena.ofAuto()}: zeroed by the JDK, so all of it
 * resident, and freed only once the garbage collector found it unreachable; a bulk sender of 256 MiB
 * messages that made little heap garbage grew by 263-267 MB of RSS per message. Now:
 * <ul>
 *   <li>The bytes come from {@code calloc} (zeroed as before; a large block is fresh pages from the
 *   kernel, resident only once written) and are seen through one {@link Arena#ofShared()} of the
 *   buffer's own.</li>
 *   <li>{@link #free()}, when the buffer is returned (its release, or libzmq's free callback),
 *   closes that arena and then frees the bytes. A segment kept past the return then throws
 *   {@link IllegalStateException} on access instead of reading freed memory. The close is a
 *   handshake with every thread (tens to hundreds of microseconds), paid once per unpooled buffer,
 *   never on a pooled one.</li>
 *   <li>The JDK refuses to close an arena while a thread is in an I/O operation or a downcall that
 *   holds one of its segments (a channel read into {@code segment().asByteBuffer()} on another
 *   thread): then nothing is freed, the return says so, and the bytes are freed once nothing
 *   reaches the arena's scope any more. So is a buffer never returned (leaked, or held when its
 *   pool closed): a {@link Cleaner} watches the scope, which every segment and byte buffer over the
 *   memory holds, so the bytes are never freed while anything could still read them; libzmq holds
 *   a buffer only while its pool (reachable from the process-wide table of pools while libzmq holds
 *   any of its buffers) keeps the buffer in its table of unpooled buffers.</li>
 * </ul>
 */
final class UnpooledMemory {

    /** The pool's alignment for every buffer: a cache line. */
    private static final long ALIGNMENT = 64;

    /** The buffer's memory, {@code bytes} long and 64-byte aligned, in {@link #arena}. */
    final MemorySegment segment;
    private final Arena arena;
    private final Cleaner.Cleanable release;

    private UnpooledMemory(MemorySegment segment, Arena arena, Cleaner.Cleanable release) {
        this.segment = segment;
        this.arena = arena;
        this.release = release;
    }

    /**
     * Zeroed memory of {@code bytes}, 64-byte aligned.
     *
     * @throws OutOfMemoryError when the C library cannot give it (its message names the bytes asked)
     */
    static UnpooledMemory allocate(long bytes) {
        if (bytes > Long.MAX_VALUE - ALIGNMENT) {
            throw new OutOfMemoryError("size with alignment overflows: bytes=" + bytes);
        }
        long total = bytes + ALIGNMENT - 1;
        long base = calloc(total);
        if (base == 0) {
            throw new OutOfMemoryError("calloc failed: bytes=" + total);
        }
        FreeBytes freeBytes = new FreeBytes(base);
        try {
            Arena arena = Arena.ofShared();
            long aligned = (base + ALIGNMENT - 1) & -ALIGNMENT;
            MemorySegment segment = MemorySegment.ofAddress(aligned).reinterpret(bytes, arena, null);
            // Watch the scope, not the buffer: a stale segment or a byte buffer over it keeps the
            // scope reachable, and the action holds nothing that reaches it.
            return new UnpooledMemory(segment, arena, OwnerCleaner.CLEANER.register(segment.scope(), freeBytes));
        } catch (Throwable t) {
            freeBytes.run(); // nothing was handed out
            throw t;
        }
    }

    /**
     * Closes the arena and frees the bytes, once: for a returned buffer, on the thread that returns
     * it (the releasing thread, libzmq's I/O thread or an inproc receiver).
     *
     * @return null when the memory is freed; else the JDK's refusal to close the arena (a running
     *     access holds it), and the bytes stay until nothing reaches the scope
     */
    IllegalStateException free() {
        try {
            arena.close();
        } catch (IllegalStateException acquired) {
            return acquired;
        }
        release.clean();
        return null;
    }

    private static long calloc(long bytes) {
        try {
            return (long) LibC.calloc.invokeExact(1L, bytes);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** free(3) of a block: run once, by {@link #free()} or by the cleaner; reaches no Java object. */
    private record FreeBytes(long base) implements Runnable {
        @Override
        public void run() {
            try {
                LibC.free.invokeExact(base);
            } catch (Throwable t) {
                throw LibZmq.rethrow(t);
            }
        }
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.JavaArrays;
import io.zmqzstd.nativelib.internal.MemoryFaults;
import io.zmqzstd.nativelib.internal.RawSegments;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One reusable {@code zmq_msg_t} in native memory: receive into it again and again without
 * allocating.
 *
 * <p>Lifetime of the payload: the frame belongs to libzmq and may point into a shared receive
 * batch. {@link #address()}, {@link #data()} and {@link #size()} describe the current frame
 * only; the next {@link ZmqSocket#receive(ZmqMessage, int) receive}, a
 * {@link ZmqSocket#send(ZmqMessage, int) send} or {@link #close()} ends it. A segment returned by
 * {@link #data()} is scoped to that frame: using it afterwards throws
 * {@link IllegalStateException} instead of reading freed memory. A raw {@link #address()} has the
 * same lifetime and no such guard.
 *
 * <p>Not thread-safe: one thread at a time, handed from thread to thread through a happens-before
 * edge (a queue, a join). The message is not tied to a thread, but a {@link #data()} view is
 * confined to the thread that asked for it (an arena that any thread could close costs hundreds
 * of microseconds per close, a confined one a fraction of one). A view is closed when the frame is
 * replaced on the thread that made it; when another thread replaces the frame or closes the
 * message, it cannot close that view, only drop it: the thread that handed the message over must
 * not use views it made before the hand-over, as it must not use the message itself.
 * A call on the message while another thread is in one is refused: a
 * {@link ZmqSocket#send(ZmqMessage, int) send} or {@link ZmqSocket#receive(ZmqMessage, int) receive}
 * of it (on any socket), {@link #set}, {@link #clear}, {@link #copyFrom} or {@link #moveFrom} (of
 * either message), a read ({@link #size()}, {@link #hasMore()}, {@link #address()},
 * {@link #data()}, {@link #copyTo}, {@link #toByteArray()}) and {@link #close()} throw
 * {@link IllegalStateException} naming both threads, nothing changed, and the call already inside
 * goes on. What a read returns is not covered once it has returned: an {@link #address()}, or a
 * {@link #data()} view read on its thread while another thread replaces the frame or closes the
 * message, reads freed memory (a view made on one thread can be closed by that thread alone).
 */
public final class ZmqMessage implements AutoCloseable {

    /** Owns {@link #msg}, {@link #scratch} and {@link #capture}; closed by {@link #close()} inside {@link #guard}. */
    private final Arena arena = Arena.ofShared();
    /**
     * The zmq_msg_t, as a segment of the global scope over {@link #arena}'s memory: used only inside
     * {@link #guard}, whose holder alone may free it, so a downcall given it needs no scope of its
     * own. Scoped to a shared arena, as until 2026-11-29, each downcall acquired and released that
     * scope, two compare-and-sets more on every send, receive, size, address and hasMore.
     */
    final MemorySegment msg;
    /**
     * Where {@link #set} builds the new frame before it replaces the old one, which may be the
     * very bytes it copies; empty between calls.
     */
    private final MemorySegment scratch;
    /** errno of zmq_msg_copy / zmq_msg_move. */
    private final MemorySegment capture;
    /**
     * One thread at a time in a call that changes {@link #msg}: a socket's send or receive of it,
     * set, clear, copyFrom, moveFrom. Until 2026-11-29 nothing stopped two threads receiving into
     * one message on two sockets, or sending it on one while receiving into it on another: libzmq
     * closed and filled one zmq_msg_t from both, and frames came out in the other thread's message,
     * read after they were freed, or freed twice (glibc aborted the JVM: "double free or
     * corruption"), in every run of a probe that raced them in a loop (SharedMessageTest).
     * The reading calls (size, hasMore, address, data, copyTo, toByteArray) and close enter it too:
     * until 2026-11-29 a size or address during another thread's receive made libzmq abort the
     * process ("Assertion failed: check ()"), and a close between the downcalls of another thread's
     * set, copyFrom or moveFrom met the JDK's bare "Session is acquired" or "Already closed"
     * (MessageReadRaceTest, MessageCloseRaceTest).
     */
    private final CallGuard guard = new CallGuard("message", null, "a callback");
    private Arena viewArena;
    private MemorySegment view;
    /** The thread that owns {@link #viewArena}: only it can close that arena. */
    private Thread viewThread;

    /** An empty message (zmq_msg_init). Close it to free its native state. */
    public ZmqMessage() {
        msg = unscoped(arena.allocate(LibZmq.MSG_LAYOUT));
        scratch = unscoped(arena.allocate(LibZmq.MSG_LAYOUT));
        capture = unscoped(arena.allocate(LibZmq.CAPTURE_LAYOUT));
        try {
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(msg);
            rc = (int) LibZmq.zmq_msg_init.invokeExact(scratch);
        } catch (Throwable t) {
            arena.close();
            throw LibZmq.rethrow(t);
        }
    }

    /** {@code memory} in the global scope: a downcall given it acquires no scope (see {@link #msg}). */
    private static MemorySegment unscoped(MemorySegment memory) {
        return MemorySegment.ofAddress(memory.address()).reinterpret(memory.byteSize());
    }

    /**
     * Bytes in the current frame. Allocation-free.
     *
     * @return the frame's size in bytes; 0 for an empty message
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment)
     */
    public long size() {
        enter();
        try {
            return sizeEntered();
        } finally {
            exit();
        }
    }

    private long sizeEntered() {
        try {
            return (long) LibZmq.zmq_msg_size.invokeExact(msg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * True when the frame just received is followed by more parts of the same message.
     *
     * @return whether libzmq marked the frame with more to come ({@code zmq_msg_more})
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment)
     */
    public boolean hasMore() {
        enter();
        try {
            return hasMoreEntered();
        } finally {
            exit();
        }
    }

    /** {@link #hasMore()} within a call that has {@link #enter() entered} this message. */
    boolean hasMoreEntered() {
        try {
            return (int) LibZmq.zmq_msg_more.invokeExact(msg) != 0;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * The current frame as a read-only view of libzmq's memory, valid until the next receive, send
     * or close, and only on the calling thread; a stale view throws on access. The first call per
     * frame and thread creates a confined arena (about 0.2 us and a few objects); zero-allocation
     * consumers use {@link #address()} and {@link #size()} or {@link #copyTo}.
     *
     * @return a read-only segment of {@link #size()} bytes over the frame
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment)
     */
    public MemorySegment data() {
        enter();
        try {
            Thread caller = Thread.currentThread();
            if (view == null || viewThread != caller) {
                invalidateView(); // another thread's view after a hand-over: dropped, see the class comment
                viewArena = Arena.ofConfined();
                viewThread = caller;
                view = MemorySegment.ofAddress(addressEntered()).reinterpret(sizeEntered(), viewArena, null).asReadOnly();
            }
            return view;
        } finally {
            exit();
        }
    }

    /**
     * Native address of the current frame; same lifetime as {@link #data()}, but nothing refuses
     * a use of the address once its frame has ended (the call itself is refused as the other reads
     * are). Allocation-free.
     *
     * @return the address of the frame's first byte ({@code zmq_msg_data})
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment)
     */
    public long address() {
        enter();
        try {
            return addressEntered();
        } finally {
            exit();
        }
    }

    private long addressEntered() {
        try {
            return (long) LibZmq.zmq_msg_data.invokeExact(msg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Copies the whole current frame into {@code dst} at {@code dstOffset}. Allocation-free.
     *
     * @param dst where to copy, with room for {@link #size()} bytes from {@code dstOffset}
     * @param dstOffset the byte offset in {@code dst} of the frame's first byte
     * @throws IndexOutOfBoundsException when the frame does not fit
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment), or {@code dst} could not be written (a mapping of a file
     *     shortened since it was mapped; the message names it and keeps its frame)
     */
    public void copyTo(MemorySegment dst, long dstOffset) {
        Objects.requireNonNull(dst, "dst");
        enter(); // for the whole copy: another thread's receive would free the frame under it
        try {
            long n = sizeEntered();
            try {
                MemorySegment.copy(LibZmq.EVERYTHING, addressEntered(), dst, dstOffset, n);
            } catch (InternalError e) { // SIGBUS writing dst: a mapping of a file shortened since
                throw MemoryFaults.unwritable("dst", dst, dstOffset, n, "the frame stays in the message", e);
            }
        } finally {
            exit();
        }
    }

    /**
     * A new array holding the current frame (allocates; convenience).
     *
     * @return a copy of the frame's bytes
     * @throws IllegalStateException when the message is closed, or another thread is in a call on
     *     it (see the class comment), or the frame is too large for an array
     */
    public byte[] toByteArray() {
        enter();
        try {
            long n = sizeEntered();
            checkArraySize(n, "");
            byte[] out = new byte[(int) n];
            MemorySegment.copy(LibZmq.EVERYTHING, java.lang.foreign.ValueLayout.JAVA_BYTE, addressEntered(), out, 0, out.length);
            return out;
        } finally {
            exit();
        }
    }

    /**
     * @param size a frame's size in bytes
     * @param consequence what became of the frame, for the message (empty when it is kept)
     * @throws IllegalStateException when a {@code byte[]} cannot hold {@code size} bytes
     */
    static void checkArraySize(long size, String consequence) {
        if (size > JavaArrays.MAX_LENGTH) {
            throw new IllegalStateException("frame too large for a byte[]: size=" + size + ", max=" + JavaArrays.MAX_LENGTH
                    + consequence);
        }
    }

    /**
     * Replaces the content with a copy of {@code src} (zmq_msg_init_size), ready for
     * {@link ZmqSocket#send(ZmqMessage, int)}. Frees the previous frame and ends its views.
     * {@code src} may be this message's own {@link #data()} (or a slice of it): the new frame is
     * built and filled before the previous one is freed. Should the copy fail all the same
     * ({@code src}'s shared arena closed by another thread meanwhile), the message is left empty,
     * never holding bytes nobody wrote. Allocation-free.
     *
     * @param src the bytes of the new frame, all {@code src.byteSize()} of them: native or on the
     *     heap, alive, and accessible from this thread
     * @throws IllegalStateException when the message is closed, or {@code src} is no longer
     *     alive, or another thread is in a call that changes this message (checked before anything
     *     changes: the message keeps its frame); or when
     *     {@code src} could not be read (a mapping of a file shortened since it was mapped: the
     *     message names it, and this message is left empty)
     * @throws WrongThreadException when {@code src} is confined to another thread (checked
     *     before anything changes too)
     * @throws ZmqException when libzmq cannot allocate the frame (ENOMEM); the message is then
     *     empty
     */
    public void set(MemorySegment src) {
        ensureOpen();
        RawSegments.checkUsable(src, "src");
        enter();
        try {
            setEntered(src);
        } finally {
            exit();
        }
    }

    private void setEntered(MemorySegment src) {
        long n = src.byteSize();
        // The new frame is built in the scratch message and moved in once it is filled. Freeing
        // the old frame first, as before, left n uninitialised bytes in the message when the copy
        // failed, and set(data()) always failed: the view ended and its bytes were freed before
        // they were read. zmq_msg_move frees the old frame in place of the zmq_msg_close that did
        // it then, so the call count is the same.
        try {
            int rc = (int) LibZmq.zmq_msg_init_size.invokeExact(scratch, n);
            if (rc != 0) {
                rc = (int) LibZmq.zmq_msg_init.invokeExact(scratch); // a failed init_size leaves no valid message
                clearEntered();
                throw new ZmqException("zmq_msg_init_size(" + n + ")", LibZmq.ENOMEM);
            }
            long address = (long) LibZmq.zmq_msg_data.invokeExact(scratch);
            try {
                MemorySegment.copy(src, 0, LibZmq.EVERYTHING, address, n);
            } catch (RuntimeException | Error e) {
                rc = (int) LibZmq.zmq_msg_close.invokeExact(scratch);
                rc = (int) LibZmq.zmq_msg_init.invokeExact(scratch);
                clearEntered();
                if (e instanceof InternalError fault) { // SIGBUS reading src: a mapping of a file shortened since
                    throw MemoryFaults.unreadable("src", src, 0, n, "the message is left empty", fault);
                }
                throw e;
            }
            invalidateView(); // only now: src may be that view
            rc = (int) LibZmq.zmq_msg_move_fast.invokeExact(msg, scratch); // frees the old frame, leaves scratch empty
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Makes this message share {@code src}'s frame (zmq_msg_copy), replacing and freeing its own
     * and ending its views. No payload is copied (libzmq copies only frames of 33 bytes or less,
     * which it stores inline); the frame is reference counted, so a pooled zero-copy buffer goes
     * back to its pool once both messages have let go of it. {@code src} is unchanged and its
     * views stay valid. The shared payload must not be modified (views are read-only anyway).
     * Copying a message into itself does nothing.
     *
     * @param src an open message whose frame this one is to share
     * @throws IllegalStateException when either message is closed ("src is closed: …" for
     *     {@code src}), or another thread is in a call that changes either; nothing changes
     */
    public void copyFrom(ZmqMessage src) {
        transfer(src, false);
    }

    /**
     * Moves {@code src}'s frame into this message (zmq_msg_move), replacing and freeing its own
     * and ending its views; {@code src} is left empty, its views ended too. Nothing is copied.
     * Moving a message into itself does nothing.
     *
     * @param src an open message whose frame moves here
     * @throws IllegalStateException when either message is closed ("src is closed: …" for
     *     {@code src}), or another thread is in a call that changes either; nothing changes
     */
    public void moveFrom(ZmqMessage src) {
        transfer(src, true);
    }

    private void transfer(ZmqMessage src, boolean move) {
        Objects.requireNonNull(src, "src");
        ensureOpen();
        if (src.guard.isClosed()) { // named: "message is closed" did not say which of the two (until 2026-11-29)
            throw new IllegalStateException("src is closed: the message to " + (move ? "move" : "copy")
                    + " from (this message is unchanged)");
        }
        if (src == this) {
            return; // libzmq would free the frame before reading it
        }
        enter();
        try {
            src.enter(); // zmq_msg_copy writes src too (its reference count, a flag)
            try {
                invalidateView();
                if (move) {
                    src.invalidateView();
                }
                int rc = move
                        ? (int) LibZmq.zmq_msg_move.invokeExact(capture, msg, src.msg)
                        : (int) LibZmq.zmq_msg_copy.invokeExact(capture, msg, src.msg);
                if (rc != 0) {
                    throw new ZmqException(move ? "zmq_msg_move" : "zmq_msg_copy", LibZmq.errno(capture));
                }
            } catch (Throwable t) {
                throw LibZmq.rethrow(t);
            } finally {
                src.exit();
            }
        } finally {
            exit();
        }
    }

    /**
     * Drops the current frame and leaves the message empty, still open and reusable: libzmq
     * gets its memory back now instead of at the next receive (a pooled zero-copy buffer
     * returns to its pool, a slice of a tcp receive batch is released). Ends every view.
     * Allocation-free.
     *
     * @throws IllegalStateException when the message is closed, or another thread is in a call
     *     that changes it (nothing changes)
     */
    public void clear() {
        ensureOpen();
        enter();
        try {
            clearEntered();
        } finally {
            exit();
        }
    }

    /** {@link #clear()} within a call that has {@link #enter() entered} this message. */
    void clearEntered() {
        invalidateView();
        try {
            int rc = (int) LibZmq.zmq_msg_close.invokeExact(msg);
            rc = (int) LibZmq.zmq_msg_init.invokeExact(msg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Frees the native state (zmq_msg_close: a pooled buffer held by the frame goes back to its
     * pool) and ends the view made on this thread. Idempotent; any thread (after a hand-over).
     *
     * <p>Refused while another thread is in a call on this message (a receive blocked in libzmq,
     * say, or a {@link #set}): the message stays open and usable, to be closed once that call has
     * returned (close the context first to end a blocked call). Until 2026-11-28 such a close threw
     * the JDK's bare "Session is acquired by 1 clients" after freeing the frame under the call, and
     * libzmq then aborted the process ("Bad address (src/fq.cpp:87)"); until 2026-11-29 one
     * between the downcalls of another thread's {@link #set}, {@link #copyFrom} or {@link #moveFrom}
     * went through, and that call, or the close, threw the JDK's bare "Already closed" or "Session
     * is acquired".
     *
     * @throws IllegalStateException while another thread is in a call on this message, naming it
     */
    @Override
    public void close() {
        try {
            if (!guard.enterToClose()) { // from here on no call can begin; one in progress refuses this
                return;
            }
        } catch (IllegalStateException e) {
            throw new IllegalStateException("message is in a send or receive on another thread than "
                    + CallGuard.nameOf(Thread.currentThread()) + ", or in another call on it: close it once that call has returned"
                    + " (the message stays open; closing the context ends a blocked call): " + e.getMessage(), e);
        }
        try {
            invalidateView();
        } finally {
            try {
                int rc = (int) LibZmq.zmq_msg_close.invokeExact(msg);
            } catch (Throwable t) {
                throw LibZmq.rethrow(t);
            } finally {
                try {
                    arena.close(); // no downcall can hold it: every one runs inside the guard
                } finally {
                    exit();
                }
            }
        }
    }

    /**
     * Ends the current view; called before anything replaces the frame. Allocation-free. A view
     * made on another thread is only dropped: a confined arena can be closed by its own thread
     * alone, and that thread handed the message over, so it is done with it. The dropped arena owns
     * no memory; the garbage collector takes it.
     */
    void invalidateView() {
        Arena a = viewArena;
        if (a != null) {
            boolean ours = viewThread == Thread.currentThread();
            viewArena = null;
            view = null;
            viewThread = null;
            if (ours) {
                a.close();
            }
        }
    }

    /**
     * Begins a call on the message, {@link #exit()} in a {@code finally} ends it: one
     * compare-and-exchange and a read of the closed flag. On every send and receive of a message,
     * and every read of it.
     *
     * @throws IllegalStateException "message used by two threads at once: thread=…, while in a
     *     call on thread=…" while another thread is in a call on it; "message is closed" once it
     *     is; nothing changes
     */
    void enter() {
        guard.enter();
    }

    /** Ends a call begun by {@link #enter()}: one release store. */
    void exit() {
        guard.exit(this);
    }

    /** The zmq_msg_t, for a socket's send or receive that has {@link #enter() entered} this message. */
    MemorySegment handle() {
        return msg;
    }

    /** Throws "message is closed" once it is: for the checks made before a call enters. */
    private void ensureOpen() {
        guard.checkOpen();
    }
}

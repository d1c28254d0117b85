package io.zmqzstd.transport;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A native buffer rented from a {@link NativeBufferPool}. One handle per pool slot, reused from
 * rent to rent: renting allocates nothing.
 *
 * <p>Ownership: after {@link NativeBufferPool#rent} the caller owns the buffer until it either
 * calls {@link #release()} or hands it to {@link ZmqSocket#sendPooled} (which takes it on
 * success). Exactly one owner at a time; there is no reference counting.
 *
 * <p>{@link #segment()} is valid while the caller owns the buffer. After release,
 * {@link #segment()} and {@link #address()} fail with {@link IllegalStateException};
 * {@link #capacity()}, {@link #isRented()} and {@code toString()} still answer, and a second
 * {@code release()} only counts a double release (until the slot is rented again: see
 * {@link #release()}). A
 * {@code MemorySegment} obtained earlier and kept past release is a bug the handle cannot see
 * (a pooled slot's memory stays mapped while the pool is open, and is freed when the pool closes,
 * after which any access throws; an unpooled buffer's memory is freed as soon as the buffer is
 * returned, by its release or by libzmq after a zero-copy send, after which any access throws).
 * A pooled buffer still
 * rented when its pool closes loses its memory with the pool's: {@link #segment()} and
 * {@link #address()} then throw {@link IllegalStateException} naming the closed pool, as they do
 * after release; {@link #release()} still takes it back.
 */
public final class PooledBuffer {

    static final int FREE = 0;
    static final int RENTED = 1;
    /** Handed to libzmq by zmq_msg_init_data; the free callback returns it. */
    static final int IN_FLIGHT = 2;
    /** A zero-copy send failed; the sender is taking it back; the callback makes it RENTED again. */
    static final int RECLAIMING = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PooledBuffer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final NativeBufferPool pool;
    /** Free-callback hint: identifies pool and slot without any lookup table per message. */
    final long hint;
    final int sizeClass;
    final int slot;
    final long capacity;
    /** Set once when the slot's memory is carved out of a slab (or allocated unpooled). */
    MemorySegment segment;
    /** An unpooled buffer's own memory, freed when it is returned; null for a pool slot. */
    UnpooledMemory unpooledMemory;
    long address;
    /** Next free slot in the pool's free stack (slot index + 1; 0 = none). */
    int nextFree;
    /** Where the buffer was rented, when leak detection records it. */
    Throwable rentSite;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    PooledBuffer(NativeBufferPool pool, long hint, int sizeClass, int slot, long capacity) {
        this.pool = pool;
        this.hint = hint;
        this.sizeClass = sizeClass;
        this.slot = slot;
        this.capacity = capacity;
    }

    /**
     * The buffer's memory, {@link #capacity()} bytes. Owned by the pool; valid while the caller
     * owns this buffer.
     *
     * @return the buffer's memory, {@link #capacity()} bytes
     * @throws IllegalStateException when the buffer was released or handed to a socket, or its
     *     pool closed while it was rented and freed the memory (the message says so)
     */
    public MemorySegment segment() {
        checkRented();
        checkMemory();
        return segment;
    }

    /**
     * The native address of the buffer's first byte; same validity as {@link #segment()}.
     *
     * @return the address of {@link #segment()}
     * @throws IllegalStateException when the buffer was released or handed to a socket, or its
     *     pool closed while it was rented and freed the memory (the message says so): until
     *     2026-11-29 the address of the freed memory was returned, and a write through it made the
     *     JVM die (SIGSEGV, or glibc's abort on a corrupt heap)
     */
    public long address() {
        checkRented();
        checkMemory();
        return address;
    }

    /**
     * Usable bytes: at least what was asked for at rent time.
     *
     * @return the size class's buffer size, or for an unpooled buffer what was asked for (at
     *     least 1)
     */
    public long capacity() {
        return capacity;
    }

    /**
     * True while the caller owns this buffer (rented, not released, not sent).
     *
     * @return false once it was released or a send took it
     */
    public boolean isRented() {
        return state == RENTED;
    }

    /**
     * Gives the buffer back to the pool. Idempotent: releasing a buffer that is already free (or
     * that a socket has taken) does nothing but count it in {@link NativeBufferPool.Stats#doubleReleases()}.
     * Handles are reused from rent to rent, so a second release after the slot was rented again
     * would free the new renter's buffer: drop the handle once it is released.
     */
    public void release() {
        if (STATE.compareAndSet(this, RENTED, FREE)) {
            pool.released(this);
        } else {
            pool.countDoubleRelease();
        }
    }

    @Override
    public String toString() {
        return "PooledBuffer[capacity=" + capacity + ", state=" + stateName(state) + "]";
    }

    void checkRented() {
        int s = state;
        if (s != RENTED) {
            throw notOwned(s);
        }
    }

    /**
     * A rented buffer's memory is gone once its pool closed and freed its slabs (a close that found
     * the buffer still rented logs it as a leak, and frees the memory all the same); an unpooled
     * buffer's memory is its own, freed only when it is returned, so a rented one's never is.
     */
    private void checkMemory() {
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("buffer's pool is closed and its memory freed: capacity=" + capacity
                    + " (the buffer was still rented when NativeBufferPool.close() ran: release or send every buffer"
                    + " before closing its pool, or its context)");
        }
    }

    static IllegalStateException notOwned(int state) {
        return new IllegalStateException("buffer is not owned by the caller: state=" + stateName(state)
                + " (used after release or after sendPooled took it)");
    }

    int state() {
        return state;
    }

    void setState(int s) {
        state = s;
    }

    /** A store with release order only: for a state change no other thread may race with. */
    void setStateRelease(int s) {
        STATE.setRelease(this, s);
    }

    boolean casState(int expected, int next) {
        return STATE.compareAndSet(this, expected, next);
    }

    static String stateName(int s) {
        return switch (s) {
            case FREE -> "released";
            case RENTED -> "rented";
            case IN_FLIGHT -> "in-flight";
            case RECLAIMING -> "reclaiming";
            default -> "unknown(" + s + ")";
        };
    }
}

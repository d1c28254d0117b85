package io.zmqzstd.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread at a time in an owner's native context. libzstd's contexts are not thread-safe, and
 * the codec hands them (and its scratch memory) to C by raw address: two threads in calls on one
 * compressor got wrong frames and misleading errors ("Src size is incorrect", "Allocation error"),
 * and a {@code close()} on another thread freed the context under a running compression, which
 * crashed the JVM. So a call that finds another thread inside is refused before it touches
 * anything, and {@link #close()} waits for a call in progress to return before the owner frees
 * what it holds.
 *
 * <p>Per call: one compare-and-set on entry and a release store on exit, allocation free.
 */
final class CallGuard {

    private static final int IDLE = 0;
    private static final int IN_CALL = 1;
    private static final int CLOSED = 2;
    /** Spins before {@link #close()} parks between looks: most calls last microseconds. */
    private static final int CLOSE_SPINS = 1_000;
    private static final long CLOSE_PARK_NS = 50_000;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CallGuard.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What the messages call the owner, e.g. "compressor". */
    private final String owner;
    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    CallGuard(String owner) {
        this.owner = owner;
    }

    /**
     * Begins a call; {@link #exit()} ends it, in a {@code finally}.
     *
     * @throws IllegalStateException "… is closed", or "… used by two threads at once" while another
     *     thread is in a call
     */
    void enter() {
        if (!STATE.compareAndSet(this, IDLE, IN_CALL)) {
            throw refused();
        }
    }

    /** Ends a call; only the thread inside writes the state, so a release store. */
    void exit() {
        STATE.setRelease(this, IDLE);
    }

    /**
     * Marks the owner closed, after waiting for a call in progress on another thread to return;
     * every later {@link #enter()} then throws "… is closed".
     *
     * @return {@code true} the first time, when the owner must free what it holds; {@code false}
     *     when it was closed already
     */
    boolean close() {
        for (int looks = 0; ; looks++) {
            int s = (int) STATE.getVolatile(this);
            if (s == CLOSED) {
                return false;
            }
            if (s == IDLE && STATE.compareAndSet(this, IDLE, CLOSED)) {
                return true;
            }
            if (s == IN_CALL) {
                if (looks < CLOSE_SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(CLOSE_PARK_NS);
                }
            }
        }
    }

    private IllegalStateException refused() {
        if ((int) STATE.getVolatile(this) == CLOSED) {
            return new IllegalStateException(owner + " is closed");
        }
        return new IllegalStateException(owner + " used by two threads at once (a call is in progress on another"
                + " thread; use a " + owner + " from one thread at a time)");
    }
}

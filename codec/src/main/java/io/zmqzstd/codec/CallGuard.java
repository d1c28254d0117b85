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
 * <p>Per call: one compare-and-exchange on entry and a release store on exit, allocation free.
 * The state names the thread inside, so a close from inside its own call (a stream's source or
 * sink) is refused instead of waiting for ever.
 */
final class CallGuard {

    /** The state once closed; otherwise it is null (idle) or the thread in a call. */
    private static final Object CLOSED = new Object();
    /** Spins before {@link #close()} parks between looks: most calls last microseconds. */
    private static final int CLOSE_SPINS = 1_000;
    private static final long CLOSE_PARK_NS = 50_000;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CallGuard.class, "state", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What the messages call the owner, e.g. "compressor". */
    private final String owner;
    @SuppressWarnings("unused") // through STATE
    private volatile Object state;

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
        Thread me = Thread.currentThread();
        Object other = STATE.compareAndExchange(this, (Object) null, (Object) me);
        if (other != null) {
            throw refused(me, other);
        }
    }

    /** Ends a call; only the thread inside writes the state, so a release store. */
    void exit() {
        STATE.setRelease(this, (Object) null);
    }

    /**
     * Marks the owner closed, after waiting for a call in progress on another thread to return;
     * every later {@link #enter()} then throws "… is closed".
     *
     * @return {@code true} the first time, when the owner must free what it holds; {@code false}
     *     when it was closed already
     * @throws IllegalStateException when this thread is itself in a call on the owner (a stream's
     *     source or sink closing it): waiting would never end, and freeing would pull the context
     *     from under that call
     */
    boolean close() {
        Thread me = Thread.currentThread();
        for (int looks = 0; ; looks++) {
            Object s = STATE.getVolatile(this);
            if (s == CLOSED) {
                return false;
            }
            if (s == me) {
                throw new IllegalStateException(owner + " closed from inside a call on it (a stream's source or"
                        + " sink, say): close it once that call has returned");
            }
            if (s == null) {
                if (STATE.compareAndSet(this, (Object) null, CLOSED)) {
                    return true;
                }
            } else if (looks < CLOSE_SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(CLOSE_PARK_NS);
            }
        }
    }

    private IllegalStateException refused(Thread me, Object other) {
        if (other == CLOSED) {
            return new IllegalStateException(owner + " is closed");
        }
        if (other == me) {
            return new IllegalStateException(owner + " used again from inside a call on it (a stream's source or"
                    + " sink, say): thread=" + me.getName());
        }
        return new IllegalStateException(owner + " used by two threads at once: thread=" + me.getName()
                + ", while in a call on thread=" + ((Thread) other).getName() + "; use a " + owner
                + " from one thread at a time");
    }
}

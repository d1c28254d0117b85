package io.zmqzstd.nativelib.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread at a time in the calls of an owner that hands native memory or a native object to C:
 * the codec's compressors and decompressors, the transport's sockets, the pipeline's senders and
 * receivers. Not API.
 *
 * <p>Why: libzstd contexts and libzmq sockets are not thread-safe. Two threads in calls on one
 * compressor got wrong frames and misleading errors ("Src size is incorrect"), concurrent use of a
 * socket may abort the process inside libzmq, and a close on another thread freed a context under
 * a running compression (SIGSEGV). So a call that finds another thread inside is refused before it
 * touches anything, the call inside goes on undisturbed, and a close waits for that call to return
 * before the owner frees what it holds.
 *
 * <p>Use: each call runs between {@link #enter()} and {@link #exit(Object)}, the exit in a
 * {@code finally}. Closing is either {@link #close()} (mark, then wait), or, for an owner that
 * closes many at once as a libzmq context closes its sockets, the phases {@link #markClosed()}
 * (no call begins after it), {@link #inCall()} (is one inside?) and {@link #awaitNoCall()}, with
 * whatever wakes a blocked call in between.
 *
 * <p>State: the thread inside a call (or null), and a closed flag. Calls never nest, so naming the
 * thread inside refuses a second thread and tells a call (or close) made from inside a call on the
 * same thread, a callback's, which would otherwise wait for itself for ever. Against a close on
 * another thread, a Dekker handshake: {@link #enter()} writes the thread inside before it reads the
 * flag, and a close writes the flag before it reads the thread inside, each with full ordering;
 * either the call sees the flag and fails, or the close sees the call and waits for it, never both
 * miss. A refused entry changes nothing, so misuse cannot leave the guard held.
 *
 * <p>Cost per call (this is on every message's path): one compare-and-exchange and one volatile
 * read of the flag on entry, one release store on exit; no allocation, no lock. Strings are built
 * only when a call is refused.
 */
public final class CallGuard {

    /** Spins, then yields, before a waiting close parks: most calls last microseconds. */
    private static final int AWAIT_SPINS = 100;
    private static final int AWAIT_YIELDS = 100;
    /**
     * First and longest park of a waiting close, doubling in between: a call blocked for long (a
     * receive without timeout) is waited for with 200 wake-ups a second, not 10,000 (which took
     * 294 ms of CPU a second on the project's VM with a 100 us park).
     */
    private static final long AWAIT_FIRST_PARK_NS = 100_000;
    private static final long AWAIT_MAX_PARK_NS = 5_000_000;

    private static final VarHandle INSIDE;
    private static final VarHandle CLOSED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INSIDE = lookup.findVarHandle(CallGuard.class, "inside", Thread.class);
            CLOSED = lookup.findVarHandle(CallGuard.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String owner;
    /** Key=value text naming this owner in every message, or null. */
    private final String detail;
    /** What can call the owner from inside its own call, for the messages, e.g. "a stream's source or sink". */
    private final String callbacks;
    @SuppressWarnings("unused") // through INSIDE
    private volatile Thread inside;
    private volatile boolean closed;

    /**
     * @param owner what the messages call the owner, e.g. {@code "compressor"} or {@code "socket"}
     * @param detail key=value text that tells this owner from others in every message, e.g.
     *     {@code "type=PUSH"}, or null
     * @param callbacks what may call the owner again from inside one of its calls, e.g.
     *     {@code "a stream's source or sink"}: the messages name it as the likely culprit
     */
    public CallGuard(String owner, String detail, String callbacks) {
        this.owner = owner;
        this.detail = detail;
        this.callbacks = callbacks;
    }

    /**
     * Begins a call; {@link #exit(Object)} ends it, in a {@code finally}. Kept this small so that
     * it inlines: the messages are built in {@link #refused}.
     *
     * @throws IllegalStateException "… is closed" once {@link #markClosed()} has run; "… used by
     *     two threads at once" while another thread is in a call; "… used again from inside a call
     *     on it" from a callback of this thread's own call. The guard is left as it was.
     */
    public void enter() {
        Thread me = Thread.currentThread();
        Thread other = (Thread) INSIDE.compareAndExchange(this, (Thread) null, me);
        if (other != null || closed) {
            throw refused(me, other);
        }
    }

    /**
     * {@link #enter()} for what must not fail (a stream's close, say): true when the call has begun,
     * to be ended by {@link #exit(Object)}; false, the guard as it was and nothing made, where
     * {@link #enter()} would refuse (closed, another thread's call, or this thread's own).
     *
     * @return whether the call has begun
     */
    public boolean tryEnter() {
        if (INSIDE.compareAndExchange(this, (Thread) null, Thread.currentThread()) != null) {
            return false;
        }
        if (closed) { // taken, but closed: let go, as enter() does
            INSIDE.setRelease(this, (Thread) null);
            return false;
        }
        return true;
    }

    /**
     * Ends a call begun by {@link #enter()}: only the thread inside writes the state, so a release
     * store. Also a reachability fence on {@code self}: the owner stays reachable, and its native
     * memory safe from its cleaner, until the call that used it is over.
     *
     * @param self the owner whose call ends
     */
    public void exit(Object self) {
        INSIDE.setRelease(this, (Thread) null);
        Reference.reachabilityFence(self);
    }

    /**
     * Marks the owner closed at once, even while a call is inside (that call goes on): every later
     * {@link #enter()} throws "… is closed". Then {@link #awaitNoCall()} before anything is freed.
     *
     * @return {@code true} for the one caller that closed it, who must free what the owner holds
     */
    public boolean markClosed() {
        return CLOSED.compareAndSet(this, false, true);
    }

    /**
     * Whether {@link #markClosed()} has run.
     *
     * @return true once closed or being closed: no call can begin then
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Whether a thread is inside a call: once {@link #markClosed()} has run, whether
     * {@link #awaitNoCall()} would wait.
     *
     * @return true while a call is in progress
     */
    public boolean inCall() {
        return inside != null;
    }

    /**
     * Waits until no thread is inside a call. Called once {@link #markClosed()} has run, so no call
     * begins after this returns. It spins, yields, then parks with a pause doubling from 100 us to
     * 5 ms: a call blocked in C leaves only when whatever it waits for ends (for a socket, a context
     * shutdown). An interrupt does not end the wait (the owner could not free anything yet) and is
     * kept for the caller; meanwhile the wait parks instead of spinning.
     *
     * @throws IllegalStateException when this thread is the one inside (a callback of its own call):
     *     it would wait for ever
     */
    public void awaitNoCall() {
        Thread me = Thread.currentThread();
        if (inside == me) {
            throw closedFromInside(me);
        }
        boolean interrupted = false;
        long pauseNs = AWAIT_FIRST_PARK_NS;
        for (int looks = 0; inside != null; looks++) {
            interrupted |= Thread.interrupted(); // with the flag set, park would return at once
            if (looks < AWAIT_SPINS) {
                Thread.onSpinWait();
            } else if (looks < AWAIT_SPINS + AWAIT_YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(pauseNs);
                pauseNs = Math.min(pauseNs * 2, AWAIT_MAX_PARK_NS);
            }
        }
        if (interrupted) {
            me.interrupt();
        }
    }

    /**
     * {@link #markClosed()} then {@link #awaitNoCall()}: a call in progress on another thread is
     * waited for. Refused, changing nothing, from inside a call on this thread.
     *
     * @return {@code true} the first time, when the owner must free what it holds; {@code false}
     *     when it was closed already (perhaps by a close still waiting on another thread)
     * @throws IllegalStateException when this thread is itself in a call on the owner (a callback
     *     closing it): waiting would never end, and freeing would pull the memory from under that
     *     call; the owner stays open
     */
    public boolean close() {
        Thread me = Thread.currentThread();
        if (inside == me) {
            throw closedFromInside(me);
        }
        if (!markClosed()) {
            return false;
        }
        awaitNoCall();
        return true;
    }

    /**
     * Begins a close that is refused, not waited for, while another thread is in a call (an owner
     * whose calls may block for ever, a message in a receive say): {@link #enter()}, then
     * {@link #markClosed()}. The caller frees what the owner holds and ends with
     * {@link #exit(Object)}, in a {@code finally}; no call can be inside meanwhile, nor begin.
     *
     * @return {@code true} when this thread has entered and marked the owner closed; {@code false},
     *     nothing entered, when it was closed already (also by another thread's close meanwhile)
     * @throws IllegalStateException {@link #enter()}'s refusal while another thread is in a call,
     *     or this thread (a callback closing its owner); the owner stays open
     */
    public boolean enterToClose() {
        if (closed) {
            return false;
        }
        try {
            enter();
        } catch (IllegalStateException refused) {
            if (closed) {
                return false;
            }
            throw refused;
        }
        markClosed();
        return true;
    }

    /**
     * Throws "… is closed" once {@link #markClosed()} has run: for the owner's methods that need
     * no call (a handle, say), with the same message as {@link #enter()}'s.
     *
     * @throws IllegalStateException when closed
     */
    public void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    /** The throw path of {@link #enter()}: releases the guard if this thread took it. */
    private IllegalStateException refused(Thread me, Thread other) {
        if (other == null) { // taken, but closed: let go, so that the close waiting for no call returns
            INSIDE.setRelease(this, (Thread) null);
            return closedException();
        }
        if (closed) {
            return closedException();
        }
        if (other == me) {
            return new IllegalStateException(owner + " used again from inside a call on it (" + callbacks + ", say): "
                    + named() + "thread=" + nameOf(me) + "; call it once that call has returned");
        }
        return new IllegalStateException(owner + " used by two threads at once: " + named() + "thread=" + nameOf(me)
                + ", while in a call on thread=" + nameOf(other) + "; use a " + owner
                + " from one thread at a time (hand it over with a happens-before edge)");
    }

    /**
     * How the error messages name a thread: its name, or, for a thread without one (an executor's
     * virtual threads have none), its id, "#156 (virtual)". Until 2026-11-29 the messages used the
     * name alone, and two such threads refused each other as "thread=, while in a call on thread=".
     *
     * @param t the thread
     * @return its name, or "#id" with " (virtual)" for a virtual thread
     */
    public static String nameOf(Thread t) {
        String name = t.getName();
        return !name.isEmpty() ? name : "#" + t.threadId() + (t.isVirtual() ? " (virtual)" : "");
    }

    private IllegalStateException closedFromInside(Thread me) {
        return new IllegalStateException(owner + " closed from inside a call on it (" + callbacks + ", say): "
                + named() + "thread=" + nameOf(me) + "; close it once that call has returned");
    }

    private IllegalStateException closedException() {
        return new IllegalStateException(owner + " is closed" + (detail == null ? "" : ": " + detail));
    }

    /** The detail as the first key=value of a message, or "". */
    private String named() {
        return detail == null ? "" : detail + ", ";
    }
}

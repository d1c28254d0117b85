package io.zmqzstd.pipeline;

import io.zmqzstd.transport.ZmqSocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;

/**
 * Detects two threads inside one sender or receiver at the same time: one CAS on entry, one
 * release store on exit, no allocation. Hand-over between threads (one at a time) is allowed.
 */
final class OwnerCheck {

    private static final VarHandle BUSY;

    static {
        try {
            BUSY = MethodHandles.lookup().findVarHandle(OwnerCheck.class, "busy", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String what;
    @SuppressWarnings("unused") // accessed through BUSY
    private volatile Thread busy;

    OwnerCheck(String what) {
        this.what = what;
    }

    void enter() {
        Thread me = Thread.currentThread();
        Thread other = (Thread) BUSY.compareAndExchange(this, (Thread) null, me);
        if (other != null) {
            throw new IllegalStateException(what + " used by two threads at once: thread=" + me.getName()
                    + ", while in use by thread=" + other.getName()
                    + (other == me ? " (re-entered from a callback)" : "") + "; use one per thread");
        }
    }

    /**
     * Leaves the owner. Also a reachability fence on {@code self}: the owner stays reachable, and
     * its native memory safe from its cleaner ({@link Unclosed}), until the call that used it is
     * over.
     */
    void exit(Object self) {
        BUSY.setRelease(this, (Thread) null);
        Reference.reachabilityFence(self);
    }

    /**
     * Refuses to build a sender or receiver on a closed socket, at build time rather than at its
     * first call (a parallel sender would start its workers for nothing).
     */
    static void requireOpen(ZmqSocket socket) {
        if (socket.isClosed()) {
            throw new IllegalStateException("socket is closed: type=" + socket.type()
                    + " (build senders and receivers on an open socket)");
        }
    }
}

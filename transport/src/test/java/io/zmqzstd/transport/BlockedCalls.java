package io.zmqzstd.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/** Threads blocked inside a libzmq call, for the tests of closing under calls in progress. */
final class BlockedCalls {

    private BlockedCalls() {
    }

    /** A call that may throw anything. */
    interface Call {
        void run() throws Throwable;
    }

    /**
     * True when {@code t} runs native code called from the method {@code frame}: the downcall's
     * own frames are hidden, so that method is the innermost Java frame shown.
     */
    static boolean inside(Thread t, String frame) {
        StackTraceElement[] stack = t.getStackTrace();
        return t.getState() == Thread.State.RUNNABLE && stack.length > 0 && stack[0].getMethodName().equals(frame);
    }

    /**
     * Starts {@code call} on a thread of its own and returns once the thread is inside the downcall
     * made from {@code frame} (seen twice in a row); what the call throws lands in {@code thrown}.
     */
    static Thread start(String frame, AtomicReference<Throwable> thrown, Call call) {
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                call.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        Endpoints.await("a call blocked inside libzmq from " + frame, () -> inside(t, frame) && inside(t, frame));
        return t;
    }

    /** Runs {@code r} on a thread of its own (the common pool has a single worker on 2 cores). */
    static CompletableFuture<Void> async(Runnable r) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                r.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }
}

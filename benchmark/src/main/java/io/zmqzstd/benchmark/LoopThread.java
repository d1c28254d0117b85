package io.zmqzstd.benchmark;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A benchmark's background thread (a sender, a server): a daemon platform thread that runs one
 * {@link Step} after another until {@link #close()}, and keeps what stopped it for the measuring thread
 * to report ({@link #checkHealthy()}). The thread owns whatever its step uses from {@link Thread#start()}
 * until {@link #close()} has joined it. A step that waits must wake up now and then (a timed park, a
 * receive timeout) so that the thread notices {@link #close()}.
 */
public final class LoopThread implements AutoCloseable {

    /** One unit of the thread's work. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    private final String role;
    private final Step step;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;
    /** The kernel's id of the thread, once it runs (0 before); -1 where it cannot be known. */
    private volatile int nativeThreadId;

    /** Starts the thread; {@code role} names it in errors ("sender", "server"). */
    public LoopThread(String role, String name, Step step) {
        this.role = role;
        this.step = step;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        thread.start();
    }

    /** Unparks the thread if its step is parked. */
    public void wake() {
        LockSupport.unpark(thread);
    }

    /** Throws what stopped the thread, if anything did: call when an expected message is late. */
    public void checkHealthy() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException(role + " failed: " + t, t);
        }
        if (!thread.isAlive() && running) {
            throw new IllegalStateException(role + " thread ended unexpectedly");
        }
    }

    /** The kernel's id of the thread (for {@link Affinity}); waits until the thread has started. */
    public int nativeThreadId() {
        while (nativeThreadId == 0) {
            checkHealthy();
            Thread.onSpinWait();
        }
        if (nativeThreadId < 0) {
            throw new IllegalStateException("thread ids are not available here");
        }
        return nativeThreadId;
    }

    private void run() {
        nativeThreadId = Affinity.available() ? Affinity.currentThreadId() : -1;
        try {
            while (running) {
                step.run();
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Stops the thread and waits for it; what its step used is then the caller's again. */
    @Override
    public void close() {
        running = false;
        wake();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new IllegalStateException(role + " thread did not stop within 10 s: name=" + thread.getName());
        }
    }
}

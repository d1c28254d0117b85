package io.zmqzstd.benchmark;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A sender thread that sends exactly as many messages as the measuring thread grants it, numbered from 0
 * without gaps. The measuring thread grants a batch, then receives that batch: nothing is sent ahead
 * (no queue filled between iterations flatters the next one) and every message sent is received and
 * checked inside the invocation that asked for it.
 *
 * <p>The thread owns whatever the {@link Action} uses (e.g. a socket): it is handed over by
 * {@link Thread#start()} and taken back after {@link #close()} has joined it.
 */
public final class CreditedSender implements AutoCloseable {

    /** Sends message {@code sequence}; blocks while the transport pushes back. */
    @FunctionalInterface
    public interface Action {
        void send(long sequence) throws Exception;
    }

    private final Action action;
    private final AtomicLong granted = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;
    /** The kernel's id of the sender thread, once it runs (0 before); -1 where it cannot be known. */
    private volatile int nativeThreadId;

    public CreditedSender(String name, Action action) {
        this.action = action;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        thread.start();
    }

    /** Lets the sender send {@code count} more messages. Called by the measuring thread only. */
    public void grant(long count) {
        granted.addAndGet(count);
        LockSupport.unpark(thread);
    }

    /** Throws what stopped the sender, if anything did: call when a receive comes back empty. */
    public void checkHealthy() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("sender failed: " + t, t);
        }
        if (!thread.isAlive() && running) {
            throw new IllegalStateException("sender thread ended unexpectedly");
        }
    }

    /** The kernel's id of the sender thread (for {@link Affinity}); waits until the thread has started. */
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
        long sent = 0;
        try {
            while (running) {
                if (sent == granted.get()) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                    continue;
                }
                action.send(sent);
                sent++;
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Stops the thread and waits for it; the action's resources are then the caller's again. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new IllegalStateException("sender thread did not stop within 10 s: name=" + thread.getName());
        }
    }
}

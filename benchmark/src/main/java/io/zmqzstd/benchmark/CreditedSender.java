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
 * <p>The thread (a {@link LoopThread}) owns whatever the {@link Action} uses (e.g. a socket): it is handed
 * over when the thread starts and taken back after {@link #close()} has joined it.
 */
public final class CreditedSender implements AutoCloseable {

    /** Sends message {@code sequence}; blocks while the transport pushes back. */
    @FunctionalInterface
    public interface Action {
        void send(long sequence) throws Exception;
    }

    private final Action action;
    private final AtomicLong granted = new AtomicLong();
    /** Messages sent so far; the sender thread's own. */
    private long sent;
    private final LoopThread loop;

    public CreditedSender(String name, Action action) {
        this.action = action;
        this.loop = new LoopThread("sender", name, this::sendOrWait);
    }

    /** Lets the sender send {@code count} more messages. Called by the measuring thread only. */
    public void grant(long count) {
        granted.addAndGet(count);
        loop.wake();
    }

    /** Throws what stopped the sender, if anything did: call when a receive comes back empty. */
    public void checkHealthy() {
        loop.checkHealthy();
    }

    /** The kernel's id of the sender thread (for {@link Affinity}); waits until the thread has started. */
    public int nativeThreadId() {
        return loop.nativeThreadId();
    }

    private void sendOrWait() throws Exception {
        if (sent == granted.get()) {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
            return;
        }
        action.send(sent);
        sent++;
    }

    /** Stops the thread and waits for it; the action's resources are then the caller's again. */
    @Override
    public void close() {
        loop.close();
    }
}

package io.zmqzstd.cli;

import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.transport.ZmqSocket;

/**
 * Reads away the (un)subscriptions that send's XPUB ({@code --wait-subscribers}) goes on queueing
 * once the wait is over. libzmq 4.3.4 keeps each one in a queue of its own until it is read, bounded
 * by nothing ({@code ZMQ_RCVHWM} included, {@code WaitSubscribersTest}): with {@code
 * ZMQ_XPUB_VERBOSER} a subscriber that reconnects adds a subscription and an unsubscription each
 * time, and a publisher that runs for days grew without end.
 *
 * <p>libzmq moves them into that queue only inside a call on the socket (a send), so reading them
 * between sends keeps up. Per message the check is one comparison: it looks at the clock only after
 * the input was read again ({@link MessageReader#reads()}: once per line from a slow pipe, once per
 * buffer of 64 KiB or more from a fast one) and drains at most once per interval (100 ms).
 * Drained messages are dropped: what they would count is not used after the wait.
 */
final class SubscriptionDrain {

    /** How often at most to drain while messages go out. */
    static final long DEFAULT_INTERVAL_NANOS = 100_000_000L;

    /**
     * With --threads, a worker may be in a call on the socket while messages are in flight: the
     * drain waits for an empty ring, and forces one ({@code flush()}, a pause of about one
     * message's compression) only when none came for this long.
     */
    static final long FORCE_AFTER_NANOS = 10_000_000_000L;

    private final ZmqSocket socket;
    private final ParallelCompressingSender parallel;
    private final long intervalNanos;
    private final long forceAfterNanos;
    private long readsSeen;
    private long lastDrainNanos;

    /**
     * @param socket the XPUB, after the wait for subscribers
     * @param parallel the sender whose workers use the socket, or null when the calling thread is its only user
     * @param intervalNanos how often at most to drain (0: after every read of the input)
     * @param forceAfterNanos with {@code parallel}: how long the ring may stay non-empty before the
     *     drain waits for it ({@link #FORCE_AFTER_NANOS}; a test may lower it)
     */
    SubscriptionDrain(ZmqSocket socket, ParallelCompressingSender parallel, long intervalNanos, long forceAfterNanos) {
        this.socket = socket;
        this.parallel = parallel;
        this.intervalNanos = intervalNanos;
        this.forceAfterNanos = forceAfterNanos;
        this.lastDrainNanos = System.nanoTime();
    }

    /**
     * Before a message goes to the sender, on the thread that sends: drains if the input was read
     * again and it is time. Before, not after: with --threads the ring has most likely emptied while
     * the input was read.
     */
    void beforeMessage(MessageReader reader) {
        long reads = reader.reads();
        if (reads == readsSeen) {
            return;
        }
        readsSeen = reads;
        long now = System.nanoTime();
        long sinceNanos = now - lastDrainNanos;
        if (sinceNanos < intervalNanos) {
            return;
        }
        if (parallel != null && parallel.inFlight() > 0) {
            if (sinceNanos < forceAfterNanos) {
                return;
            }
            parallel.flush(); // every message in libzmq: no worker is in a call on the socket until the next send
        }
        drain();
        lastDrainNanos = now;
    }

    /** Reads every (un)subscription libzmq holds now, without waiting. */
    void drain() {
        while (socket.receiveBytes(ZmqSocket.DONTWAIT) != null) {
            // dropped: libzmq freed its copy as it handed it over
        }
    }
}

package io.zmqzstd.benchmark.pipeline;

import java.util.concurrent.TimeUnit;

/**
 * {@code hop=proxy}: a forwarding hop between a contestant's sender and receiver, as a telemetry hub
 * puts one. The proxy's PULL frontend binds an endpoint of the contestant's transport, where the
 * sender's PUSH connects; its PUSH backend connects to the receiver's bound PULL. Each end socket
 * keeps its own direction (the sender connects, the receiver binds) and its settings; both proxy
 * sockets get the end sockets' high-water marks (send and receive), so a slow receiver pushes back
 * through the hop to the sender. The proxy forwards each compressed frame untouched: it never
 * decompresses.
 *
 * <p>The proxy runs on a platform thread of its own, in the contestant's context, from the
 * constructor of a subclass ({@link #start}) until {@link #close()}, which stops it, joins its thread and
 * closes its sockets (before the contestant closes its context). The thread owns the proxy's sockets in
 * between.
 */
public abstract class ProxyHop implements AutoCloseable {

    /** How long {@link #close()} waits for the proxy's thread, as {@link io.zmqzstd.benchmark.LoopThread} does. */
    private static final long JOIN_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(10);

    private Thread thread;
    private volatile Throwable failure;
    private volatile boolean stopping;

    /** Starts the proxy's thread; call at the end of the subclass constructor, once its sockets are connected. */
    protected final void start(String name) {
        thread = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> {
            try {
                forward();
            } catch (Throwable t) {
                failure = t;
            }
        });
        thread.start();
    }

    /** Runs the proxy on the calling thread (the proxy's own) until {@link #stop()}. */
    protected abstract void forward();

    /** Makes {@link #forward()} return; called on the closing thread. */
    protected abstract void stop();

    /** Closes the proxy's sockets once its thread has ended. */
    protected abstract void closeSockets();

    /** The endpoint the sender's PUSH connects to: the proxy's frontend; any thread. */
    public abstract String senderEndpoint();

    /** Throws what stopped the proxy, if anything did: call when an expected message is late. */
    public final void checkHealthy() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("proxy failed: " + t, t);
        }
        if (!thread.isAlive() && !stopping) {
            throw new IllegalStateException("proxy thread ended unexpectedly: name=" + thread.getName());
        }
    }

    /**
     * Closes {@code hop} when there is one (null for {@code hop=none}), then runs {@code rest} (closing the
     * contestant's sockets and context), even when closing the hop failed.
     */
    public static void closeThen(ProxyHop hop, Runnable rest) {
        try {
            if (hop != null) {
                hop.close();
            }
        } finally {
            rest.run();
        }
    }

    /** Stops the proxy, joins its thread and closes its sockets; the contestant's context is still open. */
    @Override
    public final void close() {
        stopping = true;
        try {
            stop();
            thread.join(JOIN_TIMEOUT_MS);
            if (thread.isAlive()) {
                throw new IllegalStateException("proxy thread did not stop within 10 s: name=" + thread.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the proxy thread: name=" + thread.getName(), e);
        } finally {
            if (!thread.isAlive()) {
                closeSockets();
            }
        }
    }
}

package io.zmqzstd.benchmark.latency;

import java.util.concurrent.TimeUnit;

/**
 * The server side of a round-trip contestant: a platform thread that serves one request per
 * {@link Step} until closed. The step's receive must time out now and then (return false) so that the
 * thread notices {@link #close()}. The thread owns what the step uses from {@link Thread#start()} until
 * {@link #close()} has joined it.
 */
final class ServerLoop implements AutoCloseable {

    /** Serves one request; false when the receive timed out with nothing to serve. */
    @FunctionalInterface
    interface Step {
        boolean serveOne() throws Exception;
    }

    private final Step step;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    ServerLoop(String name, Step step) {
        this.step = step;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        thread.start();
    }

    /** Throws what stopped the server, if anything did: call when an acknowledgement is late. */
    void checkHealthy() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("server failed: " + t, t);
        }
        if (!thread.isAlive() && running) {
            throw new IllegalStateException("server thread ended unexpectedly");
        }
    }

    private void run() {
        try {
            while (running) {
                step.serveOne();
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new IllegalStateException("server thread did not stop within 10 s: name=" + thread.getName());
        }
    }
}

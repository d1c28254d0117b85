package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * shutdown() and socket() are documented thread-safe: racing close(), they must never reach a
 * context that zmq_ctx_term has already freed (libzmq then answers EFAULT, or worse).
 */
class ContextCloseRaceTest {

    private static final int ROUNDS = 3000;

    @Test
    @Timeout(60)
    void shutdownRacingCloseNeverCallsIntoAFreedContext() throws Exception {
        assertNull(race(ZmqContext::shutdown), "shutdown() racing close() failed");
    }

    @Test
    @Timeout(60)
    void socketRacingCloseFailsOnlyWithIllegalState() throws Exception {
        assertNull(race(ctx -> {
            try {
                ctx.socket(SocketType.PAIR);
            } catch (IllegalStateException expected) {
                // the context closed first: documented
            }
        }), "socket() racing close() failed other than with IllegalStateException");
    }

    /**
     * close() is idempotent and callable from any thread: a second close, on another thread while
     * the first waits out a socket's linger in zmq_ctx_term, returned at once, the context not yet
     * terminated and the pool it owns still open, so its caller could not rely on what close()
     * promises. Now it returns once the first has finished.
     */
    @Test
    @Timeout(30)
    void aSecondCloseOnAnotherThreadReturnsOnlyOnceTheContextIsClosed() throws Exception {
        ZmqContext ctx = ZmqContext.builder().build();
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.linger(Duration.ofMillis(1500));
        int port;
        try (java.net.ServerSocket gone = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = gone.getLocalPort();
        }
        push.connect("tcp://127.0.0.1:" + port); // nobody listens: the message stays queued for the linger
        assertTrue(push.send(new byte[] {1}, 0));
        CountDownLatch closing = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread first = Thread.ofPlatform().start(() -> {
            closing.countDown();
            try {
                ctx.close();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        closing.await();
        while (!ctx.isClosed()) {
            Thread.onSpinWait();
        }
        Thread.sleep(200); // the first close is in zmq_ctx_term, waiting out the linger
        long start = System.nanoTime();
        ctx.close();
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ctx.bufferPool().isClosed(), "the second close() returned after " + tookMs
                + " ms with the context's own pool still open: the first close was still terminating the context");
        first.join();
        assertNull(failure.get());
    }

    /** Runs {@code action} on another thread as close() runs, ROUNDS times; the first failure, or null. */
    private static Throwable race(Consumer<ZmqContext> action) throws InterruptedException {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int i = 0; i < ROUNDS && failure.get() == null; i++) {
                ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
                AtomicBoolean go = new AtomicBoolean();
                Thread t = Thread.ofPlatform().start(() -> {
                    while (!go.get()) {
                        Thread.onSpinWait();
                    }
                    try {
                        action.accept(ctx);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                go.set(true);
                ctx.close();
                t.join();
            }
            return failure.get();
        }
    }
}

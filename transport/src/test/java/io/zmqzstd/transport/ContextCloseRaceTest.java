package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertNull;

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

package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Checks that every pooled buffer came back, and came back once. */
final class Buffers {

    private Buffers() {
    }

    /**
     * Right now: nothing outstanding, nothing in flight, no throwable in the free callback and no
     * stray (second) callback. The last two are process-wide, and no test provokes them.
     */
    static void assertAllBack(NativeBufferPool pool) {
        NativeBufferPool.Stats s = pool.stats();
        assertEquals(0, s.outstanding(), () -> "buffers not back: " + s);
        assertEquals(0, s.inFlight(), () -> "buffers still held by libzmq: " + s);
        assertEquals(0, s.callbackErrors(), () -> "the free callback failed: " + s);
        assertEquals(0, s.strayCallbacks(), () -> "a buffer came back from libzmq twice: " + s);
    }

    /** Waits (bounded) for libzmq's I/O thread to give every buffer back, then {@link #assertAllBack}. */
    static void awaitAllBack(NativeBufferPool pool) {
        Endpoints.await("every buffer back", () -> pool.outstanding() == 0);
        assertAllBack(pool);
    }
}

package io.zmqzstd.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolStressTest {

    private static final int SLOTS = 64;
    /** One rent size per class the stress uses: 256, 512 and 1024 bytes. */
    private static final long[] CLASS_SIZES = {256, 512, 1024};

    /**
     * Threshold 0: every class is sent zero-copy, so no class has thread caches and libzmq's I/O
     * thread returns the sent buffers. Threshold 8192: the classes are copied when sent and cached
     * per thread, and the final drain also takes back what the ended workers had cached.
     */
    @ParameterizedTest(name = "zeroCopyThreshold={0}")
    @ValueSource(longs = {0, NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES})
    void shouldNeverLoseOrDoubleHandOutABufferUnderConcurrentRentAndReturn(long threshold) throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(threshold).maxBuffersPerClass(SLOTS).build();
        // Every slot exists from the start, so the final drain can tell a lost slot (a miss) from
        // one that was never carved.
        for (long size : CLASS_SIZES) {
            assertEquals(SLOTS, pool.reserve(size, SLOTS));
        }
        // A buffer handed to two holders at once is caught by this ownership set.
        var owned = ConcurrentHashMap.<PooledBuffer>newKeySet();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            int threads = 3;
            int perThread = 20_000;
            CountDownLatch done = new CountDownLatch(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < perThread; i++) {
                            PooledBuffer b = pool.rent(200 + (i % 3) * 300);
                            if (!owned.add(b)) {
                                throw new AssertionError("buffer handed out twice");
                            }
                            b.segment().set(ValueLayout.JAVA_INT, 0, id);
                            if (b.segment().get(ValueLayout.JAVA_INT, 0) != id) {
                                throw new AssertionError("buffer written by two threads");
                            }
                            owned.remove(b);
                            b.release();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        done.countDown();
                    }
                }));
            }
            // meanwhile this thread sends: zero-copy (libzmq's I/O thread returns these buffers)
            // or copied (released on this thread)
            int sent = 0;
            try (ZmqMessage msg = new ZmqMessage()) {
                while (done.getCount() > 0 || sent < 2000) {
                    PooledBuffer b = pool.rent(512);
                    if (!push.sendPooled(b, 512, 0)) {
                        b.release();
                    }
                    sent++;
                    assertTrue(pull.receive(msg, 0));
                }
            }
            for (Thread w : workers) {
                w.join();
            }
            assertNull(failure.get());
            Buffers.awaitAllBack(pool);
        }
        NativeBufferPool.Stats s = pool.stats();
        assertEquals(s.rented(), s.returned(), s.toString());
        assertEquals(0, s.callbackErrors(), s::toString);
        assertEquals(0, s.strayCallbacks(), () -> "a buffer came back from libzmq twice: " + s);
        assertEquals(0, s.doubleReleases(), () -> "a buffer was released twice: " + s);
        for (long size : CLASS_SIZES) {
            assertEverySlotFreeExactlyOnce(pool, size);
        }
        pool.assertNoLeaks();
        pool.close();
    }

    /**
     * Every slot of the class is on its free stack exactly once: draining it yields SLOTS distinct
     * pooled buffers (a lost slot would make one rent a miss, a slot returned twice would come out
     * twice), and the next rent finds the stack empty.
     */
    private static void assertEverySlotFreeExactlyOnce(NativeBufferPool pool, long size) {
        NativeBufferPool.Stats before = pool.stats();
        var seen = new java.util.HashSet<PooledBuffer>();
        List<PooledBuffer> drained = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            PooledBuffer b = pool.rent(size);
            assertTrue(seen.add(b), () -> "slot on the free stack twice: size=" + size);
            drained.add(b);
        }
        NativeBufferPool.Stats full = pool.stats();
        assertEquals(SLOTS, full.hits() - before.hits(), () -> "a slot was lost: size=" + size + ", stats=" + full);
        PooledBuffer extra = pool.rent(size);
        assertEquals(before.unpooled() + 1, pool.stats().unpooled(),
                () -> "more free slots than the class holds: size=" + size + ", stats=" + pool.stats());
        extra.release();
        drained.forEach(PooledBuffer::release);
    }
}

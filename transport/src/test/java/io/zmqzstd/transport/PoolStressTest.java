package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

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

    @Test
    void shouldNeverLoseOrDoubleHandOutABufferUnderConcurrentRentAndReturn() throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).maxBuffersPerClass(64).build();
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
            // meanwhile this thread sends zero-copy: libzmq's I/O thread returns these buffers
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
            Endpoints.await("all buffers back", () -> pool.outstanding() == 0);
        }
        NativeBufferPool.Stats s = pool.stats();
        assertEquals(s.rented(), s.returned(), s.toString());
        assertEquals(0, s.callbackErrors());
        // every free slot is on exactly one stack once: draining the pool yields distinct buffers
        var seen = new java.util.HashSet<PooledBuffer>();
        List<PooledBuffer> drained = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            PooledBuffer b = pool.rent(512);
            assertTrue(seen.add(b), "slot on the free stack twice");
            drained.add(b);
        }
        drained.forEach(PooledBuffer::release);
        pool.assertNoLeaks();
        pool.close();
    }
}

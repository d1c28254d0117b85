package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-thread caches of free buffers for the classes that are copied when sent. */
class ThreadCacheTest {

    private static final int CACHE = NativeBufferPool.THREAD_CACHE_SLOTS;

    @Test
    void shouldHandTheSameBufferBackToTheThreadThatReleasedIt() {
        try (NativeBufferPool pool = NativeBufferPool.builder().build()) {
            PooledBuffer first = pool.rent(64);
            first.release();
            assertEquals(1, pool.cachedBuffers());
            for (int i = 0; i < 1000; i++) {
                PooledBuffer b = pool.rent(64);
                assertSame(first, b, "a rent after a release on the same thread takes the cached buffer");
                assertEquals(0, pool.cachedBuffers());
                b.release();
            }
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(1001, s.rented(), s::toString);
            assertEquals(1001, s.returned(), s::toString);
            assertEquals(1000, s.hits(), s::toString);
            assertEquals(1, s.misses(), s::toString);
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldCacheAtMostItsBoundAndShareTheRest() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBuffersPerClass(CACHE + 12).build()) {
            List<PooledBuffer> held = new ArrayList<>();
            for (int i = 0; i < CACHE + 12; i++) {
                held.add(pool.rent(256));
            }
            held.forEach(PooledBuffer::release);
            assertEquals(CACHE, pool.cachedBuffers(), "the releasing thread keeps its bound, no more");
            // Another (live) thread finds the other 12 on the shared stack: hits, no unpooled fallback.
            long[] unpooledAndHits = new long[2];
            Thread other = Thread.ofPlatform().start(() -> {
                List<PooledBuffer> mine = new ArrayList<>();
                long hitsBefore = pool.stats().hits();
                for (int i = 0; i < 12; i++) {
                    mine.add(pool.rent(256));
                }
                unpooledAndHits[0] = pool.stats().unpooled();
                unpooledAndHits[1] = pool.stats().hits() - hitsBefore;
                mine.forEach(PooledBuffer::release);
            });
            other.join();
            assertEquals(0, unpooledAndHits[0], "the shared stack ran dry");
            assertEquals(12, unpooledAndHits[1]);
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldTakeBackWhatAnEndedThreadCached() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBuffersPerClass(CACHE).build()) {
            var cachedThere = new HashSet<PooledBuffer>();
            Thread t = Thread.ofPlatform().start(() -> {
                List<PooledBuffer> mine = new ArrayList<>();
                for (int i = 0; i < CACHE; i++) {
                    mine.add(pool.rent(1024));
                }
                cachedThere.addAll(mine);
                mine.forEach(PooledBuffer::release); // all into this thread's cache
            });
            t.join();
            assertEquals(CACHE, pool.cachedBuffers());
            // Every slot of the class sits in the dead thread's cache; the rents below must get
            // them back instead of falling back to unpooled buffers.
            var got = new HashSet<PooledBuffer>();
            for (int i = 0; i < CACHE; i++) {
                got.add(pool.rent(1024));
            }
            assertEquals(cachedThere, got, "the ended thread's buffers, each once");
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(0, s.unpooled(), s::toString);
            assertEquals(2L * CACHE, s.rented(), s::toString);
            assertEquals(CACHE, s.returned(), "the ended thread's returns still count: " + s);
            assertEquals(CACHE, pool.outstanding());
            got.forEach(PooledBuffer::release);
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldNotKeepEndedThreadsReachableWhileNoSharedStackRunsDry() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().build()) {
            // One 64 KiB buffer (a class sent zero-copy, so never cached): each thread below takes it
            // from the shared stack and puts it back there, so no rent ever finds a stack empty.
            pool.reserve(64 << 10, 1);
            int threads = 50;
            List<WeakReference<Thread>> ended = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread t = Thread.ofPlatform().start(() -> pool.rent(64 << 10).release());
                t.join();
                ended.add(new WeakReference<>(t));
            }
            // Every thread but the last has been followed by a new one; none of those may be kept.
            long deadline = System.nanoTime() + 5_000_000_000L;
            int kept;
            do {
                System.gc();
                kept = 0;
                for (int i = 0; i < threads - 1; i++) {
                    if (ended.get(i).get() != null) {
                        kept++;
                    }
                }
            } while (kept > 0 && System.nanoTime() < deadline);
            assertEquals(0, kept, "ended threads still reachable from the pool's list of thread caches");
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(threads, s.rented(), s::toString);
            assertEquals(threads, s.returned(), "the ended threads' counters still count: " + s);
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldCountABufferRentedOnOneThreadAndReleasedOnAnother() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().build()) {
            BlockingQueue<PooledBuffer> handOff = new ArrayBlockingQueue<>(16);
            int n = 10_000;
            Thread releaser = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        handOff.take().release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < n; i++) {
                PooledBuffer b = pool.rent(300);
                assertTrue(pool.outstanding() >= 1, "a rented buffer is outstanding");
                handOff.put(b);
            }
            releaser.join();
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(n, s.rented(), s::toString);
            assertEquals(n, s.returned(), s::toString);
            assertEquals(0, pool.outstanding());
            assertEquals(0, s.doubleReleases(), s::toString);
            pool.assertNoLeaks();
        }
    }

    @Test
    void shouldNotCacheClassesSentZeroCopy() {
        try (NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(4096).build()) {
            pool.rent(4096).release(); // the 4 KiB class: copied below the threshold, cached
            assertEquals(1, pool.cachedBuffers());
            pool.rent(4097).release(); // the 8 KiB class: sent zero-copy, returned by libzmq
            pool.rent(64 << 10).release();
            assertEquals(1, pool.cachedBuffers(), "only classes copied when sent are cached");
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldWorkWithoutACacheOnVirtualThreads() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().build()) {
            PooledBuffer[] seen = new PooledBuffer[2];
            Thread v = Thread.ofVirtual().start(() -> {
                seen[0] = pool.rent(64);
                seen[0].release();
                seen[1] = pool.rent(64);
                seen[1].release();
            });
            v.join();
            assertEquals(0, pool.cachedBuffers(), "virtual threads keep no cache");
            assertSame(seen[0], seen[1], "the shared stack handed the buffer back");
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(2, s.rented(), s::toString);
            assertEquals(2, s.returned(), s::toString);
            PooledBuffer here = pool.rent(64);
            assertNotNull(here);
            here.release();
            assertEquals(0, pool.outstanding());
        }
    }

    @Test
    void shouldSendACopiedPooledBufferAndKeepItInTheSendersCache() {
        try (NativeBufferPool pool = NativeBufferPool.builder().build();
             ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
             ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            PooledBuffer previous = null;
            for (int i = 0; i < 100; i++) {
                PooledBuffer b = pool.rent(64);
                if (previous != null) {
                    assertSame(previous, b, "the copy path hands the buffer back to this thread's cache");
                }
                b.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 0, i);
                assertTrue(push.sendPooled(b, 64, 0));
                assertTrue(pull.receive(msg, 0));
                assertEquals(i, msg.data().get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
                previous = b;
            }
            assertEquals(0, pool.outstanding());
        }
    }
}

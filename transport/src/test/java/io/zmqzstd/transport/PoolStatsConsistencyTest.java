package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link NativeBufferPool#stats()} read while platform and virtual threads rent and release: each
 * snapshot must be one that could be true, whatever the timing.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PoolStatsConsistencyTest {

    private static final long LARGEST_CLASS_BYTES = 1024;

    /**
     * Every unpooled rent is a miss, so a snapshot never shows more unpooled rents than misses.
     * Until 2026-11-29 {@code stats()} read the unpooled count after the misses, and a rent
     * counted it before its miss: with threads renting above the largest class, snapshots showed
     * {@code unpooled > misses} (e.g. misses=27160, unpooled=29657) within a second.
     */
    @Test
    void shouldNeverShowMoreUnpooledRentsThanMissesWhileThreadsRent() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(LARGEST_CLASS_BYTES).maxBuffersPerClass(4)
                .build()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong rents = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                // platform threads count in their caches, virtual ones in the pool's shared counters
                Thread.Builder builder = t % 2 == 0 ? Thread.ofPlatform() : Thread.ofVirtual();
                int seed = t;
                workers.add(builder.start(() -> {
                    try {
                        List<PooledBuffer> held = new ArrayList<>();
                        for (int i = seed; !stop.get(); i++) {
                            // mostly above the largest class (unpooled), some pooled hits and class-exhaustion misses
                            held.add(pool.rent(i % 4 == 0 ? i % (LARGEST_CLASS_BYTES + 1) : LARGEST_CLASS_BYTES + 1 + i % 64));
                            rents.incrementAndGet();
                            if (held.size() == 3) {
                                held.forEach(PooledBuffer::release);
                                held.clear();
                            }
                        }
                        held.forEach(PooledBuffer::release);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            NativeBufferPool.Stats bad = null;
            long snapshots = 0;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (bad == null && System.nanoTime() < deadline) {
                NativeBufferPool.Stats s = pool.stats();
                snapshots++;
                if (s.unpooled() > s.misses() || s.rented() != s.hits() + s.misses()
                        || s.outstanding() != s.rented() - s.returned() || s.outstanding() < 0) {
                    bad = s;
                }
            }
            stop.set(true);
            for (Thread w : workers) {
                w.join();
            }
            assertNull(failure.get());
            assertNull(bad, "a snapshot that cannot be true, after " + snapshots + " snapshots");
            NativeBufferPool.Stats end = pool.stats();
            assertEquals(rents.get(), end.rented(), end.toString());
            assertEquals(end.rented(), end.returned(), end.toString());
            assertEquals(0, end.outstanding(), end.toString());
            assertEquals(0, end.doubleReleases(), end.toString());
        }
    }
}

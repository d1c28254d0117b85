package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A strict pool's leak report read while another thread rents and releases: every buffer it reports
 * carries the site of its rent. Until 2026-11-29 {@code rent()} marked the buffer rented before it
 * recorded the site (a stack trace, microseconds), and a report made in between said "rent site not
 * recorded; run with -Dzmqzstd.leakDetection=strict" of a strict pool's buffer.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LeakReportRaceTest {

    private static final long RACE_NS = 1_500_000_000L;

    @Test
    void shouldReportTheRentSiteOfEveryBufferWhileAnotherThreadRentsAndReleases() throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread renter = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        // a cached class and a shared one (above the zero-copy threshold's cached
                        // classes); the first is held while the second's site is made
                        PooledBuffer held = pool.rent(256);
                        pool.rent(64 * 1024).release();
                        held.release();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            long reports = 0;
            long seen = 0;
            Throwable unrecorded = null;
            long end = System.nanoTime() + RACE_NS;
            try {
                while (unrecorded == null && System.nanoTime() - end < 0) {
                    List<Throwable> leaks = pool.leakSites();
                    reports++;
                    for (Throwable t : leaks) {
                        seen++;
                        if (!t.getMessage().startsWith("buffer rented here")) {
                            unrecorded = t;
                        }
                    }
                }
            } finally {
                stop.set(true);
                renter.join();
            }
            assertNull(failure.get());
            assertNull(unrecorded, "a strict pool's report without a rent site, after " + reports + " reports");
            assertTrue(seen > 0, "the reports caught the renter holding a buffer: reports=" + reports + ", seen=" + seen);
            assertEquals(0, pool.leakSites().size());
        }
    }
}

package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PoolBenchmarkTest {

    /**
     * A thread caches the classes up to the zero-copy threshold (8 KiB); 16 KiB went through the shared
     * stack and its counters, and the result said {@code cache=thread}.
     */
    @Test
    void shouldRefuseAThreadCacheSizeNoThreadCaches() {
        PoolBenchmark b = benchmark("thread", 16384);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::setUp);
        assertEquals("cache=thread needs a size a thread caches, at most the zero-copy threshold: size=16384,"
                + " zeroCopyThresholdBytes=8192", e.getMessage());
    }

    @Test
    void shouldRentAndReleaseAtTheLargestCachedSizeAndThroughTheSharedStack() {
        for (PoolBenchmark b : new PoolBenchmark[] {benchmark("thread", 8192), benchmark("shared", 16384)}) {
            b.setUp();
            try {
                assertTrue(b.rentRelease() != 0, "no buffer address");
            } finally {
                b.tearDown();
            }
        }
    }

    private static PoolBenchmark benchmark(String cache, int size) {
        PoolBenchmark b = new PoolBenchmark();
        b.cache = cache;
        b.size = size;
        return b;
    }
}

package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertNull;

/** A closed pool must become garbage, whichever thread released its buffers. */
class PoolRetentionTest {

    @Test
    void closedPoolIsNotRetainedByTheThreadCacheOfALiveThread() {
        Consumer<NativeBufferPool> listener = NativeBufferPool.buildListener;
        NativeBufferPool.buildListener = null; // the leak check would hold the pool itself
        try {
            // control: a buffer of a class without thread cache (64 KiB > 8 KiB threshold)
            WeakReference<NativeBufferPool> uncached = useAndClose(65536);
            // a buffer of a cached class (1 KiB), released on this (live) thread
            WeakReference<NativeBufferPool> cached = useAndClose(1024);
            for (int i = 0; i < 10 && (uncached.get() != null || cached.get() != null); i++) {
                System.gc();
            }
            assertNull(uncached.get(), "control: a closed pool whose buffer went to the shared stack is collected");
            assertNull(cached.get(), "a closed pool stays reachable from this thread's ThreadLocal cache "
                    + "(value -> PooledBuffer -> pool -> ThreadLocal key): ~180 KB of slot arrays per pool and thread");
        } finally {
            NativeBufferPool.buildListener = listener;
        }
    }

    private static WeakReference<NativeBufferPool> useAndClose(long size) {
        NativeBufferPool pool = new NativeBufferPool();
        pool.rent(size).release();
        pool.close();
        return new WeakReference<>(pool);
    }
}

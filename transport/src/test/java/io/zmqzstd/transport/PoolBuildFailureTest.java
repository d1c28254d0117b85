package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pool whose build fails leaves nothing behind. Its slot tables are allocated at build, one
 * reference per slot and class; the pool took its id in the process-wide table of live pools
 * before that, so each failed build kept its id, and the half-built pool with the tables made so
 * far, for good: after 65,535 of them no pool could be built in the process any more.
 */
class PoolBuildFailureTest {

    @Test
    void shouldKeepNoIdNorMemoryOfAPoolWhoseSlotTablesCannotBeAllocated() {
        for (int i = 0; i < 65_535; i++) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                    () -> NativeBufferPool.builder().maxBuffersPerClass(Integer.MAX_VALUE).build());
            if (i == 0) {
                assertTrue(e.getMessage().contains("maxBuffersPerClass=" + Integer.MAX_VALUE), e.getMessage());
            }
        }
        NativeBufferPool pool = NativeBufferPool.builder().build(); // threw "too many open buffer pools"
        pool.rent(100).release();
        pool.close();
    }
}

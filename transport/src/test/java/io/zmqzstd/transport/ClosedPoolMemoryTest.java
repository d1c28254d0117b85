package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A pool closed while libzmq holds one of its buffers must free its slabs once that buffer comes back. */
class ClosedPoolMemoryTest {

    @Test
    void closedPoolFreesItsSlabsWhenTheLastInFlightBufferComesBack() {
        NativeBufferPool pool = new NativeBufferPool();
        MemorySegment slabMemory;
        ZmqMessage msg = new ZmqMessage();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://closed-pool");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://closed-pool");
            PooledBuffer b = pool.rent(4096);
            slabMemory = b.segment();
            assertTrue(push.sendPooled(b, 4096, 0)); // inproc, >= 512 B: zero-copy
            assertTrue(pull.receive(msg, 0));        // msg now holds the pool's buffer
        }
        pool.close();                               // libzmq still holds the buffer: memory kept
        assertTrue(slabMemory.scope().isAlive());
        msg.close();                                // the free callback gives the last buffer back
        assertEquals(0, pool.stats().inFlight());
        assertFalse(slabMemory.scope().isAlive(),
                "the closed pool's slabs were never freed after its last in-flight buffer came back");
    }
}

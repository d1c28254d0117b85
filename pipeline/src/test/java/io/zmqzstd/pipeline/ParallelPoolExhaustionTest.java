package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A parallel sender on a pool of one buffer per size class, with a receiver that reads nothing
 * until the producer has been refused: payload copies, frames and zero-copy frames held in
 * libzmq's pipes all outrun the pool. Rents fall back to unpooled buffers, as the pool documents:
 * the producer is held back only by the ring (refused with DONTWAIT, waiting without), never by
 * the pool; every message arrives intact and in order although some sends were refused and made
 * again; the counters add up; and once the sender is closed no buffer is out.
 */
class ParallelPoolExhaustionTest {

    private static final int MESSAGES = 600;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void shouldFallBackToUnpooledBuffersKeepOrderAndReturnEveryBuffer(String transport) throws Exception {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBuffersPerClass(1).build()) {
            try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
                ZmqSocket pull = ctx.socket(SocketType.PULL);
                ZmqSocket push = ctx.socket(SocketType.PUSH);
                pull.receiveHwm(4);
                push.sendHwm(4);
                Fixtures.link(pull, push, transport);
                ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(3).inFlight(16).build();
                CountDownLatch refused = new CountDownLatch(1);
                AtomicLong refusals = new AtomicLong();
                AtomicReference<Throwable> producerFailure = new AtomicReference<>();
                Thread producer = new Thread(() -> {
                    try {
                        for (int i = 0; i < MESSAGES; i++) {
                            byte[] m = message(i);
                            if (!sender.send(m, ZmqSocket.DONTWAIT)) {
                                refusals.incrementAndGet();
                                refused.countDown();
                                assertTrue(sender.send(m, 0), "a blocking send takes the message refused");
                            }
                        }
                        sender.flush();
                    } catch (Throwable t) {
                        producerFailure.set(t);
                    }
                }, "producer");
                producer.start();
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    // the slow receiver: nothing read until the ring is full
                    assertTrue(refused.await(20, TimeUnit.SECONDS), "the ring never filled");
                    for (int i = 0; i < MESSAGES; i++) {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                        assertArrayEquals(message(i), receiver.message().partBytes(0), "message " + i);
                    }
                }
                producer.join(TimeUnit.SECONDS.toMillis(20));
                assertTrue(!producer.isAlive(), "the producer is still inside the sender");
                assertNull(producerFailure.get());
                sender.close();

                PipelineStats s = sender.stats();
                assertEquals(MESSAGES, s.messages(), s::toString);
                assertEquals(0, s.droppedMessages(), s::toString);
                assertEquals(refusals.get(), s.wouldBlock(), "the caller's refusals, and no socket timeout");
                assertTrue(s.zeroCopySends() > 0 && s.copiedSends() > 0, s::toString);
                NativeBufferPool.Stats p = pool.stats();
                assertEquals(p.rented(), s.poolRents(), () -> "every rent is the sender's: " + p);
                assertTrue(p.unpooled() > 0, () -> "the pool was never exhausted: " + p);
                // zero-copy frames come back from libzmq's I/O thread
                assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
                assertEquals(pool.stats().rented(), pool.stats().returned());
            }
        }
    }

    /** Every third message incompressible and large enough to go zero-copy, the others small JSON. */
    private static byte[] message(int i) {
        return i % 3 == 0 ? Fixtures.random(20_000 + i, i) : Fixtures.payload(500 + 7 * i, i);
    }
}

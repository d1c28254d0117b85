package io.zmqzstd.pipeline;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link ParallelCompressingSender} message with a topic whose frame fails after the topic went
 * out with SNDMORE, for a reason that is not libzmq's (here the context's buffer pool closed
 * under the sender, so the zero-copy frame is refused before it reaches libzmq; the socket used
 * by another thread at the same time fails the same way). libzmq holds the start of
 * the message and cannot take it back: the sender ends it with a 0-byte part, which a zmq-zstd
 * receiver refuses as {@code EMPTY}, so that the next message sent on the socket starts on its
 * own. Before, the message was left open and the next one sent on the socket went out as the
 * stray topic's second part.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ParallelSenderFrameFailureTest {

    private static final byte[] TOPIC = "topic".getBytes(StandardCharsets.US_ASCII);
    private static final int SIZE = 16 * 1024; // above every zero-copy threshold: the frame is sent from its pooled buffer

    @Test
    void shouldEndTheMessageWhenItsFrameFailsAfterTheTopicWentOut() {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveHwm(1);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.bind(Fixtures.bindAddress("inproc"));
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(1);
            push.connect(pull.lastEndpoint());
            // Zero-copy messages fill the pipe: the sender's topic waits for room, and libzmq holding
            // them keeps the pool's memory alive once it is closed.
            int queued = 0;
            while (true) {
                PooledBuffer b = pool.rent(SIZE);
                if (!push.sendPooled(b, SIZE, ZmqSocket.DONTWAIT)) {
                    b.release();
                    break;
                }
                queued++;
            }
            assertTrue(queued >= 2, "queued=" + queued);

            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            long rentedBefore = pool.stats().rented();
            assertTrue(sender.publish(TOPIC, Fixtures.random(SIZE, 7), 0));
            // its payload copy, then its frame once the worker has compressed it
            assertTrue(Fixtures.await(() -> pool.stats().rented() == rentedBefore + 2, 10_000), () -> pool.stats().toString());
            pool.close(); // misuse: the frame can no longer be handed to libzmq
            for (int i = 0; i < queued - 1; i++) { // room for the topic; the last keeps the pool's memory
                assertNotNull(pull.receiveBytes(0), "queued message " + i);
            }

            IllegalStateException failed = assertThrows(IllegalStateException.class, sender::close);
            assertTrue(failed.getMessage().contains("buffer pool is closed"), failed::getMessage);
            assertEquals(1, sender.stats().droppedMessages());
            assertEquals(1, sender.stats().envelopeParts(), "the topic went out");
            assertNotNull(pull.receiveBytes(0), "the last queued message");
            assertTrue(push.send("after".getBytes(StandardCharsets.US_ASCII), 0));

            assertArrayEquals(TOPIC, pull.receiveBytes(0));
            assertTrue(pull.hasMore(), "the topic's message has a part after it");
            assertArrayEquals(new byte[0], pull.receiveBytes(0), "ended by a 0-byte part, not by the next message");
            assertFalse(pull.hasMore());
            assertArrayEquals("after".getBytes(StandardCharsets.US_ASCII), pull.receiveBytes(0));
            assertFalse(pull.hasMore(), "the next message is one of its own");
        }
    }
}

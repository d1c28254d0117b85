package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * isClosed() on both senders: the receiver and the transport's socket had one, the senders none,
 * so code that tidies up a set of senders could not tell which were closed.
 */
class SenderIsClosedTest {

    @Test
    void shouldTellWhetherACompressingSenderIsClosedOnAnyThread() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            CompressingSender sender = CompressingSender.builder(link.client()).build();
            assertFalse(sender.isClosed());
            assertTrue(sender.send(Fixtures.payload(100, 1), 0));
            assertFalse(sender.isClosed(), "a send leaves it open");
            Thread closer = Thread.ofPlatform().start(sender::close);
            closer.join();
            assertTrue(sender.isClosed(), "closed on another thread");
            sender.close();
            assertTrue(sender.isClosed(), "a second close changes nothing");
        }
    }

    /**
     * A parallel sender's close waits for the messages taken to reach libzmq: with no peer it
     * waits until one comes. isClosed() is true from the start of that wait, read on another
     * thread, and stays true once the close is over.
     */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldTellAParallelSenderIsClosedWhileItsCloseStillWaits() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc"); // no peer: a send waits
            String endpoint = push.lastEndpoint(); // read now: the worker will be inside a call on push
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            assertFalse(sender.isClosed());
            assertTrue(sender.send(Fixtures.payload(1000, 2), 0), "taken: the worker waits for a peer");
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread closer = Thread.ofPlatform().start(() -> {
                try {
                    sender.close();
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            assertTrue(Fixtures.await(sender::isClosed, 10_000), "isClosed() while close() waits");
            assertTrue(closer.isAlive(), "close() still waits for the message to reach libzmq");

            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(10_000);
            pull.connect(endpoint);
            assertNotNull(pull.receiveBytes(0), "the message taken before close went out");
            closer.join();
            assertTrue(failed.get() == null, () -> "close failed: " + failed.get());
            assertTrue(sender.isClosed());
        }
    }
}

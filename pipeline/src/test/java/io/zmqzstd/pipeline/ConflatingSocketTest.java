package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The senders on a socket connected with conflate on, whose multipart sends the transport refuses
 * (libzmq keeps the last frame of a conflating pipe, so a topic and payload would arrive as the
 * payload alone): README, "Failures".
 */
class ConflatingSocketTest {

    private static final byte[] TOPIC = "feed".getBytes(StandardCharsets.US_ASCII);

    /** A PULL bound at {@code endpoint} and a PUSH connected to it with conflate on. */
    private static Fixtures.Link conflatingPush(ZmqContext ctx, String endpoint) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind(endpoint);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.conflate(true);
        push.connect(endpoint);
        return new Fixtures.Link(pull, push);
    }

    /** A CompressingSender's publish throws to its caller, nothing sent; the sender goes on. */
    @Test
    void shouldThrowACompressingSendersPublishToTheCallerAndGoOn() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = conflatingPush(ctx, "inproc://conflating-single");
            ZmqSocket pull = link.server();
            ZmqSocket push = link.client();
            byte[] data = Fixtures.payload(1000, 3);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> sender.publish(TOPIC, data, 0));
                assertTrue(e.getMessage().contains("conflate on"), e.getMessage());
                assertTrue(sender.send(data, 0), "a single-part send still goes");
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts(), "the payload alone: nothing of the publish arrived");
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(1, sender.stats().messages());
            }
        }
    }

    /** A ParallelCompressingSender's publish is taken, and the worker's refused send fails the sender. */
    @Test
    void shouldFailAParallelSenderWhosePublishTheSocketRefuses() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = conflatingPush(ctx, "inproc://conflating-parallel");
            ZmqSocket pull = link.server();
            ZmqSocket push = link.client();
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            assertTrue(sender.publish(TOPIC, Fixtures.payload(1000, 4), 0), "taken");
            IllegalStateException failed = assertThrows(IllegalStateException.class, sender::flush);
            IllegalStateException cause = assertInstanceOf(IllegalStateException.class, failed.getCause(), failed::getMessage);
            assertTrue(cause.getMessage().contains("conflate on"), cause.getMessage());
            assertEquals(1, sender.stats().droppedMessages());
            assertThrows(IllegalStateException.class, sender::close, "close reports the failure too");
        }
    }
}

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
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * A receiver on a SUB with conflate on, which receives each message's last part alone; and the
 * senders on a socket connected with conflate on, whose multipart sends the transport refuses
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

    /** A SUB with conflate on, subscribed to everything, connected to {@code pub} over tcp. */
    private static ZmqSocket conflatingSub(ZmqContext ctx, ZmqSocket pub) {
        ZmqSocket sub = ctx.socket(SocketType.SUB);
        sub.conflate(true);
        sub.subscribe(new byte[0]);
        sub.receiveTimeoutMs(Fixtures.PROBE_WAIT_MS);
        sub.connect(pub.lastEndpoint());
        return sub;
    }

    /** Publishes and receives until a receive finds something (slow joiner); that receive's result. */
    private static int publishUntilReceived(CompressingSender sender, byte[] data, IntSupplier receive) {
        int[] rc = {DecompressingReceiver.WOULD_BLOCK};
        assertTrue(Fixtures.await(() -> {
            sender.publish(TOPIC, data, 0);
            rc[0] = receive.getAsInt();
            return rc[0] != DecompressingReceiver.WOULD_BLOCK;
        }, 10_000), "nothing reached the SUB in 10 s");
        return rc[0];
    }

    /**
     * Before 2026-11-29 a SUB receiver was built on a conflating socket with its default envelope
     * part (the topic), and every publish arrived as its frame alone, refused as NO_PAYLOAD without
     * a word of conflate; now the build refuses it naming both, and with envelopeParts(0) the frame
     * arrives.
     */
    @Test
    void shouldRefuseAnEnvelopeOnAConflatingSubNamingItAndReceiveTheFrameWithoutOne() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.bind("tcp://127.0.0.1:*");
            ZmqSocket sub = conflatingSub(ctx, pub);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> DecompressingReceiver.builder(sub).build());
            assertTrue(e.getMessage().contains("envelopeParts=1 on a socket with conflate on: type=SUB")
                    && e.getMessage().contains("envelopeParts(0)"), e.getMessage());
            byte[] data = Fixtures.payload(1000, 5);
            try (CompressingSender sender = CompressingSender.builder(pub).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(sub).envelopeParts(0).build()) {
                assertEquals(DecompressingReceiver.RECEIVED, publishUntilReceived(sender, data, () -> receiver.receive(0)),
                        receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts(), "the frame alone");
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }

    /** Conflate set after build(): the NO_PAYLOAD of each message says that the socket conflates. */
    @Test
    void shouldSayTheSocketConflatesWhenAnEnvelopeNeverArrives() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.bind("tcp://127.0.0.1:*");
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            try (CompressingSender sender = CompressingSender.builder(pub).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(sub).build()) {
                sub.conflate(true);
                sub.subscribe(new byte[0]);
                sub.receiveTimeoutMs(Fixtures.PROBE_WAIT_MS);
                sub.connect(pub.lastEndpoint());
                assertEquals(DecompressingReceiver.BAD_FRAME,
                        publishUntilReceived(sender, Fixtures.payload(1000, 6), () -> receiver.receive(0)));
                assertEquals(BadFrameReason.NO_PAYLOAD, receiver.lastErrorReason());
                assertTrue(receiver.lastErrorMessage().contains("the socket has conflate on (libzmq keeps only the last part"),
                        receiver.lastErrorMessage());
            }
        }
    }
}

package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each resource bound has one documented outcome (reliability/README.md, "Bounded resources"),
 * and each outcome is shown here.
 */
class BoundedResourcesTest {

    /**
     * ZMQ_MAXMSGSIZE on the receiving socket: libzmq closes the connection of a peer that sends
     * a larger part (the application never sees it); the PUSH side reconnects by itself. What was
     * queued on the dropped connection is lost; what is sent after the reconnect arrives.
     */
    @Test
    void shouldDropConnectionOfPeerSendingOversizedMessageAndRecoverAfterReconnect() {
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            pull.maxMessageSize(4096);
            pull.receiveTimeoutMs(20);
            pull.bind("tcp://127.0.0.1:*");
            push.connect(pull.lastEndpoint());
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                // Random bytes do not compress: the frame stays above 4096 bytes on the wire.
                assertTrue(sender.send(Frames.random(16 * 1024, 1), 0));
                // Small messages, numbered, until one arrives: those sent before libzmq has
                // dropped the connection and reconnected may be lost with it.
                long seq = 0;
                long firstArrived = -1;
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (firstArrived < 0) {
                    assertTrue(System.nanoTime() < deadline, "nothing arrived after the oversized message");
                    sender.send(sequenced(++seq), ZmqSocket.DONTWAIT);
                    if (receiver.receive(0) == DecompressingReceiver.RECEIVED) {
                        ReceivedMessage m = receiver.message();
                        assertEquals(16, m.partSize(0), "the oversized message must never be delivered");
                        firstArrived = seqOf(m);
                    }
                }
                // From here on the connection is up again: everything sent arrives, in order.
                pull.receiveTimeoutMs(10_000);
                for (int i = 0; i < 200; i++) {
                    assertTrue(sender.send(sequenced(++seq), 0));
                }
                long expected = firstArrived + 1;
                // Messages sent before firstArrived may still be queued behind it on the new connection.
                while (expected <= seq) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    long got = seqOf(receiver.message());
                    assertEquals(expected, got, "gap after the reconnect");
                    expected++;
                }
                assertEquals(0, receiver.stats().errors(), "libzmq drops the oversized part before the pipeline sees it");
            }
        }
    }

    /**
     * A size class at its bound: rent never blocks and never returns null; it hands out an
     * unpooled buffer (counted as a miss and as unpooled) whose memory is freed at its return from 1 MiB up, by the GC below.
     */
    @Test
    void shouldFallBackToUnpooledBuffersWhenAClassIsExhausted() {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBuffersPerClass(2).build()) {
            List<PooledBuffer> rented = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                PooledBuffer b = pool.rent(4096);
                assertNotNull(b);
                assertTrue(b.capacity() >= 4096);
                b.segment().fill((byte) i); // usable memory, whichever kind
                rented.add(b);
            }
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(5, s.outstanding());
            assertEquals(3, s.unpooled(), "two pooled slots, then three unpooled buffers");
            // a cold class has no free buffer to hand out: its two slots were misses, and so is each unpooled rent
            assertEquals(0, s.hits());
            assertEquals(5, s.misses(), "an unpooled rent counts as a miss");
            rented.forEach(PooledBuffer::release);
            assertEquals(0, pool.outstanding());
            // The class still holds only its two slots: the next two rents are hits.
            long hits = pool.stats().hits();
            pool.rent(4096).release();
            assertEquals(hits + 1, pool.stats().hits());
        }
    }

    /**
     * The same bound under a real stream: a receiver that does not read lets zero-copy buffers
     * pile up in the inproc pipe; the sender keeps going on unpooled buffers, every message
     * arrives intact, and every buffer comes back.
     */
    @Test
    void shouldKeepSendingZeroCopyWhenThePoolClassIsExhausted() {
        try (NativeBufferPool pool = NativeBufferPool.builder().maxBuffersPerClass(4).zeroCopyThresholdBytes(1024).build()) {
            try (ZmqContext context = ZmqContext.builder().bufferPool(pool).build();
                 ZmqSocket pull = context.socket(SocketType.PULL);
                 ZmqSocket push = context.socket(SocketType.PUSH)) {
                pull.bind("inproc://exhaust");
                push.connect("inproc://exhaust");
                int messages = 20;
                List<byte[]> sent = new ArrayList<>();
                try (CompressingSender sender = CompressingSender.builder(push).zeroCopyThresholdBytes(1024).build();
                     DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    for (int i = 0; i < messages; i++) {
                        byte[] payload = Frames.random(64 * 1024, i);
                        sent.add(payload);
                        assertTrue(sender.send(payload, 0));
                    }
                    assertTrue(pool.stats().unpooled() >= messages - 4, "unpooled=" + pool.stats().unpooled());
                    assertTrue(pool.outstanding() > 4, "buffers held in the pipe: " + pool.outstanding());
                    for (int i = 0; i < messages; i++) {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                        assertArrayEquals(sent.get(i), receiver.message().partBytes(0));
                    }
                    Await.until("every buffer back in the pool", Duration.ofSeconds(10), () -> pool.outstanding() == 0);
                }
            }
        }
    }

    /**
     * libzmq bounds neither the number of parts of a message nor their sum, so the receiver
     * bounds the whole message too ({@code maxMessageSize}, by default the per-part limit): a
     * message of k parts, each within the per-part limit, is refused as TOO_LARGE once its
     * total passes the bound, the output region never grows past it, and the next message
     * arrives. Raising {@code maxMessageSize} admits the same message.
     */
    @Test
    void shouldBoundTheWholeMessageNotOnlyEachPart() {
        long limit = 256 * 1024;
        int parts = 8;
        byte[] frame = Frames.sized(Frames.zeros((int) limit), 3);
        try (InprocPair pair = InprocPair.open("many-parts")) {
            ZmqSocket push = pair.push();
            ZmqSocket pull = pair.pull();
            try (DecompressingReceiver strict = DecompressingReceiver.builder(pull).maxDecompressedSize(limit).build()) {
                sendParts(push, frame, parts);
                assertEquals(DecompressingReceiver.BAD_FRAME, strict.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, strict.lastErrorReason());
                assertTrue(strict.lastErrorMessage().contains("maxMessageSize=" + limit), strict.lastErrorMessage());
                push.send(frame, 0);
                assertEquals(DecompressingReceiver.RECEIVED, strict.receive(0), strict::lastErrorMessage);
                assertEquals(1, strict.message().parts(), "the refused message's parts were drained, not delivered");
                assertEquals(limit, strict.message().totalSize());
                assertTrue(strict.message().region().byteSize() <= limit,
                        "region=" + strict.message().region().byteSize() + " above maxMessageSize=" + limit);
            }
            try (DecompressingReceiver roomy = DecompressingReceiver.builder(pull).maxDecompressedSize(limit)
                    .maxMessageSize(parts * limit).build()) {
                sendParts(push, frame, parts);
                assertEquals(DecompressingReceiver.RECEIVED, roomy.receive(0), roomy::lastErrorMessage);
                ReceivedMessage m = roomy.message();
                assertEquals(parts, m.parts());
                assertEquals(parts * limit, m.totalSize());
                assertTrue(m.region().byteSize() <= parts * limit, "region=" + m.region().byteSize());
            }
        }
    }

    /**
     * The receiver's per-part limit ({@code maxDecompressedSize}) in a message of two parts: a first part
     * of one byte over it, declared or not, is TOO_LARGE; the rest of that message is drained, not
     * delivered as a message of its own, and the next receive gets the next message whole.
     */
    @Test
    void shouldRefuseAPartOverTheLimitDrainItsMessageAndReceiveTheNext() {
        int limit = 64 * 1024;
        byte[] over = Frames.text(limit + 1, 7);
        byte[] rest = Frames.sized(Frames.text(100, 8), 3);
        byte[] next = Frames.text(1000, 9);
        try (InprocPair pair = InprocPair.open("part-limit")) {
            ZmqSocket push = pair.push();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pair.pull()).maxDecompressedSize(limit).build()) {
                for (byte[] first : List.of(Frames.sized(over, 3), Frames.unsized(over))) {
                    assertTrue(push.send(first, ZmqSocket.SNDMORE));
                    assertTrue(push.send(rest, 0));
                    assertTrue(push.send(Frames.sized(next, 3), 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                    assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
                    assertTrue(receiver.lastErrorMessage().contains("limit=" + limit), receiver.lastErrorMessage());
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertEquals(1, receiver.message().parts());
                    assertArrayEquals(next, receiver.message().partBytes(0));
                }
            }
        }
    }

    /** A PUSH connected to a PULL over {@code inproc://name}, in a context of their own, closed together. */
    private record InprocPair(ZmqContext context, ZmqSocket push, ZmqSocket pull) implements AutoCloseable {
        static InprocPair open(String name) {
            ZmqContext context = new ZmqContext();
            try {
                ZmqSocket pull = context.socket(SocketType.PULL);
                ZmqSocket push = context.socket(SocketType.PUSH);
                pull.bind("inproc://" + name);
                push.connect("inproc://" + name);
                return new InprocPair(context, push, pull);
            } catch (RuntimeException e) {
                context.close();
                throw e;
            }
        }

        @Override
        public void close() {
            context.close(); // closes the sockets it made
        }
    }

    private static void sendParts(ZmqSocket push, byte[] frame, int parts) {
        for (int i = 0; i < parts; i++) {
            assertTrue(push.send(frame, i < parts - 1 ? ZmqSocket.SNDMORE : 0));
        }
    }

    static byte[] sequenced(long seq) {
        return ByteBuffer.allocate(16).putLong(seq).putLong(~seq).array();
    }

    static long seqOf(ReceivedMessage m) {
        ByteBuffer b = ByteBuffer.wrap(m.partBytes(m.parts() - 1));
        long seq = b.getLong();
        assertEquals(~seq, b.getLong(), "sequenced message corrupted");
        return seq;
    }
}

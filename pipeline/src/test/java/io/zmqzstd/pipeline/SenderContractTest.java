package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The documented contract of {@link CompressingSender} (and the settings both senders' builders
 * share) that the other tests did not pin: refusals naming their value, calls after close, the
 * level 0 that means 3, the raw-frame limit's edge, publish with SNDMORE, and the counters.
 */
class SenderContractTest {

    /** The shared setters refuse a negative value when it is set, naming it, its range and the value, on both builders. */
    @Test
    void shouldRefuseNegativeThresholdsNamingThemOnBothBuilders() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            for (SenderBuilder<?> b : new SenderBuilder<?>[] {CompressingSender.builder(push),
                    ParallelCompressingSender.builder(push)}) {
                Fixtures.assertRefusedNaming("zeroCopyThresholdBytes must be 0 or more: zeroCopyThresholdBytes=-1", () -> b.zeroCopyThresholdBytes(-1));
                Fixtures.assertRefusedNaming("rawFrameBelowBytes must be 0 or more: rawFrameBelowBytes=-1", () -> b.rawFrameBelowBytes(-1));
            }
            for (Executable nullSocket : new Executable[] {() -> CompressingSender.builder(null),
                    () -> ParallelCompressingSender.builder(null)}) {
                Fixtures.assertNullNamed("socket", nullSocket);
            }
        }
    }

    /**
     * After close every call that sends or reserves throws IllegalStateException saying the sender
     * is closed (nothing is sent); stats() still answers, and close() again does nothing.
     */
    @Test
    void shouldRefuseEverySendAfterCloseSayingSo() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            CompressingSender sender = CompressingSender.builder(link.client()).build();
            byte[] data = Fixtures.payload(100, 1);
            MemorySegment segment = MemorySegment.ofArray(data);
            assertSame(link.client(), sender.socket());
            sender.close();
            Executable[] calls = {() -> sender.send(data, 0), () -> sender.send(segment, 0), () -> sender.send(segment, 0, 10, 0),
                    () -> sender.send(ByteBuffer.wrap(data), 0), () -> sender.sendEnvelope(data, ZmqSocket.SNDMORE),
                    () -> sender.sendEnvelope(segment, ZmqSocket.SNDMORE), () -> sender.publish(data, data, 0),
                    () -> sender.publish(data, segment, 0), () -> sender.publish(segment, segment, 0),
                    () -> sender.publish(segment, data, 0), () -> sender.reserveBuffers(1000, 1)};
            for (Executable call : calls) {
                IllegalStateException e = assertThrows(IllegalStateException.class, call);
                assertTrue(e.getMessage().contains("sender is closed"), e::getMessage);
            }
            sender.close();
            // what answers after close: the counters and the settings
            assertEquals(0, sender.stats().messages());
            assertEquals(0, sender.stats().wouldBlock());
            assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, sender.rawFrameBelowBytes());
            assertEquals(8 * 1024, sender.zeroCopyThresholdBytes());
            assertTrue(link.server().receiveBytes(ZmqSocket.DONTWAIT) == null, "nothing was sent");
        }
    }

    /** Level 0 means 3, as does the default: the three senders write the same frame. */
    @Test
    void shouldCompressAtLevelThreeForZeroAndByDefault() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] data = Fixtures.payload(5000, 1);
            byte[][] frames = new byte[4][];
            int[] levels = {0, 3, Integer.MIN_VALUE, 19}; // MIN_VALUE: the builder's default
            for (int i = 0; i < levels.length; i++) {
                CompressingSender.Builder b = CompressingSender.builder(link.client());
                if (levels[i] != Integer.MIN_VALUE) {
                    b.level(levels[i]);
                }
                try (CompressingSender sender = b.build()) {
                    assertTrue(sender.send(data, 0));
                }
                frames[i] = link.server().receiveBytes(0);
            }
            assertArrayEquals(frames[1], frames[0], "level 0 is level 3");
            assertArrayEquals(frames[1], frames[2], "the default is level 3");
            assertFalse(java.util.Arrays.equals(frames[1], frames[3]), "a level does change the frame");
        }
    }

    /**
     * checksum(true) appends the 4-byte content checksum to every frame, on both senders (the
     * descriptor's Content_Checksum_flag, bit 2, set; the frame 4 bytes longer than without), and
     * a receiver refuses a frame whose checksum does not match as CHECKSUM.
     */
    @Test
    void shouldAppendAChecksumToEveryFrameWhenAsked() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] data = Fixtures.payload(3000, 1);
            byte[][] frames = new byte[3][];
            try (CompressingSender plain = CompressingSender.builder(link.client()).build()) {
                assertTrue(plain.send(data, 0));
                frames[0] = link.server().receiveBytes(0);
            }
            try (CompressingSender checked = CompressingSender.builder(link.client()).checksum(true).build()) {
                assertTrue(checked.send(data, 0));
                frames[1] = link.server().receiveBytes(0);
            }
            try (ParallelCompressingSender checked = ParallelCompressingSender.builder(link.client()).workers(1)
                    .checksum(true).build()) {
                assertTrue(checked.send(data, 0));
                checked.flush();
                frames[2] = link.server().receiveBytes(0);
            }
            assertEquals(0, frames[0][4] & 0x04, "no checksum by default");
            for (int i = 1; i < 3; i++) {
                assertEquals(0x04, frames[i][4] & 0x04, "checksum flag, sender " + i);
                assertEquals(frames[0].length + 4, frames[i].length, "4 bytes more, sender " + i);
            }
            byte[] damaged = frames[1].clone();
            damaged[damaged.length - 1] ^= 0x5A;
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(link.client().send(damaged, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.CHECKSUM, receiver.lastErrorReason(), receiver::lastErrorMessage);
                assertTrue(link.client().send(frames[2], 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }

    /**
     * Payloads shorter than rawFrameBelowBytes (128 by default) go out raw, one of exactly 128 is
     * compressed; the sender's accessors say which settings are in force.
     */
    @Test
    void shouldSendRawExactlyThePayloadsShorterThanTheRawFrameLimit() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).rawIncompressible(false).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertEquals(128, sender.rawFrameBelowBytes());
                assertFalse(sender.rawIncompressible());
                byte[] below = Fixtures.payload(127, 1);
                assertTrue(sender.send(below, 0));
                assertEquals(1, sender.stats().rawFrames());
                byte[] at = Fixtures.payload(128, 2);
                assertTrue(sender.send(at, 0));
                assertEquals(1, sender.stats().rawFrames(), "128 B is compressed");
                for (byte[] data : new byte[][] {below, at}) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(data, receiver.message().partBytes(0));
                }
            }
        }
    }

    /**
     * publish with SNDMORE leaves the message open after the payload: the next send adds a part
     * to it. The counters: one message, two payload parts, one envelope part, byte totals of the
     * payloads alone (the frames as the peer received them), a would-block counted as such.
     */
    @Test
    void shouldPublishWithMorePartsToFollowAndCountEachKindApart() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] topic = "topic.a".getBytes(StandardCharsets.US_ASCII);
            byte[] first = Fixtures.payload(2000, 1);
            byte[] second = Fixtures.payload(300, 2);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build()) {
                assertEquals(0, sender.stats().ratio(), "0 before any payload");
                assertTrue(sender.publish(topic, first, ZmqSocket.SNDMORE));
                assertEquals(0, sender.stats().messages(), "still open");
                assertTrue(sender.send(second, 0));
                byte[][] wire = new byte[3][];
                for (int i = 0; i < 3; i++) {
                    wire[i] = link.server().receiveBytes(0);
                }
                assertArrayEquals(topic, wire[0]);
                assertEquals(null, link.server().receiveBytes(ZmqSocket.DONTWAIT), "one message of three parts");
                PipelineStats s = sender.stats();
                assertEquals(1, s.messages(), s::toString);
                assertEquals(2, s.parts(), s::toString);
                assertEquals(1, s.envelopeParts(), s::toString);
                assertEquals(first.length + second.length, s.uncompressedBytes(), "the topic is in no byte total");
                assertEquals(wire[1].length + wire[2].length, s.compressedBytes(), "the frames as on the wire");
                assertEquals(2, s.copiedSends(), "frames below 8 KiB are copied");
                assertEquals(0, s.zeroCopySends());
                assertEquals(0, s.poolRents(), "payloads below the threshold rent nothing");
                assertEquals(0, s.droppedMessages() + s.inlineMessages() + s.errors() + s.abandonedMessages() + s.wouldBlock(),
                        s::toString);

                // one would-block: a socket with no peer under DONTWAIT
                ZmqSocket lonely = ctx.socket(SocketType.PUSH);
                lonely.bind(Fixtures.bindAddress("inproc"));
                try (CompressingSender refused = CompressingSender.builder(lonely).build()) {
                    assertFalse(refused.send(first, ZmqSocket.DONTWAIT));
                    assertFalse(refused.publish(topic, first, ZmqSocket.DONTWAIT));
                    assertFalse(refused.publish(MemorySegment.ofArray(topic), first, ZmqSocket.DONTWAIT));
                    assertEquals(3, refused.stats().wouldBlock());
                    assertEquals(0, refused.stats().messages() + refused.stats().parts() + refused.stats().envelopeParts());
                }
            }
        }
    }

    /**
     * A ROUTER replies with publish(m.part(0), reply, 0): the routing id straight from the request's
     * view, one call, and the reply reaches the DEALER that asked, whole and alone.
     */
    @Test
    void shouldReplyBehindARoutingIdTakenFromTheRequest() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.ROUTER, SocketType.DEALER, "inproc");
            byte[] request = Fixtures.payload(500, 3);
            byte[] reply = Fixtures.payload(700, 4);
            try (CompressingSender asking = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver answered = DecompressingReceiver.builder(link.client()).build();
                 CompressingSender replying = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver router = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(asking.send(request, 0));
                assertEquals(DecompressingReceiver.RECEIVED, router.receive(0), router::lastErrorMessage);
                ReceivedMessage m = router.message();
                assertEquals(2, m.parts(), "routing id and request");
                assertArrayEquals(request, m.partBytes(1));
                assertTrue(replying.publish(m.part(0), reply, 0));
                assertEquals(DecompressingReceiver.RECEIVED, answered.receive(0), answered::lastErrorMessage);
                assertEquals(1, answered.message().parts(), "the ROUTER took the routing id off");
                assertArrayEquals(reply, answered.message().partBytes(0));
                assertEquals(1, replying.stats().messages());
                assertEquals(1, replying.stats().envelopeParts());
            }
        }
    }

    /**
     * reserveBuffers returns how many buffers it carved: only the missing ones, so 0 the second
     * time; with the pool closed it throws IllegalStateException.
     */
    /**
     * README, REQ/REP: a send out of turn (a REQ's second request before the reply, a REP's reply
     * before a request; by send, publish or sendEnvelope) is libzmq's EFSM, thrown as a
     * ZmqException; nothing goes out, nothing is counted or left open, and the sender goes on once
     * it is the socket's turn: the next request arrives alone and whole.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void shouldRefuseASendOutOfTurnOnReqAndRepAndGoOn(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.REP, SocketType.REQ, transport);
            try (CompressingSender client = CompressingSender.builder(link.client()).build();
                 CompressingSender server = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(link.server()).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(link.client()).build()) {
                byte[] topic = "t".getBytes(StandardCharsets.US_ASCII);
                assertOutOfTurn(() -> server.send(Fixtures.payload(300, 9), 0));
                assertTrue(client.send(Fixtures.payload(400, 1), 0));
                for (Executable outOfTurn : new Executable[] {() -> client.send(Fixtures.payload(400, 2), 0),
                        () -> client.publish(topic, Fixtures.payload(400, 3), 0),
                        () -> client.sendEnvelope(topic, ZmqSocket.SNDMORE)}) {
                    assertOutOfTurn(outOfTurn);
                }
                PipelineStats stats = client.stats();
                assertEquals(1, stats.messages(), stats::toString);
                assertEquals(0, stats.envelopeParts() + stats.abandonedMessages(), stats::toString);
                assertEquals(0, server.stats().messages());

                assertEquals(DecompressingReceiver.RECEIVED, atServer.receive(0), atServer::lastErrorMessage);
                assertArrayEquals(Fixtures.payload(400, 1), atServer.message().partBytes(0));
                assertEquals(1, atServer.message().parts());
                assertTrue(server.send(Fixtures.payload(300, 9), 0));
                assertEquals(DecompressingReceiver.RECEIVED, atClient.receive(0), atClient::lastErrorMessage);
                assertArrayEquals(Fixtures.payload(300, 9), atClient.message().partBytes(0));
                assertTrue(client.send(Fixtures.payload(400, 4), 0));
                assertEquals(DecompressingReceiver.RECEIVED, atServer.receive(0), atServer::lastErrorMessage);
                assertEquals(1, atServer.message().parts(), "the next request alone, nothing glued to it");
                assertArrayEquals(Fixtures.payload(400, 4), atServer.message().partBytes(0));
            }
        }
    }

    private static void assertOutOfTurn(Executable send) {
        ZmqException e = assertThrows(ZmqException.class, send);
        assertEquals(156384763, e.errno(), e::getMessage); // ZMQ_HAUSNUMERO + 51: EFSM
        assertTrue(e.getMessage().contains("current state"), e::getMessage);
    }

    @Test
    void shouldCarveOnlyTheMissingBuffersAndRefuseAClosedPool() {
        NativeBufferPool pool = new NativeBufferPool();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (CompressingSender sender = CompressingSender.builder(push).build()) {
                assertEquals(3, sender.reserveBuffers(64 * 1024, 3));
                assertEquals(0, sender.reserveBuffers(64 * 1024, 3), "none missing");
                assertEquals(1, sender.reserveBuffers(64 * 1024, 4));
                long misses = pool.stats().misses();
                for (int i = 0; i < 4; i++) {
                    pool.rent(ZstdCompressor.maxCompressedSize(64 * 1024)).release();
                }
                assertEquals(misses, pool.stats().misses(), "the reserved buffers serve the rents");
                pool.close();
                assertThrows(IllegalStateException.class, () -> sender.reserveBuffers(64 * 1024, 5));
            }
        }
    }
}

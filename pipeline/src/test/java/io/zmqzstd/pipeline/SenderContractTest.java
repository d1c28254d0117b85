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
import org.junit.jupiter.api.Timeout;
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

    /**
     * README, "Builders" and "rawFrameBelowBytes": the settings are checked together at build():
     * raw frames are not allowed with a dictionary or a checksum, and both builders refuse them
     * naming the setting and what it met (the dictionary's ID); rawFrameBelowBytes(0) is taken.
     */
    @Test
    void shouldRefuseRawFramesWithADictionaryOrAChecksumAtBuildNamingBoth() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            var dictionary = Fixtures.dictionary();
            String id = Integer.toUnsignedString(dictionary.id());
            Fixtures.assertRefusedNaming("rawFrameBelowBytes with a dictionary: rawFrameBelowBytes=64, dictionaryId=" + id,
                    () -> CompressingSender.builder(push).dictionary(dictionary).rawFrameBelowBytes(64).build());
            Fixtures.assertRefusedNaming("rawFrameBelowBytes with a dictionary: rawFrameBelowBytes=64, dictionaryId=" + id,
                    () -> ParallelCompressingSender.builder(push).workers(1).dictionary(dictionary).rawFrameBelowBytes(64).build());
            Fixtures.assertRefusedNaming("rawFrameBelowBytes with checksum: rawFrameBelowBytes=1 (raw frames carry no checksum)",
                    () -> CompressingSender.builder(push).checksum(true).rawFrameBelowBytes(1).build());
            Fixtures.assertRefusedNaming("rawFrameBelowBytes with checksum: rawFrameBelowBytes=1 (raw frames carry no checksum)",
                    () -> ParallelCompressingSender.builder(push).workers(1).checksum(true).rawFrameBelowBytes(1).build());
            try (CompressingSender plain = CompressingSender.builder(push).dictionary(dictionary).rawFrameBelowBytes(0).build();
                 CompressingSender checked = CompressingSender.builder(push).checksum(true).rawFrameBelowBytes(0).build()) {
                assertEquals(0, plain.rawFrameBelowBytes());
                assertEquals(0, checked.rawFrameBelowBytes());
            }
        }
    }

    /**
     * README, "Threading": stats(), isClosed(), the settings' accessors and reserveBuffers (the
     * pool is thread-safe) are not checked: they answer while another thread is blocked inside the
     * sender's send (a PUSH with no peer yet), where a second send is refused naming both threads;
     * the blocked send then delivers its message.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAnswerTheUncheckedCallsWhileAnotherThreadIsBlockedInSend() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            String endpoint = push.lastEndpoint();
            CompressingSender sender = CompressingSender.builder(push).build();
            byte[] data = Fixtures.payload(3000, 6);
            boolean[] sent = {false};
            Thread sending = new Thread(() -> sent[0] = sender.send(data, 0), "blocked-sender");
            sending.start();
            assertTrue(Fixtures.await(() -> Fixtures.insideSocketCall(sending, "send"), 10_000),
                    "the sending thread never blocked in the socket");

            assertFalse(sender.isClosed());
            assertEquals(0, sender.stats().messages());
            assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, sender.rawFrameBelowBytes());
            assertEquals(8 * 1024, sender.zeroCopyThresholdBytes());
            assertTrue(sender.reserveBuffers(100_000, 2) >= 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> sender.send(data, ZmqSocket.DONTWAIT));
            assertTrue(e.getMessage().contains("blocked-sender"), e::getMessage);

            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.connect(endpoint);
            sending.join(20_000);
            assertFalse(sending.isAlive(), "the send is still blocked");
            assertTrue(sent[0]);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
            }
            sender.close();
        }
    }

    /**
     * README, "Failures": a routing id that a ROUTER under routerMandatory(true) does not know is
     * thrown to a CompressingSender's caller as the socket's ZmqException naming the routing id,
     * nothing of the message sent or counted, and the sender goes on; a single-part message on a
     * ROUTER, whose frame libzmq takes for a routing id, is not refused: counted as sent, and
     * nothing arrives anywhere.
     */
    @Test
    void shouldThrowAnUnknownRoutingIdNamingItAndCountASinglePartOnARouterAsSent() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.routerMandatory(true);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            dealer.routingId(ascii("known"));
            Fixtures.link(router, dealer, "inproc");
            try (CompressingSender sender = CompressingSender.builder(router).build();
                 CompressingSender asking = CompressingSender.builder(dealer).build();
                 DecompressingReceiver atRouter = DecompressingReceiver.builder(router).build();
                 DecompressingReceiver atDealer = DecompressingReceiver.builder(dealer).build()) {
                assertTrue(asking.send(ascii("hello"), 0)); // the ROUTER knows the peer once it has heard from it
                assertEquals(DecompressingReceiver.RECEIVED, atRouter.receive(0));

                byte[] payload = Fixtures.payload(400, 2);
                ZmqException unknown = assertThrows(ZmqException.class, () -> sender.publish(ascii("nobody"), payload, 0));
                assertTrue(unknown.getMessage().contains("routingId=\"nobody\""), unknown::getMessage);
                assertEquals(0, sender.stats().messages() + sender.stats().abandonedMessages(), () -> sender.stats().toString());

                assertTrue(sender.send(payload, 0), "a single part is taken for a routing id and dropped, not refused");
                assertEquals(1, sender.stats().messages(), "counted as sent");

                byte[] answer = Fixtures.payload(500, 3);
                assertTrue(sender.publish(ascii("known"), answer, 0));
                assertEquals(DecompressingReceiver.RECEIVED, atDealer.receive(0));
                assertEquals(1, atDealer.message().parts());
                assertArrayEquals(answer, atDealer.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, atDealer.receive(ZmqSocket.DONTWAIT),
                        "nothing of the refused message nor of the single part arrived");
                assertEquals(2, sender.stats().messages());
            }
        }
    }

    /**
     * README, "Payloads and topics": a sender refers to the last direct ByteBuffer sent, keeping
     * its memory from being freed, until another direct buffer comes or the sender is closed;
     * then the buffer can be collected. Both senders.
     */
    @ParameterizedTest(name = "parallel {0}")
    @ValueSource(booleans = {false, true})
    void shouldLetGoOfTheLastDirectBufferOnlyWhenAnotherComesOrOnClose(boolean parallel) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            AutoCloseable sender;
            java.util.function.Consumer<ByteBuffer> send;
            if (parallel) {
                ParallelCompressingSender p = ParallelCompressingSender.builder(link.client()).workers(1).build();
                send = b -> {
                    assertTrue(p.send(b, 0));
                    p.flush();
                };
                sender = p;
            } else {
                CompressingSender c = CompressingSender.builder(link.client()).build();
                send = b -> assertTrue(c.send(b, 0));
                sender = c;
            }
            java.lang.ref.WeakReference<ByteBuffer> first = sendDirect(send, 1);
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            assertTrue(first.get() != null, "the sender let go of the last direct buffer while it was the last");
            java.lang.ref.WeakReference<ByteBuffer> second = sendDirect(send, 2);
            assertTrue(collected(first), "the first direct buffer is still referred to after another came");
            assertTrue(second.get() != null);
            try {
                sender.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertTrue(collected(second), "the last direct buffer is still referred to after close");
        }
    }

    /** Sends a new direct buffer of 1,000 bytes and returns a weak reference to it, keeping no other. */
    private static java.lang.ref.WeakReference<ByteBuffer> sendDirect(java.util.function.Consumer<ByteBuffer> send, long seed) {
        ByteBuffer direct = ByteBuffer.allocateDirect(1000).put(Fixtures.payload(1000, seed)).flip();
        send.accept(direct);
        return new java.lang.ref.WeakReference<>(direct);
    }

    /** Collects until {@code ref} is cleared, for up to 10 s; whether it was. */
    private static boolean collected(java.lang.ref.WeakReference<?> ref) {
        return Fixtures.await(() -> {
            System.gc();
            return ref.get() == null;
        }, 10_000);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}

package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RoundTripTest {

    static final int[] SIZES = {0, 1, 64, 1024, 64 * 1024, 1024 * 1024};

    enum Input { BYTES, HEAP_BUFFER, DIRECT_BUFFER, NATIVE_SEGMENT }

    /** Sends {@code data} through the overload that {@code input} names. */
    static boolean send(CompressingSender sender, Input input, byte[] data, int flags, Arena arena) {
        return switch (input) {
            case BYTES -> sender.send(data, flags);
            case HEAP_BUFFER -> {
                ByteBuffer b = ByteBuffer.allocate(data.length + 8).position(3);
                b.put(data).flip().position(3); // non-zero position: only position..limit is sent
                yield sender.send(b, flags);
            }
            case DIRECT_BUFFER -> sender.send(ByteBuffer.allocateDirect(data.length).put(data).flip(), flags);
            case NATIVE_SEGMENT -> {
                MemorySegment s = arena.allocate(data.length + 16L);
                MemorySegment.copy(data, 0, s, ValueLayout.JAVA_BYTE, 5, data.length);
                yield sender.send(s, 5, data.length, flags);
            }
        };
    }

    static int receive(DecompressingReceiver receiver) {
        int status = receiver.receive(0);
        assertEquals(DecompressingReceiver.RECEIVED, status, () -> "status=" + status + ", lastError=" + receiver.lastErrorMessage());
        return status;
    }

    static ZstdDictionary dictionaryIf(boolean on) {
        return on ? Fixtures.dictionary() : null;
    }

    @ParameterizedTest(name = "{0}, dictionary={1}")
    @CsvSource({"tcp,false", "ipc,false", "inproc,false", "tcp,true", "inproc,true"})
    void shouldRoundTripEverySizeAndInputOverPushPull(String transport, boolean dictionary) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, transport);
            try (CompressingSender sender = CompressingSender.builder(push).dictionary(dictionaryIf(dictionary)).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).dictionary(Fixtures.dictionary()).build()) {
                int n = 0;
                for (int size : SIZES) {
                    for (Input input : Input.values()) {
                        byte[] data = Fixtures.payload(size, n++);
                        assertTrue(send(sender, input, data, 0, arena));
                        receive(receiver);
                        ReceivedMessage m = receiver.message();
                        assertEquals(1, m.parts());
                        assertTrue(m.isCompressed(0));
                        assertArrayEquals(data, m.partBytes(0), () -> "size=" + size + ", input=" + input);
                        assertEquals(size, m.totalSize());
                    }
                }
                PipelineStats sent = sender.stats();
                PipelineStats received = receiver.stats();
                assertEquals(SIZES.length * Input.values().length, sent.messages());
                assertEquals(sent.messages(), received.messages());
                assertEquals(sent.uncompressedBytes(), received.uncompressedBytes());
                assertEquals(sent.compressedBytes(), received.compressedBytes());
                assertTrue(sent.zeroCopySends() > 0, sent::toString);
                assertTrue(sent.ratio() > 1, sent::toString);
                assertEquals(0, received.errors());
            }
        }
    }

    /** How the array and buffer test hands a payload over. */
    enum HeapForm { BYTES, HEAP_BUFFER, DIRECT_BUFFER, OTHER_DIRECT_BUFFER, READ_ONLY_HEAP_BUFFER, READ_ONLY_DIRECT_BUFFER }

    /**
     * {@code data} in {@code form}: a heap buffer with a non-zero array offset and position, the
     * shared {@code direct} buffer at a position that changes with the size, a new direct buffer,
     * a read-only heap buffer and a read-only view of a new direct buffer at a non-zero position;
     * null for {@code BYTES}.
     */
    private static ByteBuffer bufferOf(HeapForm form, byte[] data, ByteBuffer direct) {
        int at = data.length % 13 + 1;
        ByteBuffer b = switch (form) {
            case BYTES -> null;
            case HEAP_BUFFER -> ByteBuffer.wrap(new byte[data.length + 32]).position(9).slice();
            case DIRECT_BUFFER -> direct.clear();
            case OTHER_DIRECT_BUFFER -> ByteBuffer.allocateDirect(data.length + 20);
            case READ_ONLY_HEAP_BUFFER -> ByteBuffer.allocate(data.length + 20);
            case READ_ONLY_DIRECT_BUFFER -> ByteBuffer.allocateDirect(data.length + 20);
        };
        if (b == null) {
            return null;
        }
        b.put(at, data).position(at).limit(at + data.length);
        boolean readOnly = form == HeapForm.READ_ONLY_HEAP_BUFFER || form == HeapForm.READ_ONLY_DIRECT_BUFFER;
        return readOnly ? b.asReadOnlyBuffer() : b;
    }

    /**
     * Payloads given as arrays and ByteBuffers arrive intact through both senders at sizes around
     * CompressingSender's staging limit (128 KiB - 1, 128 KiB, 128 KiB + 1) and above it, and
     * small ones after large ones (the staging memory reused): from staging up to the limit, from
     * the array itself above it; in the parallel sender small ones inline. The direct buffer is
     * one buffer sent at changing positions, between which another direct buffer comes; a buffer's
     * position and limit stay as they were. Then the same sizes as arrays published under a topic.
     * The staging memory grows to the limit and no further.
     */
    @ParameterizedTest(name = "parallel={0}")
    @ValueSource(booleans = {false, true})
    void shouldRoundTripArraysAndBuffersAroundTheStagingLimit(boolean parallel) {
        int limit = CompressingSender.MAX_STAGED_PAYLOAD_BYTES;
        int[] sizes = {0, 100, limit - 1, limit, limit + 1, 300_000, 5_000, limit, 1};
        ByteBuffer direct = ByteBuffer.allocateDirect(300_000 + 32);
        byte[] topic = "metrics.cpu".getBytes(StandardCharsets.US_ASCII);
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender single = parallel ? null : CompressingSender.builder(link.client()).build();
                 ParallelCompressingSender many = !parallel ? null : ParallelCompressingSender.builder(link.client())
                         .workers(2).inlineBelowBytes(4096).inlineAfterIdleNanos(0).build()) {
                int n = 0;
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                    for (int size : sizes) {
                        for (HeapForm form : HeapForm.values()) {
                            byte[] data = Fixtures.payload(size, n++);
                            ByteBuffer b = bufferOf(form, data, direct);
                            int position = b == null ? 0 : b.position();
                            boolean sent = b == null ? (parallel ? many.send(data, 0) : single.send(data, 0))
                                    : parallel ? many.send(b, 0) : single.send(b, 0);
                            assertTrue(sent);
                            if (b != null) {
                                assertEquals(position, b.position(), "position");
                                assertEquals(position + size, b.limit(), "limit");
                            }
                            receive(receiver);
                            assertArrayEquals(data, receiver.message().partBytes(0), () -> "size=" + size + ", form=" + form);
                        }
                    }
                }
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).envelopeParts(1).build()) {
                    for (int size : sizes) {
                        byte[] data = Fixtures.payload(size, n++);
                        assertTrue(parallel ? many.publish(topic, data, 0) : single.publish(topic, data, 0));
                        receive(receiver);
                        assertArrayEquals(topic, receiver.message().partBytes(0));
                        assertArrayEquals(data, receiver.message().partBytes(1), () -> "published, size=" + size);
                    }
                }
                PipelineStats stats = parallel ? many.stats() : single.stats();
                assertEquals(sizes.length * (HeapForm.values().length + 1), stats.messages(), stats::toString);
                assertTrue(!parallel || stats.inlineMessages() > 0, stats::toString);
                if (!parallel) {
                    assertEquals(limit, single.stagingBytes(), "grown to the limit, not past it");
                }
            }
        }
    }

    /**
     * An array or heap buffer below the raw-frame limit goes into its raw-block frame straight from
     * the array: the staging memory stays unmade (it held a copy of each before 2026-11-27), and the
     * frame is the payload's whatever the array's offset. From the limit on, arrays are staged.
     */
    @Test
    void shouldWriteTinyArraysIntoTheirRawFramesWithoutStaging() {
        int[] sizes = {0, 1, 64, 127};
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                int n = 0;
                for (int size : sizes) {
                    for (HeapForm form : new HeapForm[] {HeapForm.BYTES, HeapForm.HEAP_BUFFER}) {
                        byte[] data = Fixtures.payload(size, n++);
                        ByteBuffer b = bufferOf(form, data, null);
                        assertTrue(b == null ? sender.send(data, 0) : sender.send(b, 0));
                        receive(receiver);
                        assertArrayEquals(data, receiver.message().partBytes(0), () -> "size=" + size + ", form=" + form);
                    }
                }
                assertEquals(0, sender.stagingBytes(), "nothing staged below the raw-frame limit");
                assertEquals(n, sender.stats().rawFrames(), sender.stats()::toString);
                byte[] data = Fixtures.payload(128, n);
                assertTrue(sender.send(data, 0));
                receive(receiver);
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertTrue(sender.stagingBytes() > 0, "128 B, the limit, is staged and compressed");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void shouldRoundTripMultipartMessages(String transport) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, transport);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                byte[][] parts = {Fixtures.payload(100, 1), Fixtures.payload(0, 2), Fixtures.payload(200 * 1024, 3),
                        Fixtures.payload(1, 4)};
                for (int i = 0; i < parts.length; i++) {
                    int flags = i < parts.length - 1 ? ZmqSocket.SNDMORE : 0;
                    assertTrue(send(sender, Input.values()[i % Input.values().length], parts[i], flags, arena));
                }
                receive(receiver);
                ReceivedMessage m = receiver.message();
                assertEquals(parts.length, m.parts());
                long total = 0;
                for (int i = 0; i < parts.length; i++) {
                    assertArrayEquals(parts[i], m.partBytes(i), "part " + i);
                    assertEquals(parts[i].length, m.part(i).byteSize());
                    total += parts[i].length;
                }
                assertEquals(total, m.totalSize());
                assertEquals(1, sender.stats().messages());
                assertEquals(4, sender.stats().parts());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void shouldFilterTopicsOverPubSub(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.subscribe("wanted.");
            Fixtures.link(pub, sub, transport);
            byte[] wanted = "wanted.cpu".getBytes(StandardCharsets.UTF_8);
            byte[] other = "other.cpu".getBytes(StandardCharsets.UTF_8);
            byte[] sync = "sync".getBytes(StandardCharsets.UTF_8);
            try (CompressingSender sender = CompressingSender.builder(pub).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(sub).build()) {
                assertEquals(1, receiver.envelopeParts());
                awaitSubscription(sender, receiver, wanted, sync);
                int seq = 0;
                for (int size : SIZES) {
                    assertTrue(sender.publish(other, Fixtures.payload(size, 99), 0));
                    byte[] data = Fixtures.payload(size, seq++);
                    assertTrue(sender.publish(wanted, data, 0));
                    ReceivedMessage m;
                    do { // skip the sync messages still in flight
                        receive(receiver);
                        m = receiver.message();
                    } while (m.partSize(1) == sync.length && java.util.Arrays.equals(m.partBytes(1), sync));
                    assertEquals(2, m.parts());
                    assertFalse(m.isCompressed(0));
                    assertArrayEquals(wanted, m.partBytes(0), "topic must be the subscribed one");
                    assertTrue(m.isCompressed(1));
                    assertArrayEquals(data, m.partBytes(1), "size=" + size);
                }
            }
        }
    }

    /** Slow joiner: publishes {@code sync} under {@code topic} until one arrives ({@link Fixtures#awaitSubscription}). */
    static void awaitSubscription(CompressingSender sender, DecompressingReceiver receiver, byte[] topic, byte[] sync) {
        Fixtures.awaitSubscription(() -> sender.publish(topic, sync, 0), receiver);
    }

    @ParameterizedTest(name = "{0}, dictionary={1}")
    @CsvSource({"tcp,false", "ipc,false", "inproc,false", "tcp,true"})
    void shouldPassRoutingIdThroughDealerRouterAndRouteTheReply(String transport, boolean dictionary) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            byte[] id = "dealer-7".getBytes(StandardCharsets.UTF_8);
            dealer.routingId(id);
            Fixtures.link(router, dealer, transport);
            ZstdDictionary d = dictionaryIf(dictionary);
            DecompressingReceiver.Builder rb = DecompressingReceiver.builder(router);
            DecompressingReceiver.Builder db = DecompressingReceiver.builder(dealer);
            if (d != null) {
                rb.dictionary(d);
                db.dictionary(d);
            }
            try (CompressingSender toRouter = CompressingSender.builder(dealer).dictionary(d).build();
                 CompressingSender toDealer = CompressingSender.builder(router).dictionary(d).build();
                 DecompressingReceiver atRouter = rb.build();
                 DecompressingReceiver atDealer = db.build()) {
                assertEquals(1, atRouter.envelopeParts());
                assertEquals(0, atDealer.envelopeParts());
                int seq = 0;
                for (int size : SIZES) {
                    byte[] a = Fixtures.payload(size, seq++);
                    byte[] b = Fixtures.payload(64, seq++);
                    assertTrue(toRouter.send(a, ZmqSocket.SNDMORE));
                    assertTrue(toRouter.send(b, 0));
                    receive(atRouter);
                    ReceivedMessage m = atRouter.message();
                    assertEquals(3, m.parts());
                    assertFalse(m.isCompressed(0));
                    assertArrayEquals(id, m.partBytes(0));
                    assertArrayEquals(a, m.partBytes(1));
                    assertArrayEquals(b, m.partBytes(2));

                    byte[] reply = Fixtures.payload(size / 2, seq++);
                    assertTrue(toDealer.sendEnvelope(m.part(0), ZmqSocket.SNDMORE));
                    assertTrue(toDealer.send(reply, 0));
                    receive(atDealer);
                    assertEquals(1, atDealer.message().parts());
                    assertArrayEquals(reply, atDealer.message().partBytes(0));
                }
                assertEquals(SIZES.length, toDealer.stats().envelopeParts());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void shouldRoundTripRequestsAndRepliesOverReqRep(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket rep = ctx.socket(SocketType.REP);
            ZmqSocket req = ctx.socket(SocketType.REQ);
            Fixtures.link(rep, req, transport);
            try (CompressingSender client = CompressingSender.builder(req).build();
                 CompressingSender server = CompressingSender.builder(rep).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(rep).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(req).build()) {
                int seq = 0;
                for (int size : SIZES) {
                    byte[] request = Fixtures.payload(size, seq++);
                    assertTrue(client.send(request, 0));
                    receive(atServer);
                    assertEquals(1, atServer.message().parts());
                    assertArrayEquals(request, atServer.message().partBytes(0));
                    byte[] reply = Fixtures.payload(size, seq++);
                    assertTrue(server.send(reply, 0));
                    receive(atClient);
                    assertArrayEquals(reply, atClient.message().partBytes(0));
                }
            }
        }
    }

    @Test
    void shouldPassRequestDelimiterThroughAtRouter() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            ZmqSocket req = ctx.socket(SocketType.REQ);
            Fixtures.link(router, req, "inproc");
            try (CompressingSender client = CompressingSender.builder(req).build();
                 CompressingSender server = CompressingSender.builder(router).build();
                 DecompressingReceiver atRouter = DecompressingReceiver.builder(router).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(req).build()) {
                byte[] request = Fixtures.payload(300, 1);
                assertTrue(client.send(request, 0));
                receive(atRouter);
                ReceivedMessage m = atRouter.message();
                assertEquals(3, m.parts()); // routing id, empty delimiter, payload
                assertEquals(0, m.partSize(1));
                assertFalse(m.isCompressed(1));
                assertArrayEquals(request, m.partBytes(2));
                byte[] reply = Fixtures.payload(500, 2);
                assertTrue(server.sendEnvelope(m.part(0), ZmqSocket.SNDMORE));
                assertTrue(server.sendEnvelope(new byte[0], ZmqSocket.SNDMORE));
                assertTrue(server.send(reply, 0));
                receive(atClient);
                assertArrayEquals(reply, atClient.message().partBytes(0));
            }
        }
    }

    /**
     * XPUB and XSUB, both ways. Downstream as PUB/SUB: the XPUB's topics are filtered by the XSUB's
     * subscription and arrive behind the topic (envelopeParts 1 on XSUB). Upstream: the XSUB's own
     * subscription message (byte 1 and the prefix) is not a frame, so the XPUB's receiver refuses
     * it as NOT_ZSTD, counted once, and the compressed message the XSUB sends after it arrives
     * whole. The refused subscription also tells that it has reached the XPUB (no slow joiner).
     */
    @Test
    void shouldCarryTopicsDownAndFramesUpOverXpubXsub() {
        bothWays(SocketType.XPUB, SocketType.XSUB, (link, down, atXsub, up, atXpub) -> {
            assertEquals(1, atXsub.envelopeParts());
            assertEquals(0, atXpub.envelopeParts());
            assertTrue(link.client().send(new byte[] {1, 'w'}, 0)); // subscribe to "w"
            assertEquals(DecompressingReceiver.BAD_FRAME, atXpub.receive(0));
            assertEquals(BadFrameReason.NOT_ZSTD, atXpub.lastErrorReason());

            byte[] data = Fixtures.payload(2000, 1);
            assertTrue(down.publish("other".getBytes(StandardCharsets.US_ASCII), Fixtures.payload(100, 2), 0));
            assertTrue(down.publish("wanted".getBytes(StandardCharsets.US_ASCII), data, 0));
            receive(atXsub);
            ReceivedMessage m = atXsub.message();
            assertEquals(2, m.parts());
            assertArrayEquals("wanted".getBytes(StandardCharsets.US_ASCII), m.partBytes(0));
            assertArrayEquals(data, m.partBytes(1));

            byte[] report = Fixtures.payload(5000, 3);
            assertTrue(up.send(report, 0));
            up.flush();
            receive(atXpub);
            assertEquals(1, atXpub.message().parts());
            assertArrayEquals(report, atXpub.message().partBytes(0));
            assertEquals(1, atXpub.stats().errors());
            assertEquals(1, atXpub.stats().errors(BadFrameReason.NOT_ZSTD));
            assertEquals(1, atXpub.stats().messages());
            assertEquals(1, up.stats().messages());
        });
    }

    /** PAIR: no envelope either way; a multipart message one way, a parallel sender's the other. */
    @Test
    void shouldRoundTripBothWaysOverPair() {
        bothWays(SocketType.PAIR, SocketType.PAIR, (link, left, atRight, right, atLeft) -> {
            byte[] first = Fixtures.payload(700, 1);
            byte[] second = Fixtures.payload(70_000, 2);
            assertTrue(left.send(first, ZmqSocket.SNDMORE));
            assertTrue(left.send(second, 0));
            receive(atRight);
            assertEquals(2, atRight.message().parts());
            assertArrayEquals(first, atRight.message().partBytes(0));
            assertArrayEquals(second, atRight.message().partBytes(1));
            byte[] back = Fixtures.payload(3000, 3);
            assertTrue(right.send(back, 0));
            right.flush();
            receive(atLeft);
            assertEquals(0, atLeft.envelopeParts());
            assertArrayEquals(back, atLeft.message().partBytes(0));
        });
    }

    /** What a test does with the two ends {@link #bothWays} built. */
    interface BothWays {
        void run(Fixtures.Link link, CompressingSender fromServer, DecompressingReceiver atClient,
                 ParallelCompressingSender fromClient, DecompressingReceiver atServer);
    }

    /**
     * A {@code server} socket bound and a {@code client} connected over inproc, each with a sender
     * (a {@link CompressingSender} on the server, a one-worker {@link ParallelCompressingSender} on
     * the client) and a receiver, all closed after {@code test}.
     */
    static void bothWays(SocketType server, SocketType client, BothWays test) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, server, client, "inproc");
            try (CompressingSender fromServer = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(link.client()).build();
                 ParallelCompressingSender fromClient = ParallelCompressingSender.builder(link.client()).workers(1).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(link.server()).build()) {
                test.run(link, fromServer, atClient, fromClient, atServer);
            }
        }
    }

    /** {@code size} bytes of telemetry, each MiB stamped with its index so that blocks differ. */
    static MemorySegment largePayload(Arena arena, long size) {
        MemorySegment data = arena.allocate(size);
        byte[] chunk = Fixtures.payload(1 << 20, 5);
        for (long off = 0; off < size; off += chunk.length) {
            MemorySegment.copy(chunk, 0, data, ValueLayout.JAVA_BYTE, off, (int) Math.min(chunk.length, size - off));
            if (size - off >= Integer.BYTES) {
                data.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) (off >>> 20));
            }
        }
        return data;
    }

    /**
     * The default limits admit a part at the per-part limit (64 MiB) behind its envelope: a ROUTER's
     * routing id and a SUB's topic are counted apart from the payload (maxEnvelopeSize).
     */
    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"ROUTER,tcp", "SUB,ipc"})
    void shouldDeliverPartAtTheDefaultLimitBehindAnEnvelope(SocketType receiving, String transport) {
        long size = DecompressingReceiver.DEFAULT_MAX_DECOMPRESSED_SIZE;
        byte[] envelope = "8-bytes!".getBytes(StandardCharsets.US_ASCII);
        boolean router = receiving == SocketType.ROUTER;
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket in = ctx.socket(receiving);
            ZmqSocket out = ctx.socket(router ? SocketType.DEALER : SocketType.PUB);
            if (router) {
                out.routingId(envelope);
            } else {
                in.subscribe(envelope);
            }
            Fixtures.link(in, out, transport);
            MemorySegment data = largePayload(arena, size);
            try (CompressingSender sender = CompressingSender.builder(out).level(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(in).build()) {
                if (router) {
                    assertTrue(sender.send(data, 0));
                } else {
                    awaitSubscription(sender, receiver, envelope, "sync".getBytes(StandardCharsets.US_ASCII));
                    assertTrue(sender.publish(envelope, data, 0));
                }
                do { // skip sync messages still in flight
                    receive(receiver);
                } while (receiver.message().partSize(1) != size);
                ReceivedMessage m = receiver.message();
                assertEquals(2, m.parts());
                assertArrayEquals(envelope, m.partBytes(0));
                assertEquals(-1, data.mismatch(m.part(1)));
                assertTrue(m.region().byteSize() <= receiver.maxMessageSize() + receiver.maxEnvelopeSize(),
                        () -> "region=" + m.region().byteSize());
            }
        }
    }

    /** Large parts: 64 MiB (the default per-part limit) over inproc, and an odd size between 1 and 64 MiB over tcp. */
    @ParameterizedTest(name = "{1} B over {0}")
    @CsvSource({"inproc,67108864", "tcp,16777219"})
    void shouldRoundTripLargePart(String transport, long size) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            MemorySegment data = largePayload(arena, size);
            try (CompressingSender sender = CompressingSender.builder(link.client()).level(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(data, 0));
                receive(receiver);
                ReceivedMessage m = receiver.message();
                assertEquals(size, m.partSize(0));
                assertEquals(-1, data.mismatch(m.part(0)));
            }
        }
    }
}

package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * README, DEALER/ROUTER and REQ/REP: a ROUTER whose receiver refuses a request ({@code BAD_FRAME})
 * answers it with an error reply behind {@link DecompressingReceiver#failedEnvelope()}, so the
 * client is not left waiting (a plain REQ stuck in EFSM); when the envelope did not arrive whole
 * the view is refused naming why; it ends at the next receive. Before, no receiver method gave a
 * refused message's envelope, and {@code message()} threw "no message to read".
 */
class FailedEnvelopeReplyTest {

    /** A ROUTER's region starts at 64 KiB: a part past it makes the region grow. */
    private static final int PAST_THE_FIRST_REGION = 200 * 1024;

    enum Client {
        /** [id][][payload] at the ROUTER. */
        REQ(SocketType.REQ, 1, 2),
        /** reqCorrelate and reqRelaxed: [id][request id][][payload], envelopeParts(2). */
        REQ_CORRELATED(SocketType.REQ, 2, 3),
        /** [id][payload]. */
        DEALER(SocketType.DEALER, 1, 1);

        final SocketType type;
        final int envelopeParts;
        final int envelopeAtRouter;

        Client(SocketType type, int envelopeParts, int envelopeAtRouter) {
            this.type = type;
            this.envelopeParts = envelopeParts;
            this.envelopeAtRouter = envelopeAtRouter;
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    static Stream<Arguments> clientsAndTransports() {
        return Stream.of(Client.values())
                .flatMap(c -> Stream.of("inproc", "tcp").map(t -> Arguments.of(c, t)));
    }

    /** A client of {@code kind} with routing id {@code id}, connected to {@code router}. */
    private static ZmqSocket client(ZmqContext ctx, Client kind, String id, ZmqSocket router) {
        ZmqSocket client = ctx.socket(kind.type);
        client.routingId(ascii(id));
        if (kind == Client.REQ_CORRELATED) {
            client.reqCorrelate(true);
            client.reqRelaxed(true);
        }
        client.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
        client.connect(router.lastEndpoint());
        return client;
    }

    private static ZmqSocket router(ZmqContext ctx, String transport) {
        ZmqSocket router = Fixtures.bound(ctx, SocketType.ROUTER, transport);
        router.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
        return router;
    }

    /** Receives one message on {@code receiver}, which must be RECEIVED, and returns its last part. */
    private static String receiveText(DecompressingReceiver receiver) {
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        ReceivedMessage m = receiver.message();
        return text(m.partBytes(m.parts() - 1));
    }

    private static void assertIllegalStateNaming(String named, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().contains(named), () -> "not named " + named + ": " + e.getMessage());
    }

    /**
     * A ROUTER serves a REQ (plain, and with reqCorrelate and reqRelaxed) and a DEALER: each poison
     * request (bytes that are no zstd frame) is refused as NOT_ZSTD and answered with an error reply
     * behind the failed envelope, whose parts are the envelope the request came with; the client
     * receives that reply (a plain REQ may then send again: no EFSM), and its next good request is
     * answered normally. Twice each, so that the second poison follows a good request.
     */
    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("clientsAndTransports")
    void shouldAnswerAPoisonRequestWithAnErrorReplyAndTheNextRequestNormally(Client kind, String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = router(ctx, transport);
            String id = "client-" + kind;
            ZmqSocket client = client(ctx, kind, id, router);
            try (CompressingSender replying = CompressingSender.builder(router).build();
                 DecompressingReceiver requests = DecompressingReceiver.builder(router).envelopeParts(kind.envelopeParts).build();
                 CompressingSender asking = CompressingSender.builder(client).build();
                 DecompressingReceiver answers = DecompressingReceiver.builder(client).build()) {
                for (int round = 0; round < 2; round++) {
                    assertTrue(client.send(ascii("poison " + round), 0)); // a REQ puts its delimiter (and id) in front
                    assertEquals(DecompressingReceiver.BAD_FRAME, requests.receive(0));
                    assertEquals(BadFrameReason.NOT_ZSTD, requests.lastErrorReason(), requests::lastErrorMessage);
                    assertEquals(kind.envelopeAtRouter, requests.lastErrorPart(), requests::lastErrorMessage);
                    assertIllegalStateNaming("no message to read", () -> requests.message().parts());

                    ReceivedMessage envelope = requests.failedEnvelope();
                    assertTrue(envelope.isValid());
                    assertEquals(kind.envelopeAtRouter, envelope.parts(), "the envelope the request came with");
                    assertArrayEquals(ascii(id), envelope.partBytes(0), "the routing id");
                    for (int i = 0; i < envelope.parts(); i++) {
                        assertFalse(envelope.isCompressed(i), "part " + i + " is an envelope part");
                    }
                    if (kind == Client.REQ_CORRELATED) {
                        assertEquals(4, envelope.partSize(1), "the REQ's request id");
                    }
                    if (kind.type == SocketType.REQ) {
                        assertEquals(0, envelope.partSize(envelope.parts() - 1), "the REQ's empty delimiter");
                    }
                    assertEquals(0, envelope.sequence(), "not a delivered message");

                    assertTrue(replying.reply(envelope, ascii("error: " + requests.lastErrorReason()), 0));
                    assertEquals("error: NOT_ZSTD", receiveText(answers), "the client gets the error reply");

                    assertTrue(asking.send(ascii("request " + round), 0)); // a plain REQ may send: its reply came
                    ReceivedMessage request = requests.message();
                    assertEquals("request " + round, receiveText(requests));
                    assertEquals(kind.envelopeAtRouter + 1, request.parts());
                    assertTrue(replying.reply(request, ascii("re:request " + round), 0));
                    assertEquals("re:request " + round, receiveText(answers));
                }
                assertEquals(4, replying.stats().messages(), () -> replying.stats().toString());
                assertEquals(4 * kind.envelopeAtRouter, replying.stats().envelopeParts(), () -> replying.stats().toString());
                assertEquals(2, requests.stats().errors(BadFrameReason.NOT_ZSTD));
            }
        }
    }

    /** Where the refused part is received: the region, or a caller's destination before or after a part it could not hold. */
    enum Into {
        /** receive: a frame without a declared size grows the region to the limit, then outgrows it. */
        REGION,
        /** receiveInto, room enough: the bad part is the payload's first. */
        DESTINATION,
        /** receiveInto, too little room for a large good part: it moves to the region, grown for it, then the next part is bad. */
        DESTINATION_THEN_REGION
    }

    /**
     * The envelope's parts lie in the region in front of the payload, and stay there, unclobbered,
     * when a later, large part fails: after the region grew for it and was written by it, and with
     * receiveInto. A routing id and a header (envelopeParts(2)) from a DEALER; the error reply
     * reaches it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Into.class)
    void shouldHoldTheEnvelopeUnclobberedWhenALargeLaterPartFails(Into into) {
        long limit = 1 << 20;
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = router(ctx, "inproc");
            ZmqSocket dealer = client(ctx, Client.DEALER, "client-large", router);
            try (CompressingSender replying = CompressingSender.builder(router).build();
                 DecompressingReceiver requests = DecompressingReceiver.builder(router).envelopeParts(2)
                         .maxDecompressedSize(limit).maxMessageSize(4 * limit).build();
                 DecompressingReceiver answers = DecompressingReceiver.builder(dealer).envelopeParts(1).build()) {
                long regionBefore = 64 * 1024;
                assertTrue(dealer.send(ascii("hdr-7"), ZmqSocket.SNDMORE));
                switch (into) {
                    case REGION -> assertTrue(dealer.send(Fixtures.streamed(Fixtures.payload((int) (2 * limit), 3)), 0));
                    case DESTINATION -> assertTrue(dealer.send(ascii("not a frame"), 0));
                    case DESTINATION_THEN_REGION -> {
                        assertTrue(dealer.send(Zstd.compress(Fixtures.payload(PAST_THE_FIRST_REGION, 4)), ZmqSocket.SNDMORE));
                        assertTrue(dealer.send(ascii("not a frame"), 0));
                    }
                }
                MemorySegment dst = arena.allocate(into == Into.DESTINATION ? limit : 1024);
                int status = into == Into.REGION ? requests.receive(0) : requests.receiveInto(dst, 0);
                assertEquals(DecompressingReceiver.BAD_FRAME, status);
                assertEquals(into == Into.REGION ? BadFrameReason.TOO_LARGE : BadFrameReason.NOT_ZSTD,
                        requests.lastErrorReason(), requests::lastErrorMessage);

                ReceivedMessage envelope = requests.failedEnvelope();
                assertEquals(2, envelope.parts());
                assertArrayEquals(ascii("client-large"), envelope.partBytes(0));
                assertArrayEquals(ascii("hdr-7"), envelope.partBytes(1));
                assertSame(envelope.region(), envelope.segment(1), "envelope parts lie in the region");
                if (into != Into.DESTINATION) {
                    long grownTo = into == Into.REGION ? limit : PAST_THE_FIRST_REGION;
                    assertTrue(envelope.region().byteSize() > regionBefore && envelope.region().byteSize() >= grownTo,
                            () -> "the region grew for the later part: " + envelope.region().byteSize());
                }
                assertTrue(replying.reply(envelope, ascii("error: " + requests.lastErrorReason()), 0));
                assertEquals(DecompressingReceiver.RECEIVED, answers.receive(0), answers::lastErrorMessage);
                ReceivedMessage reply = answers.message();
                assertEquals(2, reply.parts(), "the header came back, then the error");
                assertArrayEquals(ascii("hdr-7"), reply.partBytes(0));
                assertEquals("error: " + requests.lastErrorReason(), text(reply.partBytes(1)));
            }
        }
    }

    /**
     * With no envelope to answer, failedEnvelope() is refused naming why, and lastError… say what
     * they said before: before any receive, after WOULD_BLOCK and RECEIVED, after a message handed
     * back in an UndeliveredMessageException (its envelope is in the exception), an envelope part
     * over maxEnvelopeSize, a message that ended within its envelope (NO_PAYLOAD), a message with no
     * envelope part, and on a closed receiver.
     */
    @Test
    void shouldRefuseTheFailedEnvelopeWhenItIsNotThereNamingWhy() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = router(ctx, "inproc");
            ZmqSocket dealer = client(ctx, Client.DEALER, "client-without", router);
            byte[] frame = Zstd.compress(ascii("a good request"));
            try (DecompressingReceiver requests = DecompressingReceiver.builder(router).build();
                 DecompressingReceiver shortEnvelope = DecompressingReceiver.builder(router).maxEnvelopeSize(4).build();
                 DecompressingReceiver twoEnvelopeParts = DecompressingReceiver.builder(router).envelopeParts(2).build()) {
                assertIllegalStateNaming("no failed message: the last receive did not return BAD_FRAME", requests::failedEnvelope);
                assertEquals(DecompressingReceiver.WOULD_BLOCK, requests.receive(ZmqSocket.DONTWAIT));
                assertIllegalStateNaming("no failed message: the last receive did not return BAD_FRAME", requests::failedEnvelope);
                assertTrue(dealer.send(frame, 0));
                assertEquals(DecompressingReceiver.RECEIVED, requests.receive(0), requests::lastErrorMessage);
                assertIllegalStateNaming("no failed message: the last receive did not return BAD_FRAME", requests::failedEnvelope);

                // handed back whole: not a BAD_FRAME, its envelope in the exception
                assertTrue(dealer.send(Zstd.compress(Fixtures.payload(4096, 5)), 0));
                UndeliveredMessageException handedBack = assertThrows(UndeliveredMessageException.class,
                        () -> requests.receiveInto(arena.allocate(16), 0));
                assertArrayEquals(ascii("client-without"), handedBack.part(0));
                assertIllegalStateNaming("holds its envelope parts in the exception", requests::failedEnvelope);

                // the routing id (14 B) over maxEnvelopeSize: envelope part 0 is the refused one
                assertTrue(dealer.send(frame, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, shortEnvelope.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, shortEnvelope.lastErrorReason());
                assertTrue(shortEnvelope.lastErrorMessage().startsWith("bad frame: part=0, reason=TOO_LARGE, envelope larger"
                        + " than limit: total>=14, maxEnvelopeSize=4"), shortEnvelope::lastErrorMessage);
                assertIllegalStateNaming("no envelope to reply behind: the refused part is envelope part 0 of envelopeParts=1"
                        + " (reason=TOO_LARGE): the envelope was not received whole", shortEnvelope::failedEnvelope);

                // [id][frame] where two envelope parts are expected: the message ended within them
                assertTrue(dealer.send(frame, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, twoEnvelopeParts.receive(0));
                assertEquals(BadFrameReason.NO_PAYLOAD, twoEnvelopeParts.lastErrorReason());
                assertEquals(1, twoEnvelopeParts.lastErrorPart());
                assertIllegalStateNaming("no envelope to reply behind: the message ended within its envelope: parts=2,"
                        + " envelopeParts=2", twoEnvelopeParts::failedEnvelope);
            }

            Fixtures.Link pipe = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            DecompressingReceiver pull = DecompressingReceiver.builder(pipe.server()).build();
            try (pull) {
                assertTrue(pipe.client().send(ascii("not a frame"), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, pull.receive(0));
                assertEquals(BadFrameReason.NOT_ZSTD, pull.lastErrorReason());
                assertIllegalStateNaming("the message has no envelope part in front of the refused part (envelopeParts=0",
                        pull::failedEnvelope);
            }
            assertIllegalStateNaming("receiver is closed", pull::failedEnvelope);
        }
    }

    /**
     * The failed envelope ends at the next receive, as message() does: after a WOULD_BLOCK its
     * accessors and a reply behind it are refused (nothing sent), after a RECEIVED too, and after
     * close they say the receiver is closed. A later BAD_FRAME re-points the same view at its own
     * envelope.
     */
    @Test
    void shouldEndTheFailedEnvelopeAtTheNextReceive() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = router(ctx, "tcp");
            ZmqSocket first = client(ctx, Client.DEALER, "client-first", router);
            ZmqSocket second = client(ctx, Client.DEALER, "client-second", router);
            DecompressingReceiver requests = DecompressingReceiver.builder(router).build();
            ReceivedMessage last;
            try (CompressingSender replying = CompressingSender.builder(router).build();
                 DecompressingReceiver firstAnswers = DecompressingReceiver.builder(first).build()) {
                assertTrue(first.send(ascii("poison"), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, requests.receive(0));
                ReceivedMessage envelope = requests.failedEnvelope();
                assertArrayEquals(ascii("client-first"), envelope.partBytes(0));

                assertEquals(DecompressingReceiver.WOULD_BLOCK, requests.receive(ZmqSocket.DONTWAIT));
                assertFalse(envelope.isValid());
                assertIllegalStateNaming("no failed envelope to read: the last receive did not return BAD_FRAME", envelope::parts);
                assertIllegalStateNaming("no failed envelope to read", () -> envelope.partBytes(0));
                assertIllegalStateNaming("no failed envelope to read", () -> replying.reply(envelope, ascii("late"), 0));
                assertEquals(0, replying.stats().messages(), "nothing sent behind a stale envelope");
                assertEquals(DecompressingReceiver.WOULD_BLOCK, firstAnswers.receive(ZmqSocket.DONTWAIT));

                // a later BAD_FRAME: the same view, the later message's envelope
                assertTrue(second.send(ascii("poison"), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, requests.receive(0));
                assertSame(envelope, requests.failedEnvelope());
                assertArrayEquals(ascii("client-second"), envelope.partBytes(0));

                assertTrue(first.send(Zstd.compress(ascii("a good request")), 0));
                assertEquals(DecompressingReceiver.RECEIVED, requests.receive(0), requests::lastErrorMessage);
                assertFalse(envelope.isValid());
                assertIllegalStateNaming("no failed envelope to read", () -> envelope.segment(0));
                assertIllegalStateNaming("no failed message", requests::failedEnvelope);
                assertArrayEquals(ascii("client-first"), requests.message().partBytes(0), "message() is as it was");

                assertTrue(second.send(ascii("poison"), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, requests.receive(0));
                last = requests.failedEnvelope();
                assertTrue(last.isValid());
            } finally {
                requests.close();
            }
            assertFalse(last.isValid());
            assertIllegalStateNaming("receiver is closed", last::parts);
            assertIllegalStateNaming("receiver is closed", requests::failedEnvelope);
        }
    }
}

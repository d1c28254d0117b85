package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * README, DEALER/ROUTER: {@code CompressingSender.reply(request, payload, flags)} sends back every
 * envelope part of the request (a routing id, one per ROUTER on the way, an empty REQ delimiter)
 * and then the compressed payload, so each reply reaches the peer that asked; a request without
 * envelope parts on a ROUTER, or a view that holds no message, is refused before anything is sent.
 */
class ReplyTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The reply to {@code request}: its bytes with "re:" in front, so a reply names its request. */
    private static byte[] answer(byte[] request) {
        byte[] out = new byte[request.length + 3];
        System.arraycopy(ascii("re:"), 0, out, 0, 3);
        System.arraycopy(request, 0, out, 3, request.length);
        return out;
    }

    /** Receives one message on {@code receiver}: must be RECEIVED. */
    private static ReceivedMessage receive(DecompressingReceiver receiver) {
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        return receiver.message();
    }

    /**
     * Two DEALERs and a REQ ask a ROUTER in turn; the ROUTER answers each request with reply()
     * (the DEALERs' routing ids, the REQ's id and empty delimiter sent back from the request's
     * view, in the three forms: native payload, a range of the request's own region, an array);
     * every client receives the answer to its own request, and only that.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldDeliverEachReplyToThePeerThatAsked(String transport) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = Fixtures.bound(ctx, SocketType.ROUTER, transport);
            router.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            ZmqSocket[] clients = {ctx.socket(SocketType.DEALER), ctx.socket(SocketType.DEALER), ctx.socket(SocketType.REQ)};
            for (int c = 0; c < clients.length; c++) {
                clients[c].routingId(ascii("client-" + c));
                clients[c].receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                clients[c].connect(router.lastEndpoint());
            }
            try (CompressingSender replying = CompressingSender.builder(router).build();
                 DecompressingReceiver requests = DecompressingReceiver.builder(router).build()) {
                CompressingSender[] asking = new CompressingSender[clients.length];
                DecompressingReceiver[] answered = new DecompressingReceiver[clients.length];
                for (int c = 0; c < clients.length; c++) {
                    asking[c] = CompressingSender.builder(clients[c]).build();
                    answered[c] = DecompressingReceiver.builder(clients[c]).build();
                }
                try {
                    for (int round = 0; round < 6; round++) {
                        // every client asks, then the ROUTER answers in the order the requests came
                        for (int c = 0; c < clients.length; c++) {
                            assertTrue(asking[c].send(ascii("request " + round + " from client-" + c), 0));
                        }
                        for (int k = 0; k < clients.length; k++) {
                            ReceivedMessage m = receive(requests);
                            int last = m.parts() - 1;
                            boolean fromReq = new String(m.partBytes(0), StandardCharsets.US_ASCII).equals("client-2");
                            assertEquals(fromReq ? 3 : 2, m.parts(), "routing id, the REQ's delimiter, request");
                            byte[] reply = answer(m.partBytes(last));
                            boolean sent = switch (round % 3) {
                                case 0 -> replying.reply(m, arena.allocate(reply.length)
                                        .copyFrom(MemorySegment.ofArray(reply)), 0);
                                case 1 -> replying.reply(m, reply, ZmqSocket.DONTWAIT);
                                default -> { // echo: the request's own bytes in the receiver's region, behind "re:"
                                    MemorySegment echo = arena.allocate(m.partSize(last) + 3);
                                    echo.copyFrom(MemorySegment.ofArray(ascii("re:")));
                                    MemorySegment.copy(m.segment(last), m.partOffset(last), echo, 3, m.partSize(last));
                                    yield replying.reply(m, echo, 0, echo.byteSize(), 0);
                                }
                            };
                            assertTrue(sent);
                        }
                        for (int c = 0; c < clients.length; c++) {
                            ReceivedMessage r = receive(answered[c]);
                            assertEquals(1, r.parts(), "the ROUTER took the routing id off, the REQ the delimiter");
                            String got = new String(r.partBytes(0), StandardCharsets.US_ASCII);
                            assertEquals("re:request " + round + " from client-" + c, got);
                            if (c < 2) { // a REQ may not receive twice in a row (EFSM)
                                assertEquals(DecompressingReceiver.WOULD_BLOCK, answered[c].receive(ZmqSocket.DONTWAIT),
                                        "one reply per request");
                            }
                        }
                    }
                    PipelineStats stats = replying.stats();
                    assertEquals(6 * 3, stats.messages(), stats::toString);
                    assertEquals(6 * 4, stats.envelopeParts(), "a routing id each, and the REQ's delimiter: " + stats);
                    assertEquals(0, stats.abandonedMessages(), stats::toString);
                } finally {
                    for (int c = 0; c < clients.length; c++) {
                        asking[c].close();
                        answered[c].close();
                    }
                }
            }
        }
    }

    /**
     * A ROUTER behind another: two DEALER clients ask a broker's ROUTER, whose DEALER passes each
     * request on, its parts as they are, to the server's ROUTER. The server's receiver
     * ({@code envelopeParts(2)}) sees two routing ids, the broker's and the client's; reply() sends
     * both back, the broker passes the reply on, and each client receives the answer to its own
     * request.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldReplyThroughARouterBehindARouter(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket server = Fixtures.bound(ctx, SocketType.ROUTER, transport);
            ZmqSocket front = Fixtures.bound(ctx, SocketType.ROUTER, transport);
            ZmqSocket back = ctx.socket(SocketType.DEALER);
            back.routingId(ascii("broker"));
            back.connect(server.lastEndpoint());
            ZmqSocket[] clients = {ctx.socket(SocketType.DEALER), ctx.socket(SocketType.DEALER)};
            for (int c = 0; c < clients.length; c++) {
                clients[c].routingId(ascii("client-" + c));
                clients[c].connect(front.lastEndpoint());
            }
            for (ZmqSocket s : new ZmqSocket[] {server, front, back, clients[0], clients[1]}) {
                s.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            }
            try (CompressingSender replying = CompressingSender.builder(server).build();
                 DecompressingReceiver requests = DecompressingReceiver.builder(server).envelopeParts(2).build();
                 CompressingSender ask0 = CompressingSender.builder(clients[0]).build();
                 CompressingSender ask1 = CompressingSender.builder(clients[1]).build();
                 DecompressingReceiver answered0 = DecompressingReceiver.builder(clients[0]).build();
                 DecompressingReceiver answered1 = DecompressingReceiver.builder(clients[1]).build()) {
                for (int round = 0; round < 4; round++) {
                    assertTrue(ask0.send(ascii("request " + round + " from client-0"), 0));
                    assertTrue(ask1.send(ascii("request " + round + " from client-1"), 0));
                    for (int k = 0; k < 2; k++) {
                        forward(front, back); // [client id][frame] on to the server, which adds the broker's id
                    }
                    for (int k = 0; k < 2; k++) {
                        ReceivedMessage m = receive(requests);
                        assertEquals(3, m.parts(), "the broker's id, the client's id, the request");
                        assertArrayEquals(ascii("broker"), m.partBytes(0));
                        assertTrue(replying.reply(m, answer(m.partBytes(2)), 0));
                    }
                    for (int k = 0; k < 2; k++) {
                        forward(back, front); // [client id][frame] back, the broker's id taken off by the server
                    }
                    DecompressingReceiver[] answered = {answered0, answered1};
                    for (int c = 0; c < answered.length; c++) {
                        ReceivedMessage r = receive(answered[c]);
                        assertEquals(1, r.parts());
                        assertEquals("re:request " + round + " from client-" + c,
                                new String(r.partBytes(0), StandardCharsets.US_ASCII));
                    }
                }
                assertEquals(8, replying.stats().messages());
                assertEquals(16, replying.stats().envelopeParts(), "two routing ids a reply");
            }
        }
    }

    /** Passes one message from {@code from} to {@code to}, every part as it is. */
    private static void forward(ZmqSocket from, ZmqSocket to) {
        boolean more;
        do {
            byte[] part = from.receiveBytes(0);
            assertTrue(part != null, "no message to forward");
            more = from.hasMore();
            assertTrue(to.send(part, more ? ZmqSocket.SNDMORE : 0));
        } while (more);
    }

    /**
     * A request without envelope parts (a PULL's message) given to reply() on a ROUTER is refused
     * naming it, before anything is compressed or sent; on a socket that does not route (a PUSH)
     * the reply is the payload alone. A view that holds no message (its last receive would-block,
     * its receiver closed) is refused as any read of it is, nothing sent; the next reply goes out
     * whole.
     */
    @Test
    void shouldRefuseARequestWithoutEnvelopeOnARouterAndAViewWithoutMessage() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link rr = Fixtures.link(ctx, SocketType.ROUTER, SocketType.DEALER, "inproc");
            Fixtures.Link pp = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            Fixtures.Link back = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender asking = CompressingSender.builder(rr.client()).build();
                 DecompressingReceiver answered = DecompressingReceiver.builder(rr.client()).build();
                 CompressingSender replying = CompressingSender.builder(rr.server()).build();
                 DecompressingReceiver requests = DecompressingReceiver.builder(rr.server()).build();
                 CompressingSender pushing = CompressingSender.builder(pp.client()).build();
                 DecompressingReceiver pulled = DecompressingReceiver.builder(pp.server()).build();
                 CompressingSender pushingBack = CompressingSender.builder(back.client()).build();
                 DecompressingReceiver pulledBack = DecompressingReceiver.builder(back.server()).build()) {
                assertTrue(pushing.send(ascii("no envelope"), 0));
                ReceivedMessage plain = receive(pulled);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> replying.reply(plain, ascii("lost"), 0));
                assertTrue(e.getMessage().contains("request has no envelope part to reply behind: parts=1, socket=ROUTER"),
                        e::getMessage);
                // not a ROUTER: the payload alone
                assertTrue(pushingBack.reply(plain, ascii("payload alone"), 0));
                ReceivedMessage alone = receive(pulledBack);
                assertEquals(1, alone.parts());
                assertArrayEquals(ascii("payload alone"), alone.partBytes(0));

                assertEquals(DecompressingReceiver.WOULD_BLOCK, requests.receive(ZmqSocket.DONTWAIT));
                IllegalStateException stale = assertThrows(IllegalStateException.class,
                        () -> replying.reply(requests.message(), ascii("lost"), 0));
                assertTrue(stale.getMessage().contains("no message to read"), stale::getMessage);
                pulled.close();
                IllegalStateException closed = assertThrows(IllegalStateException.class,
                        () -> replying.reply(plain, ascii("lost"), 0));
                assertTrue(closed.getMessage().contains("receiver is closed"), closed::getMessage);
                PipelineStats refused = replying.stats();
                assertEquals(0, refused.messages() + refused.envelopeParts() + refused.abandonedMessages(), refused::toString);

                assertTrue(asking.send(ascii("ask"), 0));
                assertTrue(replying.reply(receive(requests), ascii("answer"), 0));
                ReceivedMessage r = receive(answered);
                assertEquals(1, r.parts(), "nothing of the refused replies went out ahead of it");
                assertArrayEquals(ascii("answer"), r.partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, answered.receive(ZmqSocket.DONTWAIT));
            }
        }
    }

    /**
     * README, "DEALER/ROUTER": a request without envelope parts given to reply on a STREAM is
     * refused as on a ROUTER, naming the socket type (libzmq would take the frame for a routing id
     * and drop it), nothing sent or counted.
     */
    @Test
    void shouldRefuseARequestWithoutEnvelopeOnAStream() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link pp = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket stream = Fixtures.bound(ctx, SocketType.STREAM, "tcp");
            try (CompressingSender pushing = CompressingSender.builder(pp.client()).build();
                 DecompressingReceiver pulled = DecompressingReceiver.builder(pp.server()).build();
                 CompressingSender replying = CompressingSender.builder(stream).build()) {
                assertTrue(pushing.send(ascii("no envelope"), 0));
                ReceivedMessage plain = receive(pulled);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> replying.reply(plain, ascii("lost"), 0));
                assertTrue(e.getMessage().contains("request has no envelope part to reply behind: parts=1, socket=STREAM"),
                        e::getMessage);
                PipelineStats refused = replying.stats();
                assertEquals(0, refused.messages() + refused.envelopeParts() + refused.abandonedMessages(), refused::toString);
            }
        }
    }
}

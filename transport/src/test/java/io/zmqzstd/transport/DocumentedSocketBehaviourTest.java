package io.zmqzstd.transport;

import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Claims of ZmqSocket's and ZmqContext's Javadoc that no other test pinned (contract audit of
 * 2026-11-27): what the option setters say they do, and the errors the receive paths document.
 */
class DocumentedSocketBehaviourTest extends ContextTestBase {

    /** "0 = not at all (as DONTWAIT)" for both timeouts, on every receive path. */
    @Test
    void shouldNotWaitWithATimeoutOfZero() {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://timeout-zero");
        pull.receiveTimeoutMs(0);
        try (ZmqMessage msg = new ZmqMessage()) {
            assertFalse(pull.receive(msg, 0));
        }
        assertEquals(-1, pull.receive(new byte[4], 0));
        assertEquals(-1, pull.receive(MemorySegment.ofArray(new byte[4]), 0));
        assertNull(pull.receiveBytes(0));
        ZmqSocket push = ctx.socket(SocketType.PUSH); // no peer: a send would wait for one
        push.sendTimeoutMs(0);
        assertFalse(push.send(new byte[1], 0));
    }

    /** hasMore() (recorded) and rcvmore() (libzmq's): false before any receive, then per frame. */
    @Test
    void shouldTellMorePartsFollowBeforeAndDuringAMessage() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        pull.bind("inproc://more");
        push.connect("inproc://more");
        assertFalse(pull.hasMore());
        assertFalse(pull.rcvmore());
        push.send(b("a"), ZmqSocket.SNDMORE);
        push.send(b("b"), 0);
        pull.receiveBytes(0);
        assertTrue(pull.hasMore());
        assertTrue(pull.rcvmore());
        pull.receiveBytes(0);
        assertFalse(pull.hasMore());
        assertFalse(pull.rcvmore());
    }

    @Test
    void shouldAnswerTheDocumentedOptionEdges() {
        ZmqSocket s = ctx.socket(SocketType.DEALER);
        byte[] longest = new byte[255];
        Arrays.fill(longest, (byte) 1);
        s.routingId(longest);
        assertArrayEquals(longest, s.routingId(), "1 to 255 bytes");
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> s.routingId(Arrays.copyOf(longest, 256)));
        assertTrue(tooLong.getMessage().endsWith("length=256"), tooLong.getMessage());

        String zeroKey = "0".repeat(Curve.Z85_KEY_CHARS);
        assertEquals(zeroKey, s.curvePublicKey(), "the all-zero key when none was set");
        assertEquals(zeroKey, s.curveSecretKey());
        assertEquals(zeroKey, s.curveServerKey());

        // an int64_t option read as an int: refused before libzmq (EINVAL from libzmq until 2026-11-29)
        IllegalArgumentException notAnInt = assertThrows(IllegalArgumentException.class, () -> s.getIntOption(LibZmq.ZMQ_MAXMSGSIZE));
        assertTrue(notAnInt.getMessage().endsWith("option 22 is ZMQ_MAXMSGSIZE, an int64_t option (use maxMessageSize)"),
                notAnInt.getMessage());

        s.heartbeatTtlMs(99);
        assertEquals(0, s.heartbeatTtlMs(), "below 100: no effect");
        assertEquals("", s.lastEndpoint(), "empty before any bind or connect");

        ZmqException unbound = assertThrows(ZmqException.class, () -> s.unbind("inproc://never-bound"));
        assertEquals(2, unbound.errno(), "ENOENT: " + unbound.getMessage());
        ZmqException unconnected = assertThrows(ZmqException.class, () -> s.disconnect("tcp://127.0.0.1:5999"));
        assertEquals(2, unconnected.errno(), "ENOENT: " + unconnected.getMessage());
    }

    /** The receive paths' documented ZmqException: EFSM for a REQ out of turn; ENOTSUP for a type that cannot. */
    @Test
    void shouldThrowTheStateAndTypeErrorsOnEveryPath() {
        ZmqSocket req = ctx.socket(SocketType.REQ);
        req.connect("inproc://efsm");
        try (ZmqMessage msg = new ZmqMessage()) {
            for (Runnable receive : receiveForms(req, msg)) {
                assertOutOfTurn(receive, "(this REQ has no request waiting for a reply: send a request before receiving)");
            }
        }
        // ENOTSUP, a system errno (no name), with the type that cannot: until 2026-11-29 libzmq's
        // "Operation not supported" alone
        for (SocketType type : new SocketType[] {SocketType.PULL, SocketType.SUB}) {
            ZmqSocket s = ctx.socket(type);
            try (ZmqMessage msg = new ZmqMessage(); NativeBufferPool pool = NativeBufferPool.builder().build()) {
                PooledBuffer buffer = pool.rent(8);
                for (Runnable send : sendForms(s, msg, buffer)) {
                    ZmqException e = assertThrows(ZmqException.class, send::run);
                    assertEquals(95, e.errno(), "ENOTSUP: " + e.getMessage());
                    assertTrue(e.getMessage().contains("errno=95, error=") && e.getMessage().endsWith(
                            "supported (a " + type + " socket cannot send: SUB and PULL only receive)"), e.getMessage());
                }
                buffer.release();
            }
        }
        for (SocketType type : new SocketType[] {SocketType.PUB, SocketType.PUSH}) {
            ZmqSocket s = ctx.socket(type);
            try (ZmqMessage msg = new ZmqMessage()) {
                for (Runnable receive : receiveForms(s, msg)) {
                    ZmqException e = assertThrows(ZmqException.class, receive::run);
                    assertEquals(95, e.errno(), "ENOTSUP: " + e.getMessage());
                    assertTrue(e.getMessage().endsWith("supported (a " + type + " socket cannot receive: PUB and PUSH only send)"),
                            e.getMessage());
                }
            }
        }
    }

    /**
     * EFSM names the state the REQ or REP is in, on every send and receive form: until 2026-11-29
     * the note gave only the rule ("out of the socket's turn: a REQ sends a request, then receives
     * its reply, a REP the other way round"), the same for a REQ that sent twice and one that
     * received first. Each socket goes on in its turn afterwards.
     */
    @Test
    void shouldNameTheStateOfAReqOrRepOutOfTurn() {
        ZmqSocket rep = socket(SocketType.REP);
        rep.bind("inproc://turns");
        ZmqSocket req = socket(SocketType.REQ);
        req.connect("inproc://turns");
        String repSendFirst = "(this REP has no request to reply to: receive a request before sending)";
        try (ZmqMessage msg = new ZmqMessage(); NativeBufferPool pool = NativeBufferPool.builder().build()) {
            PooledBuffer buffer = pool.rent(1);
            for (Runnable send : sendForms(rep, msg, buffer)) {
                assertOutOfTurn(send, repSendFirst);
            }
            assertTrue(req.send(b("question"), 0));
            for (Runnable send : sendForms(req, msg, buffer)) {
                assertOutOfTurn(send, "(this REQ has sent a request and not yet received its whole reply: receive it"
                        + " before sending the next request, or set reqRelaxed(true) with reqCorrelate(true) (reqRelaxed"
                        + " alone takes a late reply for the next request's))");
            }
            assertEquals("question", rep.receiveString(0));
            for (Runnable receive : receiveForms(rep, msg)) {
                assertOutOfTurn(receive, "(this REP has received a request and not yet sent its whole reply: send it"
                        + " before receiving the next request)");
            }
            assertTrue(rep.send(b("answer"), 0));
            assertOutOfTurn(() -> rep.send(b("again"), 0), repSendFirst);
            assertEquals("answer", req.receiveString(0));
            for (Runnable receive : receiveForms(req, msg)) {
                assertOutOfTurn(receive, "(this REQ has no request waiting for a reply: send a request before receiving)");
            }
            assertTrue(req.send(b("next"), 0), "in its turn again");
            assertEquals("next", rep.receiveString(0));
            buffer.release();
        }
    }

    private static Runnable[] sendForms(ZmqSocket s, ZmqMessage msg, PooledBuffer buffer) {
        return new Runnable[] {() -> s.send(new byte[1], 0), () -> s.send("x", 0),
                () -> s.send(MemorySegment.ofArray(new byte[1]), 0, 1, 0), () -> s.send(msg, 0),
                () -> s.sendPooled(buffer, 1, 0)};
    }

    private static Runnable[] receiveForms(ZmqSocket s, ZmqMessage msg) {
        return new Runnable[] {() -> s.receiveBytes(0), () -> s.receive(new byte[1], 0), () -> s.receive(msg, 0),
                () -> s.receive(MemorySegment.ofArray(new byte[1]), 0)};
    }

    private static void assertOutOfTurn(Runnable call, String note) {
        ZmqException e = assertThrows(ZmqException.class, call::run);
        assertEquals(LibZmq.EFSM, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("errno=" + LibZmq.EFSM + " (EFSM), error=") && e.getMessage().endsWith(note),
                e.getMessage());
    }

    /** socket() after shutdown(): ZmqException ETERM, its message saying what ETERM means. */
    @Test
    void shouldRefuseANewSocketAfterShutdownWithEterm() {
        ctx.shutdown();
        ctx.shutdown(); // idempotent
        ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR));
        assertTrue(e.isContextTerminated());
        assertTrue(e.getMessage().contains(" (ETERM), error=")
                && e.getMessage().endsWith("(the context was shut down or closed)"), e.getMessage());
    }

    @Test
    void shouldCorrelateRelaxedRequests() {
        ZmqSocket rep = socket(SocketType.REP);
        rep.bind("inproc://relaxed");
        for (boolean correlate : new boolean[] {false, true}) {
            ZmqSocket req = socket(SocketType.REQ);
            req.reqRelaxed(true);
            req.reqCorrelate(correlate);
            req.connect("inproc://relaxed");
            assertTrue(req.send(b("first"), 0));
            assertTrue(req.send(b("second"), 0), "relaxed: a new request without waiting for the reply");
            assertEquals("first", rep.receiveString(0));
            rep.send(b("late"), 0);
            assertEquals("second", rep.receiveString(0));
            rep.send(b("reply"), 0);
            assertEquals(correlate ? "reply" : "late", req.receiveString(0), "the late reply dropped only with correlate");
            req.close();
        }
    }

    @Test
    void shouldPassDuplicateSubscriptionsWhenVerboseAndRefuseAtTheMarkWithNoDrop() {
        ZmqSocket xpub = socket(SocketType.XPUB);
        xpub.xpubVerbose(true);
        xpub.bind("inproc://verbose");
        for (int i = 0; i < 2; i++) {
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.subscribe("t");
            sub.connect("inproc://verbose");
            assertArrayEquals(new byte[] {1, 't'}, xpub.receiveBytes(0), "subscription " + i);
        }
        ZmqSocket noDrop = socket(SocketType.XPUB);
        noDrop.xpubNoDrop(true);
        noDrop.sendHwm(1);
        noDrop.bind("inproc://nodrop");
        ZmqSocket slow = ctx.socket(SocketType.SUB);
        slow.receiveHwm(1);
        slow.subscribe("");
        slow.connect("inproc://nodrop");
        assertArrayEquals(new byte[] {1}, noDrop.receiveBytes(0));
        int sent = 0;
        while (sent < 10_000 && noDrop.send(new byte[1], ZmqSocket.DONTWAIT)) {
            sent++;
        }
        assertTrue(sent < 10_000, "false at the high-water mark instead of dropping: sent " + sent);
    }

    /** A subscription removed once stays while it was made twice. */
    @Test
    void shouldKeepASecondSubscriptionToTheSamePrefix() {
        ZmqSocket pub = socket(SocketType.PUB);
        pub.bind("inproc://twice");
        ZmqSocket sub = socket(SocketType.SUB);
        sub.subscribe("A");
        sub.subscribe("A");
        sub.unsubscribe("A");
        sub.connect("inproc://twice");
        pub.send(b("A1"), 0);
        assertEquals("A1", sub.receiveString(0));
    }

    /** Send high-water mark 0 = no limit: 5,000 queued without a peer where the default takes fewer. */
    @Test
    void shouldQueueWithoutLimitAtHighWaterMarkZero() {
        assertTrue(queuedWithoutPeer(-1) < 5_000, "the default limit is a limit");
        assertEquals(5_000, queuedWithoutPeer(0));
    }

    /** Messages a PUSH with {@code hwm} (-1: default) queues, up to 5,000, on an inproc connect nobody bound. */
    private int queuedWithoutPeer(int hwm) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        if (hwm >= 0) {
            push.sendHwm(hwm);
        }
        push.connect("inproc://nobody-" + hwm);
        int n = 0;
        while (n < 5_000 && push.send(new byte[1], ZmqSocket.DONTWAIT)) {
            n++;
        }
        push.lingerMs(0);
        return n;
    }

    @Test
    void shouldQueueOnlyOnCompletedConnectionsWhenImmediate() {
        String nobody = "tcp://127.0.0.1:" + Ports.unused();
        ZmqSocket immediate = ctx.socket(SocketType.PUSH);
        immediate.immediate(true);
        immediate.connect(nobody);
        ZmqSocket queuing = ctx.socket(SocketType.PUSH);
        queuing.connect(nobody);
        assertFalse(immediate.send(new byte[1], ZmqSocket.DONTWAIT));
        assertTrue(queuing.send(new byte[1], ZmqSocket.DONTWAIT), "without it, parked with the peer that is not there");
        immediate.lingerMs(0);
        queuing.lingerMs(0);
    }

    /** A peer that never answers the ZMTP greeting is dropped after the handshake interval (30 s by default). */
    @Test
    void shouldCloseAConnectionThatDoesNotHandshakeInTime() throws Exception {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        dealer.handshakeIvlMs(200);
        dealer.bind("tcp://127.0.0.1:*");
        String endpoint = dealer.lastEndpoint();
        // Before the connect: libzmq's timer starts when its I/O thread takes the connection, which
        // may be well before this thread runs again after the connect returns on a busy machine.
        long start = System.nanoTime();
        try (Socket raw = new Socket("127.0.0.1", Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1)))) {
            raw.setSoTimeout(10_000); // a SocketTimeoutException fails the test
            InputStream in = raw.getInputStream();
            while (in.read() >= 0) {
                // libzmq's greeting, then the end of the stream
            }
            assertTrue(System.nanoTime() - start >= 150_000_000L, "closed by the interval, not at once");
        }
    }

    /** With reconnectIvlMaxMs each retry doubles the interval up to it; libzmq adds a jitter below reconnectIvlMs. */
    @Test
    void shouldBackOffUpToTheMaximumReconnectInterval() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        dealer.reconnectIvlMs(10);
        dealer.reconnectIvlMaxMs(80);
        try (SocketMonitor events = dealer.monitor(EnumSet.of(MonitorEvent.Type.CONNECT_RETRIED))) {
            dealer.connect("tcp://127.0.0.1:" + Ports.unused());
            for (long base : new long[] {10, 20, 40, 80, 80}) {
                MonitorEvent e = events.receive(Duration.ofSeconds(5));
                assertNotNull(e, "retry after " + base);
                assertTrue(e.value() >= base && e.value() < base + 10, "interval " + e.value() + " for base " + base);
            }
        }
        dealer.lingerMs(0);
    }
}

package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CurveAuthorizer} against the real libzmq: CURVE servers and clients over tcp, the ZAP
 * handler answering libzmq's requests, and raw requests sent to its endpoint by a REQ socket.
 * Each client makes one handshake in a test, so the counts are exact.
 */
class CurveAuthorizerTest extends ContextTestBase {

    private static final int NO_RETRY_MS = 60_000;

    private final Curve.KeyPair serverKeys = Curve.keypair();

    /** A CURVE PULL server bound on tcp, its handshake outcomes monitored from before the bind. */
    private record Server(ZmqSocket socket, SocketMonitor events) {
    }

    private Server server() {
        ZmqSocket s = socket(SocketType.PULL);
        s.curveServer(true);
        s.curveSecretKey(serverKeys.secretKey());
        SocketMonitor events = s.monitor(EnumSet.of(MonitorEvent.Type.HANDSHAKE_SUCCEEDED, MonitorEvent.Type.HANDSHAKE_FAILED_AUTH,
                MonitorEvent.Type.HANDSHAKE_FAILED_PROTOCOL, MonitorEvent.Type.HANDSHAKE_FAILED_NO_DETAIL));
        s.bind("tcp://127.0.0.1:*");
        return new Server(s, events);
    }

    /**
     * A CURVE PUSH client of {@code server} with the key pair {@code keys}, connected. libzmq 4.3.4
     * does not try a refused connection again (see
     * {@link #shouldEndARefusedConnectionForGoodUntilTheClientConnectsAgain}); the long reconnect
     * interval keeps the counts exact should another libzmq do so.
     */
    private ZmqSocket client(Server server, Curve.KeyPair keys) {
        ZmqSocket c = socket(SocketType.PUSH);
        c.lingerMs(0);
        c.reconnectIvlMs(NO_RETRY_MS);
        c.curveServerKey(serverKeys.publicKey());
        c.curvePublicKey(keys.publicKey());
        c.curveSecretKey(keys.secretKey());
        c.connect(server.socket().lastEndpoint());
        return c;
    }

    /** The next handshake outcome the server's monitor reports, within 5 s. */
    private static MonitorEvent nextOutcome(Server server) {
        MonitorEvent e = server.events().receive(Duration.ofSeconds(5));
        assertNotNull(e, "no handshake outcome within 5 s");
        return e;
    }

    private static void assertRefused(MonitorEvent e) {
        assertEquals(MonitorEvent.Type.HANDSHAKE_FAILED_AUTH, e.type(), e.toString());
        assertEquals(400, e.value(), "the ZAP status: " + e);
    }

    @Test
    void shouldDeliverAnAllowedClientAndKeepOutAClientWhoseKeyIsNotAllowed() {
        Curve.KeyPair allowedKeys = Curve.keypair();
        try (CurveAuthorizer auth = CurveAuthorizer.start(ctx, List.of(allowedKeys.publicKey()))) {
            Server server = server();
            ZmqSocket stranger = client(server, Curve.keypair());
            assertTrue(stranger.send(b("from a stranger"), 0)); // queued for the handshake that never succeeds
            assertRefused(nextOutcome(server));
            assertEquals(1, auth.refusedHandshakes());
            assertEquals(0, auth.allowedHandshakes());

            ZmqSocket friend = client(server, allowedKeys);
            assertTrue(friend.send(b("from a friend"), 0));
            assertEquals("from a friend", server.socket().receiveString(0));
            assertEquals(MonitorEvent.Type.HANDSHAKE_SUCCEEDED, nextOutcome(server).type());
            assertEquals(1, auth.allowedHandshakes());
            assertEquals(1, auth.refusedHandshakes());
            assertNull(server.socket().receiveBytes(ZmqSocket.DONTWAIT), "the stranger's message got through");
            assertEquals(0, auth.malformedRequests());
        }
    }

    /**
     * libzmq 4.3.4 takes a ZAP refusal as a protocol error: the client's monitor sees it too, and
     * the connection is not tried again, even with a reconnect interval of 50 ms. So a key allowed
     * afterwards lets the client in only once it connects anew.
     */
    @Test
    void shouldEndARefusedConnectionForGoodUntilTheClientConnectsAgain() {
        Curve.KeyPair keys = Curve.keypair();
        try (CurveAuthorizer auth = CurveAuthorizer.start(ctx)) {
            Server server = server();
            String endpoint = server.socket().lastEndpoint();
            ZmqSocket c = socket(SocketType.PUSH);
            c.lingerMs(0);
            c.reconnectIvlMs(50);
            c.curveServerKey(serverKeys.publicKey());
            c.curvePublicKey(keys.publicKey());
            c.curveSecretKey(keys.secretKey());
            try (SocketMonitor events = c.monitor(MonitorEvent.Type.ALL)) {
                c.connect(endpoint);
                assertTrue(c.send(b("before the allow"), 0));
                List<MonitorEvent> seen = new ArrayList<>();
                MonitorEvent e;
                do {
                    e = events.receive(Duration.ofSeconds(5));
                    assertNotNull(e, "no refusal on the client's side: " + seen);
                    seen.add(e);
                } while (e.type() != MonitorEvent.Type.HANDSHAKE_FAILED_AUTH);
                assertEquals(400, e.value(), seen.toString());
                assertRefused(nextOutcome(server));
                // ten reconnect intervals: a retry would have shown by now
                while ((e = events.receive(Duration.ofMillis(500))) != null) {
                    seen.add(e);
                    assertFalse(e.type() == MonitorEvent.Type.CONNECT_RETRIED || e.type() == MonitorEvent.Type.CONNECTED,
                            "the refused connection was tried again: " + seen);
                }
                assertEquals(1, auth.refusedHandshakes());

                auth.allow(keys.publicKey());
                c.disconnect(endpoint);
                c.connect(endpoint);
                assertTrue(c.send(b("after the allow"), 0));
                // the message queued for the refused connection went with its pipe
                assertEquals("after the allow", server.socket().receiveString(0));
                assertNull(server.socket().receiveBytes(ZmqSocket.DONTWAIT));
                assertEquals(1, auth.allowedHandshakes());
            }
        }
    }

    /** allow and revoke act on the handshakes that follow; a connection let in before a revoke stays. */
    @Test
    void shouldLetInAKeyAllowedAtRunTimeAndKeepOutNewConnectionsOfARevokedOne() {
        Curve.KeyPair keys = Curve.keypair();
        try (CurveAuthorizer auth = CurveAuthorizer.start(ctx)) {
            Server server = server();
            ZmqSocket early = client(server, keys);
            assertRefused(nextOutcome(server));
            early.close();

            assertTrue(auth.allow(keys.publicKey()));
            assertFalse(auth.allow(Curve.z85Decode(keys.publicKey())), "already allowed, given in binary");
            assertTrue(auth.isAllowed(keys.publicKey()));
            ZmqSocket admitted = client(server, keys);
            assertTrue(admitted.send(b("let in"), 0));
            assertEquals("let in", server.socket().receiveString(0));
            assertEquals(MonitorEvent.Type.HANDSHAKE_SUCCEEDED, nextOutcome(server).type());

            assertTrue(auth.revoke(Curve.z85Decode(keys.publicKey())));
            assertFalse(auth.revoke(keys.publicKey()), "already revoked");
            assertFalse(auth.isAllowed(keys.publicKey()));
            ZmqSocket late = client(server, keys);
            assertTrue(late.send(b("after the revoke"), 0));
            assertRefused(nextOutcome(server));
            assertTrue(admitted.send(b("still connected"), 0), "a revoke affects new handshakes only");
            assertEquals("still connected", server.socket().receiveString(0));
            assertNull(server.socket().receiveBytes(ZmqSocket.DONTWAIT), "the revoked key's new connection got through");
            assertEquals(1, auth.allowedHandshakes());
            assertEquals(2, auth.refusedHandshakes());
        }
    }

    /** Raw requests on the ZAP endpoint: what RFC 27 asks of a reply, malformed ones answered 500, and the handler goes on. */
    @Test
    void shouldAnswerMalformedRequestsWith500AndGoOn() {
        Curve.KeyPair allowedKeys = Curve.keypair();
        byte[] key = Curve.z85Decode(allowedKeys.publicKey());
        try (CurveAuthorizer auth = CurveAuthorizer.start(ctx, key)) {
            ZmqSocket req = socket(SocketType.REQ);
            req.lingerMs(0);
            req.connect(CurveAuthorizer.ZAP_ENDPOINT);

            List<byte[]> r = ask(req, "2.0", "r1", "", "127.0.0.1", "", "CURVE", key);
            assertReply(r, "r1", "500", "unsupported ZAP version \"2.0\"");
            assertReply(ask(req, "1.0", "r2", "domain"), "r2", "500", "3 frames");
            assertReply(ask(req, "x"), "", "500", "1 frames");
            assertReply(ask(req, "1.0", "r3", "", "127.0.0.1", "", "CURVE", Arrays.copyOf(key, 31)), "r3", "500",
                    "one 32-byte public key, got 1 frames (the first 31 bytes)");
            assertReply(ask(req, "1.0", "r4", "", "127.0.0.1", "", "CURVE", key, key), "r4", "500", "got 2 frames");
            assertReply(ask(req, "1.0", "r5", "", "127.0.0.1", new byte[2000], "CURVE", key), "r5", "500",
                    "frame 4 is 2000 bytes");
            assertEquals(6, auth.malformedRequests());

            assertReply(ask(req, "1.0", "r6", "", "127.0.0.1", "", "NULL"), "r6", "400", "mechanism \"NULL\" not allowed");
            assertReply(ask(req, "1.0", "r7", "", "127.0.0.1", "", "PLAIN", "admin", "secret"), "r7", "400",
                    "mechanism \"PLAIN\" not allowed");
            assertReply(ask(req, "1.0", "r8", "", "127.0.0.1", "", "CURVE", Curve.z85Decode(Curve.keypair().publicKey())),
                    "r8", "400", "client key not allowed");
            assertEquals(3, auth.refusedHandshakes());

            r = ask(req, "1.0", "r9", "", "127.0.0.1", "", "CURVE", key);
            assertReply(r, "r9", "200", "OK");
            assertEquals(allowedKeys.publicKey(), new String(r.get(4), StandardCharsets.US_ASCII), "user id: the key in Z85");
            assertEquals(1, auth.allowedHandshakes());

            Server server = server(); // and libzmq's own requests are still answered
            assertTrue(client(server, allowedKeys).send(b("after the malformed ones"), 0));
            assertEquals("after the malformed ones", server.socket().receiveString(0));
            assertEquals(2, auth.allowedHandshakes());
            assertTrue(auth.isRunning());
        }
    }

    /** Sends {@code frames} (Strings as ASCII, arrays as they are) as one request and returns the reply's frames. */
    private static List<byte[]> ask(ZmqSocket req, Object... frames) {
        for (int i = 0; i < frames.length; i++) {
            byte[] f = frames[i] instanceof String s ? s.getBytes(StandardCharsets.US_ASCII) : (byte[]) frames[i];
            assertTrue(req.send(f, i < frames.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
        List<byte[]> reply = new ArrayList<>();
        do {
            byte[] f = req.receiveBytes(0);
            assertNotNull(f, "no reply within 5 s");
            reply.add(f);
        } while (req.hasMore());
        return reply;
    }

    /** RFC 27's reply: version, the request id echoed, status, status text, user id (empty unless 200), metadata (empty). */
    private static void assertReply(List<byte[]> reply, String requestId, String status, String textPart) {
        assertEquals(6, reply.size(), "frames of the reply");
        assertEquals("1.0", ascii(reply.get(0)));
        assertEquals(requestId, ascii(reply.get(1)));
        assertEquals(status, ascii(reply.get(2)), ascii(reply.get(3)));
        assertTrue(ascii(reply.get(3)).contains(textPart), ascii(reply.get(3)));
        assertTrue(reply.get(3).length <= 255, "status text over 255: " + ascii(reply.get(3)));
        if (!status.equals("200")) {
            assertArrayEquals(new byte[0], reply.get(4), "user id of a refusal");
        }
        assertArrayEquals(new byte[0], reply.get(5), "metadata");
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    /**
     * close() ends the thread before it returns and frees the endpoint at once: another authorizer
     * starts on the context right after (without the unbind, libzmq let the name go only when its
     * reaper got to the closed socket, and a start right after a close failed within 300 rounds).
     * Once none is bound, libzmq lets any client with the server key in.
     */
    @Test
    void shouldEndTheThreadAndFreeTheEndpointOnClose() {
        for (int round = 0; round < 300; round++) {
            CurveAuthorizer a = CurveAuthorizer.start(ctx);
            Thread t = a.thread();
            assertTrue(t.isAlive());
            a.close();
            assertFalse(t.isAlive(), "round " + round);
            assertFalse(a.isRunning());
            a.close(); // idempotent
        }

        Server server = server();
        try (CurveAuthorizer second = CurveAuthorizer.start(ctx)) {
            assertTrue(second.isRunning());
            client(server, Curve.keypair());
            assertRefused(nextOutcome(server));
        }
        ZmqSocket anyone = client(server, Curve.keypair());
        assertTrue(anyone.send(b("no handler: let in"), 0));
        assertEquals("no handler: let in", server.socket().receiveString(0));
    }

    /**
     * Ends a new context's authorizer thread with {@code end} (a close or a shutdown of the context)
     * and asserts that it ended without an exception, whatever it was doing: waiting in a receive
     * (ETERM), or between two (its socket closed by the context's close).
     */
    private static void assertEndsQuietly(Consumer<ZmqContext> end, String what) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        ZmqContext own = new ZmqContext();
        CurveAuthorizer auth = CurveAuthorizer.start(own);
        Thread t = auth.thread();
        t.setUncaughtExceptionHandler((thread, e) -> thrown.set(e));
        end.accept(own);
        t.join(5000);
        assertFalse(t.isAlive(), "the handler thread outlived its context's " + what);
        assertNull(thrown.get(), what);
        own.close(); // after a shutdown: the thread closed its socket, so the close does not wait for it
        auth.close();
    }

    @Test
    void shouldEndTheThreadQuietlyWhenTheContextCloses() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            assertEndsQuietly(ZmqContext::close, "close, round " + round);
        }
    }

    @Test
    void shouldEndTheThreadQuietlyWhenTheContextIsShutDown() throws InterruptedException {
        assertEndsQuietly(ZmqContext::shutdown, "shutdown");
    }

    @Test
    void shouldRefuseASecondHandlerInTheSameContext() {
        try (CurveAuthorizer first = CurveAuthorizer.start(ctx)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CurveAuthorizer.start(ctx));
            assertTrue(e.getMessage().contains("a ZAP handler is already bound in this context at inproc://zeromq.zap.01"),
                    e.getMessage());
            assertTrue(first.isRunning());
            ZmqSocket req = socket(SocketType.REQ);
            req.lingerMs(0);
            req.connect(CurveAuthorizer.ZAP_ENDPOINT);
            assertReply(ask(req, "1.0", "1", "", "127.0.0.1", "", "NULL"), "1", "400", "NULL");
        }
        ZmqSocket own = socket(SocketType.REP); // the application's own handler takes the endpoint the same way
        own.bind(CurveAuthorizer.ZAP_ENDPOINT);
        assertThrows(IllegalStateException.class, () -> CurveAuthorizer.start(ctx));
    }

    /** The example of the README's "CURVE client authorization", as it stands there, with an assertion added. */
    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRunTheReadmeExample() {
        Curve.KeyPair serverKeys = Curve.keypair();
        Curve.KeyPair clientKeys = Curve.keypair();            // the client's public key is what the server allows
        try (ZmqContext ctx = new ZmqContext();
             CurveAuthorizer auth = CurveAuthorizer.start(ctx, List.of(clientKeys.publicKey()))) {
            ZmqSocket server = ctx.socket(SocketType.PULL);
            server.curveServer(true);
            server.curveSecretKey(serverKeys.secretKey());
            server.bind("tcp://127.0.0.1:*");

            ZmqSocket client = ctx.socket(SocketType.PUSH);    // in another process, as a rule
            client.curveServerKey(serverKeys.publicKey());
            client.curvePublicKey(clientKeys.publicKey());
            client.curveSecretKey(clientKeys.secretKey());
            client.connect(server.lastEndpoint());
            client.send("hello", 0);
            String hello = server.receiveString(0);            // an allowed key: delivered

            auth.allow(Curve.keypair().publicKey());           // another client, from its next handshake on
            auth.revoke(clientKeys.publicKey());               // new connections with it refused; this one stays
            long refused = auth.refusedHandshakes();

            assertEquals("hello", hello);
            assertEquals(0, refused);
        }                                                      // the authorizer closes first, then the context
    }

    @Test
    void shouldRefuseBadKeysNamingWhatIsWrongAndStartNothing() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CurveAuthorizer.start(ctx, List.of("too short")));
        assertTrue(e.getMessage().contains("length=9"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CurveAuthorizer.start(ctx, new byte[31]));
        assertEquals("a CURVE public key is 32 bytes: length=31", e.getMessage());
        try (CurveAuthorizer auth = CurveAuthorizer.start(ctx)) { // nothing was bound by the refused starts
            assertThrows(IllegalArgumentException.class, () -> auth.allow(new byte[33]));
            assertThrows(NullPointerException.class, () -> auth.allow((String) null));
            assertFalse(auth.revoke(Curve.keypair().publicKey()));
        }
    }
}

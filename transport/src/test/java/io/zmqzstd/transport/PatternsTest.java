package io.zmqzstd.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PatternsTest extends ContextTestBase {

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldExchangeBothWaysOverPair(String transport) {
        try (ZmqSocket a = timed(ctx.socket(SocketType.PAIR)); ZmqSocket c = timed(ctx.socket(SocketType.PAIR))) {
            c.connect(Endpoints.bindAny(a, transport));
            assertTrue(c.send(b("ping"), 0));
            assertEquals("ping", a.receiveString(0));
            assertTrue(a.send(b("pong"), 0));
            assertEquals("pong", c.receiveString(0));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldDeliverOnlySubscribedTopicsOverPubSub(String transport) {
        try (ZmqSocket pub = timed(ctx.socket(SocketType.PUB)); ZmqSocket sub = timed(ctx.socket(SocketType.SUB))) {
            String ep = Endpoints.bindAny(pub, transport);
            sub.subscribe("A");
            sub.subscribe("Z");
            sub.connect(ep);
            // slow joiner: publish until the subscription has reached the publisher
            sub.receiveTimeoutMs(20);
            String got = null;
            for (int i = 0; i < 500 && got == null; i++) {
                pub.send(b("B-drop"), 0);
                pub.send(b("A-keep"), 0);
                got = sub.receiveString(0);
            }
            assertEquals("A-keep", got);
            pub.send(b("B-last"), 0);
            pub.send(b("A-last"), 0);
            sub.receiveTimeoutMs(5000);
            String s;
            while (!(s = sub.receiveString(0)).equals("A-last")) {
                assertTrue(s.startsWith("A"), "unsubscribed topic delivered: " + s);
            }
            sub.unsubscribe("A");
            // Both subscriptions reached the publisher together, at connect. After unsubscribe, an
            // A message sent before a Z one must not arrive; messages keep their order, so the
            // first to arrive is the Z one, not a timeout.
            pub.send(b("A-gone"), 0);
            pub.send(b("Z-still-subscribed"), 0);
            assertEquals("Z-still-subscribed", sub.receiveString(0));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldAnswerRequestsOverReqRep(String transport) {
        try (ZmqSocket rep = timed(ctx.socket(SocketType.REP)); ZmqSocket req = timed(ctx.socket(SocketType.REQ))) {
            req.connect(Endpoints.bindAny(rep, transport));
            for (int i = 0; i < 10; i++) {
                assertTrue(req.send(b("q" + i), 0));
                assertEquals("q" + i, rep.receiveString(0));
                assertTrue(rep.send(b("a" + i), 0));
                assertEquals("a" + i, req.receiveString(0));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldRouteMultipartByRoutingIdOverDealerRouter(String transport) {
        try (ZmqSocket router = timed(ctx.socket(SocketType.ROUTER));
             ZmqSocket dealer = timed(ctx.socket(SocketType.DEALER))) {
            router.routerMandatory(true);
            dealer.routingId(b("dealer-1"));
            dealer.connect(Endpoints.bindAny(router, transport));
            assertTrue(dealer.send(b("part1"), ZmqSocket.SNDMORE));
            assertTrue(dealer.send(b("part2"), 0));
            assertArrayEquals(b("dealer-1"), router.receiveBytes(0));
            assertTrue(router.hasMore());
            assertEquals("part1", router.receiveString(0));
            assertTrue(router.hasMore());
            assertEquals("part2", router.receiveString(0));
            assertFalse(router.hasMore());
            assertTrue(router.send(b("dealer-1"), ZmqSocket.SNDMORE));
            assertTrue(router.send(b("reply"), 0));
            assertEquals("reply", dealer.receiveString(0));
            ZmqException e = org.junit.jupiter.api.Assertions.assertThrows(ZmqException.class, () -> {
                router.send(b("nobody"), ZmqSocket.SNDMORE);
                router.send(b("x"), 0);
            });
            assertEquals(io.zmqzstd.transport.internal.LibZmq.EHOSTUNREACH, e.errno());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldDeliverEveryMessageInOrderOverPushPull(String transport) {
        try (ZmqSocket pull = timed(ctx.socket(SocketType.PULL)); ZmqSocket push = timed(ctx.socket(SocketType.PUSH));
             ZmqMessage msg = new ZmqMessage()) {
            push.connect(Endpoints.bindAny(pull, transport));
            for (int i = 0; i < 1000; i++) {
                assertTrue(push.send(b("m" + i), 0));
            }
            for (int i = 0; i < 1000; i++) {
                assertTrue(pull.receive(msg, 0));
                assertEquals("m" + i, new String(msg.toByteArray(), StandardCharsets.UTF_8));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldForwardSubscriptionsAndMessagesOverXpubXsub(String transport) {
        try (ZmqSocket xpub = timed(ctx.socket(SocketType.XPUB)); ZmqSocket xsub = timed(ctx.socket(SocketType.XSUB))) {
            xsub.connect(Endpoints.bindAny(xpub, transport));
            // XSUB subscribes by sending \x01 + topic; XPUB receives it as a message
            assertTrue(xsub.send(new byte[] {1, 'T'}, 0));
            byte[] subscription = xpub.receiveBytes(0);
            assertNotNull(subscription);
            assertArrayEquals(new byte[] {1, 'T'}, subscription);
            assertTrue(xpub.send(b("Other"), 0));
            assertTrue(xpub.send(b("Topic"), 0));
            assertEquals("Topic", xsub.receiveString(0));
            xsub.receiveTimeoutMs(50);
            assertNull(xsub.receiveBytes(0));
        }
    }
}

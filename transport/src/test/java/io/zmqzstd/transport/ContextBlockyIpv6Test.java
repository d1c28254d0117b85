package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The context options {@code ZMQ_BLOCKY} and {@code ZMQ_IPV6} ({@link ZmqContext.Builder#blocky},
 * {@link ZmqContext.Builder#ipv6}), which libzmq reads as it makes each socket: the linger and the
 * IPv6 setting a socket starts with.
 */
class ContextBlockyIpv6Test {

    /**
     * blocky(false): the socket starts with linger 0, and the context's close drops a message queued
     * for a peer that is not there and returns; blocky(true): linger -1, and the close waits until a
     * peer comes and takes the message.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldCloseAtOnceWithAMessagePendingWhenNotBlockyAndWaitForItsPeerWhenBlocky() throws Exception {
        String endpoint = endpointNobodyListensOn();

        ZmqContext notBlocky = ZmqContext.builder().blocky(false).build();
        assertFalse(notBlocky.blocky());
        ZmqSocket push = notBlocky.socket(SocketType.PUSH);
        assertEquals(0, push.lingerMs(), "libzmq's linger for a socket of a context without ZMQ_BLOCKY");
        assertCloseDropsAPendingMessage(notBlocky, push, endpoint, "ZMQ_BLOCKY off");

        ZmqContext blocky = ZmqContext.builder().blocky(true).build();
        assertTrue(blocky.blocky());
        push = blocky.socket(SocketType.PUSH);
        assertEquals(-1, push.lingerMs(), "libzmq's linger for a socket of a context with ZMQ_BLOCKY");
        assertCloseWaitsForThePeerOfAPendingMessage(blocky, push, endpoint, "ZMQ_BLOCKY on");
    }

    /**
     * Queues a message on {@code push} for {@code endpoint}, where nobody listens, and closes
     * {@code ctx} on a thread of its own: the close is to drop the message and return.
     */
    private static void assertCloseDropsAPendingMessage(ZmqContext ctx, ZmqSocket push, String endpoint, String why)
            throws InterruptedException {
        push.connect(endpoint);
        assertTrue(push.send(ContextTestBase.b("pending"), ZmqSocket.DONTWAIT), "queued for the peer that is not there");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread closing = closeOnAThread(ctx, thrown);
        closing.join(10_000);
        assertFalse(closing.isAlive(), "close() waited for a peer with " + why);
        assertNull(thrown.get());
    }

    /**
     * Queues a message on {@code push} for {@code endpoint}, where nobody listens, and closes
     * {@code ctx} on a thread of its own: the close is to go on waiting until a peer binds there
     * and takes the message, and to end then.
     */
    private static void assertCloseWaitsForThePeerOfAPendingMessage(ZmqContext ctx, ZmqSocket push, String endpoint, String why)
            throws InterruptedException {
        push.connect(endpoint);
        assertTrue(push.send(ContextTestBase.b("pending"), ZmqSocket.DONTWAIT));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread closing = closeOnAThread(ctx, thrown);
        closing.join(300); // a bound: the close is to go on waiting for as long as no peer comes
        assertTrue(closing.isAlive(), "close() returned with a message pending and " + why);
        try (ZmqContext peer = new ZmqContext()) {
            ZmqSocket pull = ContextTestBase.timed(peer.socket(SocketType.PULL));
            pull.bind(endpoint);
            assertEquals("pending", pull.receiveString(0), "the message the close waited for");
            closing.join(10_000);
            assertFalse(closing.isAlive(), "close() went on waiting once the message had gone");
            assertNull(thrown.get());
        }
    }

    /**
     * README "Contexts": a linger set on a socket after it was made is the socket's, whatever
     * ZMQ_BLOCKY says: with blocky(true) a linger of 0 lets the close drop a message queued for a
     * missing peer and return, and with blocky(false) a linger of -1 makes it wait for the peer.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldKeepALingerSetOnTheSocketWhateverBlockySays() throws Exception {
        String endpoint = endpointNobodyListensOn();

        ZmqContext blocky = ZmqContext.builder().blocky(true).build();
        ZmqSocket push = blocky.socket(SocketType.PUSH);
        push.lingerMs(0);
        assertEquals(0, push.lingerMs());
        assertCloseDropsAPendingMessage(blocky, push, endpoint, "the socket's linger 0");

        ZmqContext notBlocky = ZmqContext.builder().blocky(false).build();
        push = notBlocky.socket(SocketType.PUSH);
        push.lingerMs(-1);
        assertEquals(-1, push.lingerMs());
        assertCloseWaitsForThePeerOfAPendingMessage(notBlocky, push, endpoint, "the socket's linger -1");
    }

    @Test
    void shouldRefuseBlockyTogetherWithADefaultLingerNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ZmqContext.builder().defaultLinger(Duration.ofSeconds(5)).blocky(false).build());
        assertEquals("blocky(false) gives new sockets a linger of 0 (as libzmq's ZMQ_BLOCKY does), and defaultLinger another:"
                + " defaultLingerMs=5000; set one of the two", e.getMessage());
    }

    @Test
    void shouldKeepLibzmqsDefaultsAndTheDefaultLingerWhenUnset() {
        try (ZmqContext c = new ZmqContext()) {
            assertTrue(c.blocky());
            assertFalse(c.ipv6());
            ZmqSocket s = c.socket(SocketType.PULL);
            assertEquals(ZmqContext.DEFAULT_LINGER.toMillis(), s.lingerMs());
            assertFalse(s.ipv6());
            c.close();
            assertThrows(IllegalStateException.class, c::blocky);
            assertThrows(IllegalStateException.class, c::ipv6);
        }
    }

    /**
     * ipv6(true): every socket starts with ZMQ_IPV6 on, so a bind to the IPv6 loopback works and a
     * message goes through it; without it libzmq refuses the bind (ENODEV). On a machine without
     * ::1 only the read-backs are checked (the test passes without skipping).
     */
    @Test
    void shouldBindAndConnectOverIpv6OnlyWithTheContextsIpv6() {
        try (ZmqContext c = ZmqContext.builder().ipv6(true).build()) {
            assertTrue(c.ipv6());
            assertTrue(c.socket(SocketType.PULL).ipv6()); // on every machine, ::1 or not
        }
        if (!hasIpv6Loopback()) {
            return; // no IPv6 loopback here (a container without IPv6): the read-backs above are what can be shown
        }
        try (ZmqContext plain = new ZmqContext()) {
            ZmqSocket pull = plain.socket(SocketType.PULL);
            ZmqException e = assertThrows(ZmqException.class, () -> pull.bind("tcp://[::1]:*"));
            assertTrue(e.getMessage().contains("ipv6(true)"), e.getMessage());
        }
        try (ZmqContext c = ZmqContext.builder().ipv6(true).build()) {
            assertTrue(c.ipv6());
            ZmqSocket pull = ContextTestBase.timed(c.socket(SocketType.PULL));
            assertTrue(pull.ipv6());
            pull.bind("tcp://[::1]:*");
            ZmqSocket push = ContextTestBase.timed(c.socket(SocketType.PUSH));
            push.connect(pull.lastEndpoint());
            assertTrue(push.send(ContextTestBase.b("over ::1"), 0));
            assertEquals("over ::1", pull.receiveString(0));
            assertTrue(pull.lastEndpoint().startsWith("tcp://[::1]:"), pull.lastEndpoint());
        }
    }

    /** A tcp endpoint on 127.0.0.1 that was bound a moment ago and is free now. */
    private static String endpointNobodyListensOn() {
        try (ZmqContext c = new ZmqContext()) {
            ZmqSocket s = c.socket(SocketType.PULL);
            s.bind("tcp://127.0.0.1:*");
            return s.lastEndpoint();
        }
    }

    private static Thread closeOnAThread(ZmqContext c, AtomicReference<Throwable> thrown) {
        return Thread.ofPlatform().name("closing").start(() -> {
            try {
                c.close();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
    }

    private static boolean hasIpv6Loopback() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("::1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.transport.MonitorEvent.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What libzmq 4.3.4 does with a message a PAIR socket is in the middle of sending when its peer
 * goes away, as the transport README's "PAIR" paragraph describes. PAIR has no load balancer:
 * libzmq writes each part into its one pipe, and when that pipe ends the parts written so far go
 * with it (unflushed, they never reached the peer) and nothing marks the message as ended.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PairMidMessageTest extends ContextTestBase {

    /**
     * A bound PAIR whose peer went away: a part is refused (false under DONTWAIT; until the socket
     * has taken the pipe's end it goes into the dead pipe and is reported sent), and the head of
     * the message is lost. libzmq lets go of a PAIR's old pipe only once the socket has read
     * everything the peer sent before it left and then the pipe's end, which happens only when the
     * socket looks for input (a receive, {@code events()}, a poll for POLLIN): until then every
     * send is refused and a new peer's connection is turned away, so a PAIR that only sends waits
     * for ever in a blocking send. After it has looked, the next part the caller sends goes to the
     * next peer as the first part of a message of its own.
     */
    @Test
    void shouldLoseTheHeadAndTurnAwayTheNextPeerUntilABoundPairLooksForInput() {
        ZmqSocket pair = socket(SocketType.PAIR);
        try (SocketMonitor monitor = pair.monitor(EnumSet.of(Type.HANDSHAKE_SUCCEEDED, Type.DISCONNECTED))) {
            String endpoint = Endpoints.bindAny(pair, "tcp");
            ZmqSocket first = socket(SocketType.PAIR);
            first.connect(endpoint);
            awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED);
            assertTrue(pair.send(b("head"), ZmqSocket.SNDMORE));
            first.close();
            awaitEvent(monitor, Type.DISCONNECTED);
            int reportedSent = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (pair.send(b("middle"), ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT)) {
                reportedSent++; // into the dead pipe: dropped with it
                assertTrue(System.nanoTime() < deadline, "the part was never refused");
            }
            ZmqSocket next = socket(SocketType.PAIR);
            next.connect(endpoint);
            awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED); // the next peer's connection, whose pipe PAIR turns away
            pair.sendTimeoutMs(300);
            assertFalse(pair.send(b("tail"), 0), "sent while the old pipe is held: to whom?");
            assertEquals(0, pair.events() & ZmqPoller.POLLIN, "nothing from the old peer"); // takes the pipe's end
            assertFalse(pair.send(b("tail"), 0), "the peer turned away while the old pipe was held stays so");
            ZmqSocket third = socket(SocketType.PAIR);
            third.connect(endpoint);
            pair.sendTimeoutMs(5000);
            assertTrue(pair.send(b("tail"), 0), "a peer that connects after the look is taken");
            assertEquals("tail", third.receiveString(0), "after " + reportedSent + " parts reported sent into the dead pipe");
            assertFalse(third.hasMore(), "the tail arrives as a whole message of its own");
            assertEquals(null, next.receiveBytes(ZmqSocket.DONTWAIT));
        }
    }

    /**
     * A connecting PAIR keeps its pipe while it reconnects over tcp: the parts written before
     * the peer went away wait in it, and the whole message reaches the peer that binds next.
     */
    @Test
    void shouldKeepTheWholeMessageAcrossAReconnectOnAConnectingPair() {
        ZmqSocket pair = socket(SocketType.PAIR);
        pair.reconnectIvlMs(10);
        try (SocketMonitor monitor = pair.monitor(EnumSet.of(Type.HANDSHAKE_SUCCEEDED, Type.DISCONNECTED))) {
            ZmqSocket first = socket(SocketType.PAIR);
            String endpoint = Endpoints.bindAny(first, "tcp");
            pair.connect(endpoint);
            awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED);
            assertTrue(pair.send(b("head"), ZmqSocket.SNDMORE));
            first.close();
            awaitEvent(monitor, Type.DISCONNECTED);
            assertTrue(pair.send(b("tail"), ZmqSocket.DONTWAIT), "the pipe is still there");
            ZmqSocket next = socket(SocketType.PAIR);
            // libzmq closes the old listener on its I/O thread just after the close
            Endpoints.await("the port to be free", () -> {
                try {
                    next.bind(endpoint);
                    return true;
                } catch (ZmqException inUse) {
                    return false;
                }
            });
            assertEquals("head", next.receiveString(0));
            assertTrue(next.hasMore());
            assertEquals("tail", next.receiveString(0));
            assertFalse(next.hasMore());
        }
    }

    private static void awaitEvent(SocketMonitor monitor, Type type) {
        MonitorEvent e = monitor.receive(Duration.ofSeconds(10));
        assertNotNull(e, "no " + type);
        assertEquals(type, e.type(), e.toString());
    }
}

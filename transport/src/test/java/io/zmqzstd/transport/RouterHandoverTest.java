package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ZMQ_ROUTER_HANDOVER} ({@link ZmqSocket#routerHandover}): a second peer that connects with
 * the routing id of one still connected takes it over; without the option libzmq keeps the first.
 */
class RouterHandoverTest extends ContextTestBase {

    private static final byte[] ID = b("worker");

    @Test
    void shouldHandTheRoutingIdOverToTheNewPeer() {
        ZmqSocket router = socket(SocketType.ROUTER);
        router.routerHandover(true);
        ZmqSocket[] peers = firstThenSecond(router);
        ZmqSocket first = peers[0];
        ZmqSocket second = peers[1];
        assertMessage(router, "from second");

        reply(router, "to worker");
        assertEquals("to worker", second.receiveString(0), "the id's new peer gets what is sent to it");
        assertNull(first.receiveBytes(ZmqSocket.DONTWAIT), "the old peer gets nothing");
    }

    /** The control: without the option the first peer keeps the id, and the second is not heard. */
    @Test
    void shouldKeepTheFirstPeerWithoutHandover() {
        ZmqSocket router = socket(SocketType.ROUTER);
        ZmqSocket[] peers = firstThenSecond(router);
        ZmqSocket first = peers[0];
        ZmqSocket second = peers[1];
        assertTrue(first.send(b("first again"), 0));
        assertMessage(router, "first again"); // the router took the second's pipe in before it: not heard
        assertNull(router.receiveBytes(ZmqSocket.DONTWAIT), "the second peer's message reached the router");

        reply(router, "to worker");
        assertEquals("to worker", first.receiveString(0));
        assertNull(second.receiveBytes(ZmqSocket.DONTWAIT));
    }

    @Test
    void shouldRefuseHandoverOnASocketThatIsNoRouterNamingItsType() {
        ZmqSocket dealer = socket(SocketType.DEALER);
        ZmqException e = assertThrows(ZmqException.class, () -> dealer.routerHandover(true));
        assertTrue(e.getMessage().startsWith("zmq_setsockopt(ZMQ_ROUTER_HANDOVER=1) failed: errno=22"), e.getMessage());
        assertTrue(e.getMessage().contains("ZMQ_ROUTER_HANDOVER is an option of ROUTER and REP sockets only: this socket is DEALER"),
                e.getMessage());
        socket(SocketType.REP).routerHandover(true); // a REP is a ROUTER inside: libzmq takes it
    }

    /**
     * Two DEALERs with the same routing id connected to {@code router} in turn: the first's message
     * received, the second's sent ("from second").
     */
    private ZmqSocket[] firstThenSecond(ZmqSocket router) {
        String ep = Endpoints.bindAny(router, "inproc");
        ZmqSocket first = dealer(ep);
        assertTrue(first.send(b("from first"), 0));
        assertMessage(router, "from first");
        ZmqSocket second = dealer(ep);
        assertTrue(second.send(b("from second"), 0));
        return new ZmqSocket[] {first, second};
    }

    private ZmqSocket dealer(String ep) {
        ZmqSocket d = socket(SocketType.DEALER);
        d.routingId(ID);
        d.connect(ep);
        return d;
    }

    private static void assertMessage(ZmqSocket router, String body) {
        assertArrayEquals(ID, router.receiveBytes(0));
        assertTrue(router.hasMore());
        assertEquals(body, router.receiveString(0));
    }

    private static void reply(ZmqSocket router, String body) {
        assertTrue(router.send(ID, ZmqSocket.SNDMORE));
        assertTrue(router.send(b(body), 0));
    }
}

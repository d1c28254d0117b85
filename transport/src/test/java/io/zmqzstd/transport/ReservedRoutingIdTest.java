package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A routing id that starts with a zero byte is refused: libzmq makes up such ids for peers that
 * set none (a zero byte, then four), and takes one from the application without a word. Set on a
 * DEALER, an id equal to one a ROUTER had made up for another peer made the ROUTER ignore the
 * DEALER for good: its messages never arrived, and nothing said why.
 */
class ReservedRoutingIdTest extends ContextTestBase {

    @Test
    void shouldRefuseARoutingIdStartingWithAZeroByte() {
        ZmqSocket router = ctx.socket(SocketType.ROUTER);
        String endpoint = Endpoints.bindAny(router, "tcp");
        ZmqSocket anonymous = ctx.socket(SocketType.DEALER);
        anonymous.connect(endpoint);
        anonymous.send("hello", 0);
        router.receiveTimeoutMs(10_000);
        byte[] madeUp = router.receiveBytes(0);
        assertEquals(0, madeUp[0], "libzmq's own ids start with a zero byte");
        assertEquals("hello", router.receiveString(0));

        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dealer.routingId(madeUp));
        assertEquals("routingId must not start with a zero byte: routingId[0]=0, length=" + madeUp.length
                + " (libzmq reserves such ids for the ones it makes up)", e.getMessage());
        assertArrayEquals(new byte[0], dealer.routingId(), "a refused id is not set");

        dealer.routingId(new byte[] {1, 0});
        dealer.connect(endpoint);
        dealer.send("from dealer", 0);
        assertArrayEquals(new byte[] {1, 0}, router.receiveBytes(0));
        assertEquals("from dealer", router.receiveString(0));
    }
}

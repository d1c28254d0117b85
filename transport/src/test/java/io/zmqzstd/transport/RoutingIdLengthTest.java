package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A routing id is 1 to 255 bytes: libzmq 4.3.4 refuses an empty one and a longer one with a bare
 * EINVAL, which until 2026-11-29 came back as a {@link ZmqException} "Invalid argument" that did
 * not say what the rule was. Now both are refused before libzmq, naming the option, the length
 * and the rule; ids within it are set and travel as before. ZMQ_CONNECT_ROUTING_ID has no setter
 * here, and {@code setIntOption} refuses it as a binary option.
 */
class RoutingIdLengthTest extends ContextTestBase {

    /** zmq.h's number; the binding has no constant for an option it does not set. */
    private static final int ZMQ_CONNECT_ROUTING_ID = 61;

    @Test
    void shouldRefuseAnEmptyOrOverlongRoutingIdNamingTheRule() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> dealer.routingId(new byte[0]));
        assertEquals("routingId (ZMQ_ROUTING_ID) must be 1 to 255 bytes: length=0", empty.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> dealer.routingId(new byte[256]));
        assertEquals("routingId (ZMQ_ROUTING_ID) must be 1 to 255 bytes: length=256", tooLong.getMessage(),
                "the length, before the zero byte it starts with");
        assertThrows(IllegalArgumentException.class, () -> dealer.routingId(new byte[100_000]));
        assertArrayEquals(new byte[0], dealer.routingId(), "nothing set");
        IllegalArgumentException byNumber = assertThrows(IllegalArgumentException.class,
                () -> dealer.setIntOption(ZMQ_CONNECT_ROUTING_ID, 1));
        assertTrue(byNumber.getMessage().contains("ZMQ_CONNECT_ROUTING_ID, a binary option"), byNumber.getMessage());
    }

    @Test
    void shouldSetAndSendRoutingIdsOfOneAndOf255Bytes() {
        ZmqSocket router = socket(SocketType.ROUTER);
        String endpoint = Endpoints.bindAny(router, "tcp");
        byte[] longest = new byte[255];
        Arrays.fill(longest, (byte) 0xFF);
        for (byte[] id : new byte[][] {{'a'}, longest}) {
            ZmqSocket dealer = socket(SocketType.DEALER);
            dealer.routingId(id);
            assertArrayEquals(id, dealer.routingId());
            dealer.connect(endpoint);
            dealer.send("hello", 0);
            assertArrayEquals(id, router.receiveBytes(0), "the id the ROUTER knows the DEALER by");
            assertEquals("hello", router.receiveString(0));
        }
    }
}

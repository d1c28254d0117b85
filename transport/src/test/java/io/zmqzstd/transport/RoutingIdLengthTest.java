package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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

    /**
     * README "Socket options", what libzmq 4.3.4 itself does with ZMQ_CONNECT_ROUTING_ID (through raw
     * zmq_setsockopt, as the binding has no setter): a DEALER refuses it whatever the value; a
     * ROUTER takes 1 byte, over 255 bytes and a leading zero byte, and refuses only the empty value.
     */
    @Test
    void shouldShowWhatLibzmqTakesAsAConnectRoutingId() throws Throwable {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        ZmqSocket router = ctx.socket(SocketType.ROUTER);
        byte[] leadingZero = {0, 'x'};
        for (byte[] value : new byte[][] {{'a'}, new byte[300], leadingZero, {}}) {
            assertEquals(LibZmq.EINVAL, setConnectRoutingId(dealer, value), "DEALER, length=" + value.length);
            assertEquals(value.length == 0 ? LibZmq.EINVAL : 0, setConnectRoutingId(router, value), "ROUTER, length=" + value.length);
        }
    }

    /** @return 0 if libzmq took {@code value} as the socket's ZMQ_CONNECT_ROUTING_ID, else its errno */
    private static int setConnectRoutingId(ZmqSocket s, byte[] value) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            MemorySegment bytes = a.allocate(Math.max(1, value.length));
            MemorySegment.copy(value, 0, bytes, ValueLayout.JAVA_BYTE, 0, value.length);
            int rc = (int) LibZmq.zmq_setsockopt.invokeExact(capture, s.handle(), ZMQ_CONNECT_ROUTING_ID, bytes, (long) value.length);
            return rc == 0 ? 0 : LibZmq.errno(capture);
        }
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

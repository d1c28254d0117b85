package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An option value libzmq refuses is named in the exception, as key=value (or its length for bytes). */
class OptionRefusedMessageTest extends ContextTestBase {

    @Test
    void shouldNameTheValueLibzmqRefused() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        assertRefused("zmq_setsockopt(ZMQ_SNDHWM=-1)", () -> dealer.sendHwm(-1));
        assertRefused("zmq_setsockopt(ZMQ_LINGER=-7)", () -> dealer.lingerMs(-7));
        assertRefused("zmq_setsockopt(option 9999=1)", () -> dealer.setIntOption(9999, 1));
        assertRefused("zmq_setsockopt(ZMQ_ROUTING_ID, length=300)", () -> dealer.routingId("x".repeat(300).getBytes(StandardCharsets.US_ASCII)));
        assertRefused("zmq_setsockopt(ZMQ_ROUTING_ID, length=0)", () -> dealer.routingId(new byte[0]));
        assertEquals(1000, dealer.sendHwm(), "a refused value leaves the option as it was");
    }

    private static void assertRefused(String expected, Executable call) {
        ZmqException e = assertThrows(ZmqException.class, call);
        assertEquals(LibZmq.EINVAL, e.errno());
        assertTrue(e.getMessage().startsWith(expected + " failed: errno="), e.getMessage());
    }
}

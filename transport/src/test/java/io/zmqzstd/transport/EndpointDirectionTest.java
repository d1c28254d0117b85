package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * libzmq 4.3.4's zmq_disconnect and zmq_unbind are one function (socket_base_t::term_endpoint,
 * which tries the endpoint "connected or bound"): a disconnect of an endpoint the socket bound
 * unbound it, and an unbind of one it connected to disconnected it, each without a word. The
 * socket refuses both, naming the endpoint and the call that fits.
 */
class EndpointDirectionTest {

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldRefuseToDisconnectAnEndpointThisSocketBound(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            String endpoint = Endpoints.bindAny(pull, transport);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.disconnect(endpoint));
            assertEquals("disconnect(" + endpoint + "): this socket bound that endpoint, it did not connect to it;"
                    + " call unbind(" + endpoint + ") to stop listening there", e.getMessage());
            // still bound: a peer connecting now delivers
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(endpoint);
            assertTrue(push.send("still bound", 0));
            assertEquals("still bound", pull.receiveString(0));
            pull.unbind(endpoint); // the right call works
            assertThrows(ZmqException.class, () -> pull.unbind(endpoint), "unbound once");
        }
    }

    @Test
    void shouldRefuseToDisconnectAWildcardBindByTheEndpointGivenOrReported() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("tcp://127.0.0.1:*");
            String real = pull.lastEndpoint();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.disconnect(real));
            assertTrue(e.getMessage().startsWith("disconnect(" + real + "): this socket bound"), e.getMessage());
            pull.unbind(real);
            // unbound: libzmq's own answer again (ENOENT)
            ZmqException gone = assertThrows(ZmqException.class, () -> pull.disconnect(real));
            assertEquals(2, gone.errno(), gone::getMessage);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "ipc", "tcp"})
    void shouldRefuseToUnbindAnEndpointThisSocketConnectedTo(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            String endpoint = Endpoints.bindAny(pull, transport);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(endpoint);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> push.unbind(endpoint));
            assertEquals("unbind(" + endpoint + "): this socket connected to that endpoint, it did not bind it;"
                    + " call disconnect(" + endpoint + ") to end the connection", e.getMessage());
            assertTrue(push.send("still connected", 0));
            assertEquals("still connected", pull.receiveString(0));
            push.disconnect(endpoint);
            assertThrows(ZmqException.class, () -> push.disconnect(endpoint), "disconnected once");
        }
    }

    /** Bound and connected on one socket: libzmq decides, as before. */
    @Test
    void shouldLeaveAnEndpointBothBoundAndConnectedToLibzmq() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket a = ctx.socket(SocketType.PAIR);
            ZmqSocket b = ctx.socket(SocketType.PAIR);
            a.bind("inproc://both");
            b.bind("inproc://other");
            a.connect("inproc://other");
            b.connect("inproc://both");
            a.disconnect("inproc://other");
            a.unbind("inproc://both");
        }
    }
}

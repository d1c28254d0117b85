package io.zmqzstd.transport;

import io.zmqzstd.testkit.Ports;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * libzmq 4.3.4's zmq_disconnect and zmq_unbind are one function (socket_base_t::term_endpoint,
 * which tries the endpoint "connected or bound"): a disconnect of an endpoint the socket bound
 * unbound it, and an unbind of one it connected to disconnected it, each without a word. The
 * socket refuses both, naming the endpoint and the call that fits. libzmq finds a tcp endpoint
 * under another spelling too (it resolves a text that is not one of the socket's endpoints), and
 * so must the check; what libzmq 4.3.4 does with each spelling was measured with a C program
 * against it on 2026-11-27.
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
            assertDelivers(push, pull, "still bound");
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
            assertUnbindRefused(push, endpoint, "");
            assertDelivers(push, pull, "still connected");
            push.disconnect(endpoint);
            assertThrows(ZmqException.class, () -> push.disconnect(endpoint), "disconnected once");
        }
    }

    /**
     * Bound and connected on one socket: libzmq decides, as before. Neither call is refused
     * (libzmq 4.3.4 ends the bind and the connect both: a second call finds nothing). Also, a
     * socket's own directions decide, not another socket's: an inproc name this socket connected
     * to and another bound, or the reverse, is this socket's to disconnect or unbind.
     */
    @Test
    void shouldLeaveAnEndpointBothBoundAndConnectedToLibzmq() {
        try (ZmqContext ctx = new ZmqContext()) {
            for (boolean unbind : new boolean[] {false, true}) {
                ZmqSocket s = ctx.socket(SocketType.DEALER);
                s.lingerMs(0);
                s.bind("tcp://127.0.0.1:*");
                String endpoint = s.lastEndpoint();
                s.connect(endpoint); // to its own listener: the one text reaches a bind and a connect
                Consumer<String> call = unbind ? s::unbind : s::disconnect;
                assertDoesNotThrow(() -> call.accept(endpoint),
                        () -> (unbind ? "unbind" : "disconnect") + " of an endpoint both bound and connected");
                ZmqException again = assertThrows(ZmqException.class, () -> call.accept(endpoint), "libzmq ended both");
                assertEquals(2, again.errno(), again::getMessage);
                s.close();
            }
            ZmqSocket a = ctx.socket(SocketType.PAIR);
            ZmqSocket b = ctx.socket(SocketType.PAIR);
            a.bind("inproc://both");
            b.bind("inproc://other");
            a.connect("inproc://other");
            b.connect("inproc://both");
            assertDoesNotThrow(() -> a.disconnect("inproc://other"), "a connected to it");
            assertDoesNotThrow(() -> a.unbind("inproc://both"), "a bound it");
        }
    }

    /**
     * libzmq resolves {@code localhost} to the address the bind reported, so the disconnect would
     * unbind: until 2026-11-27 the check compared text, let it through, and the socket stopped
     * listening without a word. With ipv6 on, libzmq knows the bind as {@code [::ffff:127.0.0.1]}.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldRefuseToDisconnectABindReachedThroughAHostName(boolean ipv6) {
        assertLocalhostIsLoopbackV4();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.ipv6(ipv6);
            pull.bind("tcp://127.0.0.1:*");
            String real = pull.lastEndpoint();
            int port = port(real);
            assertEquals(ipv6 ? "tcp://[::ffff:127.0.0.1]:" + port : "tcp://127.0.0.1:" + port, real);
            String byName = "tcp://localhost:" + port;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.disconnect(byName));
            assertEquals("disconnect(" + byName + "): this socket bound that endpoint (libzmq knows it as " + real
                    + "), it did not connect to it; call unbind(" + real + ") to stop listening there", e.getMessage());
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("tcp://127.0.0.1:" + port);
            assertDelivers(push, pull, "still bound");
            pull.unbind(byName); // libzmq resolves it to the bind: the right call works by name too
            ZmqException gone = assertThrows(ZmqException.class, () -> pull.unbind(real));
            assertEquals(2, gone.errno(), gone::getMessage); // ENOENT: the unbind by name ended it
        }
    }

    /** The mirror image: libzmq resolves the unbind's host name to the text the connect was given. */
    @Test
    void shouldRefuseToUnbindAConnectReachedThroughAHostName() {
        assertLocalhostIsLoopbackV4();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            String endpoint = Endpoints.bindAny(pull, "tcp");
            String byName = "tcp://localhost:" + port(endpoint);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(endpoint);
            assertUnbindRefused(push, byName, endpoint);
            assertDelivers(push, pull, "still connected");
            push.disconnect(byName);
            assertThrows(ZmqException.class, () -> push.disconnect(endpoint), "disconnected by name");
        }
    }

    /**
     * What libzmq does not resolve is not refused: a connect is known by its text, so the address
     * of a host name connected to reaches nothing (ENOENT from either call), and with ipv6 on
     * {@code localhost} becomes {@code [::ffff:127.0.0.1]}, which a connect to
     * {@code tcp://127.0.0.1:PORT} is not.
     */
    @Test
    void shouldLeaveSpellingsLibzmqDoesNotResolveToLibzmq() {
        assertLocalhostIsLoopbackV4();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            int port = port(Endpoints.bindAny(pull, "tcp"));
            ZmqSocket byName = ctx.socket(SocketType.PUSH);
            byName.connect("tcp://localhost:" + port);
            for (String other : new String[] {"tcp://127.0.0.1:" + port, "tcp://0.0.0.0:" + port}) {
                assertEquals(2, assertThrows(ZmqException.class, () -> byName.unbind(other)).errno());
                assertEquals(2, assertThrows(ZmqException.class, () -> byName.disconnect(other)).errno());
            }
            ZmqSocket v6 = ctx.socket(SocketType.PUSH);
            v6.ipv6(true);
            v6.connect("tcp://127.0.0.1:" + port);
            ZmqException e = assertThrows(ZmqException.class, () -> v6.unbind("tcp://localhost:" + port));
            assertEquals(2, e.errno(), e::getMessage);
            assertDelivers(v6, pull, "still connected");
        }
    }

    /**
     * libzmq knows a bind of {@code tcp://*:PORT} as {@code tcp://0.0.0.0:PORT} and does not
     * resolve {@code *} in an unbind: the unbind of the text given fails with ENOENT, and says
     * what to pass; the disconnect of it is refused naming the same.
     */
    @Test
    void shouldNameTheEndpointLibzmqKnowsForAWildcardHost() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            int port = Ports.unused();
            String given = "tcp://*:" + port;
            pull.bind(given);
            String known = "tcp://0.0.0.0:" + port;
            assertEquals(known, pull.lastEndpoint());
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> pull.disconnect(given));
            assertTrue(refused.getMessage().endsWith("call unbind(" + known + ") to stop listening there"), refused.getMessage());
            ZmqException e = assertThrows(ZmqException.class, () -> pull.unbind(given));
            assertEquals(2, e.errno(), e::getMessage);
            assertTrue(e.getMessage().endsWith("(this socket bound " + given + " as " + known
                    + ", which is what libzmq knows it by: call unbind(" + known + "))"), e.getMessage());
            pull.unbind(known);
        }
    }

    /**
     * A socket bound to one spelling of an ipc file and connected to another (itself): libzmq takes
     * them for two endpoints, and the disconnect ends the connect only. Until 2026-11-27 the socket
     * let go of the bind's file as well, so another socket's bind of the path was let through, and
     * libzmq took the path from the listener, which stayed bound to a file no longer there.
     */
    @Test
    void shouldKeepAnIpcBindWhenAConnectToAnotherSpellingOfItsFileEnds(@TempDir Path dir) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            String file = "ipc://" + dir.resolve("s");
            String spelledOtherwise = "ipc://" + dir + "/./s";
            dealer.bind(spelledOtherwise);
            dealer.connect(file);
            dealer.disconnect(file);
            ZmqSocket other = ctx.socket(SocketType.PULL);
            ZmqException e = assertThrows(ZmqException.class, () -> other.bind(file), "the dealer still listens there");
            assertTrue(e.getMessage().contains("a socket listens on " + dir.resolve("s")), e.getMessage());
            ZmqException gone = assertThrows(ZmqException.class, () -> dealer.unbind(file), "another endpoint to libzmq");
            assertEquals(2, gone.errno(), gone::getMessage);
            dealer.unbind(spelledOtherwise);
            other.bind(file); // let go now
        }
    }

    /**
     * An inproc name a socket bound and connected to (itself): libzmq's unbind ends the bind only
     * (it tries the socket's binds of that name first, then its connects), so a second unbind
     * would end the connect. Until 2026-11-27 the socket forgot the connect at the first unbind
     * and let the second through.
     */
    @Test
    void shouldStillRefuseToUnbindAnInprocConnectAfterItsBindOfTheSameNameEnded() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            dealer.bind("inproc://self");
            dealer.connect("inproc://self");
            dealer.unbind("inproc://self");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dealer.unbind("inproc://self"));
            assertTrue(e.getMessage().startsWith("unbind(inproc://self): this socket connected to that endpoint"), e.getMessage());
            dealer.disconnect("inproc://self");
        }
    }

    @Test
    void shouldWriteIpv6AddressesAsLibzmqDoes() throws Exception {
        String[][] cases = {
            {"::1", "::1"}, {"::", "::"}, {"::ffff:10.1.2.3", "::ffff:10.1.2.3"}, {"::10.1.2.3", "::10.1.2.3"},
            {"2001:db8:0:0:0:0:0:1", "2001:db8::1"}, {"1:0:0:2:0:0:0:3", "1:0:0:2::3"}, {"1:0:0:2:0:0:3:4", "1::2:0:0:3:4"},
            {"fe80:0:0:0:0:0:0:0", "fe80::"}, {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"}, {"1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"},
            {"ABCD:0:0:1:0:0:0:0", "abcd:0:0:1::"},
        };
        for (String[] c : cases) {
            byte[] bytes = c[0].startsWith("::ffff:") ? mapped(c[0]) : InetAddress.getByName(c[0]).getAddress();
            assertEquals(c[1], EndpointMatch.ipv6Text(bytes), c[0]);
        }
    }

    /** The JDK turns {@code ::ffff:a.b.c.d} into an IPv4 address: its 16 bytes, made by hand. */
    private static byte[] mapped(String text) throws Exception {
        byte[] v4 = InetAddress.getByName(text.substring("::ffff:".length())).getAddress();
        byte[] a = new byte[16];
        a[10] = (byte) 0xff;
        a[11] = (byte) 0xff;
        System.arraycopy(v4, 0, a, 12, 4);
        return a;
    }

    /**
     * {@code socket.unbind(spelled)} refused as one of its connects, named {@code known} where
     * that is another text (else ""), and the socket still connected.
     */
    private static void assertUnbindRefused(ZmqSocket socket, String spelled, String known) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> socket.unbind(spelled));
        String connect = known.isEmpty() ? spelled : known;
        assertEquals("unbind(" + spelled + "): this socket connected to that endpoint"
                + (known.isEmpty() ? "" : " (libzmq knows it as " + known + ")") + ", it did not bind it; call disconnect("
                + connect + ") to end the connection", e.getMessage());
    }

    /** {@code from} still reaches {@code to}: the refused call changed nothing. */
    private static void assertDelivers(ZmqSocket from, ZmqSocket to, String text) {
        assertTrue(from.send(text, 0));
        assertEquals(text, to.receiveString(0));
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** These tests take {@code localhost} for 127.0.0.1 alone, as /etc/hosts has it here. */
    private static void assertLocalhostIsLoopbackV4() {
        try {
            InetAddress[] all = InetAddress.getAllByName("localhost");
            org.junit.jupiter.api.Assumptions.assumeTrue(all.length == 1 && all[0].getHostAddress().equals("127.0.0.1"),
                    "localhost resolves to 127.0.0.1 alone");
        } catch (java.net.UnknownHostException e) {
            org.junit.jupiter.api.Assumptions.abort("localhost does not resolve");
        }
    }
}

package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.internal.LibZmq;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where libzmq's text for an endpoint call's errno does not say what was wrong with the endpoint
 * ("No such file or directory" for an unbind of an endpoint never bound, "Invalid argument" for
 * {@code inproc://}, "No such device" for a tcp bind of a host name), the {@link ZmqException}
 * says it, after libzmq's errno and text, which stay. Until 2026-11-27 each said only libzmq's text.
 * The socket goes on working after each.
 */
class EndpointFailureMessageTest extends ContextTestBase {

    @Test
    void shouldNameWhatThisSocketHasWhenAnUnbindOrDisconnectFindsNothing() {
        ZmqSocket s = socket(SocketType.PULL);
        assertFailure("zmq_unbind(tcp://127.0.0.1:5999) failed: errno=2, error=No such file or directory (this socket has no"
                + " bind or connect libzmq knows as tcp://127.0.0.1:5999; it has none)", 2, s::unbind, "tcp://127.0.0.1:5999");
        s.bind("inproc://failure-message");
        s.lingerMs(0);
        s.connect("tcp://127.0.0.1:5998");
        assertFailure("zmq_disconnect(inproc://other) failed: errno=2, error=No such file or directory (this socket has no"
                + " bind or connect libzmq knows as inproc://other; it has inproc://failure-message, tcp://127.0.0.1:5998)", 2,
                s::disconnect, "inproc://other");
        s.unbind("inproc://failure-message");
        s.disconnect("tcp://127.0.0.1:5998");
    }

    @Test
    void shouldSayAnInprocEndpointNeedsAName() {
        ZmqSocket s = socket(SocketType.PAIR);
        for (Consumer<String> call : List.<Consumer<String>>of(s::bind, s::connect)) {
            ZmqException e = assertThrows(ZmqException.class, () -> call.accept("inproc://"));
            assertEquals(LibZmq.EINVAL, e.errno());
            assertTrue(e.getMessage().endsWith(" (an inproc endpoint needs a name after inproc://)"), e.getMessage());
        }
        s.bind("inproc://named");
    }

    /**
     * A context built with {@code ioThreads(0)} serves inproc only: libzmq refuses a bind or a
     * connect of any other transport with EMTHREAD, "No thread available", which names no cause.
     * Until 2026-11-29 that was all the message said.
     */
    @Test
    void shouldSayAContextWithoutIoThreadsServesOnlyInproc(@TempDir Path dir) {
        try (ZmqContext noIo = ZmqContext.builder().ioThreads(0).build()) {
            ZmqSocket s = noIo.socket(SocketType.PULL);
            for (Consumer<String> call : List.<Consumer<String>>of(s::bind, s::connect)) {
                for (String endpoint : new String[] {"tcp://127.0.0.1:5997", "ipc://" + dir.resolve("no-io-threads")}) {
                    ZmqException e = assertThrows(ZmqException.class, () -> call.accept(endpoint));
                    assertEquals(LibZmq.EMTHREAD, e.errno(), e::getMessage);
                    assertTrue(e.getMessage().endsWith("error=No thread available (this context has no I/O thread,"
                            + " ioThreads(0), which serves inproc endpoints only: build it with ioThreads(1) or more)"),
                            e.getMessage());
                }
            }
            s.bind("inproc://no-io-threads"); // the socket goes on
        }
    }

    @Test
    void shouldSayWhatATcpBindTakesAsHost() {
        ZmqSocket s = socket(SocketType.PULL);
        for (String endpoint : new String[] {"tcp://localhost:*", "tcp://no-such-interface:*", "tcp://[::1]:*"}) {
            assertFailure("zmq_bind(" + endpoint + ") failed: errno=19, error=No such device (a tcp bind takes as host *, an IP"
                    + " address (IPv6 only with ipv6(true)) or a network interface's name, and never looks a host name up:"
                    + " this one is none of these)", 19, s::bind, endpoint);
        }
        s.bind("tcp://127.0.0.1:*");
    }

    @Test
    void shouldSayHowLongAnIpcPathMayBe(@TempDir Path dir) throws Exception {
        ZmqSocket s = socket(SocketType.PULL);
        String tooLong = "ipc://" + dir.resolve("p".repeat(120 - dir.toString().length()));
        for (Consumer<String> call : List.<Consumer<String>>of(s::bind, s::connect)) {
            ZmqException e = assertThrows(ZmqException.class, () -> call.accept(tooLong));
            assertTrue(e.getMessage().endsWith(" (an ipc path is at most 107 bytes (a socket address's sun_path, its NUL"
                    + " included, holds 108): this one is 121)"), e.getMessage());
        }
        String longest = "ipc://" + dir.resolve("q".repeat(106 - dir.toString().length()));
        s.bind(longest); // 107 bytes
        assertTrue(Files.exists(Path.of(longest.substring("ipc://".length()))));
    }

    private static void assertFailure(String message, int errno, Consumer<String> call, String endpoint) {
        ZmqException e = assertThrows(ZmqException.class, () -> call.accept(endpoint), endpoint);
        assertEquals(errno, e.errno(), endpoint);
        assertEquals(message, e.getMessage());
    }
}

package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.internal.LibZmq;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    /**
     * {@code ipc://*} binds at {@code $TMPDIR/tmpXXXXXX/socket}: with a long {@code $TMPDIR} that
     * path is too long, and until 2026-11-29 the note measured the "*" given, "this one is 1". Now it
     * names the path libzmq made and its length, and the socket binds an explicit path after it. In
     * a child JVM, whose environment holds the long {@code TMPDIR} libzmq reads.
     */
    @Test
    void shouldMeasureThePathAnIpcWildcardMakesUnderItsTemporaryDirectory(@TempDir Path base) throws Exception {
        Path tmp = base.resolve("t".repeat(100 - base.toString().length())); // 101 bytes; with "/tmpXXXXXX/socket" 118
        Files.createDirectory(tmp);
        String out = ForkedJvm.run(Map.of("TMPDIR", tmp.toString()), WildcardBind.class, List.of(), base.resolve("s").toString());
        String made = tmp + "/tmpXXXXXX/socket";
        assertTrue(out.contains("zmq_bind(ipc://*) failed: errno=36, error=File name too long (an ipc path is at most 107 bytes"
                + " (a socket address's sun_path, its NUL included, holds 108): ipc://* binds at DIR/tmpXXXXXX/socket, DIR the"
                + " first of $TMPDIR, $TEMPDIR and $TMP that is a directory, here " + made + ", which is 118 (set that variable"
                + " to a shorter directory, or bind an explicit path))"), out);
        assertTrue(out.contains("explicit path: received=after"), out);
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "libzmq removes the directory it made");
        }
    }

    /** The child of {@link #shouldMeasureThePathAnIpcWildcardMakesUnderItsTemporaryDirectory}: args[0] is a short ipc path. */
    static final class WildcardBind {
        public static void main(String[] args) {
            try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = timed(ctx.socket(SocketType.PULL));
                    ZmqSocket push = timed(ctx.socket(SocketType.PUSH))) {
                ZmqException e = assertThrows(ZmqException.class, () -> pull.bind("ipc://*"));
                System.out.println(e.getMessage());
                pull.bind("ipc://" + args[0]);
                push.connect("ipc://" + args[0]);
                push.send("after", 0);
                System.out.println("explicit path: received=" + pull.receiveString(0));
            }
        }
    }

    private static void assertFailure(String message, int errno, Consumer<String> call, String endpoint) {
        ZmqException e = assertThrows(ZmqException.class, () -> call.accept(endpoint), endpoint);
        assertEquals(errno, e.errno(), endpoint);
        assertEquals(message, e.getMessage());
    }
}

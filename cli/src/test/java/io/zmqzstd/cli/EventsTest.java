package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.Curve;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.CharBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --events} on send and recv, in-process over tcp loopback. */
class EventsTest {

    /** A finished recv with what it wrote to standard output. */
    private record Received(Result result, String stdout) {
    }

    private static CompletableFuture<Received> recv(String... args) {
        return CompletableFuture.supplyAsync(() -> {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            Result r = InProcess.execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                    prepend("recv", args));
            return new Received(r, stdout.toString(StandardCharsets.UTF_8));
        }, task -> Thread.ofPlatform().daemon().start(task)); // not the common pool: one worker on two cores
    }

    private static Result send(String stdin, String... args) {
        return InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), prepend("send", args));
    }

    private static String[] prepend(String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    private static Received await(CompletableFuture<Received> recv) throws Exception {
        return recv.get(60, TimeUnit.SECONDS);
    }

    /** The lines of {@code err} that start with {@code prefix + type + " endpoint=" + endpoint + " value="}. */
    private static List<String> events(String err, String prefix, String type, String endpoint) {
        return err.lines().filter(l -> l.startsWith(prefix + ": event: " + type + " endpoint=" + endpoint + " value=")).toList();
    }

    /**
     * A tcp stream with --events on both sides: recv reports its listening endpoint, the accepted
     * connection and the handshake, send its connection and handshake; the messages arrive and
     * both runs end with exit 0, also when send's workers (--threads 2) use the socket.
     */
    @ParameterizedTest(name = "send --threads {0}")
    @ValueSource(ints = {0, 2})
    void shouldReportTheConnectionOnBothSidesOfATcpStream(int threads) throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        CompletableFuture<Received> recv = recv("--bind", endpoint, "--count", "2", "--events");
        Result send = send("one\ntwo\n", "--connect", endpoint, "--events", "--threads", String.valueOf(threads),
                "--timeout", "30s");
        Received r = await(recv);
        assertEquals(ExitCodes.OK, send.code(), send::toString);
        assertEquals(ExitCodes.OK, r.result().code(), r::toString);
        assertEquals("one\ntwo\n", r.stdout(), r::toString);
        String recvErr = r.result().err();
        assertEquals(1, events(recvErr, "zmq-zstd recv", "LISTENING", endpoint).size(), recvErr);
        assertEquals(1, events(recvErr, "zmq-zstd recv", "ACCEPTED", endpoint).size(), recvErr);
        assertEquals(1, events(recvErr, "zmq-zstd recv", "HANDSHAKE_SUCCEEDED", endpoint).size(), recvErr);
        assertEquals(1, events(send.err(), "zmq-zstd send", "CONNECTED", endpoint).size(), send::toString);
        assertEquals(1, events(send.err(), "zmq-zstd send", "HANDSHAKE_SUCCEEDED", endpoint).size(), send::toString);
        for (String line : (recvErr + send.err()).lines().toList()) {
            assertTrue(line.matches("zmq-zstd (send|recv): event: [A-Z_]+ endpoint=\\S+ value=\\d+"), line);
        }
    }

    /**
     * Socket types that cannot talk (send --type push to recv --type sub, pub to pull): libzmq 4.3.4
     * drops the connection during its handshake without an error, and reports no more than that
     * (no HANDSHAKE_FAILED_PROTOCOL: a connection, then DISCONNECTED), so both sides ran to their
     * --timeout without a word. Now the side that connects warns once, without --events, naming the
     * endpoint, its own type and the peers that type takes (send connects in one case, recv in the
     * other); the side that binds says nothing (a port check ends a connection the same way); both
     * still end at --timeout.
     */
    @ParameterizedTest(name = "send --type {0}")
    @ValueSource(strings = {"push", "pub"})
    void shouldWarnOfAPeerWhoseSocketTypeCannotTalkToThisOne(String sendType) throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        boolean sendConnects = sendType.equals("push");
        String recvType = sendConnects ? "sub" : "pull";
        CompletableFuture<Received> recv = recv(sendConnects ? "--bind" : "--connect", endpoint, "--type", recvType,
                "--timeout", "3s");
        Result send = sendConnects
                ? send("never\n", "--connect", endpoint, "--type", sendType, "--timeout", "2s")
                : send("never\n", "--bind", endpoint, "--type", sendType, "--wait-subscribers", "1", "--timeout", "2s");
        Received r = await(recv);
        assertEquals(ExitCodes.TIMEOUT, send.code(), send::toString);
        assertEquals(ExitCodes.TIMEOUT, r.result().code(), r::toString);
        String warning = ": warning: endpoint=" + endpoint + ": a connection closed during its ZMTP handshake, which is how"
                + " libzmq drops, without an error, a peer whose socket type cannot talk to this one: ";
        List<String> sendWarnings = send.err().lines().filter(l -> l.contains(": warning: ")).toList();
        List<String> recvWarnings = r.result().err().lines().filter(l -> l.contains(": warning: ")).toList();
        if (sendConnects) {
            assertEquals(List.of("zmq-zstd send" + warning + "push sends only to pull (recv --type pull, or a proxy --type"
                    + " pipeline frontend)"), sendWarnings, send::toString);
            assertEquals(List.of(), recvWarnings, r::toString);
        } else {
            assertEquals(List.of("zmq-zstd recv" + warning + "pull receives only from push (send --type push, or a proxy"
                    + " --type pipeline backend)"), recvWarnings, r::toString);
            assertEquals(List.of(), sendWarnings, send::toString);
        }
    }

    /** A connect nobody answers: each retry is a line, and --timeout ends the run as without --events. */
    @Test
    void shouldReportTheRetriesOfAConnectNobodyAnswers() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        Received r = await(recv("--connect", endpoint, "--events", "--timeout", "1s"));
        String err = r.result().err();
        assertEquals(ExitCodes.TIMEOUT, r.result().code(), r::toString);
        assertFalse(events(err, "zmq-zstd recv", "CONNECT_RETRIED", endpoint).isEmpty(), err);
        assertTrue(err.lines().toList().contains("zmq-zstd recv: timeout: no message within 1s (delivered=0)"), err);
        assertTrue(err.lines().allMatch(l -> l.startsWith("zmq-zstd recv: event: CONNECT_RETRIED ")
                || l.startsWith("zmq-zstd recv: timeout: ")), err);
    }

    /**
     * A CURVE client with the wrong server key: as transport/README.md says of libzmq 4.3.4, the
     * server reports HANDSHAKE_FAILED_PROTOCOL with ZMTP_CRYPTOGRAPHIC, the client
     * HANDSHAKE_FAILED_NO_DETAIL with an errno; neither a success; both time out (exit 3).
     */
    @Test
    void shouldReportAFailedCurveHandshakeOnBothSides(@TempDir Path dir) throws Exception {
        Path serverKey = Files.writeString(dir.resolve("server.key"), CharBuffer.wrap(CurveOptions.formatKeyPair(Curve.keypair())));
        String wrongKey = Curve.keypair().publicKey();
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        CompletableFuture<Received> recv = recv("--bind", endpoint, "--curve-server", "--curve-keypair-file",
                serverKey.toString(), "--events", "--timeout", "3s");
        Result send = send("never\n", "--connect", endpoint, "--curve-server-key", wrongKey, "--events", "--timeout", "2s");
        Received r = await(recv);
        assertEquals(ExitCodes.TIMEOUT, send.code(), send::toString);
        assertEquals(ExitCodes.TIMEOUT, r.result().code(), r::toString);
        assertEquals("", r.stdout());
        String recvErr = r.result().err();
        List<String> refused = events(recvErr, "zmq-zstd recv", "HANDSHAKE_FAILED_PROTOCOL", endpoint);
        assertFalse(refused.isEmpty(), recvErr);
        assertTrue(refused.getFirst().endsWith(" value=0x11000001"), recvErr);
        List<String> failed = events(send.err(), "zmq-zstd send", "HANDSHAKE_FAILED_NO_DETAIL", endpoint);
        assertFalse(failed.isEmpty(), send::toString);
        assertTrue(failed.getFirst().matches(".* value=\\d+ error=.+"), send::toString);
        assertFalse((recvErr + send.err()).contains("HANDSHAKE_SUCCEEDED"), () -> recvErr + send.err());
    }

    /** A bind that fails: the event line, then the command's own line, exit 1 as without --events. */
    @Test
    void shouldReportAFailedBindBeforeTheFailure() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String endpoint = "tcp://127.0.0.1:" + taken.getLocalPort();
            Result r = InProcess.execute(cl -> { }, "recv", "--bind", endpoint, "--events", "--timeout", "1s");
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(2, lines.size(), r::toString);
            assertEquals("zmq-zstd recv: event: BIND_FAILED endpoint=" + endpoint + " value=98 error=Address already in use",
                    lines.get(0), r::toString);
            assertTrue(lines.get(1).startsWith("zmq-zstd recv: cannot bind: endpoint=" + endpoint), r::toString);
        }
    }

    /**
     * libzmq names a failed bind by its address alone, so the BIND_FAILED line said
     * {@code endpoint=*:PORT}, {@code endpoint=/dir/feed} or {@code endpoint=127.0.0.1:PORT}, which is
     * no endpoint and not what the "cannot bind" line after it names. Now it is the endpoint as given,
     * on send, recv and a proxy's side.
     */
    @Test
    void shouldNameAFailedBindByTheEndpointAsGiven(@TempDir Path dir) throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String any = "tcp://*:" + taken.getLocalPort();
            Result recv = InProcess.execute(cl -> { }, "recv", "--bind", any, "--events", "--timeout", "1s");
            assertEquals(ExitCodes.FAILURE, recv.code(), recv::toString);
            assertEquals("zmq-zstd recv: event: BIND_FAILED endpoint=" + any + " value=98 error=Address already in use",
                    recv.err().lines().findFirst().orElseThrow(), recv::toString);

            String ipc = "ipc://" + dir.resolve("missing").resolve("feed");
            Result send = send("", "--bind", ipc, "--events");
            assertEquals(ExitCodes.FAILURE, send.code(), send::toString);
            assertTrue(send.err().startsWith("zmq-zstd send: event: BIND_FAILED endpoint=" + ipc + " value=2 "), send::toString);

            String loopback = "tcp://127.0.0.1:" + taken.getLocalPort();
            Result proxy = InProcess.execute(cl -> { }, "proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*",
                    "--backend-bind", loopback, "--events");
            assertEquals(ExitCodes.FAILURE, proxy.code(), proxy::toString);
            assertTrue(proxy.err().lines().anyMatch(("zmq-zstd proxy: event: BIND_FAILED socket=backend endpoint=" + loopback
                    + " value=98 error=Address already in use")::equals), proxy::toString);
        }
    }

    /**
     * With --events a failed bind said "errno=11, error=Resource temporarily unavailable" whatever
     * was wrong: libzmq 4.3.4 overwrites zmq_bind's errno when it sends the BIND_FAILED event to
     * the monitor. So a taken port was not named as such, and a bind to a name that is no interface
     * exited 1 instead of 2 (a usage error without --events; such a name is now refused before libzmq
     * is asked, so here an address this machine does not have, EADDRNOTAVAIL, stands in). Each now
     * says what it says without.
     */
    @Test
    void shouldNameTheRealReasonOfAFailedBind() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String[] endpoints = {"tcp://127.0.0.1:" + taken.getLocalPort(), "tcp://203.0.113.77:5555"}; // TEST-NET-3: on no interface
            for (String endpoint : endpoints) {
                Result plain = InProcess.execute(cl -> { }, "recv", "--bind", endpoint, "--timeout", "1s");
                Result events = InProcess.execute(cl -> { }, "recv", "--bind", endpoint, "--events", "--timeout", "1s");
                assertEquals(plain.code(), events.code(), () -> plain + " / " + events);
                String failure = plain.err().strip();
                assertTrue(failure.startsWith("zmq-zstd recv: cannot bind: endpoint=" + endpoint + ", errno="), plain::toString);
                assertFalse(failure.contains("errno=11"), plain::toString);
                assertEquals(failure, events.err().lines().toList().getLast(), events::toString);
            }
        }
    }
}

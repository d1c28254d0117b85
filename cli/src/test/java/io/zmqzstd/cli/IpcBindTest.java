package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --bind ipc://PATH}: libzmq unlinks whatever is at PATH before it binds (meant for the socket
 * file of a process that died), so a bind there deleted a regular file, a symbolic link or a FIFO
 * and put its socket in their place, and took the path from a process still listening on it
 * without a word (that one then received nothing), where a tcp bind says "address in use".
 */
class IpcBindTest {

    @TempDir
    Path dir;

    private static Result recv(String endpoint, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("recv", "--bind", endpoint, "--timeout", "1s"));
        args.addAll(List.of(more));
        return InProcess.execute(cl -> { }, args.toArray(String[]::new));
    }

    /** One line, exit 1, naming the endpoint and then {@code error} (with the errno before it where there is one). */
    private static void assertOneLineFailure(Result r, String endpoint, String error) {
        assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r::toString);
        assertTrue(lines.getFirst().startsWith("zmq-zstd recv: cannot bind: endpoint=" + endpoint + ", "), r::toString);
        assertTrue(lines.getFirst().contains(error), r::toString);
    }

    @Test
    void shouldNotDeleteAFileThatIsNotASocket() throws Exception {
        Path file = Files.writeString(dir.resolve("app.log"), "precious\n");
        String endpoint = "ipc://" + file;
        assertOneLineFailure(recv(endpoint), endpoint, "error=ipc path is taken by a regular file, not a socket: path=" + file
                + ", endpoint=" + endpoint + " (libzmq unlinks what is there to bind; remove it yourself or bind another path)");
        assertEquals("precious\n", Files.readString(file));

        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        assertOneLineFailure(recv("ipc://" + link), "ipc://" + link, "error=ipc path is taken by a symbolic link, not a socket: path=" + link);
        assertTrue(Files.isSymbolicLink(link));

        Path directory = Files.createDirectory(dir.resolve("sub"));
        assertOneLineFailure(recv("ipc://" + directory), "ipc://" + directory, "error=ipc path is taken by a directory, not a socket: path=" + directory);
    }

    @Test
    void shouldRefuseAPathAnotherSocketListensOn() throws Exception {
        Path path = dir.resolve("feed.sock");
        String endpoint = "ipc://" + path;
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket listener = ctx.socket(SocketType.PULL)) {
            listener.lingerMs(0);
            listener.bind(endpoint);
            // recv --events too: the refusal comes before libzmq is asked, so there is no BIND_FAILED line
            Result r = recv(endpoint, "--events");
            assertOneLineFailure(r, endpoint, "errno=98, error=Address already in use (a socket listens on " + path
                    + ", from which libzmq would take the path without a word; bind another path, or end that listener first)");
            assertFalse(r.err().contains("LISTENING"), r::toString);
        }
        // a non-ZeroMQ listener too: libzmq would unlink its path all the same
        Path other = dir.resolve("other.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(other));
            assertOneLineFailure(recv("ipc://" + other), "ipc://" + other, "errno=98, error=Address already in use (a socket"
                    + " listens on " + other + ",");
        }
    }

    /**
     * The transport's reason follows libzmq's text after "error=", and names the path: a path with
     * "error=" in it cut the line there (the command took what follows the last "error="), leaving
     * "x/feed.sock, from which …" without "Address already in use" or the start of the path.
     */
    @Test
    void shouldNameAPathThatContainsErrorEqualsWhole() throws Exception {
        Path path = Files.createDirectory(dir.resolve("error=x")).resolve("feed.sock");
        String endpoint = "ipc://" + path;
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            assertOneLineFailure(recv(endpoint), endpoint, ", errno=98, error=Address already in use (a socket listens on "
                    + path + ", from which");
        }
    }

    /** libzmq's "No such file or directory" for a bind in a directory that does not exist read as about the socket file. */
    @Test
    void shouldNameTheMissingDirectoryOfAnIpcPath() {
        Path missing = dir.resolve("no-such-dir");
        String endpoint = "ipc://" + missing.resolve("feed.sock");
        Result r = recv(endpoint);
        assertOneLineFailure(r, endpoint, "errno=2, error=No such file or directory (no such directory: " + missing + ")");
        assertTrue(r.err().strip().endsWith("(no such directory: " + missing + ")"), r::toString);
    }

    /**
     * A bind below a regular file fails in libzmq with "Not a directory", to which the line added
     * "(no such directory: FILE)", though FILE is there: it names it as not a directory.
     */
    @Test
    void shouldNameAFileInThePlaceOfTheDirectoryOfAnIpcPath() throws Exception {
        Path file = Files.writeString(dir.resolve("app.log"), "a log\n");
        String endpoint = "ipc://" + file.resolve("feed.sock");
        Result r = recv(endpoint);
        assertOneLineFailure(r, endpoint, "errno=20, error=Not a directory (not a directory: " + file + ")");
        assertFalse(r.err().contains("no such directory"), r::toString);
        assertEquals("a log\n", Files.readString(file));
    }

    /** A socket file nobody listens on (its process died) is what libzmq's unlink is for: the bind takes it. */
    @Test
    void shouldTakeOverTheSocketFileOfAProcessThatEnded() throws Exception {
        Path path = dir.resolve("stale.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path)); // closing it leaves the file behind
        }
        assertTrue(Files.exists(path, LinkOption.NOFOLLOW_LINKS));
        Result r = recv("ipc://" + path);
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
    }

    /** proxy: the same path written two ways on its two sides was bound twice, the second taking it from the first. */
    @Test
    void shouldRefuseOnePathOnBothSidesOfAProxy() throws Exception {
        Path path = dir.resolve("hub.sock");
        String second = "ipc://" + dir.resolve(".").resolve("hub.sock");
        AtomicReference<ProxyCommand> command = new AtomicReference<>();
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> InProcess.execute(
                cl -> command.set((ProxyCommand) cl.getSubcommands().get("proxy").getCommand()),
                "proxy", "--type", "pipeline", "--frontend-bind", "ipc://" + path, "--backend-bind", second),
                task -> Thread.ofPlatform().daemon().start(task));
        try {
            Result r = run.get(30, TimeUnit.SECONDS); // a proxy that bound both runs until stopped: this times out
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            assertEquals("zmq-zstd proxy: cannot bind: endpoint=" + second + ", errno=98, error=Address already in use (a socket"
                    + " listens on " + path + ", from which libzmq would take the path without a word; bind another path, or end"
                    + " that listener first)", r.err().strip(), r::toString);
        } finally {
            if (command.get() != null) {
                command.get().stop();
            }
        }
    }

    /** A proxy on a thread of its own, the command that stops it as SIGINT/SIGTERM do. */
    private record RunningProxy(CompletableFuture<Result> result, AtomicReference<ProxyCommand> command) {
        Result stop() throws Exception {
            command.get().stop();
            return result.get(30, TimeUnit.SECONDS);
        }
    }

    private static RunningProxy proxy(String... args) {
        AtomicReference<ProxyCommand> command = new AtomicReference<>();
        List<String> all = new java.util.ArrayList<>(List.of("proxy", "--type", "pipeline"));
        all.addAll(List.of(args));
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> InProcess.execute(
                cl -> command.set((ProxyCommand) cl.getSubcommands().get("proxy").getCommand()), all.toArray(String[]::new)),
                task -> Thread.ofPlatform().daemon().start(task));
        return new RunningProxy(run, command);
    }

    /** Waits until {@code path} holds a socket file (the proxy's bind is done), for at most 30 s. */
    private static void awaitSocketFile(Path path, RunningProxy proxy) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            assertFalse(proxy.result().isDone(), () -> "proxy ended: " + proxy.result().join());
            assertTrue(System.nanoTime() < deadline, "no socket file at " + path);
            Thread.sleep(10); // polling the file system: there is no event to wait for
        }
    }

    /**
     * libzmq 4.3.4 leaves an ipc bind's socket file behind when the socket closes: every run left
     * its files (a recv at its timeout, a send at the end of its input, a proxy stopped as a signal
     * stops it, a proxy whose other side failed), which in a shared sticky directory such as /tmp
     * kept other users from binding the path. The command now removes the files its binds made.
     */
    @Test
    void shouldRemoveTheSocketFilesItsBindsMadeWhenItEnds() throws Exception {
        Path recvFile = dir.resolve("recv.sock");
        Result r = recv("ipc://" + recvFile);
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        assertFalse(Files.exists(recvFile, LinkOption.NOFOLLOW_LINKS), "recv left " + recvFile);

        Path sendFile = dir.resolve("send.sock");
        Result s = InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = java.io.InputStream.nullInputStream(), "send", "--bind", "ipc://" + sendFile);
        assertEquals(ExitCodes.OK, s.code(), s::toString);
        assertFalse(Files.exists(sendFile, LinkOption.NOFOLLOW_LINKS), "send left " + sendFile);

        Path front = dir.resolve("front.sock");
        Path back = dir.resolve("back.sock");
        RunningProxy proxy = proxy("--frontend-bind", "ipc://" + front, "--backend-bind", "ipc://" + back);
        awaitSocketFile(back, proxy);
        Result p = proxy.stop();
        assertEquals(ExitCodes.OK, p.code(), p::toString);
        assertFalse(Files.exists(front, LinkOption.NOFOLLOW_LINKS), "proxy left " + front);
        assertFalse(Files.exists(back, LinkOption.NOFOLLOW_LINKS), "proxy left " + back);

        // the frontend bound, the backend refused (a regular file there): the frontend's file goes too
        Path taken = Files.writeString(dir.resolve("taken"), "precious\n");
        Result failed = proxy("--frontend-bind", "ipc://" + front, "--backend-bind", "ipc://" + taken).result().get(30, TimeUnit.SECONDS);
        assertEquals(ExitCodes.FAILURE, failed.code(), failed::toString);
        assertFalse(Files.exists(front, LinkOption.NOFOLLOW_LINKS), "proxy left " + front);
        assertEquals("precious\n", Files.readString(taken));
    }

    /** Only the file the bind made is removed: a listener that has bound the path since keeps its own. */
    @Test
    void shouldLeaveTheSocketFileOfAListenerThatBoundThePathSince() throws Exception {
        Path front = dir.resolve("front.sock");
        RunningProxy proxy = proxy("--frontend-bind", "ipc://" + front, "--backend-bind", "ipc://" + dir.resolve("back.sock"));
        awaitSocketFile(dir.resolve("back.sock"), proxy);
        Files.delete(front);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(front));
            Result p = proxy.stop();
            assertEquals(ExitCodes.OK, p.code(), p::toString);
            assertTrue(Files.exists(front, LinkOption.NOFOLLOW_LINKS), "proxy removed the socket file of another listener");
            assertFalse(Files.exists(dir.resolve("back.sock"), LinkOption.NOFOLLOW_LINKS));
        }
    }

    /**
     * {@code --connect ipc://PATH} where a regular file or a directory is: libzmq's connect succeeds
     * and retries for ever, so send and recv waited and timed out without a word about the path.
     * Now a warning line first; the run goes on (exit 3 at its timeout), and the file is left alone.
     * A path with nothing there yet is the usual connect before the bind, and gets no warning.
     */
    @Test
    void shouldWarnOfAConnectToAPathThatIsNotASocket() throws Exception {
        Path file = Files.writeString(dir.resolve("app.log"), "precious\n");
        Path directory = Files.createDirectory(dir.resolve("sub"));
        for (String[] c : new String[][] {{"recv", file.toString(), "a regular file"}, {"send", directory.toString(), "a directory"}}) {
            Result r = InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                    = new ByteArrayInputStream("a message\n".getBytes(StandardCharsets.US_ASCII)),
                    c[0], "--connect", "ipc://" + c[1], "--timeout", "300ms");
            assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals("zmq-zstd " + c[0] + ": warning: endpoint=ipc://" + c[1] + ": " + c[1] + " is " + c[2]
                    + ", not a socket: libzmq retries this connect until a socket is there, so no message goes through it"
                    + " until then (a mistyped path?)", lines.getFirst(), r::toString);
            assertTrue(lines.size() > 1 && lines.get(1).startsWith("zmq-zstd " + c[0] + ": timeout"), r::toString);
        }
        assertEquals("precious\n", Files.readString(file));

        Result none = InProcess.execute(cl -> { }, "recv", "--connect", "ipc://" + dir.resolve("not-yet.sock"), "--timeout", "300ms");
        assertEquals(ExitCodes.TIMEOUT, none.code(), none::toString);
        assertFalse(none.err().contains("warning"), none::toString);
    }
}

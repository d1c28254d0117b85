package io.zmqzstd.transport;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** An ipc bind never destroys what is at its path: libzmq unlinks it first, without looking. */
class IpcBindGuardTest extends ContextTestBase {

    @TempDir
    Path dir;

    /** Until 2026-11-27 the file was deleted and a socket put in its place, the bind succeeding. */
    @Test
    void shouldRefuseToBindOverAFileThatIsNotASocket() throws Exception {
        Path file = Files.writeString(dir.resolve("important.txt"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        Path directory = Files.createDirectory(dir.resolve("sub"));
        ZmqSocket pull = socket(SocketType.PULL);
        assertRefused(pull, file, "a regular file");
        assertRefused(pull, link, "a symbolic link");
        assertRefused(pull, directory, "a directory");
        assertEquals("precious", Files.readString(file), "the file is untouched");
        assertTrue(Files.isSymbolicLink(link), "the link is untouched");
        assertEquals("", pull.lastEndpoint(), "nothing was bound");
    }

    private static void assertRefused(ZmqSocket s, Path path, String kind) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.bind("ipc://" + path));
        assertTrue(e.getMessage().contains("ipc path is taken by " + kind + ", not a socket: path=" + path), e.getMessage());
    }

    /** README "ipc binds": a FIFO at the path is refused as the other files that are not sockets are, and left as it was. */
    @Test
    void shouldRefuseToBindOverAFifo() throws Throwable {
        Path fifo = dir.resolve("pipe");
        try (Arena a = Arena.ofConfined()) {
            assertEquals(0, (int) MKFIFO.invokeExact(a.allocateFrom(fifo.toString()), 0600), "mkfifo " + fifo);
        }
        ZmqSocket pull = socket(SocketType.PULL);
        assertRefused(pull, fifo, "a FIFO");
        assertTrue(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS)
                && !Files.isDirectory(fifo, LinkOption.NOFOLLOW_LINKS), "the FIFO is untouched");
        assertEquals(0010000, (int) Files.getAttribute(fifo, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000, "still a FIFO");
        assertEquals("", pull.lastEndpoint(), "nothing was bound");
    }

    /**
     * README "ipc binds": what the check refuses it refuses before libzmq is asked, so a monitor of
     * the socket sees no BIND_FAILED, neither for a file that is not a socket nor for a path a
     * socket listens on. The LISTENING of the socket's next bind, raised after anything the refused
     * binds could have raised, shows that nothing came before it.
     */
    @Test
    void shouldRaiseNoBindFailedForABindItRefuses() {
        Path file = dir.resolve("plain");
        String taken = "ipc://" + dir.resolve("taken");
        socket(SocketType.PULL).bind(taken);
        ZmqSocket pull = socket(SocketType.PULL);
        try (SocketMonitor monitor = pull.monitor(EnumSet.of(MonitorEvent.Type.BIND_FAILED, MonitorEvent.Type.LISTENING))) {
            assertDoesNotThrow(() -> Files.writeString(file, "x"));
            assertThrows(IllegalArgumentException.class, () -> pull.bind("ipc://" + file));
            ZmqException listened = assertThrows(ZmqException.class, () -> pull.bind(taken));
            assertEquals(LibZmq.EADDRINUSE, listened.errno(), listened::getMessage);
            String free = "ipc://" + dir.resolve("free");
            pull.bind(free);
            MonitorEvent first = monitor.receive(Duration.ofSeconds(5));
            assertNotNull(first, "no LISTENING for the bind that succeeded");
            assertEquals(MonitorEvent.Type.LISTENING, first.type(), "an event before the good bind's: " + first);
            assertEquals(free, first.endpoint());
        }
    }

    /**
     * README "ipc binds": the check connects to the socket file, so the listener there sees a
     * connection open and close (its monitor: ACCEPTED, then DISCONNECTED) and goes on receiving.
     */
    @Test
    void shouldShowTheListenerTheProbeAsAConnectionThatOpensAndCloses() {
        String endpoint = "ipc://" + dir.resolve("watched");
        ZmqSocket listener = socket(SocketType.PULL);
        listener.bind(endpoint);
        try (SocketMonitor monitor = listener.monitor(EnumSet.of(MonitorEvent.Type.ACCEPTED, MonitorEvent.Type.DISCONNECTED))) {
            assertThrows(ZmqException.class, () -> socket(SocketType.PULL).bind(endpoint));
            MonitorEvent opened = monitor.receive(Duration.ofSeconds(5));
            assertNotNull(opened, "the listener saw no connection");
            assertEquals(MonitorEvent.Type.ACCEPTED, opened.type(), opened::toString);
            MonitorEvent closed = monitor.receive(Duration.ofSeconds(5));
            assertNotNull(closed, "the probe's connection did not close");
            assertEquals(MonitorEvent.Type.DISCONNECTED, closed.type(), closed::toString);
        }
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("after the probe"), 0));
        assertEquals("after the probe", listener.receiveString(0));
    }

    /**
     * Until 2026-11-27 the second bind took the path from the first socket without a word, and the
     * first one received nothing more (a tcp bind to a taken port fails with EADDRINUSE). Binds
     * refused in a tight loop leave the listener probe connections its I/O thread may not have
     * accepted yet: until 2026-11-27 the 611th such bind took the path (found by the error-path
     * leak hunt; the 520th in a run of this test), its probe's EAGAIN read as nobody listening.
     */
    @Test
    void shouldRefuseThePathOfASocketThatListensOnIt() {
        String endpoint = "ipc://" + dir.resolve("feed");
        ZmqSocket first = socket(SocketType.PULL);
        first.bind(endpoint);
        ZmqSocket second = socket(SocketType.PULL);
        ZmqException e = assertThrows(ZmqException.class, () -> second.bind(endpoint));
        assertEquals(LibZmq.EADDRINUSE, e.errno(), e::getMessage);
        assertTrue(e.getMessage().endsWith("error=Address already in use (a socket listens on " + dir.resolve("feed")
                + ", from which libzmq would take the path without a word; bind another path, or end that listener first)"),
                e.getMessage()); // libzmq's text, then why: what the cli reports after its own endpoint= and errno=
        for (int attempt = 2; attempt <= 5000; attempt++) { // each probe a connection not yet accepted, maybe
            int n = attempt;
            assertThrows(ZmqException.class, () -> second.bind(endpoint), () -> "attempt " + n);
        }
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("to the first"), 0));
        assertEquals("to the first", first.receiveString(0), "the first socket keeps its path");
        assertNull(second.receiveBytes(ZmqSocket.DONTWAIT));
    }

    /**
     * A listener whose backlog is full, its connections not accepted yet, still listens: each
     * refused bind's probe is such a connection, and its connect fails at once with EAGAIN. Until
     * 2026-11-27 that read as nobody listening: after as many refused binds as the backlog holds
     * (two here; some hundred against a libzmq listener in a tight loop) the next bind took the path.
     */
    @Test
    void shouldRefuseThePathOfAListenerWhoseBacklogIsFull() throws Exception {
        Path path = dir.resolve("busy");
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(path), 1); // accepts nothing until the end
            Object inode = Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            ZmqSocket pull = socket(SocketType.PULL);
            for (int attempt = 1; attempt <= 5; attempt++) {
                ZmqException e = assertThrows(ZmqException.class, () -> pull.bind("ipc://" + path), "attempt " + attempt);
                assertTrue(e.getMessage().contains("a socket listens on " + path), e.getMessage());
            }
            assertEquals("", pull.lastEndpoint(), "nothing was bound");
            assertEquals(inode, Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS), "the socket file is the listener's");
            listener.accept().close(); // a probe's connection, so that the backlog has room again
            try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                client.configureBlocking(false);
                assertTrue(client.connect(UnixDomainSocketAddress.of(path)), "the listener still listens on its path");
            }
        }
    }

    /**
     * A listener this process let go (unbind, close) closes on libzmq's I/O thread after the call
     * has returned: a bind of its path at once still finds it listening, and takes the path over
     * as libzmq always did (refused, about every other unbind-and-bind failed with EADDRINUSE).
     */
    @Test
    void shouldRebindAtOnceAPathThisProcessLetGo() {
        String endpoint = "ipc://" + dir.resolve("again");
        ZmqSocket pull = socket(SocketType.PULL);
        for (int i = 0; i < 100; i++) {
            pull.bind(endpoint);
            pull.unbind(endpoint);
        }
        for (int i = 0; i < 100; i++) {
            ZmqSocket previous = ctx.socket(SocketType.PULL);
            previous.bind(endpoint);
            previous.close();
        }
        pull.bind(endpoint);
        ZmqSocket other = socket(SocketType.PULL);
        assertThrows(ZmqException.class, () -> other.bind(endpoint), "a path bound again is guarded again");
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("after 200 rebinds"), 0));
        assertEquals("after 200 rebinds", pull.receiveString(0));
    }

    /**
     * A path this process let go is taken over at once only while the socket file its listener
     * made is still there. Until 2026-11-27 the path alone was remembered, so once another
     * listener (another process's, here a JDK one) had bound the path since, the next bind here
     * took the path from it without a word.
     */
    @Test
    void shouldRefuseAPathThisProcessLetGoOnceAnotherListenerBoundIt() throws Exception {
        Path path = dir.resolve("handed-on");
        String endpoint = "ipc://" + path;
        ZmqSocket previous = ctx.socket(SocketType.PULL);
        previous.bind(endpoint);
        previous.close();
        Files.delete(path); // what another process's bind does first
        try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            other.bind(UnixDomainSocketAddress.of(path));
            ZmqSocket pull = socket(SocketType.PULL);
            ZmqException e = assertThrows(ZmqException.class, () -> pull.bind(endpoint));
            assertEquals(LibZmq.EADDRINUSE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().contains("a socket listens on " + path), e.getMessage());
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path));
                    SocketChannel accepted = other.accept()) {
                assertTrue(accepted.isConnected(), "the other listener keeps its path");
            }
        }
        bindAndReceive(endpoint); // the other listener's file, left behind: taken over
    }

    /**
     * The file checked is the one libzmq unlinks: the kernel takes {@code link/..} from the link's
     * target. Until 2026-11-27 the check looked at the path with {@code ..} dropped from the text
     * (another directory, with nothing there), and libzmq deleted the regular file the kernel found.
     */
    @Test
    void shouldRefuseAFileReachedThroughASymbolicLinkAndDotDot() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("real").resolve("sub"));
        Files.createSymbolicLink(dir.resolve("link"), sub);
        Path file = Files.writeString(dir.resolve("real").resolve("notes.txt"), "precious");
        Path written = Path.of(dir + "/link/../notes.txt");
        ZmqSocket pull = socket(SocketType.PULL);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.bind("ipc://" + written));
        assertTrue(e.getMessage().startsWith("ipc path is taken by a regular file, not a socket: path=" + written), e.getMessage());
        assertEquals("precious", Files.readString(file), "the file is untouched");
    }

    /**
     * libzmq 4.3.4 unlinks the file {@code @NAME} in the working directory before it binds the
     * abstract name {@code ipc://@NAME}. Until 2026-11-27 an abstract name was not checked, and a
     * regular file of that name there was deleted; now refused, the abstract name bound once it is gone.
     */
    @Test
    void shouldRefuseAnAbstractBindWhoseNameIsAFileInTheWorkingDirectory() throws Exception {
        String name = "@zmqzstd-guard-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path file = Files.writeString(Path.of(name), "precious");
        try {
            ZmqSocket pull = socket(SocketType.PULL);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.bind("ipc://" + name));
            assertTrue(e.getMessage().contains("ipc path is taken by a regular file, not a socket: path=" + file.toAbsolutePath()
                    + ", endpoint=ipc://" + name + " (libzmq unlinks what is there to bind, at an abstract name's the file of"
                    + " that name in the working directory;"), e.getMessage());
            assertEquals("precious", Files.readString(file), "the file is untouched");
            Files.delete(file);
            bindAndReceive("ipc://" + name);
            assertTrue(Files.notExists(file, LinkOption.NOFOLLOW_LINKS), "an abstract name makes no file");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * A relative path fits a socket address where its absolute form would not (over 107 bytes), as
     * libzmq binds it as written. Until 2026-11-27 the check's connect used the absolute form, failed
     * for its length, and read that as somebody listening: a socket file left there was never taken over.
     */
    @Test
    void shouldTakeOverALeftoverSocketFileAtARelativePathWhoseAbsoluteFormIsTooLong() throws Exception {
        Path under = Files.createDirectories(Path.of("target")); // Maven's working directory: the module's
        Path near = Files.createTempDirectory(under, "ipc");
        Path relative = near.resolve("r".repeat(100 - near.toString().length() - 1));
        assumeTrue(relative.toAbsolutePath().toString().length() > 107, () -> "working directory too short: " + relative);
        try (ServerSocketChannel previous = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            previous.bind(UnixDomainSocketAddress.of(relative)); // its close leaves the file, as a process that ended
        }
        bindAndReceive("ipc://" + relative).close();
        Files.deleteIfExists(relative);
        Files.delete(near);
    }

    /** What libzmq's unlink is for: the socket file a closed listener left behind is taken over. */
    @Test
    void shouldTakeOverASocketFileNobodyListensOn() {
        Path path = dir.resolve("left-behind");
        try (ZmqContext previous = new ZmqContext()) {
            previous.socket(SocketType.PULL).bind("ipc://" + path); // its close leaves the file
        }
        assertTrue(Files.exists(path, LinkOption.NOFOLLOW_LINKS));
        bindAndReceive("ipc://" + path);
    }

    /** A new PULL bound to {@code endpoint}, after a message sent there has reached it. */
    private ZmqSocket bindAndReceive(String endpoint) {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.bind(endpoint);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("to " + endpoint), 0));
        assertEquals("to " + endpoint, pull.receiveString(0));
        return pull;
    }

    /**
     * A socket file nobody listens on that libzmq cannot remove (here its directory made immutable;
     * another user's in a sticky directory such as /tmp is CliProcessIT's, run as nobody): libzmq
     * ignores the failed unlink, and until 2026-11-27 the bind said only "Address already in use",
     * as if somebody listened there. Now it names the file and why, on a monitored socket too (whose
     * errno libzmq overwrites while it raises BIND_FAILED), and the socket binds there once the file can be removed.
     */
    @Test
    void shouldNameALeftoverSocketFileThatCannotBeRemoved() throws Exception {
        Path locked = Files.createDirectory(dir.resolve("locked"));
        Path path = locked.resolve("stale.sock");
        try (ZmqContext previous = new ZmqContext()) {
            previous.socket(SocketType.PULL).bind("ipc://" + path); // its close leaves the file
        }
        assumeTrue(chattr("+i", locked), "chattr +i is not possible here (no CAP_LINUX_IMMUTABLE, or a file system without it)");
        String endpoint = "ipc://" + path;
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket monitored = socket(SocketType.PULL);
        try (SocketMonitor monitor = monitored.monitor(EnumSet.of(MonitorEvent.Type.BIND_FAILED))) {
            for (ZmqSocket s : List.of(pull, monitored)) {
                ZmqException e = assertThrows(ZmqException.class, () -> s.bind(endpoint));
                assertEquals(LibZmq.EADDRINUSE, e.errno(), e::getMessage);
                assertTrue(e.getMessage().endsWith("(" + path + " is a socket file nobody listens on (left by a process that"
                        + " ended), which libzmq could not remove to bind there: its directory " + locked + " cannot be changed:"
                        + " Operation not permitted; have it removed, or give another path)"), e.getMessage());
            }
        } finally {
            assertTrue(chattr("-i", locked), "could not make " + locked + " mutable again");
        }
        pull.bind(endpoint);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("once removable"), 0));
        assertEquals("once removable", pull.receiveString(0));
    }

    /** Runs {@code chattr FLAG directory}; true when it succeeded. */
    private static boolean chattr(String flag, Path directory) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("chattr", flag, directory.toString()).redirectErrorStream(true).start();
            p.getInputStream().transferTo(OutputStream.nullOutputStream());
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false; // no chattr
        }
    }

    /** libzmq makes the wildcard's directory under $TMPDIR, $TEMPDIR or $TMP, else under the working directory. */
    @Test
    void shouldBindTheWildcardUnderTheWorkingDirectoryWhenNoTemporaryDirectoryIsSet() {
        boolean temporarySet = Stream.of("TMPDIR", "TEMPDIR", "TMP").map(System::getenv)
                .anyMatch(v -> v != null && Files.isDirectory(Path.of(v)));
        ZmqSocket pull = socket(SocketType.PULL);
        pull.bind("ipc://*");
        Path bound = Path.of(pull.lastEndpoint().substring("ipc://".length()));
        assertEquals(!temporarySet, !bound.isAbsolute(), bound::toString);
        assertTrue(Files.exists(bound, LinkOption.NOFOLLOW_LINKS), bound::toString);
    }

    /**
     * README "Sockets and endpoints" and "Endpoint errors": {@code ipc://*} binds under the first
     * of $TMPDIR, $TEMPDIR and $TMP that is a directory. In child JVMs, whose environment libzmq
     * reads: $TMPDIR naming nothing and $TEMPDIR a directory, then $TEMPDIR a regular file and $TMP
     * a directory.
     */
    @Test
    void shouldBindTheWildcardUnderTheFirstTemporaryDirectoryVariableThatIsADirectory() throws Exception {
        Path tempdir = Files.createDirectory(dir.resolve("tempdir"));
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path plain = Files.writeString(dir.resolve("plain"), "not a directory");
        String none = dir.resolve("nothing-here").toString();
        assertWildcardUnder(tempdir, Map.of("TMPDIR", none, "TEMPDIR", tempdir.toString(), "TMP", tmp.toString()));
        assertWildcardUnder(tmp, Map.of("TMPDIR", none, "TEMPDIR", plain.toString(), "TMP", tmp.toString()));
    }

    private static void assertWildcardUnder(Path expected, Map<String, String> environment) throws Exception {
        String out = ForkedJvm.run(environment, WildcardBind.class, List.of());
        Matcher bound = Pattern.compile("bound=ipc://(\\S+)").matcher(out);
        assertTrue(bound.find(), out);
        Path file = Path.of(bound.group(1));
        assertEquals(expected, file.getParent().getParent(), environment + ": " + out);
        assertTrue(file.getParent().getFileName().toString().matches("tmp[A-Za-z0-9]{6}"), file::toString);
        assertEquals("socket", file.getFileName().toString());
        assertTrue(out.contains("received=through the wildcard"), out);
    }

    /** The child of {@link #shouldBindTheWildcardUnderTheFirstTemporaryDirectoryVariableThatIsADirectory}. */
    static final class WildcardBind {
        public static void main(String[] args) {
            try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = timed(ctx.socket(SocketType.PULL));
                    ZmqSocket push = timed(ctx.socket(SocketType.PUSH))) {
                pull.bind("ipc://*");
                System.out.println("bound=" + pull.lastEndpoint());
                push.connect(pull.lastEndpoint());
                push.send("through the wildcard", 0);
                System.out.println("received=" + pull.receiveString(0));
            }
        }
    }

    /**
     * When a listener ends (unbind, close), libzmq 4.3.4 leaves the socket file of an explicit
     * ipc path where it is, and removes an {@code ipc://*} bind's file and the directory it made
     * for it. The binding removes nothing itself: by then the file at an explicit path may be
     * another process's, and a check of it and an unlink cannot be made one step (README, "ipc
     * binds"). The file left behind is taken over by the next bind of the path.
     */
    @Test
    void shouldLeaveAnExplicitPathsSocketFileAndRemoveTheWildcardsWhenTheListenerEnds() throws Exception {
        for (boolean unbind : new boolean[] {true, false}) {
            Path path = dir.resolve(unbind ? "unbound" : "closed");
            String endpoint = "ipc://" + path;
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind(endpoint);
            endListener(pull, endpoint, unbind);
            Endpoints.await("the listener on " + path + " to end", () -> !listening(path));
            int mode = (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            assertEquals(0140000, mode & 0170000, "the socket file stays after " + (unbind ? "unbind" : "close"));
            pull.close();

            ZmqSocket wildcard = ctx.socket(SocketType.PULL);
            wildcard.bind("ipc://*");
            Path file = Path.of(wildcard.lastEndpoint().substring("ipc://".length()));
            endListener(wildcard, wildcard.lastEndpoint(), unbind);
            Endpoints.await("libzmq to remove " + file + " and its directory",
                    () -> !Files.exists(file.getParent(), LinkOption.NOFOLLOW_LINKS));
            assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS), file::toString);
            wildcard.close();
        }
        bindAndReceive("ipc://" + dir.resolve("closed")); // a file left behind is taken over
    }

    private static void endListener(ZmqSocket s, String endpoint, boolean unbind) {
        if (unbind) {
            s.unbind(endpoint);
        } else {
            s.close();
        }
    }

    /** int mkfifo(const char *path, mode_t mode); Java has no call that makes a FIFO. */
    private static final MethodHandle MKFIFO = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("mkfifo").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    /** A connect to {@code path} is taken: a listener is there (connect is refused once it ended). */
    private static boolean listening(Path path) {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.io.IOError;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refuses an {@code ipc://PATH} bind that would destroy something. libzmq 4.3.4 unlinks whatever
 * is at PATH before it binds there (ipc_listener.cpp, meant for the socket file of a process that
 * ended), without looking: a bind deleted a regular file at PATH, and took the path from a socket
 * still listening on it, which then received nothing more, where a tcp bind fails with "address
 * in use". {@code ipc://*} (a fresh path) and Linux's abstract {@code ipc://@NAME} (whose taken
 * names the kernel refuses) are libzmq's; so is a PATH with nothing at it. A check, then the
 * bind: something put at PATH in between is not seen.
 */
final class IpcBindGuard {

    private static final String IPC = "ipc://";
    // st_mode's file type bits (sys/stat.h; the same on Linux and macOS)
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFLNK = 0120000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFIFO = 0010000;

    /**
     * Paths whose listener a socket of this process let go (unbind, disconnect or close): libzmq
     * closes it on its I/O thread shortly after the call returns, so a bind at once may still find
     * it listening. Such a path is taken over, as libzmq always did, instead of refused (an unbind
     * and a bind of the same path in a row failed with EADDRINUSE about every other time).
     */
    private static final Set<Path> LET_GO = ConcurrentHashMap.newKeySet();

    private IpcBindGuard() {
    }

    /**
     * The file an ipc endpoint binds, absolute: the key of {@link #LET_GO}.
     *
     * @return null for another transport, {@code ipc://*}, an abstract {@code ipc://@NAME}, or a
     *     name that is no path here
     */
    static Path path(String endpoint) {
        if (!endpoint.startsWith(IPC)) {
            return null;
        }
        String name = endpoint.substring(IPC.length());
        if (name.isEmpty() || name.equals("*") || name.startsWith("@")) {
            return null;
        }
        try {
            return Path.of(name).toAbsolutePath().normalize(); // a relative one from the working directory, as libzmq takes it
        } catch (RuntimeException | IOError e) {
            return null; // InvalidPathException (a NUL, which the bind refuses next), or no working directory to tell
        }
    }

    /**
     * @throws IllegalArgumentException when something other than a socket is at the path
     * @throws ZmqException EADDRINUSE when a socket listens on the path, unless this process let it go
     */
    static void check(String endpoint) {
        Path path = path(endpoint);
        if (path == null) {
            return;
        }
        int type;
        try {
            type = (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // nothing there, or nothing this JDK can tell: libzmq's bind says what it finds
            return;
        }
        if (type != S_IFSOCK) {
            throw new IllegalArgumentException("ipc path is taken by " + kind(type) + ", not a socket: path=" + path
                    + ", endpoint=" + endpoint + " (libzmq unlinks what is there to bind; remove it yourself or bind another path)");
        }
        if (listenedOn(path) && !LET_GO.contains(path)) {
            throw new ZmqException("zmq_bind(" + endpoint + "): a socket listens on " + path
                    + " (libzmq would take the path from it)", LibZmq.EADDRINUSE);
        }
    }

    /** A socket of this process listens on {@code path} now. */
    static void bound(Path path) {
        LET_GO.remove(path);
    }

    /** A socket of this process let its listener on {@code path} go. */
    static void letGo(Path path) {
        LET_GO.add(path);
    }

    /**
     * Whether a connect to the socket file at {@code path} is taken: refused (ECONNREFUSED) when
     * nobody listens, the file left behind by a socket closed without unlinking it. Not blocking,
     * so a listener whose backlog is full (a pending connect) counts as listening and does not
     * hold the bind up. The listener sees a connection that closes at once.
     */
    private static boolean listenedOn(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.configureBlocking(false);
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException | RuntimeException nobody) {
            return false;
        }
    }

    private static String kind(int type) {
        return switch (type) {
            case S_IFREG -> "a regular file";
            case S_IFDIR -> "a directory";
            case S_IFLNK -> "a symbolic link";
            case S_IFIFO -> "a FIFO";
            default -> "a device or other special file";
        };
    }
}

package io.zmqzstd.cli;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What an {@code ipc://PATH} bind would destroy. libzmq (4.3.4) unlinks whatever is at PATH before
 * it binds, to take over the socket file of a process that died; it does not look first. So a bind
 * deleted a regular file, a symbolic link or a FIFO and put its socket there, and took the path
 * from a process still listening on it, without a word to either (the other one then received
 * nothing more), where a tcp bind fails with "Address already in use". A socket file libzmq
 * could not remove is the transport's to explain ({@code ZmqSocket.bind}'s message names it).
 */
final class IpcBindCheck {

    private static final String IPC = "ipc://";
    /** {@code S_IFMT} and {@code S_IFSOCK} of {@code st_mode} (the same on Linux and macOS). */
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private IpcBindCheck() {
    }

    /**
     * Why {@code endpoint} must not be bound, or null: not ipc, nothing at its path, or a socket file
     * nobody listens on (left behind by a process that ended: libzmq's unlink is meant for it). The
     * wildcard {@code ipc://*} (a fresh path) and Linux's abstract names ({@code ipc://@name}, where
     * the kernel itself says "address in use") are libzmq's.
     */
    static String problem(String endpoint) {
        Path path = pathOf(endpoint);
        BasicFileAttributes attributes = path == null ? null : attributes(path);
        if (attributes == null) {
            return null; // nothing there, or nothing we can tell: libzmq's bind says what it finds
        }
        if (!isSocket(path, attributes)) {
            return path + " is " + kind(attributes) + ", not a socket (libzmq would delete it to bind there;"
                    + " give another path, or remove it yourself)";
        }
        if (!listening(path)) {
            return null; // the file of a process that ended, or a path libzmq will refuse itself
        }
        return "Address already in use (a process listens on " + path + "; libzmq would take the path from it without a word)";
    }

    /**
     * The file an ipc endpoint names (relative to the working directory, as libzmq takes it), or null:
     * not ipc, the wildcard {@code ipc://*}, an abstract name {@code ipc://@name}, or not a path.
     */
    private static Path pathOf(String endpoint) {
        if (!endpoint.startsWith(IPC)) {
            return null;
        }
        String name = endpoint.substring(IPC.length());
        if (name.equals("*") || name.startsWith("@")) {
            return null;
        }
        try {
            return Path.of(name);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** What is at {@code path} itself (a link not followed), or null: nothing, or nothing we can tell. */
    private static BasicFileAttributes attributes(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Whether a process accepts connections on the socket file {@code path}. */
    private static boolean listening(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException | RuntimeException refused) {
            return false; // nobody listens (ECONNREFUSED)
        }
    }

    private static boolean isSocket(Path path, BasicFileAttributes attributes) {
        if (!attributes.isOther()) {
            return false; // a regular file, a directory or a symbolic link
        }
        try {
            Object mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return mode instanceof Integer m && (m & S_IFMT) == S_IFSOCK;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return true; // no unix view: "other" is the closest we can tell
        }
    }

    private static String kind(BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link";
        }
        if (attributes.isDirectory()) {
            return "a directory";
        }
        return attributes.isRegularFile() ? "a regular file" : "a file (a FIFO or a device)";
    }
}

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
 * nothing more), where a tcp bind fails with "Address already in use".
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
        if (!endpoint.startsWith(IPC)) {
            return null;
        }
        String name = endpoint.substring(IPC.length());
        if (name.equals("*") || name.startsWith("@")) {
            return null;
        }
        Path path;
        BasicFileAttributes attributes;
        try {
            path = Path.of(name); // relative to the working directory, as libzmq takes it
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (InvalidPathException | IOException | UnsupportedOperationException e) {
            return null; // nothing there, or nothing we can tell: libzmq's bind says what it finds
        }
        if (!isSocket(path, attributes)) {
            return name + " is " + kind(attributes) + ", not a socket (libzmq would delete it to bind there;"
                    + " give another path, or remove it yourself)";
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException | RuntimeException refused) {
            return null; // nobody listens (ECONNREFUSED): the file of a process that ended, or a path libzmq will refuse itself
        }
        return "Address already in use (a process listens on " + name + "; libzmq would take the path from it without a word)";
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

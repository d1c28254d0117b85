package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.IpcPaths;
import io.zmqzstd.transport.internal.IpcPaths.SocketFile;
import io.zmqzstd.transport.internal.LibZmq;

import com.sun.security.auth.module.UnixSystem;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refuses an {@code ipc://PATH} bind that would destroy something. libzmq 4.3.4 unlinks whatever
 * is at PATH before it binds there (ipc_listener.cpp, meant for the socket file of a process that
 * ended), without looking: a bind deleted a regular file at PATH, and took the path from a socket
 * still listening on it, which then received nothing more, where a tcp bind fails with "address
 * in use". PATH is the file libzmq unlinks ({@link #unlinked}: as written, a {@code ..} after a
 * symbolic link taken from the link's target). {@code ipc://*} (a fresh path) is libzmq's; Linux's
 * abstract {@code ipc://@NAME} (whose taken names the kernel refuses) is too, but for the file
 * {@code @NAME} in the working directory, which libzmq 4.3.4 unlinks first all the same and which
 * is checked as any PATH. A PATH with nothing at it is libzmq's too. A check, then the bind:
 * something put at PATH in between is not seen. A socket file this process may not connect
 * to (another user's, mode 0755 as libzmq leaves them) is refused too: connect fails with EACCES
 * whether somebody listens or not, and libzmq would take a listener's path wherever it may unlink.
 * libzmq ignores a failed unlink, so a socket file nobody listens on that this process may not
 * remove fails the bind with EADDRINUSE alone; {@link #unremovable} says which file and why.
 */
final class IpcBindGuard {

    // st_mode's file type bits (sys/stat.h; the same on Linux and macOS)
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFLNK = 0120000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFIFO = 0010000;
    /** No file type: nothing at the path, or nothing this JDK can tell. */
    private static final int NOTHING = 0;
    /** The sticky bit of a directory's mode: only a file's owner, the directory's, or root may remove the file. */
    private static final int S_ISVTX = 0001000;

    /**
     * Paths whose listener a socket of this process let go (unbind, disconnect or close), each
     * with the socket file that listener made: libzmq closes it on its I/O thread shortly after
     * the call returns, so a bind at once may still find it listening. While that file is at the
     * path, the path is taken over, as libzmq always did, instead of refused (an unbind and a bind
     * of the same path in a row failed with EADDRINUSE about every other time). Another file there
     * is another listener's (another process bound the path since), and is checked as any other
     * (until 2026-11-27 the path alone was kept, and a bind took such a listener's path).
     */
    private static final Map<Path, SocketFile> LET_GO = new ConcurrentHashMap<>();

    private IpcBindGuard() {
    }

    private static final String IPC = "ipc://";

    /**
     * Descriptors {@link #listenedOn} needs free: its probe socket, and at its first probe the ones
     * the JDK opens as it makes its first socket channel (measured with JDK 25: that channel opens
     * with 4 free, not with 3). Without them the probe failed as if somebody listened, or, the
     * first, with {@link ExceptionInInitializerError} out of the JDK's initialisers, after which
     * the JDK's socket channels are unusable for the life of the process (until 2026-11-27).
     */
    private static int probeDescriptors() {
        return probed ? 1 : 4;
    }

    /** A probe has made a socket channel: the JDK has opened what it keeps for them. */
    private static volatile boolean probed;

    /** The file an ipc endpoint binds, the key of {@link #LET_GO}: {@link IpcPaths#file}, normalised. */
    static Path path(String endpoint) {
        return IpcPaths.file(endpoint);
    }

    /**
     * The file libzmq 4.3.4 unlinks before it binds {@code endpoint}, as written: relative to the
     * working directory, where libzmq takes it from, and not normalised, as the kernel takes a
     * {@code ..} after a symbolic link from the link's target, not from where dropping it from the
     * text leads ({@link #path}, the key of {@link #LET_GO}, normalises). For an abstract
     * {@code ipc://@NAME} the file {@code @NAME} in the working directory, which libzmq unlinks
     * all the same before it binds the abstract name.
     *
     * @return that file, or null for another transport, {@code ipc://*} or a name that is no path
     */
    static Path unlinked(String endpoint) {
        if (!endpoint.startsWith(IPC)) {
            return null;
        }
        String name = endpoint.substring(IPC.length());
        if (name.isEmpty() || name.equals("*")) {
            return null;
        }
        try {
            return Path.of(name);
        } catch (RuntimeException e) {
            return null; // InvalidPathException (a NUL character): libzmq's call refuses it
        }
    }

    /**
     * {@code file} as messages name it: absolute, without its {@code .} elements. Its {@code ..}
     * elements stay, since the kernel takes one after a symbolic link from the link's target.
     */
    private static Path shown(Path file) {
        Path absolute = file.toAbsolutePath();
        Path shown = absolute.getRoot();
        for (Path name : absolute) {
            if (!name.toString().equals(".")) {
                shown = shown.resolve(name);
            }
        }
        return shown;
    }

    /**
     * @throws IllegalArgumentException when something other than a socket is at the path
     * @throws ZmqException EADDRINUSE when a socket listens on the path, or when this process may not
     *     connect to it (so whether somebody listens cannot be told), unless this process let it go
     */
    static void check(String endpoint) {
        Path file = unlinked(endpoint);
        int type = file == null ? NOTHING : type(file);
        if (type == NOTHING) {
            return; // nothing there, or nothing this JDK can tell: libzmq's bind says what it finds
        }
        Path shown = shown(file);
        if (type != S_IFSOCK) {
            throw new IllegalArgumentException("ipc path is taken by " + kind(type) + ", not a socket: path=" + shown
                    + ", endpoint=" + endpoint + " (libzmq unlinks what is there to bind"
                    + (endpoint.startsWith(IPC + "@") ? ", at an abstract name's the file of that name in the working directory" : "")
                    + "; remove it yourself or bind another path)");
        }
        Path key = path(endpoint);
        SocketFile letGo = key == null ? null : LET_GO.get(key);
        if (letGo != null && letGo.equals(SocketFile.at(file))) {
            return;
        }
        if (!Files.isWritable(file)) {
            // connect needs write permission on the socket file: refused (EACCES) whether somebody
            // listens or not, as for another user's file of the usual mode 0755
            String why = removalProblem(shown);
            throw new ZmqException("zmq_bind(" + endpoint + ")", LibZmq.EADDRINUSE, shown + " is a socket file this process"
                    + " may not connect to" + (why == null ? " (owner=" + owner(file) + ")" : "")
                    + ", so whether somebody listens on it cannot be told, and " + (why == null
                            ? "libzmq would take the path from a listener without a word"
                            : "libzmq could not remove it to bind there: " + why)
                    + "; have it removed if it is left over, or bind another path");
        }
        int needed = probeDescriptors();
        Descriptors.require("zmq_bind(" + endpoint + ")", needed, "whether somebody listens on " + shown
                + " is told by connecting to it, which needs " + needed + (needed == 1 ? ""
                        : " (the probe, and what the JDK opens as it makes its first socket channel)"));
        if (listenedOn(file)) {
            throw new ZmqException("zmq_bind(" + endpoint + ")", LibZmq.EADDRINUSE, "a socket listens on " + shown
                    + ", from which libzmq would take the path without a word; bind another path, or end that listener first");
        }
    }

    /**
     * Why libzmq's bind of {@code endpoint} failed with EADDRINUSE, where its own text hides it: the
     * path is a socket file nobody listens on (left by a process that ended), which libzmq could not
     * unlink first (it ignores that failure). Says why where it can tell: the directory cannot be
     * written (no permission, immutable, a read-only file system), or it is sticky (as {@code /tmp}
     * is) and the file another user's. Reads, removes nothing.
     *
     * @return the explanation, or null when {@code endpoint} is no ipc path or nothing at its path fits it
     */
    static String unremovable(String endpoint) {
        Path file = unlinked(endpoint);
        if (file == null || type(file) != S_IFSOCK || !Files.isWritable(file) || !Descriptors.available(probeDescriptors())
                || listenedOn(file)) {
            return null; // not a socket file this process can tell nobody listens on
        }
        Path shown = shown(file);
        String why = removalProblem(shown);
        return shown + " is a socket file nobody listens on (left by a process that ended), which libzmq could not remove"
                + " to bind there" + (why == null ? "" : ": " + why) + "; have it removed, or give another path";
    }

    /** The file type bits of what is at {@code path} itself (a link not followed), or {@link #NOTHING}. */
    private static int type(Path path) {
        try {
            return (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return NOTHING;
        }
    }

    /** The name of the user who owns {@code path}, or "unknown". */
    private static String owner(Path path) {
        try {
            return Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** What keeps this process from unlinking {@code path}, or null when nothing it can tell. */
    private static String removalProblem(Path path) {
        Path dir = path.getParent();
        if (dir == null) {
            return null;
        }
        try {
            dir.getFileSystem().provider().checkAccess(dir, AccessMode.WRITE, AccessMode.EXECUTE);
        } catch (AccessDeniedException e) {
            return "no write permission on its directory " + dir;
        } catch (FileSystemException e) {
            return "its directory " + dir + " cannot be changed: " + e.getReason(); // EPERM (immutable), EROFS
        } catch (IOException e) {
            return null;
        }
        try {
            int dirMode = (Integer) Files.getAttribute(dir, "unix:mode");
            int fileUid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int dirUid = (Integer) Files.getAttribute(dir, "unix:uid");
            long self = new UnixSystem().getUid();
            if ((dirMode & S_ISVTX) != 0 && self != 0 && self != fileUid && self != dirUid) {
                return "its directory " + dir + " is sticky (as /tmp is), and the file belongs to another user: owner="
                        + owner(path);
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            return null; // no unix attributes, or no uid to compare: libzmq's text stands alone
        }
        return null;
    }

    /**
     * A socket of this process listens on the ipc file of {@code endpoint} now.
     *
     * @return the socket file it made there, for {@link #letGo}; null when it cannot be told, or
     *     {@code endpoint} has no file ({@link #path})
     */
    static SocketFile bound(String endpoint) {
        Path path = path(endpoint);
        if (path == null) {
            return null;
        }
        LET_GO.remove(path);
        return SocketFile.at(unlinked(endpoint));
    }

    /**
     * A socket of this process let its listener on {@code path} go.
     *
     * @param file what {@link #bound} returned for that listener; null lets nothing go
     */
    static void letGo(Path path, SocketFile file) {
        if (file != null) {
            LET_GO.put(path, file);
        }
    }

    /**
     * Whether somebody listens on the socket file at {@code path} (as written, so that a relative
     * one fits a socket address wherever libzmq's does), which this process may connect to: only
     * a connect refused (ECONNREFUSED: the file left behind by a socket closed without unlinking
     * it) or a file gone meanwhile says nobody. Not blocking, so a listener whose
     * backlog is full counts as listening without holding the bind up: its connect fails at once
     * with EAGAIN (until 2026-11-27 read as nobody, so after some hundred binds refused in a row,
     * each probe a connection the listener had yet to accept, the next bind took the path from
     * it). The listener sees a connection that closes at once.
     */
    private static boolean listenedOn(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probed = true;
            probe.configureBlocking(false);
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (ConnectException refused) {
            return false;
        } catch (IOException notRefused) {
            return type(path) == S_IFSOCK; // EAGAIN: a full backlog; ENOENT: gone meanwhile
        } catch (RuntimeException e) {
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

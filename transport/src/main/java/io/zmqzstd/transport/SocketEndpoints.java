package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.IpcPaths;
import io.zmqzstd.transport.internal.LibZmq;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The account one {@link ZmqSocket} keeps of its binds and connects, and the checks made with it
 * around zmq_bind, zmq_connect, zmq_unbind and zmq_disconnect. The socket owns one and calls it
 * only inside a call on the socket (between {@link ZmqSocket#enter()} and
 * {@link ZmqSocket#exit()}), but for {@link #letGoAll()}, which its close calls once no call can
 * begin: so the lists need no lock. Each {@code op} is the libzmq function's name
 * ({@link #BIND}, {@link #CONNECT}, {@link #UNBIND}, {@link #DISCONNECT}).
 */
final class SocketEndpoints {

    static final String BIND = "zmq_bind";
    static final String CONNECT = "zmq_connect";
    static final String UNBIND = "zmq_unbind";
    static final String DISCONNECT = "zmq_disconnect";

    private final ZmqSocket socket;
    /**
     * The binds that last, each as given, as ZMQ_LAST_ENDPOINT reported it and, for ipc, its file
     * (see {@link #checkDirection} and {@link #succeeded}).
     */
    private final List<BoundEndpoint> bound = new ArrayList<>(1);
    /** The connects that last, as given (see {@link #checkDirection}). */
    private final List<String> connected = new ArrayList<>(1);
    /** An endpoint of another transport than inproc was bound or connected (sticky). */
    private boolean otherTransport;

    SocketEndpoints(ZmqSocket socket) {
        this.socket = socket;
    }

    /**
     * A bind that lasts: the endpoint as given to {@link ZmqSocket#bind}, as ZMQ_LAST_ENDPOINT
     * reported it (libzmq's key for it, see {@link EndpointMatch}), and for ipc the file it listens
     * on and the socket file libzmq made there ({@link IpcBindGuard#bound}; else both null).
     */
    private record BoundEndpoint(String given, String reported, Path ipcFile, IpcPaths.SocketFile socketFile) {
    }

    /**
     * The checks of the endpoint's text, before the call is entered ({@link EndpointCheck}).
     *
     * @throws IllegalArgumentException naming the endpoint and what in it libzmq would misread
     */
    static void checkText(String op, String endpoint) {
        if (op.equals(CONNECT)) {
            EndpointCheck.checkConnect(endpoint);
        } else {
            EndpointCheck.check(endpoint);
        }
    }

    static boolean ends(String op) {
        return op.equals(UNBIND) || op.equals(DISCONNECT);
    }

    /**
     * Inside the call, before libzmq is asked: for an unbind or a disconnect the keys of this
     * socket's endpoints that libzmq would end ({@link EndpointMatch#reached}), the call refused
     * where it would end the other direction's ({@link #checkDirection}); empty for a bind or a
     * connect.
     *
     * @throws IllegalArgumentException for an unbind of a connect or a disconnect of a bind
     */
    List<String> beforeCall(String op, String endpoint) {
        if (!ends(op)) {
            return List.of();
        }
        List<String> reached = reached(endpoint);
        checkDirection(op, endpoint, reached);
        return reached;
    }

    /**
     * The keys of this socket's binds and connects that zmq_unbind or zmq_disconnect of
     * {@code endpoint} would end ({@link EndpointMatch#reached}), inside the call.
     */
    private List<String> reached(String endpoint) {
        List<String> keys = keys();
        boolean v6 = endpoint.startsWith("tcp://") && socket.ipv6Entered(); // libzmq resolves a tcp host by the socket's family
        return EndpointMatch.reached(endpoint, v6, keys);
    }

    /**
     * Refuses a disconnect that would end a bind of this socket and an unbind that would end a
     * connect. libzmq 4.3.4 runs both through socket_base_t::term_endpoint, which ends whatever the
     * socket has at that endpoint ("we don't know whether a socket is connected or bound, try with
     * both"), so either call did the other's work without a word. {@code reached} are the endpoints
     * libzmq would end ({@link EndpointMatch}): another spelling of a tcp endpoint reaches it where
     * libzmq resolves it to it. A disconnect of the text a bind was given (a wildcard, which libzmq
     * does not resolve) is refused too. Where a bind and a connect are both reached, libzmq decides.
     */
    private void checkDirection(String op, String endpoint, List<String> reached) {
        String bind = bound.stream()
                .filter(b -> reached.contains(b.reported()) || b.given().equals(endpoint))
                .map(BoundEndpoint::reported).findFirst().orElse(null);
        String connect = connected.stream().filter(reached::contains).findFirst().orElse(null);
        if (op.equals(DISCONNECT) && bind != null && connect == null) {
            throw new IllegalArgumentException("disconnect(" + endpoint + "): this socket bound that endpoint"
                    + as(endpoint, bind) + ", it did not connect to it; call unbind(" + bind + ") to stop listening there");
        }
        if (op.equals(UNBIND) && connect != null && bind == null) {
            throw new IllegalArgumentException("unbind(" + endpoint + "): this socket connected to that endpoint"
                    + as(endpoint, connect) + ", it did not bind it; call disconnect(" + connect + ") to end the connection");
        }
    }

    /** ", as KEY" when libzmq knows {@code endpoint} by another text, else nothing. */
    private static String as(String endpoint, String key) {
        return key.equals(endpoint) ? "" : " (libzmq knows it as " + key + ")";
    }

    /**
     * What the exception of a call libzmq refused adds to its errno, or null, where libzmq's text
     * for the errno does not say what was wrong with the endpoint: for an unbind or a disconnect
     * that found nothing (ENOENT, "No such file or directory"), the key to use where the text is a
     * bind's as given but not libzmq's key for it (a wildcard, {@code tcp://*:PORT}, an interface
     * name), else which endpoints libzmq knows this socket's by; for a bind or a connect, an
     * inproc endpoint without a name (EINVAL), a tcp bind's host that is no address or interface
     * (ENODEV, "No such device"), an ipc path too long for a socket address, and the descriptor
     * limit when a bind's listening socket found none free (EMFILE, "Too many open files"), and
     * where the real reason of a monitored socket's failed bind stays unknown (EAGAIN); and for
     * a bind or connect of another transport than inproc in a context without I/O threads
     * (EMTHREAD, "No thread available").
     */
    String failureNote(String op, String endpoint, List<String> reached, int errno) {
        if (ends(op)) {
            String wildcard = bound.stream()
                    .filter(b -> b.given().equals(endpoint) && !reached.contains(b.reported()))
                    .map(b -> "this socket bound " + endpoint + " as " + b.reported()
                            + ", which is what libzmq knows it by: call unbind(" + b.reported() + ")")
                    .findFirst().orElse(null);
            return wildcard != null || errno != LibZmq.ENOENT ? wildcard : "this socket has no bind or connect libzmq knows as "
                    + endpoint + "; " + known();
        }
        if (errno == LibZmq.EAGAIN && op.equals(BIND)) {
            // zmq_bind fails with EAGAIN only on a monitored socket (see bindErrnoWithoutMonitor)
            return "libzmq 4.3.4 reports EAGAIN for any failed bind of a socket whose monitor takes BIND_FAILED, and the"
                    + " same bind without a monitor could not tell the real reason (it succeeded, or no socket could be"
                    + " made for it): the monitor's BIND_FAILED event holds the real errno";
        }
        if (errno == LibZmq.EMTHREAD && socket.context().ioThreads() == 0) {
            return "this context has no I/O thread, ioThreads(0), which serves inproc endpoints only: build it with"
                    + " ioThreads(1) or more";
        }
        if (errno == LibZmq.EINVAL && endpoint.equals("inproc://")) {
            return "an inproc endpoint needs a name after inproc://";
        }
        if (errno == LibZmq.ENODEV && op.equals(BIND) && endpoint.startsWith("tcp://")) {
            return "a tcp bind takes as host *, an IP address (IPv6 only with ipv6(true)) or a network interface's name,"
                    + " and never looks a host name up: this one is none of these";
        }
        if (errno == LibZmq.ENAMETOOLONG && endpoint.startsWith("ipc://")) {
            String path = endpoint.substring("ipc://".length());
            String limit = "an ipc path is at most " + MAX_IPC_PATH_BYTES + " bytes (a socket address's sun_path, its NUL"
                    + " included, holds " + (MAX_IPC_PATH_BYTES + 1) + "): ";
            if (path.equals("*")) {
                // The path libzmq made, not the "*" given: until 2026-11-29 the note said "this one is 1"
                String made = wildcardPath();
                return limit + "ipc://* binds at DIR/tmpXXXXXX/socket, DIR the first of $TMPDIR, $TEMPDIR and $TMP that is a"
                        + " directory, here " + made + ", which is " + made.getBytes(StandardCharsets.UTF_8).length
                        + " (set that variable to a shorter directory, or bind an explicit path)";
            }
            return limit + "this one is " + path.getBytes(StandardCharsets.UTF_8).length;
        }
        if (errno == LibZmq.EMFILE && op.equals(BIND)) {
            return Descriptors.outOf("the listening socket taking one");
        }
        return null;
    }

    /**
     * The path libzmq 4.3.4 makes for an {@code ipc://*} bind ({@code create_ipc_wildcard_address}),
     * with the X's mkdtemp replaces: {@code DIR/tmpXXXXXX/socket}, DIR the first of {@code $TMPDIR},
     * {@code $TEMPDIR} and {@code $TMP} that names a directory, a '/' added where it has none; with
     * none of them, relative to the working directory.
     */
    static String wildcardPath() {
        String dir = "";
        for (String variable : new String[] {"TMPDIR", "TEMPDIR", "TMP"}) {
            String value = System.getenv(variable);
            if (value != null && !value.isEmpty() && Files.isDirectory(Path.of(value))) {
                dir = value.endsWith("/") ? value : value + "/";
                break;
            }
        }
        return dir + "tmpXXXXXX/socket";
    }

    /** The longest ipc path: sizeof(sun_path) less its NUL, 108 on Linux and 104 on macOS. */
    private static final int MAX_IPC_PATH_BYTES = LibZmq.ERRNO_VALUES == LibZmq.Errno.LINUX ? 107 : 103;
    /** How many of its endpoints an ENOENT note names at most. */
    private static final int KNOWN_SHOWN = 5;

    /** The keys libzmq knows this socket's binds (as reported) and connects (as given) by. */
    private List<String> keys() {
        List<String> keys = new ArrayList<>(bound.size() + connected.size());
        bound.forEach(b -> keys.add(b.reported()));
        keys.addAll(connected);
        return keys;
    }

    /** This socket's binds and connects as libzmq knows them, for a message. */
    private String known() {
        List<String> keys = keys();
        if (keys.isEmpty()) {
            return "it has none";
        }
        String shown = String.join(", ", keys.subList(0, Math.min(KNOWN_SHOWN, keys.size())));
        return "it has " + shown + (keys.size() > KNOWN_SHOWN ? " and " + (keys.size() - KNOWN_SHOWN) + " more" : "");
    }

    /**
     * Why a bind of this monitored socket failed. With a monitor whose mask has
     * {@code BIND_FAILED} (but not {@code CLOSED}), libzmq 4.3.4 overwrites zmq_bind's errno with
     * EAGAIN while it sends that event, whatever the cause (address in use, no such interface, a
     * missing ipc directory); zmq_bind never fails with EAGAIN itself. The same bind on a socket
     * of this type without a monitor (and with this socket's IPv6 setting) fails with the real
     * errno; should it succeed, the address having become free meanwhile, libzmq's answer stands,
     * and so it does when no socket can be made for that bind (the context at its
     * {@code ZMQ_MAX_SOCKETS}, against which that socket counts, out of file descriptors, or shut
     * down): that failure is the probe's, not the bind's (until 2026-11-29 its EMFILE was thrown as
     * the bind's, blaming the process's file descriptors for an address in use). Inside the
     * socket's call.
     */
    int bindErrnoWithoutMonitor(String endpoint, int clobbered) {
        boolean v6 = socket.ipv6Entered();
        ZmqSocket probe;
        try {
            probe = socket.context().socket(socket.type());
        } catch (ZmqException | IllegalStateException noProbe) {
            return clobbered;
        }
        try (probe) {
            probe.lingerMs(0);
            probe.ipv6(v6);
            probe.bind(endpoint);
            return clobbered;
        } catch (ZmqException e) {
            return e.errno();
        }
    }

    /**
     * ZMQ_LAST_ENDPOINT after a bind of {@code given} (the real port of a wildcard, the address of
     * a host name), or {@code given} when it cannot be read (longer than
     * {@link ZmqSocket#MAX_STRING_OPTION_BYTES}): the bind has succeeded, and this only sharpens the check.
     */
    private String reportedEndpoint(String given) {
        try {
            return socket.lastEndpointEntered();
        } catch (ZmqException unreadable) {
            return given;
        }
    }

    /**
     * Keeps the account of this socket's binds and connects, inside the call that succeeded (a close
     * on another thread reads {@link #bound} once this call has exited): {@link #checkDirection}
     * reads it, and {@link IpcBindGuard} learns of the ipc files this socket listens on. A bind adds
     * its endpoint; an unbind or a disconnect ends what libzmq ended ({@code reached}): for inproc
     * the bind of that name if there is one, else the connects to it (libzmq tries them in that
     * order); for the rest every bind and connect libzmq knows by that key. A bind of the same ipc
     * file written another way is another endpoint to libzmq, and stays.
     */
    void succeeded(String op, String endpoint, List<String> reached) {
        switch (op) {
            case BIND -> {
                Path file = IpcBindGuard.path(endpoint);
                IpcPaths.SocketFile made = IpcBindGuard.bound(endpoint);
                bound.add(new BoundEndpoint(endpoint, reportedEndpoint(endpoint), file, made));
            }
            case CONNECT -> connected.add(endpoint);
            default -> {
                boolean endsBindOnly = endpoint.startsWith("inproc://") && bound.stream().anyMatch(b -> b.reported().equals(endpoint));
                bound.removeIf(b -> {
                    boolean ended = reached.contains(b.reported());
                    if (ended) {
                        letGo(b);
                    }
                    return ended;
                });
                if (!endsBindOnly) {
                    connected.removeIf(reached::contains);
                }
            }
        }
    }

    /**
     * Notes the transport of an endpoint just bound or connected.
     *
     * @return true while every endpoint bound or connected so far is inproc (an unbind or a
     *     disconnect does not bring it back once another transport was used)
     */
    boolean noteTransport(String endpoint) {
        if (!endpoint.startsWith("inproc://")) {
            otherTransport = true;
        }
        return !otherTransport;
    }

    /** At close: tells {@link IpcBindGuard} that this process let go of every bind's ipc file. */
    void letGoAll() {
        bound.forEach(SocketEndpoints::letGo);
    }

    /** Tells {@link IpcBindGuard} that this process let go of a bind's ipc file, if it has one. */
    private static void letGo(BoundEndpoint b) {
        if (b.ipcFile() != null) {
            IpcBindGuard.letGo(b.ipcFile(), b.socketFile());
        }
    }
}

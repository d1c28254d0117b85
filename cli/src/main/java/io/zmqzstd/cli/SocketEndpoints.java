package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.IpcPaths;
import io.zmqzstd.transport.internal.IpcPaths.SocketFile;
import io.zmqzstd.transport.internal.LibZmq;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The endpoints of one socket, checked before anything starts and then bound and connected: what
 * send's and recv's --bind/--connect do, and each side of a proxy (--frontend-bind, ...). Every
 * message names the option the endpoint came with.
 *
 * <p>libzmq 4.3.4 leaves the socket file of an {@code ipc://PATH} bind behind when the socket
 * closes; {@link #close()} removes the files this socket's binds made, after the context is
 * closed (and from a shutdown hook, for a JVM that exits with the main thread still blocked).
 * Only the very file the bind made: one another process has bound at the path since is left.
 */
final class SocketEndpoints implements AutoCloseable {

    /** errno values from zmq_bind/zmq_connect that mean the endpoint text is wrong, not the world. */

    private final CommandLine commandLine;
    private final String what;
    private final String bindOption;
    private final String connectOption;
    private final List<String> binds;
    private final List<String> connects;
    /** Set by {@link #check()}: an endpoint needs {@code ZMQ_IPV6} (libzmq's default is IPv4 only). */
    private boolean ipv6;
    /** The socket files this socket's ipc binds made, for {@link #close()}; guarded by {@code this}. */
    private final List<BoundFile> socketFiles = new ArrayList<>();
    /** Removes {@link #socketFiles} when the JVM exits before {@link #close()}; guarded by {@code this}. */
    private Thread exitHook;
    /** A test's stand-in for the exit hook running between a bind and its note; null otherwise. */
    Runnable afterBind;

    /**
     * A socket file a bind made, at its path as libzmq took it; {@code made} null while the bind
     * runs, {@code before} what was at the path before it (null: nothing, or no socket).
     */
    private record BoundFile(Path path, SocketFile made, SocketFile before) {

        /** Whether the file at the path now is the one the bind made, also while the bind is still noting it. */
        boolean madeByTheBind() {
            SocketFile now = SocketFile.at(path);
            return made != null ? made.equals(now) : now != null && !now.equals(before);
        }
    }

    /**
     * @param what          the socket in the "missing" message, e.g. {@code endpoint} or {@code frontend endpoint}
     * @param bindOption    the option the binds came with, e.g. {@code --bind}
     * @param connectOption the option the connects came with, e.g. {@code --connect}
     */
    SocketEndpoints(CommandLine commandLine, String what, String bindOption, List<String> binds, String connectOption,
            List<String> connects) {
        this.commandLine = commandLine;
        this.what = what;
        this.bindOption = bindOption;
        this.connectOption = connectOption;
        this.binds = binds;
        this.connects = connects;
    }

    /**
     * Fails with a usage error unless at least one endpoint was given and every connect endpoint
     * can be reached (its host resolves now, its port is not 0, its source address is usable, it is
     * not {@code ipc://*}).
     */
    void check() {
        if (binds.isEmpty() && connects.isEmpty()) {
            throw new ParameterException(commandLine, "missing " + what + ": give " + bindOption + " ENDPOINT or "
                    + connectOption + " ENDPOINT");
        }
        for (String endpoint : connects) {
            // libzmq takes these and fails only in the background, retrying for ever: nothing would tell the user
            // tcp and ws alike: a port of * came back from libzmq as "Invalid argument", a ws port 0 as the
            // transport's advice to ask a bind's lastEndpoint()
            String anyPort = Values.anyPort(endpoint);
            if (anyPort != null) {
                throw new ParameterException(commandLine, connectOption + " cannot reach port " + anyPort + ": endpoint=" + endpoint
                        + " (port 0 or * means 'any free port' only for " + bindOption + ")");
            }
            if ("*".equals(Values.host(endpoint))) {
                // libzmq refused it as "Invalid argument", which named neither the host nor --bind
                throw new ParameterException(commandLine, connectOption + " needs a host to reach: endpoint=" + endpoint
                        + " ('*' means every interface only for " + bindOption + "; connect to a name or an address, e.g. "
                        + endpoint.replaceFirst("(?<=//|;)\\*:", "127.0.0.1:") + ")");
            }
            requireTransport(connectOption, endpoint);
            if (endpoint.equals("tipc://<*>")) {
                // libzmq refused it as "Invalid argument", which named neither the address nor --bind
                throw new ParameterException(commandLine, connectOption + " cannot reach tipc://<*>: endpoint=" + endpoint
                        + " ('<*>' means a random port identity only for " + bindOption + ")");
            }
            if (endpoint.equals("ipc://*")) {
                // libzmq connects to a socket file named '*' in the working directory: the command waited for
                // a peer that was not there (exit 3 with --timeout, for ever without)
                throw new ParameterException(commandLine, connectOption + " cannot reach ipc://*: endpoint=" + endpoint
                        + " ('*' means a fresh path only for " + bindOption + ", whose --events LISTENING line names it;"
                        + " a socket file named '*' is ipc://./*)");
            }
            ipv6 |= Values.namesIpv6Address(endpoint); // a literal in brackets, tcp or ws
            requireResolvable(endpoint);
            String problem = Values.sourceProblem(endpoint);
            if (problem != null) {
                // libzmq reads the source only when it connects, and retries for ever in the background
                throw new ParameterException(commandLine, connectOption + " cannot use source address: endpoint=" + endpoint
                        + ", source=" + Values.tcpSource(endpoint) + " (" + problem + ")");
            }
        }
        for (String endpoint : binds) {
            requireTransport(bindOption, endpoint);
            if (endpoint.startsWith("tipc://<") && !endpoint.equals("tipc://<*>")) {
                // libzmq refused it as "Invalid argument"
                throw new ParameterException(commandLine, bindOption + " cannot take a port identity: endpoint=" + endpoint
                        + " (the kernel gives a socket its port identity; bind a service, tipc://{TYPE,INSTANCE}, or tipc://<*>)");
            }
            requireBindable(endpoint);
            ipv6 |= Values.namesIpv6Address(endpoint);
        }
        requireEachOnce();
    }

    /**
     * The transports a libzmq may be built without, in the order a message names them; tcp is
     * always built, and libzmq 4.3.4's {@code zmq_has} reports neither ws nor wss (Debian's has ws
     * and not wss).
     */
    private static final List<String> OPTIONAL_TRANSPORTS = List.of("ipc", "pgm", "epgm", "tipc", "norm", "vmci");

    /** The {@code zmq_has} capability of an optional transport: its name, but {@code pgm} for epgm; null for others. */
    private static String capability(String scheme) {
        return !OPTIONAL_TRANSPORTS.contains(scheme) ? null : scheme.equals("epgm") ? "pgm" : scheme;
    }

    /**
     * A transport this libzmq was built without is a usage error naming the ones it has: libzmq said
     * only "Protocol not supported" (vmci with Debian's libzmq 4.3.4).
     */
    private void requireTransport(String option, String endpoint) {
        String capability = capability(scheme(endpoint));
        if (capability != null && !ZmqContext.has(capability)) {
            throw new ParameterException(commandLine, option + " cannot use endpoint=" + endpoint + ": "
                    + missingTransport(scheme(endpoint), "zmq_has(\"" + capability + "\") is 0"));
        }
    }

    /**
     * {@code this libzmq has no SCHEME transport (WHY); it has tcp, ipc, ...}: the transports
     * {@code zmq_has} reports, and ws, which it does not.
     *
     * @param why what said so, or null when the line says it already
     */
    private static String missingTransport(String scheme, String why) {
        List<String> has = new ArrayList<>(List.of("tcp"));
        for (String transport : OPTIONAL_TRANSPORTS) {
            if (ZmqContext.has(capability(transport))) {
                has.add(transport);
            }
        }
        return "this libzmq has no " + scheme + " transport" + (why == null ? "" : " (" + why + ")") + "; it has "
                + String.join(", ", has) + ", and ws unless built without it (zmq_has reports neither ws nor wss)";
    }

    /**
     * A tcp, ws or wss bind host must be {@code *}, an IP address or a network interface: libzmq
     * looks no name up for a bind, and {@code tcp://localhost:5555} (as {@code ws://localhost:5555})
     * failed with "No such device" (ENODEV).
     */
    private void requireBindable(String endpoint) {
        String host = Values.host(endpoint);
        if (host != null && !host.equals("*") && !host.startsWith("[") && Values.literal(host) == null && !Values.isInterface(host)) {
            throw new ParameterException(commandLine, bindOption + " takes no host name: endpoint=" + endpoint + ", host=" + host
                    + " is neither an IP address nor a network interface of this machine (libzmq binds to an address, an"
                    + " interface or *, and looks no name up; for this machine only: "
                    + endpoint.replace("//" + host + ":", "//127.0.0.1:") + ")");
        }
    }

    /**
     * One endpoint text given twice to this socket is a usage error: two connects made two connections
     * to one peer, and PUSH shared the messages between them, so the peer received them out of order
     * (measured: 200 000 lines, the first out of place at line 11 001); a second bind failed with
     * "Address already in use", as if another process had it; a bind and a connect connect the socket
     * to itself. A bind that picks its own address ({@code tcp://HOST:*}, {@code ipc://*}) may repeat.
     */
    private void requireEachOnce() {
        Set<String> seen = new HashSet<>();
        for (String endpoint : binds) {
            if (!ProxyCommand.picksItsOwnAddress(endpoint) && !seen.add(endpoint)) {
                throw new ParameterException(commandLine, bindOption + " given twice: endpoint=" + endpoint
                        + " (one socket cannot bind one address twice)");
            }
        }
        seen.clear();
        for (String endpoint : connects) {
            if (!seen.add(endpoint)) {
                throw new ParameterException(commandLine, connectOption + " given twice: endpoint=" + endpoint
                        + " (one socket would connect to it twice and share its messages between the two connections, out of order)");
            }
            if (binds.contains(endpoint)) {
                throw new ParameterException(commandLine, bindOption + " and " + connectOption + " given the same endpoint="
                        + endpoint + " (the socket would connect to itself)");
            }
        }
        // the same address written two ways (tcp://localhost:5555 and tcp://127.0.0.1:5555, tcp://lo:5555 and
        // tcp://*:5555, ipc://feed.sock and ipc://./feed.sock)
        for (int i = 0; i < binds.size(); i++) {
            for (int j = i + 1; j < binds.size(); j++) {
                requireApart(binds.get(i), true, binds.get(j), true, bindOption + " given one address twice",
                        "one socket cannot bind one address twice");
            }
        }
        for (int i = 0; i < connects.size(); i++) {
            for (int j = i + 1; j < connects.size(); j++) {
                requireApart(connects.get(i), false, connects.get(j), false, connectOption + " given one address twice",
                        "one socket would connect to it twice and share its messages between the two connections, out of order");
            }
            for (String bind : binds) {
                requireApart(bind, true, connects.get(i), false, bindOption + " and " + connectOption + " given one address",
                        "the socket would connect to itself");
            }
        }
    }

    /** A usage error when {@link #sameAddress} says the two endpoints are one address. */
    private void requireApart(String a, boolean aBinds, String b, boolean bBinds, String what, String why) {
        String address = sameAddress(a, aBinds, b, bBinds);
        if (address != null) {
            throw new ParameterException(commandLine, what + ": endpoint=" + a + " and endpoint=" + b + " are both " + address
                    + " (" + why + ")");
        }
    }

    /**
     * Whether two endpoints of other texts name one address, as {@code host:port} or
     * {@code path=PATH}, or null. Two ipc paths that are one file once made absolute and normalised
     * ({@code ipc://feed.sock}, {@code ipc://./feed.sock}, {@code ipc:///home/me/feed.sock}), but for
     * two binds, whose second the transport refuses itself ({@code ZmqSocket.bind}). Two tcp, ws or
     * wss endpoints of the same port, where a host of one resolves to an address of the other, or one
     * is a bind to every interface ({@code *}) and the other an address of this machine; a tcp and a
     * ws endpoint too, as one port takes one listener, which speaks one of them (other schemes add
     * {@code (one port takes one listener, whether tcp or ws)}). A ws path is no part of the
     * address: libzmq 4.3.4's ws listener takes a connection whatever path it asks for (a bind to
     * {@code ws://127.0.0.1:P/a} took a connect to {@code ws://127.0.0.1:P/b}), and one port takes one
     * listener ("Address already in use"); other paths add {@code (a ws listener takes every path)}. A bind's host is an address or an
     * interface (its addresses); a connect's is resolved as {@link #requireResolvable} did. A port
     * or path that a bind picks itself ({@code *}, 0) is no address yet.
     */
    static String sameAddress(String a, boolean aBinds, String b, boolean bBinds) {
        Path pathA = IpcPaths.file(a);
        Path pathB = IpcPaths.file(b);
        if (pathA != null || pathB != null) {
            // two binds of one path: the transport refuses the second itself, naming the path and who listens (exit 1)
            return pathA != null && pathA.equals(pathB) && !a.equals(b) && !(aBinds && bBinds) ? "path=" + pathA : null;
        }
        int port = Values.port(a);
        if (port <= 0 || port != Values.port(b) || a.equals(b)) {
            return null; // not tcp, ws or wss, a picked port, other ports; the same text is refused as such
        }
        // tcp, ws and wss share the TCP ports: a tcp bind and a ws connect of one port reached each other and failed
        // their handshake for ever, without a word (a proxy's two sides, or one socket)
        String wsPath = Values.wsPath(a);
        String note = !scheme(a).equals(scheme(b))
                ? " (one port takes one listener, whether " + scheme(a) + " or " + scheme(b) + ")"
                : wsPath != null && !wsPath.equals(Values.wsPath(b)) ? " (a ws listener takes every path)" : "";
        Set<InetAddress> left = addresses(Values.host(a), aBinds);
        Set<InetAddress> right = addresses(Values.host(b), bBinds);
        if (left == null || right == null) { // a bind to every interface
            Set<InetAddress> other = left == null ? right : left;
            if (other == null) {
                return "*:" + port + note;
            }
            return other.stream().filter(SocketEndpoints::isLocal).findFirst()
                    .map(x -> x.getHostAddress() + ":" + port + " of this machine" + note).orElse(null);
        }
        return left.stream().filter(right::contains).findFirst().map(x -> x.getHostAddress() + ":" + port + note).orElse(null);
    }

    /** {@code tcp}, {@code ws}, ...: the text before {@code ://} (the endpoints here are well formed). */
    private static String scheme(String endpoint) {
        int at = endpoint.indexOf("://");
        return at < 0 ? endpoint : endpoint.substring(0, at);
    }

    /**
     * The addresses of a tcp host: null for a bind to every interface ({@code *}, or the unspecified
     * address {@code 0.0.0.0} or {@code [::]}, which listen as {@code *} does: on a socket with
     * {@code ZMQ_IPV6}, a bind to {@code 0.0.0.0} took a connect to {@code [::1]} too); for a connect
     * to the unspecified address, the loopback address of its family, where Linux connects it; empty
     * when it cannot be told.
     */
    private static Set<InetAddress> addresses(String host, boolean bind) {
        if (bind && host.equals("*")) {
            return null;
        }
        InetAddress literal = Values.literal(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
        if (literal != null) {
            if (literal.isAnyLocalAddress()) {
                // a bind to 0.0.0.0 took a connect to 127.0.0.1 on the same socket: it sent to itself, exit 0;
                // a connect to it reaches the loopback address (Linux), e.g. a bind to 127.0.0.1 on the same socket
                return bind ? null : Set.of(InetAddress.ofLiteral(literal instanceof Inet4Address ? "127.0.0.1" : "::1"));
            }
            return Set.of(literal);
        }
        try {
            if (bind) {
                NetworkInterface nic = NetworkInterface.getByName(host);
                return nic == null ? Set.of() : Set.copyOf(nic.inetAddresses().toList());
            }
            return Set.of(InetAddress.getAllByName(host));
        } catch (SocketException | UnknownHostException e) {
            return Set.of(); // refused on its own, by check()
        }
    }

    /** Whether {@code address} is this machine's: loopback, or an address of one of its interfaces. */
    private static boolean isLocal(InetAddress address) {
        try {
            return address.isLoopbackAddress() || address.isAnyLocalAddress() || NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Resolves the host of a tcp, ws or wss connect endpoint now (off the hot path; libzmq resolves
     * it again on each attempt). A name that does not resolve is a usage error: libzmq accepts it
     * for tcp and retries for ever in the background, and refuses it for ws as "Invalid argument",
     * which names neither the host nor the reason. A name with IPv6 addresses only, like an IPv6
     * address in brackets, turns {@code ZMQ_IPV6} on, without which libzmq asks for IPv4 addresses only.
     */
    private void requireResolvable(String endpoint) {
        String host = Values.host(endpoint);
        if (host == null || host.equals("*")) {
            return; // not tcp or ws, or tcp://*:N, which check() refuses
        }
        if (host.startsWith("[")) {
            return; // a literal, checked by Values.endpoint; its ZMQ_IPV6 is check()'s
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new ParameterException(commandLine, connectOption + " cannot resolve host: endpoint=" + endpoint
                    + ", host=" + host + ", error=" + Main.describe(e).replaceFirst("^\\Q" + host + "\\E: ", "")
                    + (Values.isInterface(host) ? " (" + host + " is a network interface: interface names work only for " + bindOption + ")" : ""));
        }
        boolean ipv4 = false;
        for (InetAddress a : addresses) {
            ipv4 |= a instanceof Inet4Address;
        }
        ipv6 |= !ipv4;
    }

    /**
     * Sets the high-water marks of {@code socket} to {@code hwm}, binds and connects it (after
     * {@link #check()}). An endpoint libzmq refuses as malformed is a usage error (exit 2);
     * anything else (address in use, ...) a runtime failure (exit 1). A context shut down by a
     * signal meanwhile (ETERM) is thrown as the ZmqException it is, for the command to end as
     * interrupted.
     */
    void attach(ZmqSocket socket, int hwm) {
        socket.sendHwm(hwm);
        socket.receiveHwm(hwm);
        if (ipv6) {
            socket.ipv6(true); // for every endpoint of the socket: IPv6 and IPv4 addresses both work then
        }
        for (String endpoint : binds) {
            call(socket, endpoint, true);
        }
        for (String endpoint : connects) {
            call(socket, endpoint, false);
        }
    }

    /**
     * The transport looks at an {@code ipc://PATH} before it binds there (libzmq would unlink what is
     * there): a file that is not a socket is refused with IllegalArgumentException, a socket somebody
     * listens on with EADDRINUSE, and a leftover socket file libzmq could not remove is named with
     * why. Each is a runtime failure (exit 1), reported with the transport's text. Any other
     * IllegalArgumentException is about the endpoint's text (a ws port out of range, which
     * {@link Values#endpoint} does not check as it does a tcp one): a usage error, as EINVAL is.
     */
    private void call(ZmqSocket socket, String endpoint, boolean bind) {
        String failed = (bind ? "cannot bind" : "cannot connect") + ": endpoint=" + endpoint;
        try {
            if (bind) {
                BoundFile pending = beforeBind(endpoint);
                try {
                    socket.bind(endpoint);
                } catch (RuntimeException e) {
                    forget(pending);
                    throw e;
                }
                if (afterBind != null) {
                    afterBind.run();
                }
                noteSocketFile(pending);
            } else {
                socket.connect(endpoint);
                warnOfIpcFileNotASocket(endpoint);
                warnOfTipcMissingFromKernel(endpoint);
            }
        } catch (IllegalArgumentException e) {
            if (bind && endpoint.startsWith("ipc://")) {
                throw new CliException(ExitCodes.FAILURE, failed + ", error=" + e.getMessage(), e);
            }
            throw new ParameterException(commandLine, failed + ", error=" + e.getMessage(), e);
        } catch (ZmqException e) {
            if (e.isContextTerminated()) {
                throw e; // a signal's shutdown, not a bad endpoint: the command ends as interrupted
            }
            int errno = e.errno();
            String what = failed + ", errno=" + libzmqText(e, endpoint)
                    + (bind && errno != LibZmq.EADDRINUSE && errno != LibZmq.ENAMETOOLONG ? ipcDirectoryProblem(endpoint) : "")
                    + transportNote(endpoint, errno);
            // ENOCOMPATPROTO: a transport the socket type cannot use, e.g. udp:// on PUSH
            if (errno == LibZmq.EINVAL || errno == LibZmq.EPROTONOSUPPORT || errno == LibZmq.ENODEV || errno == LibZmq.ENOCOMPATPROTO) {
                throw new ParameterException(commandLine, what);
            }
            throw new CliException(ExitCodes.FAILURE, what, e);
        }
    }

    /**
     * Why libzmq refused the transport of {@code endpoint}: one this libzmq was built without
     * (EPROTONOSUPPORT: wss, which {@code zmq_has} does not report), one the socket type cannot
     * carry (ENOCOMPATPROTO), or tipc on a kernel without it.
     *
     * @return {@code " (...)"}, or "" when there is nothing to add
     */
    private static String transportNote(String endpoint, int errno) {
        String scheme = scheme(endpoint);
        if (errno == LibZmq.EPROTONOSUPPORT) {
            return " (" + missingTransport(scheme, null) + ")";
        }
        if (errno == LibZmq.ENOCOMPATPROTO) {
            return switch (scheme) {
                case "pgm", "epgm", "norm" -> " (" + scheme + " is multicast, for pub and sub sockets only: send --type pub,"
                        + " recv --type sub, proxy --type pubsub)";
                case "udp" -> " (udp carries only RADIO, DISH and DGRAM sockets, of libzmq's draft API, which zmq-zstd"
                        + " does not make)";
                default -> "";
            };
        }
        return scheme.equals("tipc") && errno != LibZmq.EINVAL && tipcMissingFromKernel()
                ? " (" + TIPC_MISSING + ")" : "";
    }

    private static final String TIPC_MISSING = "this kernel has not loaded TIPC (/proc/net/protocols lists none): load its"
            + " module, modprobe tipc";

    /**
     * Whether Linux shows no TIPC in {@code /proc/net/protocols}, where the module lists itself once
     * loaded; false where that cannot be read. Without it libzmq's bind failed with "Address family
     * not supported by protocol", and its connect retries for ever, without a word.
     */
    private static boolean tipcMissingFromKernel() {
        try {
            return Files.readAllLines(Path.of("/proc/net/protocols")).stream().noneMatch(line -> line.startsWith("TIPC"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Before an ipc bind of a path ({@code ipc://*} is libzmq's to remove, and an abstract
     * {@code ipc://@NAME} has none): records the path with what is there now and registers the exit
     * hook, so that a SIGTERM between the bind and {@link #noteSocketFile} still removes the file
     * the bind made. libzmq's LISTENING event comes from inside the bind, so a signal sent on it
     * could arrive before the bind returned: until 2026-11-29 the hook was registered after it, and
     * such a signal left the file (`CliProcessIT.shouldRemoveTheIpcSocketFilesItBoundWhenTerminated`
     * failed so once in a fresh-clone CI run). Null for an endpoint that makes no file of its own.
     */
    private synchronized BoundFile beforeBind(String endpoint) {
        if (IpcPaths.file(endpoint) == null) {
            return null;
        }
        Path path = Path.of(endpoint.substring("ipc://".length())); // as libzmq takes it: relative to the working directory
        BoundFile pending = new BoundFile(path, null, SocketFile.at(path));
        socketFiles.add(pending);
        if (exitHook == null) {
            exitHook = new Thread(this::removeSocketFiles, "zmq-zstd-ipc-files");
            Runtime.getRuntime().addShutdownHook(exitHook);
        }
        return pending;
    }

    private synchronized void forget(BoundFile pending) {
        socketFiles.remove(pending);
    }

    /** Keeps the socket file the bind {@code pending} was made for made, with its inode and time, as written. */
    private synchronized void noteSocketFile(BoundFile pending) {
        if (pending == null || !socketFiles.remove(pending)) {
            return; // no file of its own, or removed already: the JVM is exiting
        }
        SocketFile made = SocketFile.at(pending.path());
        if (made != null) {
            socketFiles.add(new BoundFile(pending.path(), made, pending.before()));
        }
    }

    /**
     * Removes the socket files this socket's binds made, each only while it is still the file the
     * bind made (a process that bound the path since keeps its own). Call once the socket is
     * closed; idempotent. A file that cannot be removed is left, as libzmq leaves it.
     */
    @Override
    public synchronized void close() {
        removeSocketFiles();
        if (exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException exiting) {
                // the JVM is exiting: the hook has run or runs now, and finds nothing left
            }
            exitHook = null;
        }
    }

    synchronized void removeSocketFiles() {
        for (BoundFile f : socketFiles) {
            if (f.madeByTheBind()) {
                try {
                    Files.deleteIfExists(f.path());
                } catch (IOException | RuntimeException e) {
                    // left behind, as libzmq leaves it: the next bind there takes it over
                }
            }
        }
        socketFiles.clear();
    }

    /**
     * A connect to an {@code ipc://} path where a regular file or a directory is (a log file's name
     * given for the socket's, say): libzmq's connect succeeds and retries in the background for as
     * long as the command runs, so send and recv waited for a peer, then timed out, without a word
     * about the path (until 2026-11-28). Now one warning line on standard error; the run goes on, as
     * a process may yet replace the file with a socket (a zmq-zstd bind would not: it refuses to).
     */
    private void warnOfIpcFileNotASocket(String endpoint) {
        Path file = IpcPaths.file(endpoint);
        String kind = file == null ? null
                : Files.isRegularFile(file) ? "a regular file" : Files.isDirectory(file) ? "a directory" : null;
        if (kind != null) {
            warn(endpoint, file + " is " + kind + ", not a socket: libzmq retries this connect until a socket is there,"
                    + " so no message goes through it until then (a mistyped path?)");
        }
    }

    /**
     * A tipc connect on a kernel without TIPC: libzmq's connect succeeds and retries in the
     * background for ever (CONNECT_RETRIED, no errno), so send and recv waited without a word. Now
     * one warning line; the run goes on, as the module may yet be loaded.
     */
    private void warnOfTipcMissingFromKernel(String endpoint) {
        if (endpoint.startsWith("tipc://") && tipcMissingFromKernel()) {
            warn(endpoint, TIPC_MISSING + "; libzmq retries this connect until it is loaded");
        }
    }

    private void warn(String endpoint, String what) {
        commandLine.getErr().println(commandLine.getCommandSpec().qualifiedName() + ": warning: endpoint=" + endpoint + ": " + what);
        commandLine.getErr().flush();
    }

    /**
     * Why libzmq could not make an ipc bind's socket file, where its directory says: libzmq's
     * "No such file or directory" or "Permission denied" read as if about the socket file itself.
     *
     * @return {@code " (no such directory: DIR)"}, {@code " (not a directory: DIR)"} or
     *         {@code " (this user may not create a file in DIR)"}, for
     *         {@code ipc://*} {@link #freshIpcDirectoryProblem}'s, else ""
     */
    private static String ipcDirectoryProblem(String endpoint) {
        if (endpoint.equals("ipc://*")) {
            return freshIpcDirectoryProblem();
        }
        Path file = IpcPaths.file(endpoint);
        Path directory = file == null ? null : file.getParent();
        if (directory == null) {
            return "";
        }
        if (!Files.isDirectory(directory)) {
            // ENOTDIR: it is there, as a file, which "no such directory" denied
            return Files.exists(directory) ? " (not a directory: " + directory + ")" : " (no such directory: " + directory + ")";
        }
        return Files.isWritable(directory) ? "" : " (this user may not create a file in " + directory + ")";
    }

    /** Where libzmq 4.3.4 makes ipc://*'s fresh directory: the first of these that names a directory, else the working directory. */
    private static final List<String> FRESH_IPC_PARENTS = List.of("TMPDIR", "TEMPDIR", "TMP");

    /**
     * Why libzmq could not make the fresh directory of an {@code ipc://*} bind (its {@code mkdtemp}
     * fails with "Permission denied" and no path): it makes it in {@code $TMPDIR}, {@code $TEMPDIR}
     * or {@code $TMP}, and with none of them set in the working directory, which for a service is
     * often {@code /} (systemd's default).
     *
     * @return {@code " (ipc://* makes its fresh directory in ..., where this user may not create a file; ...)"}, else ""
     */
    private static String freshIpcDirectoryProblem() {
        String where = null;
        Path directory = null;
        for (String variable : FRESH_IPC_PARENTS) {
            String value = System.getenv(variable);
            if (value != null && !value.isEmpty() && Files.isDirectory(Path.of(value))) {
                where = "$" + variable + "=" + value;
                directory = Path.of(value);
                break;
            }
        }
        if (directory == null) {
            directory = Path.of("").toAbsolutePath();
            where = "the working directory " + directory + " (none of $" + String.join(", $", FRESH_IPC_PARENTS)
                    + " names a directory)";
        }
        return Files.isWritable(directory) ? "" : " (ipc://* makes its fresh directory in " + where + ", where this user may"
                + " not create a file; set TMPDIR to a directory it may, or bind a path)";
    }

    /**
     * The part of the transport's message after its {@code zmq_bind(ENDPOINT) failed: errno=}: the
     * errno (named when it is one of libzmq's own), libzmq's text and what the transport adds in
     * brackets (an ipc path and why), which may itself hold "errno=" (a directory of that name), so
     * it is cut after the known prefix; the errno and the text alone when the message lacks it.
     */
    private static String libzmqText(ZmqException e, String endpoint) {
        String message = e.getMessage();
        String prefix = "(" + endpoint + ") failed: errno=";
        int at = message.indexOf(prefix + e.errno());
        return at < 0 ? e.errno() + ", error=" + message : message.substring(at + prefix.length());
    }
}

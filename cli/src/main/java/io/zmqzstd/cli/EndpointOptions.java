package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/** --bind, --connect and --hwm, shared by send and recv (a picocli mixin). */
final class EndpointOptions {

    /** errno values from zmq_bind/zmq_connect that mean the endpoint text is wrong, not the world. */
    private static final int ENODEV = 19;
    private static final int EPROTONOSUPPORT = 93;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--bind", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Bind to ENDPOINT (repeatable), e.g. tcp://*:5555, ipc:///tmp/feed.")
    List<String> binds = new ArrayList<>();

    @Option(names = "--connect", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Connect to ENDPOINT (repeatable), e.g. tcp://host:5555.")
    List<String> connects = new ArrayList<>();

    @Option(names = "--hwm", paramLabel = "N",
            description = "High-water mark in messages (default ${DEFAULT-VALUE}, libzmq's).", defaultValue = "1000")
    int hwm;

    /** Set by {@link #requireOne()}: an endpoint needs {@code ZMQ_IPV6} (libzmq's default is IPv4 only). */
    private boolean ipv6;

    /**
     * Fails with a usage error unless at least one endpoint was given, the --hwm is usable, and
     * every --connect endpoint can be reached (its host resolves now).
     */
    void requireOne() {
        if (binds.isEmpty() && connects.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "missing endpoint: give --bind ENDPOINT or --connect ENDPOINT");
        }
        if (hwm < 0) {
            throw new ParameterException(spec.commandLine(), "--hwm must not be negative: hwm=" + hwm);
        }
        for (String endpoint : connects) {
            // libzmq takes these and fails only in the background, retrying for ever: nothing would tell the user
            if (Values.tcpPort(endpoint) == 0) {
                throw new ParameterException(spec.commandLine(), "--connect cannot reach port 0: endpoint=" + endpoint
                        + " (port 0 or * means 'any free port' only for --bind)");
            }
            requireResolvable(endpoint);
            String problem = Values.sourceProblem(endpoint);
            if (problem != null) {
                // libzmq reads the source only when it connects, and retries for ever in the background
                throw new ParameterException(spec.commandLine(), "--connect cannot use source address: endpoint=" + endpoint
                        + ", source=" + Values.tcpSource(endpoint) + " (" + problem + ")");
            }
        }
        for (String endpoint : binds) {
            ipv6 |= Values.namesIpv6Address(endpoint);
        }
    }

    /**
     * Resolves the host of a tcp --connect endpoint now (off the hot path; libzmq resolves it again
     * on each attempt). A name that does not resolve is a usage error: libzmq accepts it and
     * retries for ever in the background. A name with IPv6 addresses only, like an IPv6 address in
     * brackets, turns {@code ZMQ_IPV6} on, without which libzmq asks for IPv4 addresses only.
     */
    private void requireResolvable(String endpoint) {
        String host = Values.tcpHost(endpoint);
        if (host == null || host.equals("*")) {
            return; // not tcp, or tcp://*:N, which libzmq refuses itself (EINVAL)
        }
        if (host.startsWith("[")) {
            ipv6 |= Values.namesIpv6Address(endpoint); // a literal, checked by Values.endpoint
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), "--connect cannot resolve host: endpoint=" + endpoint
                    + ", host=" + host + ", error=" + Main.describe(e).replaceFirst("^\\Q" + host + "\\E: ", "")
                    + (Values.isInterface(host) ? " (" + host + " is a network interface: interface names work only for --bind)" : ""));
        }
        boolean ipv4 = false;
        for (InetAddress a : addresses) {
            ipv4 |= a instanceof Inet4Address;
        }
        ipv6 |= Values.namesIpv6Address(endpoint) || !ipv4;
    }

    /**
     * Binds and connects {@code socket}. An endpoint libzmq refuses as malformed is a usage error
     * (exit 2); anything else (address in use, ...) a runtime failure (exit 1).
     */
    void attach(ZmqSocket socket) {
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

    private void call(ZmqSocket socket, String endpoint, boolean bind) {
        try {
            if (bind) {
                socket.bind(endpoint);
            } else {
                socket.connect(endpoint);
            }
        } catch (ZmqException e) {
            String what = (bind ? "cannot bind" : "cannot connect") + ": endpoint=" + endpoint + ", errno=" + e.errno()
                    + ", error=" + e.getMessage().replaceFirst(".*error=", "");
            int errno = e.errno();
            // ENOCOMPATPROTO: a transport the socket type cannot use, e.g. udp:// on PUSH
            if (errno == LibZmq.EINVAL || errno == EPROTONOSUPPORT || errno == ENODEV || errno == LibZmq.ENOCOMPATPROTO) {
                throw new ParameterException(spec.commandLine(), what);
            }
            throw new CliException(ExitCodes.FAILURE, what, e);
        }
    }
}

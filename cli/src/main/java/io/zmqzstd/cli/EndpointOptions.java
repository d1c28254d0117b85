package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

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

    /** Fails with a usage error unless at least one endpoint was given. */
    void requireOne() {
        if (binds.isEmpty() && connects.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "missing endpoint: give --bind ENDPOINT or --connect ENDPOINT");
        }
        if (hwm < 0) {
            throw new ParameterException(spec.commandLine(), "--hwm must not be negative: hwm=" + hwm);
        }
        for (String endpoint : connects) {
            // libzmq takes it and fails only in the background, retrying for ever: nothing would tell the user
            if (Values.tcpPort(endpoint) == 0) {
                throw new ParameterException(spec.commandLine(), "--connect cannot reach port 0: endpoint=" + endpoint
                        + " (port 0 or * means 'any free port' only for --bind)");
            }
        }
    }

    /**
     * Binds and connects {@code socket}. An endpoint libzmq refuses as malformed is a usage error
     * (exit 2); anything else (address in use, ...) a runtime failure (exit 1).
     */
    void attach(ZmqSocket socket) {
        socket.sendHwm(hwm);
        socket.receiveHwm(hwm);
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

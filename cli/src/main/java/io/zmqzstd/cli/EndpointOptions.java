package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;

/** --bind, --connect and --hwm, shared by send and recv (a picocli mixin). */
final class EndpointOptions implements AutoCloseable {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--bind", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Bind to ENDPOINT (repeatable), e.g. tcp://*:5555, tcp://127.0.0.1:5555, ipc:///tmp/feed (tcp: an address, an interface or *, no host name).")
    List<String> binds = new ArrayList<>();

    @Option(names = "--connect", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Connect to ENDPOINT (repeatable), e.g. tcp://host:5555.")
    List<String> connects = new ArrayList<>();

    @Option(names = "--hwm", paramLabel = "N",
            description = "High-water mark in messages (default ${DEFAULT-VALUE}, libzmq's; 0: no limit).", defaultValue = "1000")
    int hwm;

    /** Set by {@link #requireOne()}. */
    private SocketEndpoints endpoints;

    /**
     * Fails with a usage error unless at least one endpoint was given, the --hwm is usable, and
     * every --connect endpoint can be reached (its host resolves now).
     */
    void requireOne() {
        endpoints = new SocketEndpoints(spec.commandLine(), "endpoint", "--bind", binds, "--connect", connects);
        endpoints.check();
        requireHwm(spec, hwm);
    }

    /** --hwm below 0 (0 is libzmq's "no limit") is a usage error. */
    static void requireHwm(CommandSpec spec, int hwm) {
        if (hwm < 0) {
            throw new ParameterException(spec.commandLine(), "--hwm must not be negative: hwm=" + hwm);
        }
    }

    /**
     * Binds and connects {@code socket} (after {@link #requireOne()}). An endpoint libzmq refuses as
     * malformed is a usage error (exit 2); anything else (address in use, ...) a runtime failure (exit 1).
     */
    void attach(ZmqSocket socket) {
        endpoints.attach(socket, hwm);
    }

    /** Removes the socket files the ipc binds made ({@link SocketEndpoints#close()}): after the context is closed. */
    @Override
    public void close() {
        if (endpoints != null) {
            endpoints.close();
        }
    }
}

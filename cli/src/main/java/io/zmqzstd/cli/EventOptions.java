package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;

/** --events, shared by send, recv and proxy (a picocli mixin). */
final class EventOptions {

    @Option(names = "--events", description = "Print the socket's connection events on stderr, one line each"
            + " (listening, connected, accepted, retried, handshake succeeded or failed, disconnected).")
    boolean events;

    /**
     * An {@link EventReporter} on {@code socket}, printing its events when --events was given and
     * in any case warning of a connection it made dropped during its handshake (a peer of a socket type
     * {@code peers} does not name); call before the socket binds or connects to {@code binds}, its
     * bind endpoints as given.
     */
    EventReporter start(ZmqSocket socket, String command, String socketName, String peers, List<String> binds, PrintWriter err) {
        return EventReporter.start(socket, command, socketName, peers, binds, events, err);
    }
}

package io.zmqzstd.cli;

import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Option;

import java.io.PrintWriter;

/** --events, shared by send, recv and proxy (a picocli mixin). */
final class EventOptions {

    @Option(names = "--events", description = "Print the socket's connection events on stderr, one line each"
            + " (listening, connected, accepted, retried, handshake succeeded or failed, disconnected).")
    boolean events;

    /**
     * An {@link EventReporter} on {@code socket} when --events was given, else null (no monitor at
     * all); call before the socket binds or connects.
     */
    EventReporter start(ZmqSocket socket, String command, String socketName, PrintWriter err) {
        return events ? EventReporter.start(socket, command, socketName, err) : null;
    }
}

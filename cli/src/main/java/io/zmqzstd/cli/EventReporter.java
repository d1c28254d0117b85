package io.zmqzstd.cli;

import io.zmqzstd.nativelib.internal.Threads;
import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.MonitorEvent.Type;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --events}: the connection events of one socket, each printed on the command's error
 * stream as one line, {@code zmq-zstd recv: event: ACCEPTED endpoint=tcp://127.0.0.1:5555 value=7}
 * (with {@code socket=frontend} after the type when a command has more than one socket). With or
 * without --events, one warning when a connection it made closes during its handshake: libzmq's
 * only sign of a peer whose socket type cannot talk to this one.
 *
 * <p>Threading and order: a {@link SocketMonitor} is made on the data socket before it binds or
 * connects (so its first connection is reported), and a daemon thread receives from it, which the
 * monitor allows on another thread than the socket's. {@link #close()}, on the thread that owns the
 * data socket, stops that thread, prints what is still queued and closes the monitor. Closing the
 * monitor is a call on the data socket, so the caller closes this reporter only once no thread is
 * inside a call on that socket any more (after the receive loop, after a parallel sender's
 * workers, after a proxy's run), and before the context closes it.
 */
final class EventReporter implements AutoCloseable {

    /**
     * What a user debugging a stream wants to see. Left out: {@code CONNECT_DELAYED} (every tcp
     * connect, before anything is known), {@code CLOSED} (once per refused attempt, with
     * {@code CONNECT_RETRIED} saying the same), {@code MONITOR_STOPPED} (the monitor's own end).
     * In: {@code LISTENING}, whose endpoint names the port a {@code tcp://host:*} bind got, and
     * {@code HANDSHAKE_SUCCEEDED}, the moment a peer can take messages (a connection alone may
     * still fail its ZMTP or CURVE handshake).
     */
    static final Set<Type> REPORTED = EnumSet.of(Type.LISTENING, Type.BIND_FAILED, Type.CONNECTED, Type.ACCEPTED,
            Type.ACCEPT_FAILED, Type.CONNECT_RETRIED, Type.HANDSHAKE_SUCCEEDED, Type.HANDSHAKE_FAILED_NO_DETAIL,
            Type.HANDSHAKE_FAILED_PROTOCOL, Type.HANDSHAKE_FAILED_AUTH, Type.DISCONNECTED, Type.CLOSE_FAILED);

    /**
     * What {@link #watchHandshake} needs: without --events only these are asked for. libzmq 4.3.4
     * reports a peer of a socket type this one cannot talk to (PUSH to SUB, PUB to PULL, ...) with
     * nothing but these: the connection ({@code CONNECTED}, or {@code ACCEPTED} on the bound side),
     * then {@code DISCONNECTED} with no handshake outcome between (at most a
     * {@code HANDSHAKE_FAILED_NO_DETAIL}, "Broken pipe", when the peer closed first); no
     * {@code HANDSHAKE_FAILED_PROTOCOL}, and a --connect whose peer it refused is not tried again.
     */
    static final Set<Type> HANDSHAKE_WATCHED = EnumSet.of(Type.CONNECTED, Type.HANDSHAKE_SUCCEEDED,
            Type.HANDSHAKE_FAILED_NO_DETAIL, Type.HANDSHAKE_FAILED_PROTOCOL, Type.HANDSHAKE_FAILED_AUTH, Type.DISCONNECTED);

    /** Events whose value is an errno: their line adds libzmq's text for it. */
    private static final Set<Type> ERRNO_VALUED = EnumSet.of(Type.BIND_FAILED, Type.ACCEPT_FAILED, Type.CLOSE_FAILED,
            Type.HANDSHAKE_FAILED_NO_DETAIL);

    /**
     * How long the reader waits for an event before it looks whether to stop: the longest
     * {@link #close()} waits for it (a monitor receive cannot be woken otherwise).
     */
    private static final Duration STOP_CHECK = Duration.ofMillis(100);

    private final SocketMonitor monitor;
    private final String command;
    private final String socketName;
    private final String peers;
    /** The socket's bind endpoints as given, which a BIND_FAILED line names (see {@link #endpoint}). */
    private final List<String> binds;
    private final boolean print;
    private final PrintWriter err;
    private final Thread reader;
    private volatile boolean stopping;
    /**
     * Per endpoint, the descriptors of connections made whose handshake has no outcome yet. Touched by the reader thread, then (after it has stopped) by {@link #close()}.
     */
    private final Map<String, Set<Long>> handshaking = new HashMap<>();
    private boolean warned;

    private EventReporter(SocketMonitor monitor, String command, String socketName, String peers, List<String> binds,
            boolean print, PrintWriter err) {
        this.monitor = monitor;
        this.command = command;
        this.socketName = socketName;
        this.peers = peers;
        this.binds = List.copyOf(binds);
        this.print = print;
        this.err = err;
        this.reader = Thread.ofPlatform().daemon().name("zmq-zstd-events").unstarted(this::readLoop);
    }

    /**
     * Starts watching the events of {@code socket}, which has not yet bound or connected: printing
     * them when {@code print} (--events), and warning once when a connection closes during its
     * handshake, which is how libzmq drops a peer of a socket type this one cannot talk to.
     *
     * @param command    name in each line, e.g. {@code zmq-zstd recv}
     * @param socketName {@code socket=} in each line (a proxy's frontend or backend), or null
     * @param peers      the socket types this one talks to, as the warning names them, e.g.
     *                   {@code push sends only to pull (recv --type pull, ...)}
     * @param binds      the endpoints the socket will bind, as given (a failed bind's line names its endpoint)
     * @return the reporter, which the caller closes (see the class comment for when)
     */
    static EventReporter start(ZmqSocket socket, String command, String socketName, String peers, List<String> binds,
            boolean print, PrintWriter err) {
        EventReporter r = new EventReporter(socket.monitor(print ? REPORTED : HANDSHAKE_WATCHED), command, socketName, peers,
                binds, print, err);
        r.reader.start();
        return r;
    }

    private void readLoop() {
        try {
            while (!stopping) {
                MonitorEvent e = monitor.receive(STOP_CHECK);
                if (e != null) {
                    handle(e);
                }
            }
        } catch (ZmqException e) {
            if (!e.isContextTerminated()) {
                throw e;
            }
            // SIGINT/SIGTERM shut the context down: the main thread ends the run
        }
    }

    private void handle(MonitorEvent e) {
        if (print) {
            err.println(line(e));
        }
        watchHandshake(e);
    }

    /**
     * Warns, once, when a connection this socket made (--connect) closes before its handshake had an
     * outcome. Not for connections it accepted: a client that connects and hangs up without a word
     * (a port check, the transport's own look at an ipc path before a bind) ends the same way. A
     * handshake outcome names no descriptor (its value is 0 or a code), so one clears every
     * connection of its endpoint (one at a time for a connect) still in its handshake. A failure
     * with a reason (CURVE, ZAP) is reported by --events as such.
     */
    private void watchHandshake(MonitorEvent e) {
        Set<Long> open = handshaking.computeIfAbsent(e.endpoint(), k -> new HashSet<>());
        switch (e.type()) {
            case CONNECTED -> open.add(e.value());
            case HANDSHAKE_SUCCEEDED, HANDSHAKE_FAILED_PROTOCOL, HANDSHAKE_FAILED_AUTH -> open.clear();
            case DISCONNECTED -> {
                if (open.remove(e.value()) && !warned) {
                    warned = true;
                    err.println(command + ": warning: endpoint=" + e.endpoint() + (socketName != null ? " socket=" + socketName : "")
                            + ": a connection closed during its ZMTP handshake, which is how libzmq drops, without an error,"
                            + " a peer whose socket type cannot talk to this one: " + peers);
                }
            }
            default -> {
                // HANDSHAKE_FAILED_NO_DETAIL: the peer hung up (it may have refused our type first)
            }
        }
    }

    /** One event as a line; the value in hex for a ZMTP protocol error code, whose bits have names in zmq.h. */
    String line(MonitorEvent e) {
        StringBuilder b = new StringBuilder(command).append(": event: ").append(e.type());
        if (socketName != null) {
            b.append(" socket=").append(socketName);
        }
        b.append(" endpoint=").append(endpoint(e)).append(" value=");
        if (e.type() == Type.HANDSHAKE_FAILED_PROTOCOL) {
            b.append("0x").append(Long.toHexString(e.value()));
        } else {
            b.append(e.value());
        }
        if (ERRNO_VALUED.contains(e.type())) {
            b.append(" error=").append(LibZmq.strerror((int) e.value()));
        }
        return b.toString();
    }

    /**
     * The event's endpoint. libzmq 4.3.4 names a failed bind by its address alone, without the
     * transport ({@code *:5555}, {@code /run/app/feed}), which the line printed as
     * {@code endpoint=*:5555}: for BIND_FAILED, the bind endpoint that address was given in, when
     * exactly one fits.
     */
    private String endpoint(MonitorEvent e) {
        String endpoint = e.endpoint();
        if (e.type() != Type.BIND_FAILED || endpoint.contains("://")) {
            return endpoint;
        }
        List<String> given = binds.stream().filter(b -> b.substring(b.indexOf("://") + 3).equals(endpoint)).distinct().toList();
        return given.size() == 1 ? given.getFirst() : endpoint;
    }

    /**
     * Stops the reader thread (within {@link #STOP_CHECK}), prints the events still queued, and
     * closes the monitor. Only once no thread is in a call on the monitored socket.
     */
    @Override
    public void close() {
        stopping = true;
        boolean interrupted = Threads.joinUninterruptibly(reader); // short, and it must finish before the monitor closes
        try {
            for (MonitorEvent e; (e = monitor.tryReceive()) != null; ) {
                handle(e);
            }
        } catch (ZmqException e) {
            if (!e.isContextTerminated()) {
                throw e;
            }
            // shut down by a signal: what is left is lost with the context
        } finally {
            monitor.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

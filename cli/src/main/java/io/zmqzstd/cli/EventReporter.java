package io.zmqzstd.cli;

import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.MonitorEvent.Type;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code --events}: the connection events of one socket, each printed on the command's error
 * stream as one line, {@code zmq-zstd recv: event: ACCEPTED endpoint=tcp://127.0.0.1:5555 value=7}
 * (with {@code socket=frontend} after the type when a command has more than one socket).
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
    private final PrintWriter err;
    private final Thread reader;
    private volatile boolean stopping;

    private EventReporter(SocketMonitor monitor, String command, String socketName, PrintWriter err) {
        this.monitor = monitor;
        this.command = command;
        this.socketName = socketName;
        this.err = err;
        this.reader = Thread.ofPlatform().daemon().name("zmq-zstd-events").unstarted(this::readLoop);
    }

    /**
     * Starts reporting the events of {@code socket}, which has not yet bound or connected.
     *
     * @param command    name in each line, e.g. {@code zmq-zstd recv}
     * @param socketName {@code socket=} in each line (a proxy's frontend or backend), or null
     * @return the reporter, which the caller closes (see the class comment for when)
     */
    static EventReporter start(ZmqSocket socket, String command, String socketName, PrintWriter err) {
        EventReporter r = new EventReporter(socket.monitor(REPORTED), command, socketName, err);
        r.reader.start();
        return r;
    }

    private void readLoop() {
        try {
            while (!stopping) {
                MonitorEvent e = monitor.receive(STOP_CHECK);
                if (e != null) {
                    err.println(line(e));
                }
            }
        } catch (ZmqException e) {
            if (!e.isContextTerminated()) {
                throw e;
            }
            // SIGINT/SIGTERM shut the context down: the main thread ends the run
        }
    }

    /** One event as a line; the value in hex for a ZMTP protocol error code, whose bits have names in zmq.h. */
    String line(MonitorEvent e) {
        StringBuilder b = new StringBuilder(command).append(": event: ").append(e.type());
        if (socketName != null) {
            b.append(" socket=").append(socketName);
        }
        b.append(" endpoint=").append(e.endpoint()).append(" value=");
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
     * Stops the reader thread (within {@link #STOP_CHECK}), prints the events still queued, and
     * closes the monitor. Only once no thread is in a call on the monitored socket.
     */
    @Override
    public void close() {
        stopping = true;
        boolean interrupted = false;
        for (;;) {
            try {
                reader.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the join is short and must finish before the monitor closes
            }
        }
        try {
            for (MonitorEvent e; (e = monitor.tryReceive()) != null; ) {
                err.println(line(e));
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

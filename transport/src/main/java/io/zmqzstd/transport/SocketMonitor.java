package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The events of one socket (libzmq's {@code zmq_socket_monitor}): connections made, accepted,
 * retried and lost, handshakes that succeed or fail. Made by {@link ZmqSocket#monitor(int)};
 * owned by the caller, who closes it.
 *
 * <p>How: libzmq sends each event of the monitored socket, as it happens (often on its I/O
 * thread), to a PAIR socket of its own bound to a unique {@code inproc://} endpoint; this monitor
 * owns the PAIR socket, in the same context, that is connected to it, and {@link #receive}
 * decodes what arrives there. Events queue there until they are received, without a limit (the
 * receiving socket's high-water mark is 0): at a limit libzmq's I/O thread would block on the next
 * event, and with it every socket of the context. So receive them, or close the monitor.
 *
 * <p>Threading: like a socket, a monitor is used by one thread at a time; {@link #receive} and
 * {@link #tryReceive()} on another thread while one is in progress throw
 * {@link IllegalStateException} ("monitor used by two threads at once"). That thread need not be
 * the monitored socket's. {@link #close()} is a call on the monitored socket too (it stops the
 * monitoring there), so it follows that socket's rule: while another thread is inside a call on
 * the monitored socket it throws {@link IllegalStateException} and leaves the monitor open, to be
 * closed once that call is over (closing the monitor's PAIR socket alone would leave libzmq's
 * end with nowhere to send, and the thread raising the next event blocked). Called on another
 * thread than a {@link #receive} in progress, {@link #close()} waits for that receive to return,
 * whole event and all, which it does at once: libzmq is asked for
 * {@link MonitorEvent.Type#MONITOR_STOPPED} whatever the mask, the close sends it, and the receive
 * returns it, or null when the mask does not have it. After the monitoring stopped otherwise (the
 * monitored socket closed first, a {@code MONITOR_STOPPED} received), no event can come any more:
 * a receive then waits in slices of 100 ms, and a close ends it within one.
 *
 * <p>Lifecycle: {@link #close()} stops the monitoring and closes the PAIR socket; it is
 * idempotent. The monitored socket or the context may be closed first: closing the socket stops
 * its monitoring before {@code zmq_close} (a last {@link MonitorEvent.Type#MONITOR_STOPPED} may
 * still be received; events of what the close ends during its linger are not reported), and
 * close only closes what is left. The PAIR socket is never closed while libzmq's end of the
 * monitor lives: an event sent to it then would block the libzmq thread raising it. A socket has
 * at most one monitor open at a time. {@link #isClosed()} is true after {@link #close()} and once
 * {@link ZmqContext#close()} closed the monitor's socket.
 */
public final class SocketMonitor implements AutoCloseable {

    private final ZmqSocket monitored;
    private final ZmqSocket events;
    private final String endpoint;
    private final int mask;
    private final byte[] frame = new byte[LibZmq.MONITOR_EVENT_FRAME_BYTES];
    private final ByteBuffer frameView = ByteBuffer.wrap(frame).order(ByteOrder.nativeOrder());
    /**
     * Held by a receive for the whole of one event (its two frames are two calls on {@link #events}),
     * and by {@link #close()} to close {@link #events}: so a close on another thread waits for the
     * event being received instead of closing the socket between its frames.
     */
    private final ReentrantLock receiving = new ReentrantLock();
    /** The receive timeout last set on {@link #events}, in ms; libzmq's default is -1, never used here; guarded by {@link #receiving}. */
    private int timeoutMs = -1;
    /**
     * A {@code MONITOR_STOPPED} was received, after which libzmq sends nothing more; guarded by
     * {@link #receiving}. A receive then waits in slices of {@link #STOPPED_SLICE_MS} and looks at
     * {@link #closing} between them: nothing else could end its wait before its timeout.
     */
    private boolean stopped;
    /** Set by {@link #close()} as it stops the monitoring (cleared if it cannot): a receive waiting after {@link #stopped} returns null. */
    private volatile boolean closing;
    private volatile boolean closed;
    /**
     * Set by {@link ZmqSocket#stopMonitor} (under the socket's lock for it) when this monitor was
     * closed after the monitored socket was marked closed but before that socket's native close:
     * that close stops the monitoring and then closes {@link #events} ({@link #closeEvents()}).
     */
    volatile boolean closeDeferred;

    /** The longest wait of a receive's slice once the monitoring stopped: the longest a {@link #close()} waits for it. */
    static final int STOPPED_SLICE_MS = 100;

    SocketMonitor(ZmqSocket monitored, ZmqSocket events, String endpoint, int mask) {
        this.monitored = monitored;
        this.events = events;
        this.endpoint = endpoint;
        this.mask = mask;
    }

    /**
     * Refuses a mask that {@code zmq_socket_monitor} (event version 1) would refuse or that could
     * never deliver an event.
     */
    static void checkMask(int mask) {
        if (mask == 0 || (mask & ~LibZmq.ZMQ_EVENT_ALL) != 0) {
            throw new IllegalArgumentException("event mask must be a non-empty set of bits within 0xFFFF: mask=0x"
                    + Integer.toHexString(mask));
        }
    }

    /**
     * The socket whose events this monitor receives.
     *
     * @return that socket, open or closed
     */
    public ZmqSocket socket() {
        return monitored;
    }

    /**
     * The events asked for.
     *
     * @return the mask given to {@code zmq_socket_monitor}, a bitwise or of
     *     {@link MonitorEvent.Type#id()}s
     */
    public int eventMask() {
        return mask;
    }

    /**
     * The {@code inproc://} endpoint libzmq sends the events to ({@code inproc://io.zmqzstd.monitor-<n>},
     * unique in the process; a number the application has bound in the context itself is skipped).
     *
     * @return that endpoint
     */
    public String endpoint() {
        return endpoint;
    }

    /**
     * The next event, waiting for one up to {@code timeout}. Allocates the event.
     *
     * @param timeout how long to wait: zero does not wait (as {@link #tryReceive()}), a positive
     *     one is counted in whole milliseconds rounded up, at most {@code Integer.MAX_VALUE} ms
     *     (about 24.8 days; a longer one counts as that)
     * @return the event, or null when none came within {@code timeout}, or {@link #close()} on
     *     another thread ended the wait (a {@link MonitorEvent.Type#MONITOR_STOPPED} outside the
     *     mask, which libzmq is asked for all the same, is not returned)
     * @throws IllegalArgumentException when {@code timeout} is negative
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} when the context is
     *     shut down or closed during the wait, or was shut down before it and no event is queued:
     *     an event queued before {@link ZmqContext#shutdown()} is still returned, as libzmq takes a
     *     queued frame before it looks at the shutdown (see {@link #tryReceive()})
     * @throws IllegalStateException after {@link #close()} or once the context closed the
     *     monitor's socket (the message names the monitor and which), or while another thread is
     *     receiving on this monitor
     */
    public MonitorEvent receive(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: timeout=" + timeout);
        }
        if (timeout.isZero()) {
            return tryReceive();
        }
        int ms = ZmqContext.millisOption(timeout, true);
        enterReceive();
        try {
            long start = System.nanoTime();
            if (!stopped) {
                MonitorEvent e = waitNext(ms);
                if (e != null || !stopped) {
                    return e;
                }
                // a MONITOR_STOPPED outside the mask: wait out the rest, or until a close
            }
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(ms);
            for (;;) {
                long leftNs = deadline - System.nanoTime();
                if (closing || leftNs <= 0) {
                    return null;
                }
                // still a receive: a shutdown of the context ends it with ETERM, as before the stop
                MonitorEvent e = waitNext((int) Math.min(STOPPED_SLICE_MS, TimeUnit.NANOSECONDS.toMillis(leftNs) + 1));
                if (e != null) {
                    return e;
                }
            }
        } catch (IllegalStateException e) {
            throw closedUnder(e);
        } finally {
            receiving.unlock();
        }
    }

    /**
     * {@code e}, thrown by a call on {@link #events} under {@link #receiving}, as the monitor's own
     * refusal when the context closed that socket meanwhile (between two slices of a wait, or
     * between an event's two frames): the caller never made a PAIR socket.
     */
    private IllegalStateException closedUnder(IllegalStateException e) {
        return events.isClosed() && !closed ? new IllegalStateException("monitor's context was closed: " + this, e) : e;
    }

    /** Under {@link #receiving}: {@link #next(int)} waiting up to {@code ms} milliseconds (at least 1). */
    private MonitorEvent waitNext(int ms) {
        if (ms != timeoutMs) {
            events.receiveTimeoutMs(ms);
            timeoutMs = ms;
        }
        return next(0);
    }

    /**
     * The next event if one is queued, without waiting. Allocates the event.
     *
     * @return the event, or null when none is queued
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} after the context is
     *     shut down, once libzmq has looked at the shutdown: it does when no event is queued, so
     *     an event queued before {@link ZmqContext#shutdown()} is still returned first, and also
     *     on every 100th receive on the monitor's socket ({@code inbound_poll_rate}; an event is
     *     two receives), so of many events queued then, some are dropped
     * @throws IllegalStateException after {@link #close()} or once the context closed the
     *     monitor's socket (the message names the monitor and which), or while another thread is
     *     receiving on this monitor
     */
    public MonitorEvent tryReceive() {
        enterReceive();
        try {
            return next(ZmqSocket.DONTWAIT);
        } catch (IllegalStateException e) {
            throw closedUnder(e);
        } finally {
            receiving.unlock();
        }
    }

    /**
     * Takes {@link #receiving}, or refuses a second thread as the socket rule does; refuses a closed
     * monitor by name, not with the message of its PAIR socket, which the caller never made.
     */
    private void enterReceive() {
        if (!receiving.tryLock()) {
            throw new IllegalStateException("monitor used by two threads at once: another thread is receiving on it or closing it: "
                    + this);
        }
        if (closed || events.isClosed()) {
            receiving.unlock();
            throw new IllegalStateException((closed ? "monitor is closed: " : "monitor's context was closed: ") + this);
        }
    }

    /**
     * Under {@link #receiving}: both frames of the next event; null when none came, or it was a
     * {@code MONITOR_STOPPED} outside the mask (which sets {@link #stopped} as one inside does).
     */
    private MonitorEvent next(int flags) {
        int size = events.receive(frame, flags);
        if (size < 0) {
            return null;
        }
        // libzmq sends both frames of an event at once: the second is there when the first is
        boolean more = events.hasMore();
        byte[] where = more ? events.receiveBytes(ZmqSocket.DONTWAIT) : null;
        if (size != frame.length || where == null) {
            throw new IllegalStateException("malformed monitor event: firstFrameBytes=" + size + ", expected="
                    + frame.length + ", secondFrame=" + (where == null ? "missing" : where.length + " bytes")
                    + " (a libzmq that sends another event version?)");
        }
        int id = Short.toUnsignedInt(frameView.getShort(LibZmq.MONITOR_EVENT_ID_OFFSET));
        long value = Integer.toUnsignedLong(frameView.getInt(LibZmq.MONITOR_EVENT_VALUE_OFFSET));
        if (id == MonitorEvent.Type.MONITOR_STOPPED.id()) {
            stopped = true;
            if ((mask & id) == 0) {
                return null; // asked of libzmq only so that a close can end a blocked receive
            }
        }
        return new MonitorEvent(MonitorEvent.Type.fromId(id), id, value, new String(where, StandardCharsets.UTF_8));
    }

    /**
     * True after {@link #close()}, or once the context closed the monitor's socket
     * ({@link ZmqContext#close()}): either way no event can be received any more, every receive
     * throws {@link IllegalStateException}, and {@link #close()} has nothing left to release. A
     * monitor whose monitored socket was closed first stays open (it holds its own socket, with the
     * events not yet received and a last {@link MonitorEvent.Type#MONITOR_STOPPED}) until its own
     * close; so does one whose context was only {@link ZmqContext#shutdown() shut down} (its
     * receives throw ETERM, some events queued before the shutdown first returned), as a socket
     * does.
     *
     * @return whether this monitor is closed, or being closed by its context on another thread
     */
    public boolean isClosed() {
        return closed || events.isClosed();
    }

    /**
     * Stops the monitoring ({@code zmq_socket_monitor(socket, NULL, 0)}, which sends a last
     * {@link MonitorEvent.Type#MONITOR_STOPPED}, asked of libzmq whatever the mask, to end a
     * receive blocked on another thread) and closes the monitor's socket, dropping events not yet
     * received. Idempotent. When the monitored socket is already closed, its close stopped the
     * monitoring (with a last {@code MONITOR_STOPPED}) and only the monitor's socket is closed; the
     * same after the context is shut down or closed. A socket marked closed whose close still waits
     * for a call on another thread stops the monitoring and closes the monitor's socket once that
     * call is over: this close returns at once, and the monitor is closed to its callers.
     *
     * @throws IllegalStateException while another thread is inside a call on the monitored
     *     socket: the monitor stays open, close it again once that call is over
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closing = true; // before the stop: a receive that gets its MONITOR_STOPPED returns at once
        boolean libzmqEndGone;
        try {
            libzmqEndGone = monitored.stopMonitor(this); // first: the MONITOR_STOPPED it sends ends a receive blocked under the lock
        } catch (RuntimeException e) {
            closing = false; // still open and working
            throw e;
        }
        if (!libzmqEndGone) {
            closed = true; // the monitored socket's native close, still to come, stops the monitoring and closes events
            return;
        }
        receiving.lock();
        try {
            closed = true;
            events.close();
        } finally {
            receiving.unlock();
        }
    }

    /** For {@link ZmqSocket#closeNative()}, once it has stopped the monitoring of a monitor closed before it ran. */
    void closeEvents() {
        receiving.lock(); // a receive in progress returns: MONITOR_STOPPED was just sent, or it sees closing
        try {
            events.close();
        } finally {
            receiving.unlock();
        }
    }

    @Override
    public String toString() {
        return "SocketMonitor[socket=" + monitored + ", mask=0x" + Integer.toHexString(mask) + ", endpoint=" + endpoint
                + (isClosed() ? ", closed" : "") + "]";
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The forwarding loop behind {@link ZmqProxy#run()}, in place of libzmq 4.3.4's
 * {@code zmq_proxy_steerable}, which busy-loops on a core while a message waits for a side that
 * cannot take it (libzmq issue 4071: it polls the source for input and finds the destination
 * full, again and again). Here a direction whose destination is full polls that destination for
 * room instead, and nothing is taken off the source until the destination can take it: a waiting
 * proxy sleeps in {@code zmq_poll}, and a message it has not forwarded stays in the source's queue.
 *
 * <p>Per message, as libzmq does: every frame is received with {@code zmq_msg_recv}, copied to the
 * capture (if any) with {@code zmq_msg_copy} and a blocking send, and sent on with a blocking
 * {@code zmq_msg_send} (a frame moves, its data is not copied). Before each message the
 * destination's {@code ZMQ_EVENTS} says whether it can take one; once it says so, nobody but this
 * loop sends on it, so the send does not wait (but for a peer that goes away in between, or a
 * ROUTER with {@code ZMQ_ROUTER_MANDATORY} whose addressed peer is full, where it waits as
 * libzmq's does). Up to {@value #BURST} messages go one way before the loop looks at the commands
 * and the other way again.
 *
 * <p>Commands arrive as single frames on the control socket: {@code PAUSE}, {@code RESUME},
 * {@code TERMINATE}, and {@code STATISTICS}, answered on it with the 8 frames
 * {@link ProxyStatistics#fromReply} reads. Unlike libzmq 4.3.4, the commands are not copied to the
 * capture, and a signal (EINTR) neither ends the loop nor resets its counters.
 *
 * <p>Allocation: none per message. The handles used on the way of a message are the plain ones
 * ({@code *_fast}); errno is learnt, only after a failure, as {@link ZmqSocket} learns it.
 * Confined to the thread that runs it.
 */
final class ProxyLoop {

    /** Messages forwarded one way before the loop reads commands and serves the other way. */
    static final int BURST = 256;
    private static final int POLLIN = LibZmq.ZMQ_POLLIN;
    private static final int POLLOUT = LibZmq.ZMQ_POLLOUT;
    private static final int DONTWAIT = LibZmq.ZMQ_DONTWAIT;
    private static final int SNDMORE = LibZmq.ZMQ_SNDMORE;
    private static final byte[] PAUSE = "PAUSE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESUME = "RESUME".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TERMINATE = "TERMINATE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STATISTICS = "STATISTICS".getBytes(StandardCharsets.US_ASCII);
    /** Longer than any command: a longer frame is not one. */
    private static final int COMMAND_BYTES = 16;

    private final MemorySegment frontend;
    private final MemorySegment backend;
    /** NULL for none. */
    private final MemorySegment capture;
    private final MemorySegment control;
    /** The frontend receives: messages go frontend to backend. */
    private final boolean forward;
    /** The backend receives, and is not the frontend: messages go backend to frontend. */
    private final boolean backward;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment items;
    private final int itemCount;
    private final MemorySegment msg;
    private final MemorySegment copy;
    private final MemorySegment errno;
    private final MemorySegment events;
    private final MemorySegment eventsLength;
    private final MemorySegment command;
    // what the destination of each way said last: true once it can take a message
    private boolean backendWritable;
    private boolean frontendWritable;
    private boolean paused;
    /** The counters, in {@link ProxyStatistics}' order. */
    private final long[] counts = new long[ProxyStatistics.FRAMES];
    /** Waits that a signal interrupted (EINTR), for tests; written by the loop's thread only. */
    private volatile int interruptedPolls;

    ProxyLoop(ZmqSocket frontend, ZmqSocket backend, ZmqSocket capture, ZmqSocket control) {
        this.frontend = frontend.enteredHandle();
        this.backend = backend.enteredHandle();
        this.capture = capture == null ? MemorySegment.NULL : capture.enteredHandle();
        this.control = control.enteredHandle();
        this.forward = frontend.type().receives();
        this.backward = backend != frontend && backend.type().receives();
        try {
            itemCount = backend == frontend ? 2 : 3;
            items = arena.allocate(LibZmq.POLLITEM_SIZE * itemCount, 8);
            items.set(ValueLayout.ADDRESS, LibZmq.POLLITEM_SOCKET, this.control);
            items.set(ValueLayout.ADDRESS, LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_SOCKET, this.frontend);
            if (itemCount == 3) {
                items.set(ValueLayout.ADDRESS, 2 * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_SOCKET, this.backend);
            }
            msg = arena.allocate(LibZmq.MSG_LAYOUT);
            copy = arena.allocate(LibZmq.MSG_LAYOUT);
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(msg);
            rc = (int) LibZmq.zmq_msg_init.invokeExact(copy);
            errno = arena.allocate(LibZmq.CAPTURE_LAYOUT);
            events = arena.allocate(ValueLayout.JAVA_INT);
            eventsLength = arena.allocate(ValueLayout.JAVA_LONG);
            command = arena.allocate(COMMAND_BYTES);
        } catch (Throwable t) {
            arena.close();
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Forwards until a {@code TERMINATE} command, then returns; frees the loop's native memory
     * either way.
     *
     * @throws ZmqException when a call fails (ETERM once a context is shut down)
     */
    void run() {
        try {
            while (true) {
                int front = 0;
                int back = 0;
                if (!paused) {
                    if (forward) {
                        if (backendWritable) {
                            front |= POLLIN;
                        } else if (itemCount == 3) {
                            back |= POLLOUT;
                        } else {
                            front |= POLLOUT;
                        }
                    }
                    if (backward) {
                        if (frontendWritable) {
                            back |= POLLIN;
                        } else {
                            front |= POLLOUT;
                        }
                    }
                }
                setEvents(1, front);
                if (itemCount == 3) {
                    setEvents(2, back);
                }
                setEvents(0, POLLIN);
                if (!await()) {
                    continue;
                }
                if ((revents(0) & POLLIN) != 0 && readCommands()) {
                    return;
                }
                if (paused) {
                    continue;
                }
                int frontReady = revents(1);
                int backReady = itemCount == 3 ? revents(2) : frontReady;
                boolean backRoom = !backendWritable && (backReady & POLLOUT) != 0;
                boolean frontRoom = !frontendWritable && (frontReady & POLLOUT) != 0;
                if (forward && (backRoom || backendWritable && (frontReady & POLLIN) != 0)) {
                    backendWritable = forward(frontend, backend, 0);
                }
                if (backward && (frontRoom || frontendWritable && (backReady & POLLIN) != 0)) {
                    frontendWritable = forward(backend, frontend, 4);
                }
            }
        } finally {
            close();
        }
    }

    /** The waits a signal interrupted so far. */
    int interruptedPolls() {
        return interruptedPolls;
    }

    /**
     * Sets what item {@code item} is polled for. Nothing is asked as POLLERR, which a socket never
     * reports: zmq_poll watches a socket's mailbox only when its events are not 0, and a mailbox
     * not watched would not wake the wait with ETERM when that socket's context is shut down.
     */
    private void setEvents(int item, int mask) {
        short watched = (short) (mask == 0 ? LibZmq.ZMQ_POLLERR : mask);
        items.set(ValueLayout.JAVA_SHORT, item * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_EVENTS, watched);
        items.set(ValueLayout.JAVA_SHORT, item * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_REVENTS, (short) 0);
    }

    private int revents(int item) {
        return items.get(ValueLayout.JAVA_SHORT, item * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_REVENTS);
    }

    /**
     * Waits in zmq_poll until something polled for is ready: true then, false when a signal ended
     * the wait (the caller polls again).
     */
    private boolean await() {
        int e;
        try {
            if ((int) LibZmq.zmq_poll_fast.invokeExact(items, itemCount, -1L) >= 0) {
                return true;
            }
            // a signal, usually: told without allocating; anything else by the capturing repeat,
            // without waiting (see LibZmq's class comment)
            e = (int) LibZmq.zmq_errno.invokeExact();
            if (e != LibZmq.EINTR) {
                if ((int) LibZmq.zmq_poll.invokeExact(errno, items, itemCount, 0L) >= 0) {
                    return true;
                }
                e = LibZmq.errno(errno);
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        if (e != LibZmq.EINTR) {
            throw new ZmqException("zmq_poll (proxy)", e);
        }
        interruptedPolls = interruptedPolls + 1;
        return false;
    }

    /**
     * Forwards up to {@value #BURST} whole messages from {@code from} to {@code to}, each only once
     * {@code to} can take it, counting them at {@code counts[at..at+3]} (received on {@code from},
     * then sent on {@code to}).
     *
     * @return whether {@code to} can take another message (false: it is full, or has no peer)
     */
    private boolean forward(MemorySegment from, MemorySegment to, int at) {
        for (int n = 0; n < BURST; n++) {
            if (!writable(to)) {
                return false;
            }
            if (!receive(from, DONTWAIT)) {
                return true;
            }
            long bytes = 0;
            for (;;) {
                long size;
                boolean more;
                try {
                    size = (long) LibZmq.zmq_msg_size.invokeExact(msg);
                    more = (int) LibZmq.zmq_msg_more.invokeExact(msg) != 0;
                } catch (Throwable t) {
                    throw LibZmq.rethrow(t);
                }
                bytes += size;
                int flags = more ? SNDMORE : 0;
                if (capture != MemorySegment.NULL) {
                    copyToCapture(flags);
                }
                send(msg, to, flags, "zmq_msg_send (proxy)");
                if (!more) {
                    break;
                }
                receive(from, 0); // a message arrives whole: the rest of it is there
            }
            counts[at]++;
            counts[at + 1] += bytes;
            int sent = at == 0 ? 6 : 2; // the other socket's "sent" pair
            counts[sent]++;
            counts[sent + 1] += bytes;
        }
        return writable(to);
    }

    /** Whether {@code socket} can take a message now: ZMQ_EVENTS has POLLOUT. */
    private boolean writable(MemorySegment socket) {
        eventsLength.set(ValueLayout.JAVA_LONG, 0, 4L);
        int rc;
        try {
            rc = (int) LibZmq.zmq_getsockopt_fast.invokeExact(socket, LibZmq.ZMQ_EVENTS, events, eventsLength);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        if (rc != 0) {
            throw new ZmqException("zmq_getsockopt(ZMQ_EVENTS) (proxy)", errnoAfterFailure(socket));
        }
        return (events.get(ValueLayout.JAVA_INT, 0) & POLLOUT) != 0;
    }

    /**
     * Receives the next frame of {@code from} into {@link #msg}: false when none can be received
     * now (only with DONTWAIT: none queued, or a REQ/REP whose turn it is to send). A signal is
     * retried. The usual failure, EAGAIN at the end of every burst, is read through zmq_errno(),
     * which allocates nothing; any other answer is checked by a capturing repeat, which does
     * allocate (see LibZmq's class comment) but is not on the way of a message.
     */
    private boolean receive(MemorySegment from, int flags) {
        try {
            for (;;) {
                if ((int) LibZmq.zmq_msg_recv_fast.invokeExact(msg, from, flags) >= 0) {
                    return true;
                }
                if (flags == DONTWAIT && (int) LibZmq.zmq_errno.invokeExact() == LibZmq.EAGAIN) {
                    return false;
                }
                if ((int) LibZmq.zmq_msg_recv.invokeExact(errno, msg, from, flags | DONTWAIT) >= 0) {
                    return true; // it arrived in between
                }
                int e = LibZmq.errno(errno);
                if (flags == DONTWAIT && (e == LibZmq.EAGAIN || e == LibZmq.EFSM)) {
                    return false;
                }
                if (e != LibZmq.EINTR && e != LibZmq.EAGAIN) {
                    throw new ZmqException("zmq_msg_recv (proxy)", e);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    private void copyToCapture(int flags) {
        try {
            int rc = (int) LibZmq.zmq_msg_copy.invokeExact(errno, copy, msg);
            if (rc != 0) {
                throw new ZmqException("zmq_msg_copy (proxy capture)", LibZmq.errno(errno));
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        send(copy, capture, flags, "zmq_msg_send (proxy capture)");
    }

    /**
     * Sends {@code m} on {@code to} with a blocking send, retried after a signal. Not repeated to
     * learn errno (a send inside a message must not be: see {@link ZmqSocket}'s socketCall); errno
     * comes from zmq_errno(), ETERM from a probe.
     */
    private void send(MemorySegment m, MemorySegment to, int flags, String call) {
        try {
            while ((int) LibZmq.zmq_msg_send_fast.invokeExact(m, to, flags) < 0) {
                int e = errnoAfterFailure(to);
                if (e != LibZmq.EINTR) {
                    throw new ZmqException(call, e);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * errno of a plain call that just failed on {@code socket}: zmq_errno(), or ETERM for certain
     * when the socket fails a read of ZMQ_TYPE (which fails with nothing else).
     */
    private int errnoAfterFailure(MemorySegment socket) {
        try {
            int e = (int) LibZmq.zmq_errno.invokeExact();
            eventsLength.set(ValueLayout.JAVA_LONG, 0, 4L);
            if ((int) LibZmq.zmq_getsockopt_fast.invokeExact(socket, LibZmq.ZMQ_TYPE, events, eventsLength) != 0) {
                return LibZmq.ETERM;
            }
            return e;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** Reads every command queued: true on TERMINATE (the rest stay queued). */
    private boolean readCommands() {
        try {
            for (;;) {
                int n = (int) LibZmq.zmq_recv.invokeExact(errno, control, command.address(), (long) COMMAND_BYTES, DONTWAIT);
                if (n < 0) {
                    int e = LibZmq.errno(errno);
                    if (e == LibZmq.EAGAIN) {
                        return false;
                    }
                    if (e != LibZmq.EINTR) {
                        throw new ZmqException("zmq_recv (proxy command)", e);
                    }
                    continue;
                }
                byte[] c = command.asSlice(0, Math.min(n, COMMAND_BYTES)).toArray(ValueLayout.JAVA_BYTE);
                if (java.util.Arrays.equals(c, TERMINATE)) {
                    return true;
                } else if (java.util.Arrays.equals(c, PAUSE)) {
                    paused = true;
                } else if (java.util.Arrays.equals(c, RESUME)) {
                    paused = false;
                } else if (java.util.Arrays.equals(c, STATISTICS)) {
                    reply();
                } else {
                    // only ZmqProxy's own socket is connected to the control socket (it checks)
                    throw new IllegalStateException("proxy received an unknown command: bytes=" + n);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** Answers STATISTICS: the counters, one uint64 frame each in native order. The channel has no high-water mark. */
    private void reply() throws Throwable {
        for (int i = 0; i < counts.length; i++) {
            command.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, counts[i]);
            int flags = i < counts.length - 1 ? SNDMORE : 0;
            while ((int) LibZmq.zmq_send.invokeExact(errno, control, command.address(), (long) ProxyStatistics.FRAME_BYTES, flags) < 0) {
                int e = LibZmq.errno(errno);
                if (e != LibZmq.EINTR) {
                    throw new ZmqException("zmq_send (proxy STATISTICS reply)", e);
                }
            }
        }
    }

    private void close() {
        try {
            int rc = (int) LibZmq.zmq_msg_close.invokeExact(msg);
            rc = (int) LibZmq.zmq_msg_close.invokeExact(copy);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            arena.close();
        }
    }
}

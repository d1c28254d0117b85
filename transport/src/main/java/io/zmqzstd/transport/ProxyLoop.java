package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The forwarding loop behind {@link ZmqProxy#run()}, in place of libzmq 4.3.4's
 * {@code zmq_proxy_steerable}, which busy-loops on a core while a message waits for a side that
 * cannot take it (libzmq issue 4071: it polls the source for input and finds the destination
 * full, again and again). Here a way whose destination is full polls that destination for room
 * instead, and the proxy sleeps in {@code zmq_poll} meanwhile.
 *
 * <p>Per message: every frame is received with {@code zmq_msg_recv}, sent on with
 * {@code zmq_msg_send} (a frame moves, its data is not copied) and then, once it has gone, copied
 * to the capture (if any) with {@code zmq_msg_copy} and a blocking send (libzmq captures a frame
 * before it forwards it; here a frame that waits for room is not captured yet, so the capture
 * never holds half a message while the other way's messages go there), up to {@value #BURST} messages
 * one way before the loop looks at the commands and the other way again. A burst starts only when
 * the destination's {@code ZMQ_EVENTS} says it can take a message (an answer less than
 * {@link #ROOM_TRUSTED_NS} old is trusted), so nothing is taken off the source while the
 * destination has no peer. Within the burst the first frame of each message goes with DONTWAIT
 * (asking {@code ZMQ_EVENTS} before each message cost a system call each: 0.63x libzmq's loop at
 * 64 B in ProxyBenchmark); when the destination fills up in the middle of a burst, that frame
 * stays in hand, "pending", and goes first once the destination has room. Its other frames follow
 * with blocking sends, which do not wait: libzmq takes a message's further frames once it has
 * taken its first. At {@code TERMINATE} a pending message is delivered for as long as the
 * destination's linger (-1: however long it takes; libzmq's loop, blocked in its send, did not read
 * the command at all until then), then let go, all its frames; meanwhile {@code STATISTICS} is
 * still answered.
 *
 * <p>A destination that reports room and then refuses the pending frame again (a ROUTER with
 * {@code ZMQ_ROUTER_MANDATORY} whose addressed peer is full, while another has room) is asked
 * again every millisecond, not in a busy loop. One that cannot route it at all, the addressed peer
 * gone (EHOSTUNREACH), has it dropped, whole, and the loop goes on.
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
    /**
     * How long a destination that took a message, and then had room, is trusted to have room
     * still without asking it again ({@code ZMQ_EVENTS}, a system call): 1 ms.
     */
    static final long ROOM_TRUSTED_NS = 1_000_000L;
    private static final int POLLIN = LibZmq.ZMQ_POLLIN;
    private static final int POLLOUT = LibZmq.ZMQ_POLLOUT;
    private static final int DONTWAIT = LibZmq.ZMQ_DONTWAIT;
    private static final int SNDMORE = LibZmq.ZMQ_SNDMORE;
    /** What {@link #sendFirst} did with a message's first frame: it went. */
    private static final int SENT = 0;
    /** The destination has no room for it now: it stays in hand. */
    private static final int FULL = 1;
    /** The destination cannot route it (EHOSTUNREACH): its peer is gone. */
    private static final int UNROUTABLE = 2;
    /** Longer than any command: a longer frame is not one. */
    private static final int COMMAND_BYTES = 16;

    /** NULL for none. */
    private final MemorySegment capture;
    private final MemorySegment control;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment items;
    private final int itemCount;
    /** Frontend to backend when the frontend receives, backend to frontend when the backend receives and is not the frontend. */
    private final Way[] ways;
    private final MemorySegment copy;
    private final MemorySegment errno;
    private final MemorySegment events;
    private final MemorySegment eventsLength;
    private final MemorySegment command;
    private boolean paused;
    /** TERMINATE was read: the run ends once no message is pending. */
    private boolean terminating;
    /** The counters, in {@link ProxyStatistics}' order. */
    private final long[] counts = new long[ProxyStatistics.FRAMES];
    /** Waits that a signal interrupted (EINTR), for tests; written by the loop's thread only. */
    private volatile int interruptedPolls;
    /** Messages let go at TERMINATE, their destination's linger over (see {@link Way#drop()}); for tests. */
    private volatile int dropped;
    /** Messages dropped as unroutable (see {@link Way#unroutable}); for tests. */
    private volatile int unroutableDropped;
    /** Messages held now (see {@link Way#pending}); for tests. */
    private volatile int pendingNow;

    /** One direction of the proxy: its sockets, poll items, message and state. */
    private final class Way {
        final MemorySegment from;
        final MemorySegment to;
        /** Poll items of {@link #from} and {@link #to}. */
        final int fromItem;
        final int toItem;
        /** Where its counts start in {@link #counts}: received on {@code from}; sent on {@code to} at {@link #sentAt}. */
        final int receivedAt;
        final int sentAt;
        /** The message being forwarded: a zmq_msg_t of the loop's arena. */
        final MemorySegment msg;
        /** What {@code to} said last: true while it can take a message. */
        boolean writable;
        /** When {@code to} last showed room ({@link System#nanoTime()}): a send went, or it said so. */
        long roomAtNs;
        /** {@link #msg} holds a message's first frame that {@code to} has not taken yet (not captured either). */
        boolean pending;
        /** The size of that frame, and whether more frames of its message follow it. */
        long pendingBytes;
        boolean pendingMore;
        /**
         * Once TERMINATE is read with a message pending: until when it may still be delivered
         * ({@link System#nanoTime()}), from {@code to}'s ZMQ_LINGER; {@link Long#MAX_VALUE} for
         * as long as it takes (linger -1).
         */
        long deliverByNs;
        /**
         * {@code to} reported room and refused the pending frame all the same: it is not polled for
         * room (it would report it at once, again), the loop waits 1 ms at most and tries again. A
         * mandatory ROUTER reports room while any peer has it; its mailbox descriptor, which would
         * wake the loop when the addressed peer gets room, is emptied by receives on it and by
         * zmq_poll's own ZMQ_EVENTS after the poll that read it, so a wake-up could be lost (README,
         * "Proxy").
         */
        boolean refused;

        Way(MemorySegment from, MemorySegment to, int fromItem, int toItem, int receivedAt, int sentAt) throws Throwable {
            this.from = from;
            this.to = to;
            this.fromItem = fromItem;
            this.toItem = toItem;
            this.receivedAt = receivedAt;
            this.sentAt = sentAt;
            msg = arena.allocate(LibZmq.MSG_LAYOUT);
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(msg);
        }

        /** What this way polls for now: {@code [from's events, to's events]} into {@code mask}. */
        void want(int[] mask) {
            if (pending) {
                if (!refused) {
                    mask[toItem] |= POLLOUT;
                }
            } else if (!paused && !terminating) {
                if (writable) {
                    mask[fromItem] |= POLLIN;
                } else {
                    mask[toItem] |= POLLOUT;
                }
            }
        }

        /** Serves the way after a poll: the pending message first, then a burst. */
        void serve() {
            int fromReady = revents(fromItem);
            int toReady = revents(toItem);
            if (pending) {
                if (!refused && (toReady & POLLOUT) == 0 || !sendPending()) {
                    return;
                }
            } else if (!(writable ? (fromReady & POLLIN) != 0 : (toReady & POLLOUT) != 0)) {
                return;
            }
            if (!paused && !terminating) {
                writable = burst();
            }
        }

        /**
         * Lets the pending message go (TERMINATE, and {@code to}'s linger is over): its first frame,
         * and its other frames, taken off {@code from} so that the caller's next receive there does
         * not start in the middle of it. The capture saw none of it (a frame is captured once it has
         * been forwarded).
         */
        void drop() {
            skipRest(pendingMore);
            try {
                int rc = (int) LibZmq.zmq_msg_close.invokeExact(msg);
                rc = (int) LibZmq.zmq_msg_init.invokeExact(msg);
            } catch (Throwable t) {
                throw LibZmq.rethrow(t);
            }
            pending = false;
            pendingNow = pendingNow - 1;
            dropped = dropped + 1;
        }

        /**
         * Sends the pending frame and the rest of its message: false when {@code to} refused it
         * (after reporting room, or once more after {@link #refused}).
         */
        private boolean sendPending() {
            if (!forward(pendingBytes, pendingMore)) {
                refused = true;
                return false;
            }
            pending = false;
            pendingNow = pendingNow - 1;
            refused = false;
            writable = true;
            roomAtNs = System.nanoTime();
            return true;
        }

        /**
         * Forwards up to {@value #BURST} whole messages: true when {@code from} has no more now,
         * false when {@code to} cannot take another (its message may then be pending).
         */
        private boolean burst() {
            // Nothing is taken off the source unless the destination has room, so that a message
            // waits there while the destination has no peer. Room seen within ROOM_TRUSTED_NS is
            // trusted, not asked again: at high rates a burst ends every few messages, and the
            // question is a system call.
            if (!(writable && System.nanoTime() - roomAtNs < ROOM_TRUSTED_NS)) {
                if (!writable(to)) {
                    return false;
                }
                roomAtNs = System.nanoTime();
            }
            for (int n = 0; n < BURST; n++) {
                if (!receive(from, msg, DONTWAIT)) {
                    if (n > 0) {
                        roomAtNs = System.nanoTime(); // the last send went: room a moment ago
                    }
                    return true;
                }
                long size = size(msg);
                boolean more = more(msg); // read before the send, which empties the message
                if (!forward(size, more)) {
                    pending = true;
                    pendingNow = pendingNow + 1;
                    pendingBytes = size;
                    pendingMore = more;
                    return false;
                }
            }
            roomAtNs = System.nanoTime();
            return true;
        }

        /**
         * Forwards the message whose first frame, of {@code bytes}, is in {@link #msg} ({@code more}:
         * other frames follow on {@code from}): that frame with DONTWAIT, and once it has gone its
         * copy to the capture, then the rest ({@link #finish}). False when {@code to} cannot take it
         * now: it stays in {@link #msg}, and the capture gets nothing, so that no message is ever half
         * sent there. A message {@code to} cannot route, its peer gone, is dropped (see
         * {@link #unroutable}): a client that disconnects before its reply comes does not end the run.
         */
        private boolean forward(long bytes, boolean more) {
            if (capture != MemorySegment.NULL) {
                copyFrame(msg);
            }
            int sent = sendFirst(msg, to, more);
            if (sent != SENT) {
                if (sent == FULL) {
                    return false;
                }
                unroutable(bytes, more);
                return true;
            }
            if (capture != MemorySegment.NULL) {
                sendCopy(more);
            }
            finish(bytes, more);
            return true;
        }

        /**
         * Drops a message {@code to} could not route (EHOSTUNREACH from a ROUTER with
         * ZMQ_ROUTER_MANDATORY, or a STREAM, whose addressed peer has gone), as a ROUTER without that
         * option drops it itself: its other frames are taken off {@code from}, so that the next
         * message there starts whole, and it counts as received, not as sent. libzmq's loop, and this
         * one before 2026-11-28, ended the run with the ZmqException, the message's other frames left
         * in {@code from}.
         */
        private void unroutable(long bytes, boolean more) {
            bytes += skipRest(more);
            counts[receivedAt]++;
            counts[receivedAt + 1] += bytes;
            unroutableDropped = unroutableDropped + 1;
        }

        /** Takes the rest of the message in hand off {@code from} ({@code more}: there is some): the bytes of its frames. */
        private long skipRest(boolean more) {
            long bytes = 0;
            for (boolean next = more; next; next = more(msg)) {
                receive(from, msg, 0);
                bytes += size(msg);
            }
            return bytes;
        }

        /**
         * Sends {@link #copy}, the copy of the frame just forwarded ({@code more}: others follow), to
         * the capture. When that send fails (a send timeout, EAGAIN), the rest of the message
         * still goes to {@code to} before the failure ends the run: else {@code to} kept the message
         * open, never delivered, and {@code from} the rest of it, which the next receive there took
         * for a message of its own. It is the copy of a message's first frame that times out (a frame
         * after the first does not wait at a high-water mark), so the capture holds whole copies only.
         */
        private void sendCopy(boolean more) {
            try {
                send(copy, capture, more ? SNDMORE : 0, "zmq_msg_send (proxy capture)");
            } catch (ZmqException e) {
                if (!e.isContextTerminated()) {
                    try {
                        for (boolean next = more; next; ) {
                            receive(from, msg, 0);
                            next = more(msg);
                            send(msg, to, next ? SNDMORE : 0, "zmq_msg_send (proxy)");
                        }
                    } catch (RuntimeException rest) {
                        e.addSuppressed(rest);
                    }
                }
                throw e;
            }
        }

        /**
         * After a message's first frame of {@code bytes} has gone ({@code more}: others follow):
         * receives and sends its other frames, each then to the capture, and counts the message.
         */
        private void finish(long bytes, boolean more) {
            while (more) {
                receive(from, msg, 0); // a message arrives whole: the rest of it is there
                bytes += size(msg);
                more = more(msg);
                int flags = more ? SNDMORE : 0;
                if (capture != MemorySegment.NULL) {
                    copyFrame(msg);
                }
                send(msg, to, flags, "zmq_msg_send (proxy)");
                if (capture != MemorySegment.NULL) {
                    sendCopy(more);
                }
            }
            counts[receivedAt]++;
            counts[receivedAt + 1] += bytes;
            counts[sentAt]++;
            counts[sentAt + 1] += bytes;
        }
    }

    ProxyLoop(ZmqSocket frontend, ZmqSocket backend, ZmqSocket capture, ZmqSocket control) {
        MemorySegment front = frontend.enteredHandle();
        MemorySegment back = backend.enteredHandle();
        this.capture = capture == null ? MemorySegment.NULL : capture.enteredHandle();
        this.control = control.enteredHandle();
        try {
            itemCount = backend == frontend ? 2 : 3;
            int backItem = itemCount - 1;
            items = arena.allocate(LibZmq.POLLITEM_SIZE * itemCount, 8);
            items.set(ValueLayout.ADDRESS, LibZmq.POLLITEM_SOCKET, this.control);
            items.set(ValueLayout.ADDRESS, LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_SOCKET, front);
            items.set(ValueLayout.ADDRESS, backItem * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_SOCKET, back);
            // counts: frontend received 0-1 and sent 2-3, backend received 4-5 and sent 6-7
            Way forward = frontend.type().receives() ? new Way(front, back, 1, backItem, 0, 6) : null;
            Way backward = backend != frontend && backend.type().receives() ? new Way(back, front, backItem, 1, 4, 2) : null;
            ways = forward == null ? new Way[] {backward} : backward == null ? new Way[] {forward} : new Way[] {forward, backward};
            copy = arena.allocate(LibZmq.MSG_LAYOUT);
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(copy);
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
     * Forwards until a {@code TERMINATE} command (and the delivery of any message pending then),
     * then returns; frees the loop's native memory either way.
     *
     * @throws ZmqException when a call fails (ETERM once a context is shut down)
     */
    void run() {
        int[] mask = new int[itemCount];
        try {
            while (true) {
                java.util.Arrays.fill(mask, 0);
                mask[0] = POLLIN;
                long timeoutMs = -1;
                for (Way w : ways) {
                    w.want(mask);
                    if (w.pending && w.refused) {
                        timeoutMs = 1;
                    }
                    if (w.pending && terminating && w.deliverByNs != Long.MAX_VALUE) {
                        long leftMs = Math.max(0, (w.deliverByNs - System.nanoTime() + 999_999) / 1_000_000);
                        timeoutMs = timeoutMs < 0 ? leftMs : Math.min(timeoutMs, leftMs);
                    }
                }
                for (int i = 0; i < itemCount; i++) {
                    setEvents(i, mask[i]);
                }
                if (!await(timeoutMs)) {
                    continue;
                }
                if ((revents(0) & POLLIN) != 0 && readCommands()) {
                    for (Way w : ways) {
                        w.deliverByNs = w.pending ? deadline(w.to) : 0;
                    }
                }
                boolean pending = false;
                for (Way w : ways) {
                    w.serve();
                    if (w.pending && terminating && System.nanoTime() - w.deliverByNs >= 0) {
                        w.drop();
                    }
                    pending |= w.pending;
                }
                if (terminating && !pending) {
                    return;
                }
            }
        } finally {
            close();
        }
    }

    /**
     * When a message pending for {@code to} as TERMINATE is read must have gone: now plus
     * {@code to}'s ZMQ_LINGER, as libzmq keeps a closed socket's queued messages;
     * {@link Long#MAX_VALUE} for linger -1 (for as long as it takes).
     */
    private long deadline(MemorySegment to) {
        int lingerMs = intOption(to, LibZmq.ZMQ_LINGER, "ZMQ_LINGER");
        return lingerMs < 0 ? Long.MAX_VALUE : System.nanoTime() + lingerMs * 1_000_000L;
    }

    /** The waits a signal interrupted so far. */
    int interruptedPolls() {
        return interruptedPolls;
    }

    /** The messages held now, each waiting for its destination to have room (0 to 2). */
    int pending() {
        return pendingNow;
    }

    /** The messages dropped so far because their destination could not route them. */
    int unroutable() {
        return unroutableDropped;
    }

    /** The messages let go at TERMINATE so far. */
    int dropped() {
        return dropped;
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
    private boolean await(long timeoutMs) {
        int e;
        try {
            if ((int) LibZmq.zmq_poll_fast.invokeExact(items, itemCount, timeoutMs) >= 0) {
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

    private long size(MemorySegment m) {
        try {
            return (long) LibZmq.zmq_msg_size.invokeExact(m);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    private boolean more(MemorySegment m) {
        try {
            return (int) LibZmq.zmq_msg_more.invokeExact(m) != 0;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Sends {@code m}, a message's first frame, with DONTWAIT (SNDMORE when more frames follow):
     * {@link #SENT}, {@link #FULL} when {@code to} cannot take it now (no room, or a REQ or REP
     * whose turn it is to receive: ZMQ_EVENTS said room a moment ago, and {@link Way#burst} trusted
     * that for the next message), or {@link #UNROUTABLE} when {@code to} is a ROUTER with
     * ZMQ_ROUTER_MANDATORY or a STREAM and the peer the frame names is not there (EHOSTUNREACH);
     * the frame stays in {@code m} unless sent. A signal is retried.
     * Would-block is read through zmq_errno(), which allocates nothing; any other answer is checked
     * by a capturing repeat, allowed here as the frame starts a message.
     */
    private int sendFirst(MemorySegment m, MemorySegment to, boolean more) {
        int flags = (more ? SNDMORE : 0) | DONTWAIT;
        try {
            for (;;) {
                if ((int) LibZmq.zmq_msg_send_fast.invokeExact(m, to, flags) >= 0) {
                    return SENT;
                }
                if ((int) LibZmq.zmq_errno.invokeExact() == LibZmq.EAGAIN) {
                    return FULL;
                }
                if ((int) LibZmq.zmq_msg_send.invokeExact(errno, m, to, flags) >= 0) {
                    return SENT;
                }
                int e = LibZmq.errno(errno);
                if (e == LibZmq.EAGAIN || e == LibZmq.EFSM) {
                    return FULL; // EFSM: a REQ or REP out of its turn, which comes with POLLOUT
                }
                if (e == LibZmq.EHOSTUNREACH) {
                    return UNROUTABLE;
                }
                if (e != LibZmq.EINTR) {
                    throw new ZmqException("zmq_msg_send (proxy)", e);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** Whether {@code socket} can take a message now: ZMQ_EVENTS has POLLOUT. */
    private boolean writable(MemorySegment socket) {
        return (intOption(socket, LibZmq.ZMQ_EVENTS, "ZMQ_EVENTS") & POLLOUT) != 0;
    }

    /** An int option of {@code socket}, read with the plain handle (nothing allocated); a failure names {@code name}. */
    private int intOption(MemorySegment socket, int option, String name) {
        eventsLength.set(ValueLayout.JAVA_LONG, 0, 4L);
        int rc;
        try {
            rc = (int) LibZmq.zmq_getsockopt_fast.invokeExact(socket, option, events, eventsLength);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        if (rc != 0) {
            throw new ZmqException("zmq_getsockopt(" + name + ") (proxy)", errnoAfterFailure(socket));
        }
        return events.get(ValueLayout.JAVA_INT, 0);
    }

    /**
     * Receives the next frame of {@code from} into {@link #msg}: false when none can be received
     * now (only with DONTWAIT: none queued, or a REQ/REP whose turn it is to send). A signal is
     * retried. The usual failure, EAGAIN at the end of every burst, is read through zmq_errno(),
     * which allocates nothing; any other answer is checked by a capturing repeat, which does
     * allocate (see LibZmq's class comment) but is not on the way of a message.
     */
    private boolean receive(MemorySegment from, MemorySegment msg, int flags) {
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

    /**
     * Copies {@code msg} into {@link #copy} for the capture (libzmq shares the data of a large
     * frame and copies a small one). The plain handle: the copy fails only on a message that is not
     * one (EFAULT), which a repeat through the capturing handle then names.
     */
    private void copyFrame(MemorySegment msg) {
        try {
            if ((int) LibZmq.zmq_msg_copy_fast.invokeExact(copy, msg) != 0
                    && (int) LibZmq.zmq_msg_copy.invokeExact(errno, copy, msg) != 0) {
                throw new ZmqException("zmq_msg_copy (proxy capture)", LibZmq.errno(errno));
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
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

    /** Reads every command queued, up to a TERMINATE (the rest stay queued): true when it read TERMINATE. */
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
                if (java.util.Arrays.equals(c, ZmqProxy.TERMINATE)) {
                    terminating = true;
                    return true;
                } else if (java.util.Arrays.equals(c, ZmqProxy.PAUSE)) {
                    paused = true;
                } else if (java.util.Arrays.equals(c, ZmqProxy.RESUME)) {
                    paused = false;
                } else if (java.util.Arrays.equals(c, ZmqProxy.STATISTICS)) {
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
            int rc = (int) LibZmq.zmq_msg_close.invokeExact(copy);
            for (Way w : ways) {
                rc = (int) LibZmq.zmq_msg_close.invokeExact(w.msg); // a pending frame only when the run failed
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            arena.close();
        }
    }
}

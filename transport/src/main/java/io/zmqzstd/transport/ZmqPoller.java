package io.zmqzstd.transport;

import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.transport.internal.LibZmq;
import io.zmqzstd.transport.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * zmq_poll over a set of at most {@code capacity} sockets. Register sockets, then call
 * {@link #poll} in a loop: polling allocates nothing. {@link #unregister} takes a socket out
 * (a closed one too) and {@link #events(int, int)} changes what is polled for; the index
 * {@link #register} gave a socket stays its own until it is unregistered. Not thread-safe; like
 * sockets, use it from one thread at a time: a {@link #poll}, {@link #register},
 * {@link #unregister}, {@link #events(int, int)} or {@link #close()} while another thread is in one
 * of them is refused with {@link IllegalStateException} naming both threads, changing nothing.
 *
 * <pre>{@code
 * try (ZmqPoller poller = new ZmqPoller(2)) {
 *     int a = poller.register(sockA, ZmqPoller.POLLIN);
 *     int b = poller.register(sockB, ZmqPoller.POLLIN);
 *     while (running) {
 *         if (poller.poll(100) > 0 && poller.isReadable(a)) { sockA.receive(msg, ZmqSocket.DONTWAIT); }
 *     }
 * }
 * }</pre>
 */
public final class ZmqPoller implements AutoCloseable {

    /** ZMQ_POLLIN (1): a message can be received without blocking. */
    public static final int POLLIN = LibZmq.ZMQ_POLLIN;
    /** ZMQ_POLLOUT (2): a message can be sent without blocking. */
    public static final int POLLOUT = LibZmq.ZMQ_POLLOUT;
    /**
     * ZMQ_POLLERR (4): an error on a plain file descriptor; never reported for sockets.
     * {@link #register} and {@link #events} take it beside POLLIN and POLLOUT, and
     * {@link #hasError} stays false.
     */
    public static final int POLLERR = LibZmq.ZMQ_POLLERR;

    /**
     * The longest {@link #poll} with nothing registered: libzmq then sleeps with {@code usleep},
     * whose microseconds are an unsigned 32-bit count, so {@code (2^32 - 1) / 1000} ms, about 71.6
     * minutes (a longer timeout wrapped around: 4294968 ms slept 0.7 ms). With a socket registered
     * any timeout is honoured: libzmq waits in slices it can represent until the time is up.
     */
    public static final long MAX_EMPTY_POLL_TIMEOUT_MS = 0xFFFF_FFFFL / 1000;

    private final Arena arena;
    private final MemorySegment items;
    private final MemorySegment capture;
    // zmq_poll takes the items packed: positions 0 to count - 1. An index (what register returns)
    // names a registration for as long as it lasts; an unregister moves the last item into the
    // freed position, so the two are mapped both ways.
    /** The socket at each position. */
    private final ZmqSocket[] sockets;
    /**
     * Whether a poll skips the socket at a position: it enters each socket once, at the one
     * registration of it marked false (its first; an item keeps its mark when it moves).
     */
    private final boolean[] repeated;
    /** The position of each index, -1 while the index is free. */
    private final int[] positionOf;
    /** The index of each position. */
    private final int[] indexAt;
    /**
     * How many registrations each registered socket has: a register learns from it whether the
     * socket is there already without searching the items (an unregister that searched them for
     * each item cost the square of the registrations).
     */
    private final Map<ZmqSocket, Integer> registrations = new IdentityHashMap<>();
    /**
     * One thread at a time in a poll or a change of the items. zmq_poll reads the items (each
     * socket's handle, again after every wake-up) for as long as it runs, and a poll leaves the
     * sockets it entered by their positions: until 2026-11-29 a register or unregister on another
     * thread changed both under it, so libzmq asked a socket no poll had entered for its events,
     * and the poll's end left the moved socket instead of the polled one, whose every later call
     * and close then waited for a call that had ended (PollerConcurrentUseTest).
     */
    private final CallGuard guard = new CallGuard("poller", null, "a callback");
    /** The thread whose {@link #close()} freed the items, for a read it overtook on another thread. */
    private volatile Thread closer;
    private int count;

    /**
     * A poller for up to {@code capacity} sockets.
     *
     * @param capacity how many registrations it can hold, at least 1
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    public ZmqPoller(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: capacity=" + capacity);
        }
        // Everything that can fail on the heap first, then the native memory, released again if
        // taking it fails halfway: a poller that is never built is never closed
        sockets = new ZmqSocket[capacity];
        repeated = new boolean[capacity];
        positionOf = new int[capacity];
        Arrays.fill(positionOf, -1);
        indexAt = new int[capacity];
        arena = Arena.ofShared();
        try {
            items = arena.allocate(LibZmq.POLLITEM_SIZE * capacity, 8);
            capture = arena.allocate(LibZmq.CAPTURE_LAYOUT);
        } catch (Throwable t) {
            arena.close();
            throw t;
        }
    }

    /**
     * Adds a socket to poll for {@code events} ({@link #POLLIN} and/or {@link #POLLOUT}).
     *
     * @param socket an open socket; it may be registered twice (a poll still enters it once)
     * @param events {@link #POLLIN}, {@link #POLLOUT}, both ({@code |}), or 0 for none yet;
     *     {@link #POLLERR} may be added (code written for other bindings often does) and changes
     *     nothing: libzmq never reports it for a socket
     * @return its index, for {@link #isReadable(int)} and friends: the lowest index free, which
     *     is the count of earlier registers until a socket is unregistered
     * @throws IllegalStateException when the poller is full or closed, or the socket is closed, or
     *     when the registrations would outnumber the file descriptors the process may open
     *     ({@code RLIMIT_NOFILE}, {@code ulimit -n}): libzmq's poll over that many items aborts the
     *     process, its {@code poll(2)} failing with EINVAL; or while another thread is in a poll
     *     or a change of this poller (nothing changes)
     * @throws IllegalArgumentException when {@code events} has bits other than POLLIN, POLLOUT
     *     and POLLERR (nothing changes when it throws)
     */
    public int register(ZmqSocket socket, int events) {
        Objects.requireNonNull(socket, "socket");
        ensureOpen();
        guard.enter();
        try {
            return registerEntered(socket, events);
        } finally {
            guard.exit(this);
        }
    }

    private int registerEntered(ZmqSocket socket, int events) {
        if (count == sockets.length) {
            throw new IllegalStateException("poller is full: capacity=" + sockets.length);
        }
        // Every check before anything changes: a refused register takes no slot
        short watched = wakeable(events);
        MemorySegment handle = socket.handle();
        long openFileLimit = LibC.openFileLimit();
        if (count + 1L > openFileLimit) {
            // Only a socket registered many times gets here: each socket holds a descriptor
            throw new IllegalStateException("a poll over more registrations than the process may open files would abort it in libzmq"
                    + " (poll(2) fails with EINVAL): registrations=" + (count + 1) + ", RLIMIT_NOFILE=" + openFileLimit
                    + " (raise ulimit -n, or register each socket once)");
        }
        int index = 0;
        while (positionOf[index] >= 0) { // a free index exists: count < capacity
            index++;
        }
        int p = count++;
        sockets[p] = socket;
        positionOf[index] = p;
        indexAt[p] = index;
        repeated[p] = registrations.merge(socket, 1, Integer::sum) > 1;
        long base = p * LibZmq.POLLITEM_SIZE;
        items.set(ValueLayout.ADDRESS, base + LibZmq.POLLITEM_SOCKET, handle);
        items.set(ValueLayout.JAVA_INT, base + LibZmq.POLLITEM_FD, 0);
        items.set(ValueLayout.JAVA_SHORT, base + LibZmq.POLLITEM_EVENTS, watched);
        items.set(ValueLayout.JAVA_SHORT, base + LibZmq.POLLITEM_REVENTS, (short) 0);
        return index;
    }

    /**
     * Takes {@code socket} out of the poller: every registration of it ends, later polls neither
     * watch nor enter it, and its indices are free for later registers. The other registrations
     * keep their indices, events and last results. The socket may be closed (a closed socket
     * still registered makes every poll throw); it is not closed here.
     *
     * @param socket a socket registered in this poller
     * @return how many registrations it had (more than 1 when it was registered more than once)
     * @throws IllegalArgumentException when {@code socket} is not registered here (nothing changes)
     * @throws IllegalStateException when the poller is closed, or while another thread is in a poll
     *     or a change of this poller (nothing changes)
     */
    public int unregister(ZmqSocket socket) {
        Objects.requireNonNull(socket, "socket");
        ensureOpen();
        guard.enter();
        try {
            return unregisterEntered(socket);
        } finally {
            guard.exit(this);
        }
    }

    private int unregisterEntered(ZmqSocket socket) {
        Integer registered = registrations.remove(socket);
        if (registered == null) {
            throw new IllegalArgumentException("socket is not registered in this poller: " + socket);
        }
        // From the end down: the item moved into a freed position comes from above it, so it was
        // looked at already
        for (int p = count - 1; p >= 0; p--) {
            if (sockets[p] == socket) {
                removeAt(p);
            }
        }
        return registered;
    }

    /** Frees position {@code p}'s index and moves the last item into {@code p}. */
    private void removeAt(int p) {
        positionOf[indexAt[p]] = -1;
        int last = --count;
        if (p != last) {
            MemorySegment.copy(items, last * LibZmq.POLLITEM_SIZE, items, p * LibZmq.POLLITEM_SIZE, LibZmq.POLLITEM_SIZE);
            sockets[p] = sockets[last];
            repeated[p] = repeated[last];
            indexAt[p] = indexAt[last];
            positionOf[indexAt[p]] = p;
        }
        sockets[last] = null; // not kept reachable
    }

    /**
     * Changes the events polled for the socket at {@code index}.
     *
     * @param index the index {@link #register} returned
     * @param events {@link #POLLIN}, {@link #POLLOUT}, both, or 0 to report nothing for it (a
     *     close of its context still wakes the poll); {@link #POLLERR} may be added, as for
     *     {@link #register}, and changes nothing
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     * @throws IllegalArgumentException when {@code events} has bits other than POLLIN, POLLOUT
     *     and POLLERR
     * @throws IllegalStateException when the poller is closed, or while another thread is in a poll
     *     or a change of this poller (nothing changes)
     */
    public void events(int index, int events) {
        ensureOpen();
        guard.enter();
        try {
            long base = position(index) * LibZmq.POLLITEM_SIZE;
            items.set(ValueLayout.JAVA_SHORT, base + LibZmq.POLLITEM_EVENTS, wakeable(events));
        } finally {
            guard.exit(this);
        }
    }

    /**
     * zmq_poll watches a socket's mailbox only when events != 0, so "nothing" is asked as POLLERR,
     * which libzmq never reports for a socket. A caller's POLLERR is taken for the same reason:
     * harmless, and common in code written for other bindings. (Until 2026-11-29 the javadoc, the
     * README and this message said only POLLIN and POLLOUT were taken.)
     */
    private static short wakeable(int events) {
        if ((events & ~(POLLIN | POLLOUT | POLLERR)) != 0) {
            // zmq_pollitem_t's events is a short: other bits would be cut off (0x10000 became 0,
            // nothing watched) or ask for what a socket never reports
            throw new IllegalArgumentException("events must be POLLIN, POLLOUT, both, or 0 (POLLERR may be added: a socket"
                    + " never reports it): events=0x" + Integer.toHexString(events));
        }
        return (short) (events == 0 ? POLLERR : events);
    }

    /**
     * Waits until a registered socket is ready or {@code timeoutMs} passes (-1 = forever, 0 = just
     * look). EINTR is retried for the rest of the timeout. {@link Thread#interrupt()} does not end
     * the wait: the poll returns when a socket is ready, the timeout passes or the context is shut
     * down, with the interrupt status still set. Allocation-free.
     *
     * @param timeoutMs how long to wait in milliseconds: 0 returns at once, -1 (any negative
     *     value) waits until a socket is ready
     * @return how many registrations report an event (0 on timeout): a socket registered twice
     *     and ready for both counts twice, as in {@link #size()}
     * @throws ZmqException when the context was terminated or a socket is invalid; for ETERM the
     *     message names the indices of the sockets whose context was shut down or closed
     * @throws IllegalStateException when a registered socket was closed, or when nothing is
     *     registered and {@code timeoutMs} is negative (such a poll could never end); or while
     *     another thread is in a poll or a change of this poller, or in a call on a registered socket
     *     (nothing is polled)
     * @throws IllegalArgumentException when nothing is registered and {@code timeoutMs} is above
     *     {@link #MAX_EMPTY_POLL_TIMEOUT_MS} (libzmq's sleep would wrap around and end early)
     */
    public int poll(long timeoutMs) {
        ensureOpen();
        if (count == 0 && timeoutMs < 0) {
            // libzmq sleeps instead (about 71 minutes for -1, nothing can wake it): say so instead
            throw new IllegalStateException("nothing is registered: a poll without a timeout would never end");
        }
        if (count == 0 && timeoutMs > MAX_EMPTY_POLL_TIMEOUT_MS) {
            // usleep(timeoutMs * 1000) in libzmq: the microseconds are cut to 32 bits
            throw new IllegalArgumentException("nothing is registered and the timeout is longer than libzmq can sleep: timeoutMs="
                    + timeoutMs + ", max=" + MAX_EMPTY_POLL_TIMEOUT_MS);
        }
        // zmq_poll is a call on every registered socket: each must count it (ZmqSocket.enter), so
        // that a close on another thread waits for the poll to leave libzmq before zmq_close, and
        // a socket in use on another thread is refused; a socket registered twice is entered once.
        // The poller's own guard first: no other thread changes the items while libzmq reads them,
        // nor the positions by which the finally below leaves the sockets.
        guard.enter();
        int entered = 0;
        try {
            for (; entered < count; entered++) {
                if (repeated[entered]) {
                    continue;
                }
                try {
                    sockets[entered].enter();
                } catch (IllegalStateException e) {
                    // The index register returned, not the position: an unregister moves items
                    throw new IllegalStateException("a polled socket cannot be used: index=" + indexAt[entered] + ": "
                            + e.getMessage(), e);
                }
            }
            return pollEntered(timeoutMs);
        } finally {
            for (int i = 0; i < entered; i++) {
                if (!repeated[i]) {
                    sockets[i].exit();
                }
            }
            guard.exit(this);
        }
    }

    private int pollEntered(long timeoutMs) {
        // The clock is read only for a finite wait, so that a retry after EINTR waits what is
        // left of it rather than the whole timeout again (a signal every few milliseconds, e.g.
        // a profiler's, would otherwise make a poll never time out).
        long startNs = timeoutMs > 0 ? System.nanoTime() : 0;
        long waitMs = timeoutMs;
        try {
            for (;;) {
                // Fast call without errno capture: a capturing call makes the JDK slice the
                // capture segment, a heap allocation per poll until C2 has inlined this site
                // (see LibZmq's class comment). Only a failure is asked again, with capture.
                int rc = (int) LibZmq.zmq_poll_fast.invokeExact(items, count, waitMs);
                if (rc >= 0) {
                    return rc;
                }
                // zmq_poll fails with ETERM (the context is gone: sticky, every later poll fails
                // the same way at once), EFAULT (an invalid socket: fixed), or EINTR (a signal,
                // e.g. a profiler's). The repeat uses timeout 0, never the caller's: it must not
                // wait again. A sticky error comes back with its errno; a result >= 0 proves the
                // failure was transient, and then either a socket is ready (a valid answer) or
                // nothing is and we poll again for the rest of the timeout.
                rc = (int) LibZmq.zmq_poll.invokeExact(capture, items, count, 0L);
                if (rc > 0) {
                    return rc;
                }
                if (rc < 0) {
                    int errno = LibZmq.errno(capture);
                    if (errno != LibZmq.EINTR) {
                        throw new ZmqException("zmq_poll", errno, errno == LibZmq.ETERM ? terminatedNote() : null);
                    }
                }
                waitMs = remainingMs(timeoutMs, startNs, System.nanoTime());
                if (waitMs == 0) {
                    return 0;
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Which registrations made a poll fail with ETERM: libzmq's errno names none, and with sockets
     * of several contexts the caller could not tell whose context was shut down (until 2026-11-29).
     * Null, for the plain hint, when no registered socket's context says so.
     */
    private String terminatedNote() {
        int[] indices = new int[count];
        int n = 0;
        for (int p = 0; p < count; p++) {
            ZmqContext c = sockets[p].context();
            if (c.isShutDown() || c.isClosed()) {
                indices[n++] = indexAt[p];
            }
        }
        if (n == 0) {
            return null;
        }
        Arrays.sort(indices, 0, n);
        StringBuilder named = new StringBuilder();
        for (int i = 0; i < n; i++) {
            named.append(i == 0 ? "" : ", ").append(indices[i]);
        }
        return "the context of the socket" + (n == 1 ? "" : "s") + " at index=" + named
                + " was shut down or closed: unregister " + (n == 1 ? "it" : "them") + " to poll the others";
    }

    /**
     * What is left of {@code timeoutMs} at {@code nowNs} for a poll that began at {@code startNs}:
     * -1 (forever) stays -1, a finite timeout never goes below 0.
     */
    static long remainingMs(long timeoutMs, long startNs, long nowNs) {
        if (timeoutMs < 0) {
            return -1;
        }
        return Math.max(0, timeoutMs - (nowNs - startNs) / 1_000_000);
    }

    /**
     * The events reported by the last {@link #poll} for the socket at {@code index}.
     *
     * @param index the index {@link #register} returned
     * @return {@link #POLLIN} and/or {@link #POLLOUT} bits; 0 when it was not ready
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     * @throws IllegalStateException when the poller is closed (its items are freed)
     */
    public int revents(int index) {
        ensureOpen();
        long at = position(index) * LibZmq.POLLITEM_SIZE + LibZmq.POLLITEM_REVENTS;
        try {
            return items.get(ValueLayout.JAVA_SHORT, at);
        } catch (IllegalStateException freed) {
            // A close on another thread (misuse) freed the items after the check above: the JDK's
            // bare "Already closed" named neither the poller nor the threads (until 2026-11-29).
            // Nothing is added to the read that succeeds.
            Thread c = closer;
            throw new IllegalStateException("poller is closed: it was closed on thread=" + (c == null ? "?" : CallGuard.nameOf(c))
                    + " during this read on thread=" + CallGuard.nameOf(Thread.currentThread())
                    + "; use a poller from one thread at a time", freed);
        }
    }

    /**
     * Whether the last {@link #poll} found a message to receive on the socket at {@code index}.
     *
     * @param index the index {@link #register} returned
     * @return true when {@link #POLLIN} was reported
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     * @throws IllegalStateException when the poller is closed
     */
    public boolean isReadable(int index) {
        return (revents(index) & POLLIN) != 0;
    }

    /**
     * Whether the last {@link #poll} found room to send on the socket at {@code index}.
     *
     * @param index the index {@link #register} returned
     * @return true when {@link #POLLOUT} was reported
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     * @throws IllegalStateException when the poller is closed
     */
    public boolean isWritable(int index) {
        return (revents(index) & POLLOUT) != 0;
    }

    /**
     * Whether the last {@link #poll} reported {@link #POLLERR} at {@code index}. libzmq reports it
     * only for plain file descriptors, so for a socket this stays false.
     *
     * @param index the index {@link #register} returned
     * @return true when {@link #POLLERR} was reported
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     * @throws IllegalStateException when the poller is closed
     */
    public boolean hasError(int index) {
        return (revents(index) & POLLERR) != 0;
    }

    /**
     * The socket registered at {@code index}.
     *
     * @param index the index {@link #register} returned
     * @return that socket (closed or not)
     * @throws IndexOutOfBoundsException when no socket is registered at {@code index}
     */
    public ZmqSocket socket(int index) {
        return sockets[position(index)];
    }

    /** Where the registration {@code index} is among the items. */
    private int position(int index) {
        int p = index >= 0 && index < positionOf.length ? positionOf[index] : -1;
        if (p < 0) {
            throw new IndexOutOfBoundsException("no socket is registered at index " + index
                    + " (never registered, or unregistered)");
        }
        return p;
    }

    /**
     * Registered sockets.
     *
     * @return how many registrations there are, counting a socket registered twice twice (the
     *     indices in use, which after an {@link #unregister} need not be 0 to size - 1)
     */
    public int size() {
        return count;
    }

    /**
     * Frees the poll items; does not close the sockets. Idempotent.
     *
     * @throws IllegalStateException while another thread is in a poll, {@link #register},
     *     {@link #unregister} or {@link #events(int, int)} (misuse: a poller is used by one thread at
     *     a time), naming both threads; the poller stays open and working, close it once that call
     *     has returned
     */
    @Override
    public void close() {
        // Inside the guard, as the poll and every change of the items: none of them can be between
        // its check and its use of the items now. Until 2026-11-29 a close that only freed the items
        // was refused by the JDK under zmq_poll alone, and went through between another thread's
        // check and its use in a register, unregister, events or poll, which then threw the JDK's
        // bare "Already closed" (PollerCloseRaceTest).
        try {
            if (!guard.enterToClose()) { // every later call is refused "poller is closed"
                return;
            }
        } catch (IllegalStateException inUse) {
            throw new IllegalStateException("poller is in use by a call on another thread: close it once that call has returned"
                    + " (the poller stays open): " + inUse.getMessage(), inUse);
        }
        try {
            closer = Thread.currentThread();
            arena.close(); // no downcall holds it: zmq_poll runs inside the guard
        } finally {
            guard.exit(this);
        }
    }

    private void ensureOpen() {
        guard.checkOpen();
    }
}

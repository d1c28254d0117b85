package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A libzmq context: its I/O threads, the sockets made from it, and the {@link NativeBufferPool}
 * that zero-copy sends on those sockets draw from.
 *
 * <p>Thread safety: {@link #socket}, {@link #shutdown()} and {@link #close()} may be called from
 * any thread. {@link #close()} closes every socket this context made that is still open; threads
 * blocked in calls on them are woken with ETERM and waited for first, so closing the context is
 * how a service stops its receiving threads.
 *
 * <p>Order of {@link #close()}: open sockets are closed, {@code zmq_ctx_term} waits for each
 * socket's linger (pending messages are sent or dropped, every zero-copy buffer libzmq held is
 * handed back through the free callback), and only then is a pool that this context owns closed.
 * Sockets made here get a finite linger ({@link Builder#defaultLinger}, 2 s by default) so that
 * close returns even when a peer has gone.
 */
public final class ZmqContext implements AutoCloseable {

    /**
     * The most I/O threads a context may have ({@link Builder#ioThreads}). libzmq takes any count
     * and makes the threads at the first socket, each with a thread and two file descriptors (its
     * epoll and its mailbox), and aborts the process, not the call, when it cannot: at
     * {@code Integer.MAX_VALUE} with {@code std::length_error}, at 100000 with "Too many open files
     * (src/epoll.cpp:65)" (libzmq 4.3.4, 20000 descriptors allowed). libzmq's guide suggests one I/O
     * thread per gigabyte a second in or out; 256 is far above any use for that, and needs 512
     * descriptors.
     */
    public static final int MAX_IO_THREADS = 256;

    /** Linger given to every new socket unless set otherwise: bounded, so close always returns. */
    public static final Duration DEFAULT_LINGER = Duration.ofSeconds(2);

    /** The longest time libzmq takes in an int option ({@code ZMQ_LINGER}, {@code ZMQ_RCVTIMEO}: C ints of milliseconds). */
    private static final Duration MAX_MILLIS_OPTION = Duration.ofMillis(Integer.MAX_VALUE);

    /**
     * {@code linger} as a {@code ZMQ_LINGER} value: whole milliseconds, at most
     * {@code Integer.MAX_VALUE}, and -1 (forever) when negative. Compared before it is converted:
     * {@link Duration#toMillis()} throws {@link ArithmeticException} above about 292 million years,
     * which a caller meaning "as long as possible" may well pass ({@code ChronoUnit.FOREVER}).
     */
    static int lingerMs(Duration linger) {
        return linger.isNegative() ? -1 : millisOption(linger, false);
    }

    /**
     * {@code d}, not negative, as an int option of milliseconds: whole milliseconds (rounded up
     * when {@code roundUp}), at most {@code Integer.MAX_VALUE}. Compared before it is converted,
     * for the reason {@link #lingerMs} gives.
     */
    static int millisOption(Duration d, boolean roundUp) {
        if (d.compareTo(MAX_MILLIS_OPTION) >= 0) {
            return Integer.MAX_VALUE;
        }
        long ms = (roundUp ? d.plusNanos(999_999) : d).toMillis(); // below 2^31 ms + 1: no overflow
        return (int) Math.min(ms, Integer.MAX_VALUE);
    }

    private final MemorySegment ctx;
    private final NativeBufferPool pool;
    private final boolean ownsPool;
    private final int defaultLingerMs;
    private final int ioThreads;
    /** A socket was made: libzmq has started the reaper and I/O threads. Guarded by {@link #lock}. */
    private boolean started;
    private final Set<ZmqSocket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile boolean shutdown;
    /** The thread running close() until it has ended, under lock; null before and after. */
    private Thread closer;
    /** close() has done everything (context terminated, owned pool closed); guarded by {@link #lock}. */
    private boolean finished;
    /**
     * Sockets libzmq still has, as the last close() left them; null before close(). Used only by the
     * thread running close() ({@link #closer}, handed over under {@link #lock}), as are the next two.
     */
    private List<ZmqSocket> unclosed;
    /** Every socket of this context is marked closed: none is missing from {@link #unclosed}. */
    private boolean allMarked;
    /** zmq_ctx_term has returned 0. */
    private boolean terminated;
    /** An owned pool's close() has returned normally. */
    private boolean poolClosed;
    /** Guards {@link #closed} and {@link #shutdown} against socket(): private, so no caller's lock on this object can block close(). */
    private final Object lock = new Object();

    /** A context with one I/O thread and a pool of its own (default settings). */
    public ZmqContext() {
        this(new Builder());
    }

    /** {@code pool}, unless it is closed: a context given a closed pool failed only at its first send (until 2026-11-27). */
    private static NativeBufferPool requireOpen(NativeBufferPool pool) {
        if (pool.isClosed()) {
            throw new IllegalArgumentException("the buffer pool given to the context is closed: give an open"
                    + " NativeBufferPool (close it after every context that uses it)");
        }
        return pool;
    }

    private ZmqContext(Builder b) {
        if (b.blocky != null && b.lingerGiven) {
            throw new IllegalArgumentException("blocky(" + b.blocky + ") gives new sockets a linger of " + (b.blocky ? "-1" : "0")
                    + " (as libzmq's ZMQ_BLOCKY does), and defaultLinger another: defaultLingerMs=" + b.defaultLingerMs
                    + "; set one of the two");
        }
        // The pool first: its failure (a bad zmqzstd.leakDetection, say) then leaves nothing native
        // behind, while a failure of the native context below closes it again.
        this.ownsPool = b.pool == null;
        if (!ownsPool) {
            requireOpen(b.pool); // closed between bufferPool() and build()
        }
        this.pool = ownsPool ? new NativeBufferPool() : b.pool;
        this.defaultLingerMs = b.blocky == null ? b.defaultLingerMs : b.blocky ? -1 : 0;
        this.ioThreads = b.ioThreads;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            MemorySegment c = (MemorySegment) LibZmq.zmq_ctx_new.invokeExact(capture);
            if (c.equals(MemorySegment.NULL)) {
                int errno = LibZmq.errno(capture);
                throw new ZmqException("zmq_ctx_new", errno, errno == LibZmq.EMFILE
                        ? Descriptors.outOf("a context taking one for its mailbox") : null);
            }
            try {
                checkMessageLayout((int) LibZmq.zmq_ctx_get.invokeExact(capture, c, LibZmq.ZMQ_MSG_T_SIZE));
                setOption(capture, c, "ZMQ_IO_THREADS", LibZmq.ZMQ_IO_THREADS, b.ioThreads);
                if (b.maxSockets != 0) {
                    setMaxSockets(capture, c, b.maxSockets);
                }
                if (b.blocky != null) {
                    setOption(capture, c, "ZMQ_BLOCKY", LibZmq.ZMQ_BLOCKY, b.blocky ? 1 : 0);
                }
                if (b.ipv6 != null) {
                    setOption(capture, c, "ZMQ_IPV6", LibZmq.ZMQ_IPV6, b.ipv6 ? 1 : 0);
                }
                if (b.ioThreadScheduling != null) {
                    setOption(capture, c, "ZMQ_THREAD_SCHED_POLICY", LibZmq.ZMQ_THREAD_SCHED_POLICY, b.ioThreadScheduling.policy);
                }
            } catch (Throwable t) {
                int ignored = (int) LibZmq.zmq_ctx_term.invokeExact(capture, c); // no sockets yet: returns at once
                throw t;
            }
            this.ctx = c;
        } catch (Throwable t) {
            if (ownsPool) {
                pool.close();
            }
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Settings for a context other than the defaults of {@link #ZmqContext()}.
     *
     * @return a builder with the defaults: one I/O thread, inherited scheduling, libzmq's 1023
     *     sockets at most, a pool of the context's own, {@link #DEFAULT_LINGER}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * ZMQ_MAX_SOCKETS on a context that has no socket yet (libzmq sizes its table of sockets at the
     * first one and ignores the option from then on), checked against ZMQ_SOCKET_LIMIT first:
     * libzmq 4.3.4 takes any value from 1 but cannot serve more than that limit, and a value near
     * {@code Integer.MAX_VALUE} overflows its table's size and aborts the process at the first socket.
     */
    private static void setMaxSockets(MemorySegment capture, MemorySegment c, int maxSockets) throws Throwable {
        int limit = (int) LibZmq.zmq_ctx_get.invokeExact(capture, c, LibZmq.ZMQ_SOCKET_LIMIT);
        if (maxSockets > limit) {
            throw new IllegalArgumentException("maxSockets is above what this libzmq can serve: maxSockets=" + maxSockets
                    + ", ZMQ_SOCKET_LIMIT=" + limit);
        }
        setOption(capture, c, "ZMQ_MAX_SOCKETS", LibZmq.ZMQ_MAX_SOCKETS, maxSockets);
    }

    /** zmq_ctx_set, a refusal thrown naming the option and the value. */
    private static void setOption(MemorySegment capture, MemorySegment c, String name, int option, int value) throws Throwable {
        int rc = (int) LibZmq.zmq_ctx_set.invokeExact(capture, c, option, value);
        if (rc != 0) {
            throw new ZmqException("zmq_ctx_set(" + name + "=" + value + ")", LibZmq.errno(capture));
        }
    }

    /**
     * A libzmq version as {@code zmq_version} reports it; {@link #toString()} gives
     * {@code major.minor.patch}.
     *
     * @param major the major version (4 for libzmq 4.3.5)
     * @param minor the minor version (3 for libzmq 4.3.5)
     * @param patch the patch level (5 for libzmq 4.3.5)
     */
    public record Version(int major, int minor, int patch) {
        @Override
        public String toString() {
            return major + "." + minor + "." + patch;
        }
    }

    /**
     * The version of the libzmq this process loaded (zmq_version).
     *
     * @return the loaded library's version; this binding needs 4.3.0 or later
     *     ({@link io.zmqzstd.nativelib.NativeLibrary#MINIMUM_ZMQ_VERSION}: an older one is refused
     *     when it is opened, and this method then throws
     *     {@link io.zmqzstd.nativelib.NativeLibraryUnavailableException} naming its version)
     */
    public static Version version() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT, 3);
            LibZmq.zmq_version.invokeExact(v, v.asSlice(4), v.asSlice(8));
            return new Version(v.getAtIndex(ValueLayout.JAVA_INT, 0), v.getAtIndex(ValueLayout.JAVA_INT, 1),
                    v.getAtIndex(ValueLayout.JAVA_INT, 2));
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Whether the libzmq this process loaded was built with a capability ({@code zmq_has}): a
     * transport ({@code "ipc"}, {@code "pgm"} for pgm and epgm, {@code "tipc"}, {@code "norm"},
     * {@code "vmci"}) or a security mechanism ({@code "curve"}, {@code "gssapi"}). libzmq 4.3.4
     * answers false for {@code "ws"} and {@code "wss"} (Debian's, whose ws works, did), and for any
     * name it does not know. tcp is always built.
     *
     * @param capability the lowercase name libzmq documents for {@code zmq_has}
     * @return true when libzmq reports it
     */
    public static boolean has(String capability) {
        try (Arena a = Arena.ofConfined()) {
            return (int) LibZmq.zmq_has.invokeExact(a.allocateFrom(capability, StandardCharsets.US_ASCII)) != 0;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Every message this binding hands to libzmq lives in a {@link LibZmq#MSG_LAYOUT} of 64 bytes:
     * if the loaded libzmq's {@code zmq_msg_t} were larger, libzmq would write past it. Checked
     * once per context, with the size the context reports ({@code ZMQ_MSG_T_SIZE}).
     *
     * @param reportedBytes what {@code zmq_ctx_get(ZMQ_MSG_T_SIZE)} returned
     * @throws IllegalStateException when the sizes differ, or libzmq cannot tell (a build that
     *     does not answer {@code ZMQ_MSG_T_SIZE}; every release from 4.3.0, the oldest accepted, does)
     */
    static void checkMessageLayout(int reportedBytes) {
        if (reportedBytes != LibZmq.MSG_LAYOUT.byteSize()) {
            throw new IllegalStateException("libzmq's zmq_msg_t does not match this binding: sizeofZmqMsgT="
                    + reportedBytes + " (-1: not reported), expected=" + LibZmq.MSG_LAYOUT.byteSize()
                    + ", libzmq=" + version() + "; zmq-zstd needs a libzmq whose zmq_msg_t is "
                    + LibZmq.MSG_LAYOUT.byteSize() + " bytes, as every release from 4.3.0 has");
        }
    }

    /**
     * A new socket. The caller owns it (close it, or let {@link #close()} do so); it must be used by
     * one thread at a time. Its linger is the context's default ({@link Builder#defaultLinger},
     * 2 s unless set).
     *
     * @param type the libzmq socket type
     * @return a new open socket of that type
     * @throws IllegalStateException when the context is closed
     * @throws ZmqException when libzmq cannot make the socket (e.g. EMFILE: too many sockets, or
     *     ETERM after {@link #shutdown()}). A context holds at most {@link #maxSockets()} sockets
     *     at once (libzmq's {@code ZMQ_MAX_SOCKETS}, 1023 unless {@link Builder#maxSockets} raised
     *     it; a {@link SocketMonitor} takes two (its receiving socket, and one libzmq makes for
     *     it that no count here sees), a {@link ZmqProxy} two, and a closed socket keeps
     *     its place until its linger is over): beyond that EMFILE, whose message names the count,
     *     the limit and {@link Builder#maxSockets}, as libzmq's text ("Too many open files") names
     *     only the process's file descriptors. Each socket also takes a file descriptor: when the
     *     process is out of them, EMFILE (ENFILE when the system is), whose message says so and
     *     names {@code RLIMIT_NOFILE} ({@code ulimit -n}). The first socket of a context checks
     *     first that the descriptors libzmq then opens for its threads are free (3, and 2 per
     *     I/O thread), as libzmq aborts the process when one runs out among them; another thread
     *     taking descriptors in between can still make it abort
     */
    public ZmqSocket socket(SocketType type) {
        Objects.requireNonNull(type, "type");
        // Under the lock that close() takes to set closed: zmq_socket never runs on a context
        // that zmq_ctx_term may have freed, and close() sees every socket made before it.
        synchronized (lock) {
            ensureOpen();
            if (!started) {
                // libzmq 4.3.4 starts the threads here, and aborts the process if a descriptor runs out
                // between a thread's mailbox and its epoll: count them first.
                int needed = 3 + 2 * ioThreads;
                Descriptors.require("zmq_socket(" + type + ")", needed, "a context's first socket needs " + needed
                        + " (2 for libzmq's reaper thread, 2 for each of its " + ioThreads + " I/O threads, 1 for the socket),"
                        + " and libzmq aborts the process when one of the threads' is missing");
            }
            ZmqSocket s = new ZmqSocket(this, type, defaultLingerMs);
            started = true;
            sockets.add(s);
            return s;
        }
    }

    /**
     * How many sockets this context can hold at once ({@code zmq_ctx_get(ZMQ_MAX_SOCKETS)}).
     *
     * @return {@link Builder#maxSockets}'s value, or libzmq's default of 1023
     * @throws IllegalStateException when the context is closed
     */
    public int maxSockets() {
        synchronized (lock) { // close() cannot free the context under the call
            ensureOpen();
            return ctxGet(LibZmq.ZMQ_MAX_SOCKETS);
        }
    }

    /**
     * Whether this context's {@code ZMQ_BLOCKY} is on ({@code zmq_ctx_get}): {@link Builder#blocky}'s
     * value, or libzmq's default, true. It chose the linger of the sockets made since only where
     * {@link Builder#blocky} was given; otherwise they have {@link Builder#defaultLinger}'s.
     *
     * @return true when libzmq's ZMQ_BLOCKY is on
     * @throws IllegalStateException when the context is closed
     */
    public boolean blocky() {
        synchronized (lock) {
            ensureOpen();
            return ctxGet(LibZmq.ZMQ_BLOCKY) != 0;
        }
    }

    /**
     * Whether sockets made by this context start with {@code ZMQ_IPV6} on ({@code zmq_ctx_get}):
     * {@link Builder#ipv6}'s value, or false.
     *
     * @return true when new sockets use IPv6 for tcp
     * @throws IllegalStateException when the context is closed
     */
    public boolean ipv6() {
        synchronized (lock) {
            ensureOpen();
            return ctxGet(LibZmq.ZMQ_IPV6) != 0;
        }
    }

    /**
     * The pool that {@link ZmqSocket#sendPooled} on this context's sockets draws from. Owned by
     * this context unless given to the builder.
     *
     * @return the pool; still returned after {@link #close()}, when an owned pool is closed too
     */
    public NativeBufferPool bufferPool() {
        return pool;
    }

    /**
     * The native {@code void *} context, for interop; valid until {@link #close()}.
     *
     * @return the context pointer as a zero-length segment
     * @throws IllegalStateException when the context is closed
     */
    public MemorySegment handle() {
        ensureOpen();
        return ctx;
    }

    /**
     * zmq_ctx_shutdown: every call blocked waiting in libzmq on this context's sockets (a receive
     * with nothing queued, a send at the high-water mark, a poll) returns with a
     * {@link ZmqException} whose {@link ZmqException#isContextTerminated()} is true. Sockets still
     * need closing (by their owners or by {@link #close()}). Idempotent; callable from any thread.
     *
     * <p>A later call throws that ETERM only once its socket has taken the shutdown, which libzmq
     * 4.3.4 hands each socket as a command that the socket looks at now and then, not on every
     * call. Until then a receive, blocking or not, hands out frames queued before the shutdown, up
     * to libzmq's 100th receive since the socket last looked, the rest of the queue never handed
     * out; a receive that finds nothing queued throws ETERM at once. A send made within about a
     * millisecond of the socket's last look goes through and returns true. A poll and
     * {@link ZmqSocket#events()} look every time, and throw ETERM even with frames queued. So a
     * shutdown is no way to drain a socket; see the transport README, "Outcomes and errors".
     */
    public void shutdown() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            // Still under the lock (zmq_ctx_shutdown does not block): close() cannot free the
            // context in between.
            shutdownNative();
        }
    }

    /** zmq_ctx_shutdown, once; the caller makes sure the context is not yet terminated. */
    private void shutdownNative() {
        synchronized (lock) {
            if (shutdown) {
                return;
            }
            shutdown = true;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            int rc = (int) LibZmq.zmq_ctx_shutdown.invokeExact(capture, ctx);
            if (rc != 0) {
                throw new ZmqException("zmq_ctx_shutdown", LibZmq.errno(capture));
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Closes the sockets still open, terminates the context honouring each socket's linger, then
     * closes the pool if this context owns it. Idempotent; callable from any thread.
     *
     * <p>Other threads may be inside calls on this context's sockets, blocked in a receive, a send
     * at the high-water mark or a {@link ZmqPoller#poll}: close then wakes them as
     * {@link #shutdown()} does (their calls throw {@link ZmqException} with
     * {@link ZmqException#isContextTerminated()}), waits until each has left libzmq, and only then
     * closes the sockets and terminates the context. Calls that begin after close has started
     * throw {@link IllegalStateException}. When no call is in progress, the context is not shut
     * down first: pending messages go out within their sockets' linger exactly as with
     * {@code zmq_ctx_term} alone.
     *
     * <p>A close called while another thread's close is running returns once that one has ended
     * (the context terminated, its own pool closed), whatever the outcome; interrupting it does not
     * end the wait, and its interrupt status is kept.
     *
     * <p>When a step throws, the others are still done where they safely can be, and the first
     * throwable is thrown, later ones suppressed in it; {@link #isClosed()} is true all the same. A
     * later close (not one that waited for this one) does what was left: the context is terminated
     * unless a socket libzmq still has could not be closed, as {@code zmq_ctx_term} would wait for
     * it for ever.
     *
     * @throws IllegalStateException when this context owns its pool and an I/O operation on one of
     *     the pool's buffers keeps its memory from being freed (see {@link NativeBufferPool#close()}):
     *     the context is closed and terminated, and a later {@code close()} (or
     *     {@code bufferPool().close()}) frees the memory once that operation has ended
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closer != null) {
                if (closer != Thread.currentThread()) {
                    awaitClosed();
                }
                return;
            }
            if (finished) {
                return;
            }
            closed = true;
            closer = Thread.currentThread();
        }
        boolean done = false;
        try {
            done = closeOnce();
        } finally {
            synchronized (lock) {
                finished = done;
                closer = null;
                lock.notifyAll();
            }
        }
    }

    /**
     * Waits, under the lock, for the close another thread is running to end, with the interrupt
     * status kept: a second close() returned at once while the first waited out a socket's linger,
     * the context not yet terminated and its pool still open (until 2026-11-29).
     */
    private void awaitClosed() {
        boolean interrupted = false;
        while (closer != null) {
            try {
                lock.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The steps of {@link #close()}, each from where an earlier close that threw left off: every
     * step is tried whatever an earlier one threw, the first throwable is thrown with the later
     * ones suppressed. zmq_ctx_term is left out only while a socket libzmq still has is not closed,
     * as it would wait for that socket for ever. Until 2026-11-29 a throw anywhere (an owned pool's
     * close under a channel operation, an Error) left the rest undone for good, a later close()
     * returning at once; and the pool's throw replaced an earlier one.
     *
     * @return true when everything is done: the context terminated and an owned pool closed
     */
    private boolean closeOnce() {
        Throwable failure = null;
        if (!terminated) {
            try {
                // Mark every socket closed first (no call begins on it after that), then look for calls
                // already inside: ZmqSocket.enter()'s handshake makes the two steps race-free. No socket
                // is made once closed is set, and both lists are allocated before any socket is marked.
                // A socket leaves `sockets` only once its close has freed it, so every one libzmq still
                // has is taken, whoever marked it: one an earlier close() could not close, or one whose
                // own close is waiting for a call or threw before zmq_close (until 2026-11-29 left out,
                // and zmq_ctx_term waited for it for ever).
                List<ZmqSocket> open = new ArrayList<>(sockets);
                List<ZmqSocket> mine = new ArrayList<>(open.size());
                unclosed = mine;
                for (ZmqSocket s : open) {
                    if (s.markClosed() || !s.nativeClosed()) {
                        mine.add(s);
                    }
                }
                // A monitor's receiving socket after the rest: closing a monitored socket stops its monitoring,
                // which sends a last event to that socket (see ZmqSocket.closeNative)
                allMarked = true;
                mine.sort(Comparator.comparing((ZmqSocket s) -> s.monitorReceiver));
                boolean busy = false;
                for (ZmqSocket s : mine) {
                    busy |= s.inCall();
                }
                if (busy) {
                    // a call blocked in libzmq returns only with ETERM: wake them all
                    shutdownNative();
                }
            } catch (Throwable t) {
                failure = t;
            }
            if (unclosed != null) {
                for (int i = 0; i < unclosed.size(); i++) {
                    ZmqSocket s = unclosed.get(i);
                    try {
                        s.awaitNoCall();
                        s.closeNative();
                    } catch (Throwable t) {
                        failure = firstOf(failure, t);
                    }
                    if (s.nativeClosed()) {
                        unclosed.set(i, null);
                    }
                }
                unclosed.removeIf(Objects::isNull);
            }
            if (allMarked && unclosed.isEmpty()) {
                try {
                    terminate();
                    terminated = true;
                } catch (Throwable t) {
                    failure = firstOf(failure, t);
                }
            }
        }
        if (ownsPool && !poolClosed) {
            try {
                pool.close();
                poolClosed = true;
            } catch (Throwable t) {
                failure = firstOf(failure, t);
            }
        }
        if (failure != null) {
            throw LibZmq.rethrow(failure);
        }
        return terminated;
    }

    /** {@code first}, with {@code later} suppressed in it, or {@code later} when there is no first. */
    private static Throwable firstOf(Throwable first, Throwable later) {
        if (first == null) {
            return later;
        }
        if (first != later) {
            first.addSuppressed(later);
        }
        return first;
    }

    /** zmq_ctx_term, again on EINTR. Sockets their owners were closing meanwhile: it waits for their zmq_close. */
    private void terminate() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            for (;;) {
                int rc = (int) LibZmq.zmq_ctx_term.invokeExact(capture, ctx);
                if (rc == 0) {
                    return;
                }
                int errno = LibZmq.errno(capture);
                if (errno != LibZmq.EINTR) {
                    throw new ZmqException("zmq_ctx_term", errno);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * True after {@link #close()}.
     *
     * @return whether close has been called (it may still be running on another thread)
     */
    public boolean isClosed() {
        return closed;
    }

    /** True once zmq_ctx_shutdown was called ({@link #shutdown()}, or a close under a call in progress). */
    boolean isShutDown() {
        return shutdown;
    }

    /**
     * Why zmq_socket (or zmq_socket_monitor, which makes a socket of its own) failed with EMFILE,
     * which libzmq reports both when the context has no slot left for a socket
     * ({@code ZMQ_MAX_SOCKETS}, 1023 by default) and when the process is out of file descriptors:
     * its text, "Too many open files", names only the second. A closed socket keeps its slot until
     * libzmq has freed it (after its linger), and each socket monitor holds a slot for libzmq's own
     * socket, so the count of open sockets may be under the limit while the slots are taken; when
     * not one more descriptor can be opened, the message says that instead.
     */
    String tooManySockets() {
        int max = ctxGet(LibZmq.ZMQ_MAX_SOCKETS);
        int open = sockets.size();
        if (open < max && !Descriptors.available(1)) {
            return Descriptors.outOf("each socket taking one (sockets open in this context: " + open + " of ZMQ_MAX_SOCKETS="
                    + max + ")");
        }
        return "sockets open in this context: " + open + ", its limit ZMQ_MAX_SOCKETS=" + max
                + (open >= max ? "; close sockets to make new ones (a monitor holds two, a proxy two), or raise the limit"
                        + " with ZmqContext.builder().maxSockets(n)"
                        : "; so the rest of the limit is held by the sockets libzmq makes for socket monitors (one each),"
                                + " by closed sockets still within their linger, or the process is out of file descriptors;"
                                + " raise the limit with ZmqContext.builder().maxSockets(n) unless it is the last");
    }

    /** zmq_ctx_get of an option that cannot fail on an open context. */
    private int ctxGet(int option) {
        try (Arena a = Arena.ofConfined()) {
            return (int) LibZmq.zmq_ctx_get.invokeExact(a.allocate(LibZmq.CAPTURE_LAYOUT), ctx, option);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** {@link Builder#ioThreads}'s value, for messages. */
    int ioThreads() {
        return ioThreads;
    }

    void forget(ZmqSocket s) {
        sockets.remove(s);
    }

    MemorySegment ctx() {
        return ctx;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("context is closed");
        }
    }

    /**
     * Linux scheduling policies (sched(7)) for libzmq's I/O threads; see
     * {@link Builder#ioThreadScheduling}.
     */
    public enum ThreadScheduling {
        /** {@code SCHED_OTHER}: the default time-sharing policy. */
        NORMAL(0),
        /**
         * {@code SCHED_BATCH}: time-sharing, but a thread that wakes up does not preempt the one
         * running. For a sender that compresses on a machine with fewer cores than busy threads.
         */
        BATCH(3),
        /** {@code SCHED_IDLE}: runs only when nothing else wants the CPU. */
        IDLE(5);

        final int policy;

        ThreadScheduling(int policy) {
            this.policy = policy;
        }
    }

    /** Settings for a {@link ZmqContext}. */
    public static final class Builder {
        private int ioThreads = 1;
        private ThreadScheduling ioThreadScheduling;
        /** 0: libzmq's default. */
        private int maxSockets;
        private NativeBufferPool pool;
        private int defaultLingerMs = (int) DEFAULT_LINGER.toMillis();
        /** {@link #defaultLinger} was called: {@link #blocky} may not choose the linger too. */
        private boolean lingerGiven;
        /** Null: libzmq's default (true), the linger {@link #defaultLinger}'s. */
        private Boolean blocky;
        /** Null: libzmq's default (false). */
        private Boolean ipv6;

        private Builder() {
        }

        /**
         * libzmq I/O threads (default 1).
         *
         * @param ioThreads the size of libzmq's I/O thread pool ({@code ZMQ_IO_THREADS}); 0 to
         *     {@link ZmqContext#MAX_IO_THREADS}, and 0 serves only inproc endpoints (a bind or
         *     connect of another transport throws {@link ZmqException} EMTHREAD, saying so)
         * @return this builder
         * @throws IllegalArgumentException when {@code ioThreads} is negative or above
         *     {@link ZmqContext#MAX_IO_THREADS} (libzmq would abort the process at the first socket)
         */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 0 || ioThreads > MAX_IO_THREADS) {
                throw new IllegalArgumentException("ioThreads must be 0 to " + MAX_IO_THREADS + ": ioThreads=" + ioThreads);
            }
            this.ioThreads = ioThreads;
            return this;
        }

        /**
         * How many sockets the context may hold at once (libzmq's {@code ZMQ_MAX_SOCKETS}, 1023 by
         * default). Each socket also takes a file descriptor (its mailbox), so a process needs
         * about as many descriptors as sockets ({@code ulimit -n}); past that limit libzmq fails
         * the socket with EMFILE too.
         *
         * @param maxSockets at least 1; at most libzmq's {@code ZMQ_SOCKET_LIMIT} (65535 with
         *     epoll), which {@link #build()} checks
         * @return this builder
         * @throws IllegalArgumentException when {@code maxSockets} is below 1
         */
        public Builder maxSockets(int maxSockets) {
            if (maxSockets < 1) {
                throw new IllegalArgumentException("maxSockets must be at least 1: maxSockets=" + maxSockets);
            }
            this.maxSockets = maxSockets;
            return this;
        }

        /**
         * The scheduling policy of the context's I/O threads (libzmq's {@code ZMQ_THREAD_SCHED_POLICY},
         * applied by each I/O thread as it starts; Linux). Default: unset, the threads inherit the
         * policy of the thread that creates the first socket.
         *
         * <p>Why: libzmq's I/O thread sleeps whenever its queues are empty and is woken for the next
         * message; under the default policy each wake-up may preempt the thread that is running. With
         * more busy threads than cores that is often the sending thread, which then waits for a CPU
         * instead of compressing. Measured (BENCHMARKS.md, "Scheduling"): at 1 KiB over tcp on 2
         * cores the sending thread was runnable but off the CPU 29 % of the time, 6,400 preemptions a
         * second. {@link ThreadScheduling#BATCH} stops the I/O thread's wake-ups from preempting;
         * the receiving thread's wake-ups need the same (run it, or the whole process, under
         * {@code chrt --batch 0}). The price is wake-up latency: a woken thread waits for the running
         * one's time slice, up to a few milliseconds, so latency-bound services should leave it unset.
         *
         * @param scheduling the policy for every I/O thread of the context
         * @return this builder
         */
        public Builder ioThreadScheduling(ThreadScheduling scheduling) {
            this.ioThreadScheduling = Objects.requireNonNull(scheduling, "scheduling");
            return this;
        }

        /**
         * A pool to use instead of one owned by the context. The caller keeps ownership and must
         * close it after this context.
         *
         * @param pool an open pool, which may serve several contexts
         * @return this builder
         * @throws IllegalArgumentException when {@code pool} is closed (also checked again by
         *     {@link #build()}); every send through it would fail
         */
        public Builder bufferPool(NativeBufferPool pool) {
            this.pool = requireOpen(Objects.requireNonNull(pool, "pool"));
            return this;
        }

        /**
         * Linger for new sockets (default 2 s; negative = wait forever, as libzmq's own default).
         *
         * @param linger how long a closed socket's pending messages may hold up
         *     {@link ZmqContext#close()} ({@code ZMQ_LINGER}); counted in whole milliseconds (at
         *     most {@code Integer.MAX_VALUE}), zero drops them at once, negative waits forever
         * @return this builder
         */
        public Builder defaultLinger(Duration linger) {
            this.defaultLingerMs = lingerMs(linger);
            this.lingerGiven = true;
            return this;
        }

        /**
         * libzmq's {@code ZMQ_BLOCKY}: the linger of every socket the context makes, as libzmq
         * gives it, instead of {@link #defaultLinger}'s. False gives each socket a linger of 0, so
         * {@link ZmqContext#close()} drops the messages still queued and returns at once, whatever
         * peer is missing; true gives -1, so close waits until every queued message has gone, for
         * ever if its peer never comes. libzmq reads the option only as it makes a socket
         * ({@code socket_base_t}'s constructor): a linger set on a socket afterwards
         * ({@link ZmqSocket#lingerMs(int)}) is the socket's, whatever this says. Unset, the context
         * keeps libzmq's default (true) and the sockets {@link #defaultLinger}'s, 2 s unless set.
         *
         * @param blocky false for sockets that drop their queue at close, true for sockets that wait
         *     for it without end
         * @return this builder
         * @throws IllegalArgumentException from {@link #build()} when {@link #defaultLinger} was set
         *     too: both choose the sockets' linger
         */
        public Builder blocky(boolean blocky) {
            this.blocky = blocky;
            return this;
        }

        /**
         * libzmq's context option {@code ZMQ_IPV6}: every socket the context makes starts with
         * {@link ZmqSocket#ipv6(boolean)} set so (default false): its tcp binds and connects take
         * IPv6 addresses ({@code tcp://[::1]:5555}) and still reach IPv4 ones. A socket may change
         * its own afterwards.
         *
         * @param ipv6 true for sockets that use IPv6 for tcp
         * @return this builder
         */
        public Builder ipv6(boolean ipv6) {
            this.ipv6 = ipv6;
            return this;
        }

        /**
         * Makes the context (and, unless {@link #bufferPool} was given, its pool).
         *
         * @return a new open context
         * @throws ZmqException when libzmq refuses the context or a setting; EMFILE when the
         *     process is out of file descriptors (libzmq's context takes one), the message naming
         *     {@code RLIMIT_NOFILE}, nothing left open
         * @throws IllegalStateException when the loaded libzmq's {@code zmq_msg_t} is not the 64
         *     bytes this binding allocates, or libzmq cannot tell its size
         * @throws io.zmqzstd.nativelib.NativeLibraryUnavailableException when libzmq is missing or
         *     older than 4.3.0; the message names the file, its version and what to install
         * @throws IllegalArgumentException when {@link #maxSockets} is above libzmq's
         *     {@code ZMQ_SOCKET_LIMIT} (the message names both; nothing is left open), or both
         *     {@link #blocky} and {@link #defaultLinger} were set, or the
         *     context makes its own pool and {@code -Dzmqzstd.leakDetection} is not disabled,
         *     sampled or strict
         */
        public ZmqContext build() {
            return new ZmqContext(this);
        }
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.JavaArrays;
import io.zmqzstd.nativelib.internal.MemoryFaults;
import io.zmqzstd.nativelib.internal.RawSegments;
import io.zmqzstd.nativelib.internal.Threads;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static io.zmqzstd.transport.internal.LibZmq.EAGAIN;
import static io.zmqzstd.transport.internal.LibZmq.EINTR;

/**
 * A libzmq socket. Made by {@link ZmqContext#socket}; owned by the caller, who closes it.
 *
 * <p>Threading: like every libzmq socket, use it from one thread at a time (handing it over to
 * another thread needs a happens-before edge, e.g. a queue). Concurrent use is undefined behaviour
 * in libzmq (it may abort the process), so it is refused: a call that reaches libzmq while another
 * thread is inside one on the same socket (a send, receive, option, bind or connect, or a
 * {@link ZmqPoller#poll} over the socket) throws {@link IllegalStateException} before it touches
 * libzmq or anything the call inside uses (the socket's option buffer, say), and the call already
 * inside goes on undisturbed. The exception is closing: {@link #close()} and
 * {@link ZmqContext#close()} may run on another thread while a call is in progress, and wait for
 * it to leave libzmq before anything is freed.
 *
 * <p>Outcomes: send methods return {@code false} and receive methods return {@code false}, -1 or
 * null when the call would block: with {@link #DONTWAIT}, or when a send/receive timeout expired.
 * Real failures throw {@link ZmqException}; a context shut down or closed under a blocking call
 * throws one with {@link ZmqException#isContextTerminated()}, and so do later calls once the
 * socket has taken the shutdown, which it does not on every call: see {@link ZmqContext#shutdown()}
 * for the frames still received and the sends still made after it. EINTR is retried; a retry waits only
 * what is left of a finite send/receive timeout. {@link Thread#interrupt()} does not end a call
 * waiting in libzmq (the JDK cannot end a downcall): it waits on until a message, room, its timeout
 * or the context's shutdown, returns as it would have, and leaves the interrupt status set. A send inside a message (after a part sent with
 * {@link #SNDMORE}) that returns {@code false} on PUSH, DEALER or REQ means the peer the message
 * was going to went away (or its pipe's high-water mark was lowered under what it holds): libzmq
 * dropped the message, the parts already sent included. When the refused part had SNDMORE, libzmq
 * also drops the parts sent after it up to one without SNDMORE, each reported sent, so send the
 * rest of the message before the next one; do not send the refused part again alone, which would
 * go out as a message of its own. With a send that may block (no DONTWAIT, send timeout not 0)
 * libzmq drops the message silently instead, and the send returns {@code true}. Under DONTWAIT
 * too, when the socket has already taken the end of that pipe from libzmq's command queue before
 * the part (which a send does at most about once a millisecond), libzmq drops the rest of the
 * message silently and reports each part sent: a {@code false} shows some of these losses, not all.
 * After {@link #close()} every method that would
 * reach libzmq or the socket's native memory (sends, receives, options, endpoints, monitoring,
 * {@link #hasMore()}, {@link #handle()}) throws {@link IllegalStateException}; {@link #type()},
 * {@link #context()}, {@link #zeroCopyThresholdBytes()} and {@link #isClosed()} still answer.
 *
 * <p>Allocation: {@link #send(MemorySegment, long, long, int)}, {@link #sendPooled},
 * {@link #send(byte[], int)}, {@link #receive(ZmqMessage, int)}, {@link #receive(byte[], int)},
 * {@link #receive(MemorySegment, int)} and {@link #hasMore()} allocate nothing on the Java heap.
 * Option setters and getters, bind and connect may.
 *
 * <p>Options: each typed setter and getter is one {@code zmq_setsockopt} or
 * {@code zmq_getsockopt} call with the {@code ZMQ_*} option it names. A value libzmq refuses (out
 * of range, or an option this socket type does not have) throws {@link ZmqException} with EINVAL,
 * whose message names the option and the value ({@code zmq_setsockopt(ZMQ_SNDHWM=-1)}; for a byte
 * option its length only, as it may be a key). For an option libzmq has on some socket types only
 * (ZMQ_SUBSCRIBE, ZMQ_ROUTER_MANDATORY, ZMQ_ROUTER_HANDOVER, ZMQ_XPUB_*, ZMQ_REQ_*), the message
 * adds that this socket's type does not have it ({@code ZMQ_ROUTER_MANDATORY is an option of ROUTER and REP sockets only:
 * this socket is DEALER}), and a read of one, that it is write-only.
 * The tcp keepalive setters refuse, with {@link IllegalArgumentException}, values that libzmq takes
 * but Linux refuses on every connection (see {@link #MAX_TCP_KEEPALIVE_SECONDS}).
 * Most options apply only to endpoints bound or connected after they are set (libzmq 4.3); the
 * setters say which ones apply at once.
 */
public final class ZmqSocket implements AutoCloseable {

    /** Flag: do not block; the call returns "would block" instead. */
    public static final int DONTWAIT = LibZmq.ZMQ_DONTWAIT;
    /** Flag: more parts of this message follow. */
    public static final int SNDMORE = LibZmq.ZMQ_SNDMORE;

    /**
     * Largest {@link #tcpKeepaliveIdle(int)} and {@link #tcpKeepaliveIntvl(int)} Linux takes
     * ({@code MAX_TCP_KEEPIDLE}, {@code MAX_TCP_KEEPINTVL}); the smallest is 1. libzmq takes any
     * value from 0 and sets it on each new tcp connection, where Linux refuses one outside 1 to
     * this with EINVAL: libzmq then closes the connection and tries again, for ever, so a connect
     * never delivered a message and a bind accepted nothing, with no error anywhere. On Linux these
     * setters refuse such values with {@link IllegalArgumentException}.
     */
    public static final int MAX_TCP_KEEPALIVE_SECONDS = 32767;
    /** Largest {@link #tcpKeepaliveCnt(int)} Linux takes ({@code MAX_TCP_KEEPCNT}); see {@link #MAX_TCP_KEEPALIVE_SECONDS}. */
    public static final int MAX_TCP_KEEPALIVE_CNT = 127;

    private static final int OPT_BYTES = 256;
    /**
     * Pooled frames up to this length are copied into {@link #smallSend} before their one zmq_send:
     * the pool's smallest size class. See {@code sendPooledInCall}.
     */
    static final long SMALL_SEND_BYTES = 256;

    private final ZmqContext context;
    private final SocketType type;
    private final NativeBufferPool pool;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment socket;
    private final MemorySegment capture;
    private final MemorySegment sendMsg;
    private final MemorySegment recvMsg;
    private final MemorySegment opt;
    private final MemorySegment optLen;
    /** This socket's own {@link #SMALL_SEND_BYTES}: what a small pooled send hands to zmq_send. */
    private final long smallSend;
    private boolean more;
    /**
     * The last send this socket completed had SNDMORE: a message is open in libzmq, and a send that
     * fails now is not repeated (see {@link #socketCall}). Written by each send that succeeds.
     */
    private boolean messageOpen;
    /** The account of this socket's binds and connects, and the checks around them. */
    private final SocketEndpoints endpoints = new SocketEndpoints(this);
    /**
     * True once an inproc endpoint was bound or connected, and no endpoint of another transport
     * ({@link SocketEndpoints#noteTransport}). A field of the socket, not a call on
     * {@link #endpoints}, because {@link #sendPooled} reads it on every send: one plain field read.
     */
    private boolean inprocOnly;
    /** {@code ZMQ_CONFLATE} as last set through this object (setInt keeps it current). */
    private boolean conflateSet;
    /**
     * A bind or connect succeeded while {@link #conflateSet}: this socket has (or will have) pipes
     * that keep one frame only, so a multipart send is refused ({@link #checkSendFlags}). A field,
     * read by every send with SNDMORE: one plain read.
     */
    private boolean conflated;
    /**
     * This is an XSUB socket, whose sends of subscription messages are checked
     * ({@link #refuseLongSubscription}). A field, read by every send: one plain read.
     */
    private final boolean xsub;
    // ZMQ_SNDTIMEO / ZMQ_RCVTIMEO as last set through this object (setInt keeps them current):
    // they decide whether a failed fast call may be repeated (see socketCall).
    private int sendTimeoutMs;
    private int receiveTimeoutMs;
    /**
     * The open monitor of this socket, if any; read inside a call (between enter and exit), written
     * inside one or by {@link #closeNative()}, under {@link #monitorLock}.
     */
    private SocketMonitor monitor;
    /**
     * Orders a monitor's close ({@link #stopMonitor}) against {@link #closeNative()}, which may run
     * on another thread (a close that waited for a call, a context's close): the monitor's socket
     * may be closed only once libzmq's end of the monitor is gone.
     */
    private final Object monitorLock = new Object();
    /** This socket receives a monitor's events: {@link ZmqContext#close()} closes it after the other sockets. */
    volatile boolean monitorReceiver;
    /** zmq_close has run (see {@link #closeNative()}); a context's close terminates libzmq's context only then. */
    private volatile boolean nativeClosed;
    /**
     * Makes {@link #closeNative()} run on one thread at a time: the socket's own close and its
     * context's close may both run it, the second finishing what a first that threw left undone.
     */
    private final Object closeLock = new Object();
    /** {@link #closeNative()} has freed the socket's memory: there is nothing left to do; guarded by closeLock. */
    private boolean freed;
    /** A monitor closed before this socket whose events socket {@link #closeNative()} still has to close; guarded by monitorLock. */
    private SocketMonitor eventsToClose;
    /** The call in progress on this socket and its closed state: see {@link #enter()}. */
    private final CallGuard guard;

    ZmqSocket(ZmqContext context, SocketType type, int lingerMs) {
        this.context = context;
        this.type = type;
        this.xsub = type == SocketType.XSUB;
        this.guard = new CallGuard("socket", "type=" + type, "a callback");
        this.pool = context.bufferPool();
        this.capture = arena.allocate(LibZmq.CAPTURE_LAYOUT);
        this.sendMsg = arena.allocate(LibZmq.MSG_LAYOUT);
        this.recvMsg = arena.allocate(LibZmq.MSG_LAYOUT);
        this.opt = arena.allocate(OPT_BYTES, 8);
        this.optLen = arena.allocate(ValueLayout.JAVA_LONG);
        this.smallSend = arena.allocate(SMALL_SEND_BYTES, 64).address();
        MemorySegment s = MemorySegment.NULL;
        try {
            s = (MemorySegment) LibZmq.zmq_socket.invokeExact(capture, context.ctx(), type.code());
            if (s.equals(MemorySegment.NULL)) {
                int errno = LibZmq.errno(capture);
                throw new ZmqException("zmq_socket(" + type + ")", errno, errno == LibZmq.EMFILE ? context.tooManySockets() : null);
            }
            this.socket = s;
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(recvMsg);
            setInt("ZMQ_LINGER", LibZmq.ZMQ_LINGER, lingerMs);
            if (type == SocketType.XPUB) {
                setLong("ZMQ_MAXMSGSIZE", LibZmq.ZMQ_MAXMSGSIZE, XPUB_DEFAULT_MAX_MESSAGE_BYTES);
            }
            // libzmq starts every socket at -1 (infinite); read them anyway rather than assume.
            sendTimeoutMs = getInt("ZMQ_SNDTIMEO", LibZmq.ZMQ_SNDTIMEO);
            receiveTimeoutMs = getInt("ZMQ_RCVTIMEO", LibZmq.ZMQ_RCVTIMEO);
        } catch (Throwable t) {
            // The context only learns of a socket once it is built: a native socket left open
            // here would make zmq_ctx_term wait for it forever, so close it before failing.
            guard.markClosed();
            if (!s.equals(MemorySegment.NULL)) {
                try {
                    int ignored = (int) LibZmq.zmq_close.invokeExact(capture, s);
                } catch (Throwable ignored) {
                    // zmq_close fails only with ENOTSOCK, for a socket that is not one
                }
            }
            arena.close();
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * The socket type.
     *
     * @return the type this socket was made with
     */
    public SocketType type() {
        return type;
    }

    /**
     * The context that made this socket.
     *
     * @return that context, open or closed
     */
    public ZmqContext context() {
        return context;
    }

    // ------------------------------------------------------------------ endpoints

    /**
     * zmq_bind; {@code tcp://127.0.0.1:*} picks a free port, read it back with
     * {@link #lastEndpoint()}.
     *
     * <p>{@code ipc://PATH}: libzmq unlinks whatever is at PATH before it binds (to take over the
     * socket file a closed socket left behind), so this method looks first: a file that is not a
     * socket is refused ({@link IllegalArgumentException}), and so is a socket something listens
     * on ({@link ZmqException} with EADDRINUSE, as a tcp bind to a taken port; that listener sees
     * a connection open and close), and so is a socket file this process may not connect to
     * (another user's of the usual mode 0755: whether somebody listens cannot be told; EADDRINUSE
     * too, the message naming the file and the owner or why it cannot be removed), all before
     * libzmq is asked (a monitor sees no {@code BIND_FAILED}). A socket file nobody listens on is
     * taken over, and so is the path of
     * a listener a socket of this process let go (an unbind, a close), which libzmq
     * closes on its I/O thread just after the call returns. Where libzmq cannot remove such a
     * file (another user's in a sticky directory such as {@code /tmp}, a directory without write
     * permission, immutable or on a read-only file system) it ignores that and its bind fails
     * with EADDRINUSE; the message then names the file and, where it can tell, why. {@code ipc://*}
     * binds a fresh path in a new directory {@code tmpXXXXXX} under {@code $TMPDIR},
     * {@code $TEMPDIR} or {@code $TMP}, and with none of them set under the working directory:
     * {@link #lastEndpoint()} is then a relative path, which a process with another working
     * directory cannot connect to.
     *
     * @param endpoint {@code transport://address}, e.g. {@code tcp://127.0.0.1:5555},
     *     {@code ipc:///tmp/feed} or {@code inproc://feed}
     * @throws ZmqException when libzmq refuses it (e.g. EADDRINUSE, EINVAL for a malformed
     *     endpoint, EPROTONOSUPPORT for an unknown transport; where libzmq's text does not say
     *     what is wrong the message adds it: ENODEV for a tcp host that is not {@code *}, an IP
     *     address or an interface name, as a bind looks no host name up, EINVAL for
     *     {@code inproc://} without a name, ENAMETOOLONG for an ipc path over 107 bytes on
     *     Linux, for {@code ipc://*} the path libzmq made under {@code $TMPDIR}), or EADDRINUSE when a socket listens
     *     on an ipc endpoint's path already or this process may not connect to the socket file
     *     there, or when its path is a socket file nobody listens on that cannot be removed (the
     *     message says which and why); EMFILE (ENFILE when the system's table is full) when the
     *     process is out of file descriptors, which a tcp bind to a host other than {@code *}
     *     checks before libzmq is asked (libzmq 4.3.4 aborts the process when it finds none free
     *     as it lists the network interfaces), the message naming {@code RLIMIT_NOFILE}. On a
     *     socket whose monitor takes {@code BIND_FAILED}, libzmq 4.3.4 answers EAGAIN for any
     *     failure: the bind is then tried on a socket without a monitor for the real errno, and
     *     EAGAIN stands only when that tells nothing (it succeeds, or no socket can be made for it,
     *     the context at its {@link ZmqContext#maxSockets()}), the message saying so
     * @throws IllegalArgumentException when {@code endpoint} contains a NUL character, or a tcp or
     *     ws port that is not {@code *} or a number from 0 to 65535 (libzmq would read another);
     *     or when an ipc endpoint's path holds a regular file, a directory, a symbolic link or
     *     another file that is not a socket (the message names it; libzmq would delete it), an
     *     abstract {@code ipc://@NAME}'s too: the file {@code @NAME} in the working directory,
     *     which libzmq 4.3.4 deletes before it binds the name
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket; or when the socket's CURVE keys make every handshake fail, libzmq not
     *     asked (the message names the option: a client without {@code ZMQ_CURVE_SERVERKEY}, either
     *     side without its own secret key, a client without its public key, or a public key that is
     *     not the secret key's, e.g. a public key given as the secret one; see {@link Curve})
     */
    public void bind(String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        ensureOpen();
        IpcBindGuard.check(endpoint); // outside the call: it asks the file system, not libzmq
        if (endpoint.startsWith("tcp://") && !endpoint.startsWith("tcp://*:")) {
            // libzmq 4.3.4 lists the interfaces to resolve any other host, and aborts the process
            // when that finds no descriptor free
            Descriptors.require("zmq_bind(" + endpoint + ")", 1, "a tcp bind to a host other than * needs 1 while libzmq"
                    + " lists the network interfaces, and libzmq aborts the process without it");
        }
        try {
            endpointCall(SocketEndpoints.BIND, endpoint);
        } catch (ZmqException e) {
            String why = e.errno() == LibZmq.EADDRINUSE ? IpcBindGuard.unremovable(endpoint) : null;
            if (why == null) {
                throw e;
            }
            throw new ZmqException("zmq_bind(" + endpoint + ")", e.errno(), why);
        }
        noteEndpoint(endpoint);
    }

    /**
     * zmq_connect. The connection is made in the background, so this returns before a peer is
     * there.
     *
     * @param endpoint {@code transport://address}, e.g. {@code tcp://127.0.0.1:5555},
     *     {@code ipc:///tmp/feed} or {@code inproc://feed}
     * @throws ZmqException when libzmq refuses it (e.g. EINVAL for a malformed endpoint, the
     *     message adding that {@code inproc://} needs a name; ENAMETOOLONG for an ipc path over
     *     107 bytes on Linux, the message saying so; EPROTONOSUPPORT for an unknown transport)
     * @throws IllegalArgumentException when {@code endpoint} contains a NUL character, or a tcp or
     *     ws port that is not {@code *} or a number from 0 to 65535 (libzmq would read another),
     *     or a destination libzmq would take and try for ever: tcp or ws port 0 (a source port of 0
     *     is fine), a tcp host that is empty ({@code tcp://:5555}) or an IPv6 address in brackets
     *     without a port ({@code tcp://[::1]}, from inside which libzmq reads one)
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket; or when the socket's CURVE keys make every handshake fail, libzmq not
     *     asked (the message names the option: a client without {@code ZMQ_CURVE_SERVERKEY}, either
     *     side without its own secret key, a client without its public key, or a public key that is
     *     not the secret key's, e.g. a public key given as the secret one; see {@link Curve})
     */
    public void connect(String endpoint) {
        endpointCall(SocketEndpoints.CONNECT, endpoint);
        noteEndpoint(endpoint);
    }

    /**
     * zmq_unbind; pass the endpoint returned by {@link #lastEndpoint()} for wildcard binds.
     *
     * <p>libzmq 4.3's zmq_unbind and zmq_disconnect are one call that takes any endpoint of the
     * socket, so an unbind of an endpoint this socket connected to would end that connection:
     * such an unbind is refused. libzmq knows a bind by what {@link #lastEndpoint()} reported
     * after it and a connect by the text given to {@link #connect}; a tcp text that is neither it
     * resolves (the host through DNS) and looks up again, so {@code unbind("tcp://localhost:5555")}
     * reaches a connect to {@code tcp://127.0.0.1:5555}, and is refused. The check finds the
     * endpoint as libzmq does ({@code EndpointMatch}); one that reaches a bind and a connect of this
     * socket both is left to libzmq.
     *
     * @param endpoint an endpoint this socket is bound to: as {@link #lastEndpoint()} reported it
     *     after the bind, which for a bind of an address (not a wildcard or an interface name) is
     *     also the text given to {@link #bind} or, for tcp, any host name of that address
     * @throws ZmqException when libzmq refuses it (ENOENT: not bound here, the message naming the
     *     endpoints libzmq knows this socket's binds and connects by; for the text a wildcard
     *     bind such as {@code tcp://*:5555} or {@code tcp://127.0.0.1:*} was given, which libzmq
     *     does not resolve, the message names the endpoint libzmq knows it by)
     * @throws IllegalArgumentException when {@code endpoint} contains a NUL character, or a tcp or
     *     ws port that is not {@code *} or a number from 0 to 65535 (libzmq would read another),
     *     or when libzmq would end a connect of this socket with it and no bind (the message
     *     names the endpoint, the connect as it was given and says to call {@link #disconnect}
     *     with that)
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket
     */
    public void unbind(String endpoint) {
        endpointCall(SocketEndpoints.UNBIND, endpoint);
    }

    /**
     * zmq_disconnect.
     *
     * <p>libzmq 4.3's zmq_disconnect and zmq_unbind are one call that takes any endpoint of the
     * socket, so a disconnect of an endpoint this socket bound would stop it listening there
     * (until 2026-11-27 it did, without a word): such a disconnect is refused, and so is one of
     * the text a bind was given. libzmq knows a bind by what {@link #lastEndpoint()} reported after
     * it and a connect by the text given to {@link #connect}; a tcp text that is neither it resolves
     * (the host through DNS) and looks up again, so with {@code tcp://127.0.0.1:5555} bound,
     * {@code disconnect("tcp://localhost:5555")} stopped the socket listening there until
     * 2026-11-27, when the check compared text only; it now finds the endpoint as libzmq does
     * ({@code EndpointMatch}). One that reaches a bind and a connect of this socket both is left to
     * libzmq.
     *
     * @param endpoint an endpoint this socket connected to, as given to {@link #connect} (libzmq
     *     does not resolve that text, so another spelling of it, {@code tcp://127.0.0.1:5555} for
     *     {@code tcp://localhost:5555}, finds nothing)
     * @throws ZmqException when libzmq refuses it (ENOENT: not connected to it, the message naming
     *     the endpoints libzmq knows this socket's binds and connects by)
     * @throws IllegalArgumentException when {@code endpoint} contains a NUL character, or a tcp or
     *     ws port that is not {@code *} or a number from 0 to 65535 (libzmq would read another),
     *     or when libzmq would end a bind of this socket with it and no connect, or it is the text
     *     a bind was given (the message names the endpoint, the bind as libzmq knows it and says
     *     to call {@link #unbind} with that)
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket
     */
    public void disconnect(String endpoint) {
        endpointCall(SocketEndpoints.DISCONNECT, endpoint);
    }

    private void endpointCall(String op, String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        SocketEndpoints.checkText(op, endpoint);
        enter();
        try (Arena a = Arena.ofConfined()) {
            if (!SocketEndpoints.ends(op)) {
                checkCurveKeysEntered(op.substring("zmq_".length()) + "(" + endpoint + ")");
            }
            List<String> reached = endpoints.beforeCall(op, endpoint);
            MemorySegment ep = a.allocateFrom(endpoint, StandardCharsets.UTF_8);
            for (;;) {
                int rc = switch (op) {
                    case SocketEndpoints.BIND -> (int) LibZmq.zmq_bind.invokeExact(capture, socket, ep);
                    case SocketEndpoints.CONNECT -> (int) LibZmq.zmq_connect.invokeExact(capture, socket, ep);
                    case SocketEndpoints.UNBIND -> (int) LibZmq.zmq_unbind.invokeExact(capture, socket, ep);
                    default -> (int) LibZmq.zmq_disconnect.invokeExact(capture, socket, ep);
                };
                if (rc == 0) {
                    endpoints.succeeded(op, endpoint, reached);
                    return;
                }
                int errno = LibZmq.errno(capture);
                if (errno == EAGAIN && monitor != null && op.equals(SocketEndpoints.BIND)) {
                    errno = endpoints.bindErrnoWithoutMonitor(endpoint, errno);
                }
                if (errno != EINTR) {
                    throw new ZmqException(op + "(" + endpoint + ")", errno, endpoints.failureNote(op, endpoint, reached, errno));
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            exit();
        }
    }

    /** Notes an endpoint just bound or connected; see {@link #inprocOnly}. */
    private void noteEndpoint(String endpoint) {
        inprocOnly = endpoints.noteTransport(endpoint);
        conflated |= conflateSet;
    }

    /**
     * Below this length {@link #sendPooled} copies a buffer of the context's pool instead of
     * handing it to libzmq: the pool's {@link NativeBufferPool#inprocZeroCopyThresholdBytes()}
     * (default 512 B) while every endpoint bound or connected so far is {@code inproc://}, its
     * {@link NativeBufferPool#zeroCopyThresholdBytes()} (default 8 KiB) once any other one was
     * (tcp, ipc and the rest; an unbind or disconnect does not bring the inproc value back) and
     * before any. Over inproc the receiver reads the sender's buffer itself, so handing it over
     * pays from smaller sizes than over a kernel socket (BENCHMARKS.md, "The zero-copy
     * switch-over").
     *
     * @return the threshold in force for this socket now, in bytes
     */
    public long zeroCopyThresholdBytes() {
        return zeroCopyThresholdIn(pool);
    }

    /** {@code buffers}' threshold for this socket: its inproc one while every endpoint is inproc. */
    private long zeroCopyThresholdIn(NativeBufferPool buffers) {
        return inprocOnly ? buffers.inprocZeroCopyThresholdBytes() : buffers.zeroCopyThresholdBytes();
    }

    /**
     * The endpoint last bound or connected, with the real port of a wildcard bind
     * ({@code ZMQ_LAST_ENDPOINT}).
     *
     * @return that endpoint, e.g. {@code tcp://127.0.0.1:41234}; empty before any bind or connect
     * @throws ZmqException when libzmq cannot read it
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket
     */
    public String lastEndpoint() {
        return getString("ZMQ_LAST_ENDPOINT", LibZmq.ZMQ_LAST_ENDPOINT);
    }

    // ------------------------------------------------------------------ send

    /**
     * Sends a copy of {@code data}. See the class comment for the return value.
     *
     * @param data the frame's bytes; the caller's again when the call returns
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both ({@code DONTWAIT | SNDMORE})
     * @return true when libzmq took the frame, false when it would block ({@link #DONTWAIT},
     *     or the send timeout expired)
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()})
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket;
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     */
    public boolean send(byte[] data, int flags) {
        return send(data, 0, data.length, flags);
    }

    /**
     * Sends a copy of {@code data[off, off+len)}; libzmq owns the copy. Allocation-free.
     *
     * @param data the array holding the frame's bytes; the caller's again when the call returns
     * @param off index of the frame's first byte in {@code data}
     * @param len the frame's length in bytes
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is sent
     * @return true when libzmq took the frame, false when it would block
     * @throws IndexOutOfBoundsException when {@code [off, off+len)} is not inside {@code data}
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()})
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket;
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     */
    public boolean send(byte[] data, int off, int len, int flags) {
        Objects.checkFromIndexSize(off, len, data.length);
        checkSendFlags(flags, "send");
        if (xsub && len > XPUB_DEFAULT_MAX_MESSAGE_BYTES) {
            refuseLongSubscription(data[off], len);
        }
        enter();
        try {
            long addr = initSendMsg(len);
            MemorySegment.copy(data, off, LibZmq.EVERYTHING, ValueLayout.JAVA_BYTE, addr, len);
            return sendMsg(sendMsg, flags, true);
        } finally {
            exit();
        }
    }

    /**
     * Sends a string as UTF-8 (allocates; convenience).
     *
     * @param text the frame's content, encoded as UTF-8
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is sent
     * @return true when libzmq took the frame, false when it would block
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()})
     * @throws IllegalStateException after {@link #close()}, or while another thread is in a call
     *     on this socket;
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     */
    public boolean send(String text, int flags) {
        return send(text.getBytes(StandardCharsets.UTF_8), flags);
    }

    /**
     * Sends {@code length} bytes of {@code data} from {@code offset}; libzmq copies them before
     * returning, so the segment is the caller's again at once. Native segments go straight to
     * zmq_send; heap and mapped segments are copied into a libzmq message (a mapping by Java, whose
     * copy reports a page the file no longer has, where libzmq's would kill the process).
     * Allocation-free. The segment must not be closed by another thread during the call; it is
     * kept reachable until libzmq has copied it, so one of an automatic arena needs no other
     * reference.
     *
     * @param data the segment holding the frame's bytes, native or on the heap
     * @param offset byte offset of the frame in {@code data}
     * @param length the frame's length in bytes
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is sent
     * @return true when libzmq took the frame, false when it would block
     * @throws IndexOutOfBoundsException when {@code [offset, offset+length)} is not inside
     *     {@code data}
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()})
     * @throws IllegalStateException when {@code data} is no longer alive, or cannot be read (a
     *     mapping of a file shortened since; nothing is sent), after {@link #close()}, or while
     *     another thread is in a call on this socket;
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     * @throws WrongThreadException when {@code data} is confined to another thread, as any
     *     access to it from this one would be (nothing is sent)
     */
    public boolean send(MemorySegment data, long offset, long length, int flags) {
        Objects.checkFromIndexSize(offset, length, data.byteSize());
        checkSendFlags(flags, "send");
        if (xsub && length > XPUB_DEFAULT_MAX_MESSAGE_BYTES) {
            byte first;
            try {
                first = data.get(ValueLayout.JAVA_BYTE, offset);
            } catch (InternalError e) { // SIGBUS: see sendCopy
                throw MemoryFaults.unreadable("data", data, offset, length, "nothing was sent", e);
            }
            refuseLongSubscription(first, length);
        }
        enter();
        try {
            if (!data.isNative() || data.isMapped()) {
                // A mapping's pages past the end of a file shortened since raise SIGBUS: FFM's copy
                // turns that into an exception, libzmq's memcpy killed the JVM (TruncatedMappingSendTest).
                return sendCopy(data, offset, length, flags);
            }
            RawSegments.checkUsable(data, "data");
            return sendCall(ZMQ_SEND, null, data.address() + offset, length, flags);
        } finally {
            exit();
            // zmq_send gets the raw address, so FFM does not keep the segment alive for the call:
            // compiled code drops data once its address is read, and an automatic arena's memory was
            // freed by its cleaner under libzmq's copy (SIGSEGV, UnreachableSegmentSendTest).
            Reference.reachabilityFence(data);
        }
    }

    /**
     * Sends the content of {@code msg} (zmq_msg_send). On success libzmq takes the content and
     * {@code msg} is left empty, ready for reuse; on would-block it is untouched.
     *
     * @param msg an open message holding the frame (e.g. filled by {@link ZmqMessage#set} or
     *     received); its views end
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is sent
     * @return true when libzmq took the content, false when it would block
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()}); {@code msg} keeps its content
     * @throws IllegalStateException when {@code msg} is closed, after {@link #close()}, or while
     *     another thread is in a call on this socket, or in a call that changes {@code msg} (a
     *     send or receive of it on another socket, say: "message used by two threads at once";
     *     nothing is sent);
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     */
    public boolean send(ZmqMessage msg, int flags) {
        checkSendFlags(flags, "send");
        if (xsub) {
            long size = msg.size();
            if (size > XPUB_DEFAULT_MAX_MESSAGE_BYTES) {
                refuseLongSubscription(LibZmq.EVERYTHING.get(ValueLayout.JAVA_BYTE, msg.address()), size);
            }
        }
        enter();
        try {
            msg.enter(); // a message in two threads' calls at once: libzmq would work on it from both
            try {
                msg.invalidateView();
                return sendMsg(msg.handle(), flags, false);
            } finally {
                msg.exit();
            }
        } finally {
            exit();
        }
    }

    /**
     * Sends the first {@code length} bytes of a pooled buffer. At or above its pool's threshold
     * for this socket ({@link NativeBufferPool#inprocZeroCopyThresholdBytes()} while every endpoint
     * is inproc, {@link NativeBufferPool#zeroCopyThresholdBytes()} otherwise; see
     * {@link #zeroCopyThresholdBytes()}) the buffer itself becomes the message
     * (zmq_msg_init_data) and libzmq returns it to its pool when it is done with it; below that,
     * libzmq copies it (one zmq_send, as for a native segment's send) and it is released at once.
     * Either way, on success the buffer is no longer the caller's. On would-block ({@code false})
     * or exception the caller still owns it. Allocation-free.
     *
     * <p>Usage: <pre>{@code
     * PooledBuffer b = pool.rent(n);
     * try { fill(b.segment()); if (!socket.sendPooled(b, n, ZmqSocket.DONTWAIT)) { ... retry or b.release(); } }
     * catch (RuntimeException e) { b.release(); throw e; }
     * }</pre>
     *
     * @param buffer a buffer the caller owns, from any pool
     * @param length the frame's length in bytes, from the buffer's first byte: 0 to
     *     {@link PooledBuffer#capacity()}
     * @param flags 0, {@link #DONTWAIT}, {@link #SNDMORE}, or both; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is sent
     * @return true when libzmq took the frame (and the buffer), false when it would block (the
     *     buffer stays the caller's)
     * @throws IndexOutOfBoundsException when {@code length} is negative or above the capacity
     * @throws IllegalArgumentException on an XSUB socket, for a subscription or unsubscription
     *     message (a byte 1 or 0, then the prefix) whose prefix is longer than
     *     {@link #MAX_SUBSCRIPTION_BYTES} (see there; nothing is sent)
     * @throws ZmqException when libzmq fails for another reason than would-block (ETERM once the
     *     context is shut down or closed, and this socket has taken the shutdown: see
     *     {@link ZmqContext#shutdown()}); the buffer stays the caller's
     * @throws IllegalStateException when the caller does not own the buffer, or its pool is closed
     *     (the buffer stays the caller's; memory of a closed pool is not read); also after
     *     {@link #close()}, or while another thread is in a call on this socket;
     *     or for {@link #SNDMORE} once the socket was bound or connected with conflate on (see
     *     {@link #conflate(boolean)}; nothing is sent)
     */
    public boolean sendPooled(PooledBuffer buffer, long length, int flags) {
        checkSendFlags(flags, "sendPooled");
        enter();
        try {
            return sendPooledInCall(buffer, length, flags);
        } finally {
            exit();
        }
    }

    private boolean sendPooledInCall(PooledBuffer buffer, long length, int flags) {
        buffer.checkRented();
        if (length < 0 || length > buffer.capacity) {
            throw new IndexOutOfBoundsException("length outside buffer: length=" + length + ", capacity=" + buffer.capacity);
        }
        NativeBufferPool owner = buffer.pool;
        if (xsub && length > XPUB_DEFAULT_MAX_MESSAGE_BYTES) {
            if (owner.isClosed()) {
                throw NativeBufferPool.closedForSend(buffer);
            }
            // Through the segment: the memory of an unpooled buffer released on another thread meanwhile
            // is freed, and this read then throws instead of reading it.
            refuseLongSubscription(buffer.segment.get(ValueLayout.JAVA_BYTE, 0), length);
        }
        if (length < zeroCopyThresholdIn(owner)) {
            // One zmq_send, which copies the frame inside libzmq before it returns.
            if (owner.isClosed()) {
                throw NativeBufferPool.closedForSend(buffer);
            }
            if (length <= SMALL_SEND_BYTES) {
                // A small frame is first copied by Java into this socket's own memory, which only
                // close() frees and no close can run during this call: the copy from the pool's shared
                // arena either completes before a close on another thread frees the slabs or fails
                // (the JDK's handshake), so libzmq never reads the pool's memory and the in-flight count's
                // two atomic operations are not needed (BENCHMARKS.md, "The small pooled send's own copy").
                try {
                    MemorySegment.copy(buffer.segment, 0, LibZmq.EVERYTHING, smallSend, length);
                } catch (IllegalStateException freed) {
                    throw NativeBufferPool.closedForSend(buffer);
                }
                if (!sendCall(ZMQ_SEND, null, smallSend, length, flags)) {
                    return false;
                }
                buffer.release();
                return true;
            }
            // Larger: libzmq reads the pool's memory itself. The slabs are held for the call by the
            // pool's in-flight count, as for a zero-copy send: a pool closed meanwhile keeps its
            // memory until the call is over instead of freeing what libzmq reads. An unpooled
            // buffer's memory is freed by its release: marked in flight for the call, as for a
            // zero-copy send, a release on another thread meanwhile is refused (a double release)
            // instead of freeing what libzmq reads.
            boolean unpooled = buffer.unpooledMemory != null;
            if (unpooled) {
                owner.markInFlight(buffer);
            } else {
                owner.acquireForSend(buffer);
            }
            boolean sent;
            try {
                sent = sendCall(ZMQ_SEND, null, buffer.address, length, flags);
            } finally {
                if (unpooled) {
                    buffer.setState(PooledBuffer.RENTED);
                }
                owner.endInFlight();
            }
            if (!sent) {
                return false;
            }
            buffer.release();
            return true;
        }
        owner.markInFlight(buffer);
        boolean sent = false;
        try {
            int rc = (int) LibZmq.zmq_msg_init_data.invokeExact(sendMsg, buffer.address, length,
                    NativeBufferPool.FREE_CALLBACK, buffer.hint);
            if (rc != 0) {
                // libzmq did not take the buffer, and will not call back: undo by hand. Its only
                // failure is ENOMEM (see LibZmq.zmq_msg_init_data).
                owner.beginReclaim(buffer);
                owner.reclaimWithoutCallback(buffer);
                throw new ZmqException("zmq_msg_init_data", LibZmq.ENOMEM);
            }
            sent = sendMsg(sendMsg, flags, false);
            return sent;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            if (!sent && buffer.state() == PooledBuffer.IN_FLIGHT) {
                // zmq_msg_send failed and left the message with us: take the buffer back, then
                // close the message; its free callback sees RECLAIMING and hands it to the caller.
                owner.beginReclaim(buffer);
                closeQuietly(sendMsg);
            }
        }
    }

    /**
     * Copies {@code data[offset, offset + length)} into a new libzmq message and sends it; the
     * message is closed on would-block or failure, the copy's included.
     */
    private boolean sendCopy(MemorySegment data, long offset, long length, int flags) {
        long addr = initSendMsg(length);
        try {
            MemorySegment.copy(data, offset, LibZmq.EVERYTHING, addr, length);
        } catch (RuntimeException e) {
            closeQuietly(sendMsg);
            throw e;
        } catch (InternalError e) { // FFM's report of a fault in the memory read (SIGBUS)
            closeQuietly(sendMsg);
            throw MemoryFaults.unreadable("data", data, offset, length, "nothing was sent", e);
        }
        return sendMsg(sendMsg, flags, true);
    }

    private long initSendMsg(long length) {
        try {
            int rc = (int) LibZmq.zmq_msg_init_size.invokeExact(sendMsg, length);
            if (rc != 0) {
                throw new ZmqException("zmq_msg_init_size(" + length + ")", LibZmq.ENOMEM);
            }
            return (long) LibZmq.zmq_msg_data.invokeExact(sendMsg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** zmq_msg_send; on failure (would-block or exception) closes the message when {@code closeOnFailure}. */
    private boolean sendMsg(MemorySegment m, int flags, boolean closeOnFailure) {
        boolean sent = false;
        try {
            sent = sendCall(ZMQ_MSG_SEND, m, 0, 0, flags);
            return sent;
        } finally {
            if (!sent && closeOnFailure) {
                closeQuietly(m);
            }
        }
    }

    /** {@link #socketCall} for a send ({@code op} ZMQ_MSG_SEND or ZMQ_SEND), noting whether a message is open after it. */
    private boolean sendCall(int op, MemorySegment m, long address, long length, int flags) {
        if (!socketCall(op, m, address, length, flags)) {
            return false;
        }
        messageOpen = (flags & SNDMORE) != 0;
        return true;
    }

    // The three per-message socket calls, for socketCall, invokeFast and invokeCapturing.
    private static final int ZMQ_MSG_SEND = 0;
    private static final int ZMQ_MSG_RECV = 1;
    private static final int ZMQ_SEND = 2;

    /**
     * Runs one per-message socket call to its outcome: true when done, false when it would block
     * (DONTWAIT or an expired timeout), EINTR retried, anything else thrown. {@code op} is
     * ZMQ_MSG_SEND or ZMQ_MSG_RECV (on message {@code m}) or ZMQ_SEND (bytes at {@code address}).
     * Allocation-free in every JIT tier as long as the call succeeds.
     *
     * <p>Why two calls on failure: a call through a handle that captures errno makes the JDK
     * slice the capture segment, a heap allocation per call that only C2, once it has inlined the
     * call site, removes; at low message rates (1 MiB parts) these paths run in C1 for the whole
     * session. So the call is made first through the non-capturing handle, and only when it
     * returns -1 is it asked again through the capturing one to learn errno. The repeat is the
     * same question for a receive and for the send of a message's first part (or only part): on
     * failure libzmq has sent or taken nothing and changed nothing, and left the message untouched
     * (zmq_msg_send) or, after EAGAIN from zmq_msg_recv, empty (it frees the previous frame
     * before it looks for a message), which a repeat leaves empty again; STREAM and XPUB sockets
     * leave it untouched instead, and so does the repeat. (A send inside a message is another
     * matter, see below.) With DONTWAIT the
     * repeat fails with EAGAIN again (would block), or succeeds because a message or room
     * arrived in between (a success like any other), or repeats the hard error.
     * A blocking call with an infinite timeout fails only with EINTR (the repeat is then the retry
     * this loop makes anyway), ETERM (sticky) or an error fixed by the socket's state (EFSM,
     * ENOTSUP, EHOSTUNREACH under ROUTER_MANDATORY, ...), which the repeat reports again.
     *
     * <p>A blocking call with a finite timeout (ZMQ_SNDTIMEO, ZMQ_RCVTIMEO) makes its repeat with
     * DONTWAIT, since the repeat as it is would wait a second full timeout. (Until 2026-11-25 such
     * calls went through the capturing handle only, and C1-compiled code allocated the slice on
     * every send and receive.) The repeat succeeds, repeats the hard error, or says EAGAIN; EAGAIN
     * cannot say whether the first call's wait ran out or was cut short by a signal (EINTR), so
     * the clock decides: with less than {@link #TIMEOUT_SLACK_NS} of the timeout left the call has
     * timed out; with more, it is made again waiting only what is left (the socket's timeout set to
     * the rest for the retry and back afterwards; before that rule each retry waited the whole
     * timeout again, so a thread signalled more often than its timeout, by a profiler's timer say,
     * never timed out). The clock is read only on these calls.
     *
     * <p>A DONTWAIT call that fails with EAGAIN, the would-block of every poll-then-drain loop,
     * and a timed call whose timeout ran out are told by zmq_errno() instead of the repeat, as the
     * proxy's loop does: the repeat's capture slice is removed only once C2 has compiled the
     * capturing stub, which took about 70,000 would-blocks in one JVM (40 B each until then; until
     * 2026-11-29). zmq_errno() reads errno after the JVM has had its turn, so only EAGAIN is taken
     * from it, and only where EAGAIN can be the answer (never for a call that blocks without a
     * timeout); any other value goes to the repeat. An EAGAIN the JVM left in place of another
     * error reports would-block (or, for a timed call with time left, retries) for a call whose
     * failure (ETERM, EFSM, ENOTSUP, EHOSTUNREACH) the socket's state makes the next call report.
     * A timed call's message that arrived just after its timeout ran out stays for the next call
     * (the repeat used to take it).
     *
     * <p>EINTR with DONTWAIT or without a timeout is asked again too: such a call either cannot
     * block, so the retry is bounded by the signals that arrive, or waits for ever anyway.
     *
     * <p>A send inside a message (the last send that succeeded on this socket had SNDMORE:
     * {@link #messageOpen}) is not repeated, because there a failure can change libzmq's state.
     * On PUSH, DEALER and REQ (libzmq 4.3.4's load balancer, lb.cpp), a part that cannot go into
     * the pipe its message is going to (the peer went away in the middle of it) makes libzmq roll
     * back the parts before it and end the message: the call fails with EAGAIN under DONTWAIT or
     * a send timeout of 0 (a blocking send drops the part silently and succeeds), and when the part
     * had SNDMORE libzmq then drops every later part up to the message's last, each reported sent.
     * Repeated, the part went out as the first part of a new message, to another peer, and the
     * call reported success: a receiver got a stray part (a compressed frame without its topic, say),
     * and the caller was told the part was sent (before 2026-11-27). So there errno is read through
     * zmq_errno() and ETERM told by a probe ({@link #errnoInMessage}): ETERM is thrown; EINTR, which
     * libzmq reports only before it hands the part to the socket type (its command processing was
     * interrupted), so nothing changed, is retried as above; anything else returns false, the
     * message over. On the other types a send inside a message fails only with ETERM, EINTR or, on
     * PAIR without a peer, EAGAIN, for which these answers are right too (a PAIR keeps no trace of
     * the message: the parts sent before were lost with the peer's pipe, and the caller's next part
     * starts a new one; see the README's PAIR paragraph). The price is that
     * zmq_errno() reads errno after the JVM has had its turn (the reason errno is captured
     * elsewhere): should the JVM overwrite an EINTR in that window, the call returns false while
     * libzmq still holds the message open. Neither call captures, so this branch allocates nothing.
     */
    private boolean socketCall(int op, MemorySegment m, long address, long length, int flags) {
        int timeoutMs = op == ZMQ_MSG_RECV ? receiveTimeoutMs : sendTimeoutMs;
        boolean timed = (flags & DONTWAIT) == 0 && timeoutMs > 0;
        long startNs = timed ? System.nanoTime() : 0;
        int option = op == ZMQ_MSG_RECV ? LibZmq.ZMQ_RCVTIMEO : LibZmq.ZMQ_SNDTIMEO;
        boolean shortened = false;
        try {
            for (;;) {
                if (invokeFast(op, m, address, length, flags) >= 0) {
                    return true;
                }
                int errno;
                if (op != ZMQ_MSG_RECV && messageOpen) {
                    errno = errnoInMessage(op);
                    if (errno != EINTR) {
                        messageOpen = false; // libzmq ended the message: it dropped it
                        return false;
                    }
                } else if (((flags & DONTWAIT) != 0 || timed) && (int) LibZmq.zmq_errno.invokeExact() == EAGAIN) {
                    errno = EAGAIN; // would block, or the timeout ran out: told without the capturing repeat's slice
                } else {
                    // the repeat that learns errno; a timed call's must not wait its timeout again
                    if (invokeCapturing(op, m, address, length, timed ? flags | DONTWAIT : flags) >= 0) {
                        return true;
                    }
                    errno = LibZmq.errno(capture);
                    if (errno != EAGAIN && errno != EINTR) {
                        throw errno == LibZmq.EHOSTUNREACH && (type == SocketType.ROUTER || type == SocketType.STREAM)
                                ? unroutable(op, m, address, length) : failed(op, errno);
                    }
                }
                if (!timed) {
                    if (errno == EAGAIN) {
                        return false;
                    }
                    continue;
                }
                long leftNs = timeoutMs * 1_000_000L - (System.nanoTime() - startNs);
                if (leftNs < TIMEOUT_SLACK_NS) {
                    return false; // timed out (or a signal came within the slack of the end: the same to the caller)
                }
                setTimeoutQuietly(option, (int) ((leftNs + 999_999) / 1_000_000));
                shortened = true;
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            if (shortened) {
                setTimeoutQuietly(option, timeoutMs);
            }
        }
    }

    /**
     * How much of a timed call's timeout may be left when libzmq reports it expired. libzmq measures
     * the timeout with a clock read in whole milliseconds and cached between reads, so its wait can
     * end up to about a millisecond and a half before the caller's clock says the timeout is over
     * (measured here: never before it, over 1,000 timed-out receives of 1 to 37 ms). A signal that
     * ends a wait within this slack of its end is reported as the timeout.
     */
    static final long TIMEOUT_SLACK_NS = 2_000_000L;

    /**
     * Sets ZMQ_RCVTIMEO or ZMQ_SNDTIMEO for a timed {@link #socketCall} without touching the cached values.
     * A failure is ignored: zmq_setsockopt fails here only with ETERM, which the call reports.
     */
    private void setTimeoutQuietly(int option, int ms) {
        opt.set(ValueLayout.JAVA_INT, 0, ms);
        try {
            int rc = (int) LibZmq.zmq_setsockopt.invokeExact(capture, socket, option, opt, 4L);
        } catch (Throwable ignored) {
            // a downcall of this shape throws nothing; the retry reports what is wrong
        }
    }

    /**
     * errno of a send that failed inside a message, learnt without repeating the send (see
     * {@link #socketCall}): ETERM thrown, else EINTR or another value (would block: the message
     * was dropped). Allocation-free: neither call captures.
     */
    private int errnoInMessage(int op) throws Throwable {
        int errno = (int) LibZmq.zmq_errno.invokeExact(); // before the probe, which may set errno
        optLen.set(ValueLayout.JAVA_LONG, 0, 4L);
        // ETERM for certain: libzmq fails a send with ETERM once the socket has taken the
        // context's stop command, and then fails every call, this one included; reading ZMQ_TYPE
        // takes no command and fails with nothing else.
        if ((int) LibZmq.zmq_getsockopt_fast.invokeExact(socket, LibZmq.ZMQ_TYPE, opt, optLen) != 0) {
            throw callFailed(op, LibZmq.ETERM);
        }
        return errno;
    }

    /**
     * {@link #callFailed}, naming this socket's type when it cannot do the call at all: libzmq's
     * ENOTSUP for a send on a SUB or PULL, or a receive on a PUB or PUSH, said only "Operation not
     * supported" (until 2026-11-29); and a REQ's or REP's EFSM naming the state it is in, where
     * the note said only the rule (until 2026-11-29).
     */
    private ZmqException failed(int op, int errno) {
        boolean receive = op == ZMQ_MSG_RECV;
        if (errno == LibZmq.EFSM && (type == SocketType.REQ || type == SocketType.REP)) {
            return new ZmqException(callName(op), errno, outOfTurn(type, receive));
        }
        if (receive ? type.receives() : type.sends()) {
            return callFailed(op, errno);
        }
        return new ZmqException(callName(op), errno, "a " + type + " socket cannot " + (receive ? "receive" : "send")
                + ": " + (receive ? "PUB and PUSH only send" : "SUB and PULL only receive"));
    }

    /**
     * The state a REQ or REP is in when libzmq 4.3.4 refuses a call with EFSM: each of the four
     * (type, call) pairs has one cause ({@code req_t::xsend}/{@code xrecv},
     * {@code rep_t::xsend}/{@code xrecv}).
     */
    private static String outOfTurn(SocketType type, boolean receive) {
        if (type == SocketType.REQ) {
            return receive ? "this REQ has no request waiting for a reply: send a request before receiving"
                    : "this REQ has sent a request and not yet received its whole reply: receive it before sending"
                    + " the next request, or set reqRelaxed(true) with reqCorrelate(true) (reqRelaxed alone takes a late"
                    + " reply for the next request's)";
        }
        return receive ? "this REP has received a request and not yet sent its whole reply: send it before receiving"
                + " the next request"
                : "this REP has no request to reply to: receive a request before sending";
    }

    private static ZmqException callFailed(int op, int errno) {
        return new ZmqException(callName(op), errno);
    }

    private static String callName(int op) {
        return op == ZMQ_MSG_SEND ? "zmq_msg_send" : op == ZMQ_MSG_RECV ? "zmq_msg_recv" : "zmq_send";
    }

    /**
     * A ROUTER's EHOSTUNREACH (ZMQ_ROUTER_MANDATORY) or a STREAM's (always), naming the routing id
     * it was given: libzmq 4.3.4 refuses the part that carries it, a message's first, and leaves
     * that part as it was (in {@code m}, or at {@code address}), so it can be read here. libzmq's
     * own text, "Host unreachable", named no peer (until 2026-11-27 on a ROUTER, 2026-11-28 on a
     * STREAM).
     */
    private ZmqException unroutable(int op, MemorySegment m, long address, long length) throws Throwable {
        MemorySegment id = op == ZMQ_SEND ? MemorySegment.ofAddress(address).reinterpret(length)
                : MemorySegment.ofAddress((long) LibZmq.zmq_msg_data.invokeExact(m)).reinterpret((long) LibZmq.zmq_msg_size.invokeExact(m));
        return new ZmqException(callName(op), LibZmq.EHOSTUNREACH, "no peer of this " + type + " has routingId=" + describeId(id)
                + ": it never connected or its connection is gone"
                + (type == SocketType.ROUTER ? " (ZMQ_ROUTER_MANDATORY on)" : ""));
    }

    /**
     * A routing id as text: its bytes in hex, in quotes as well when all are printable ASCII; of a
     * longer part (libzmq's ids are 1 to 255 bytes, a longer one never routes) the first
     * {@value #ROUTING_ID_SHOWN_BYTES} bytes and its length.
     */
    private static String describeId(MemorySegment id) {
        if (id.byteSize() == 0) {
            return "(empty)";
        }
        byte[] bytes = id.asSlice(0, Math.min(id.byteSize(), ROUTING_ID_SHOWN_BYTES)).toArray(ValueLayout.JAVA_BYTE);
        boolean printable = true;
        for (byte b : bytes) {
            printable &= b >= 0x20 && b < 0x7f;
        }
        String more = bytes.length < id.byteSize() ? "... (" + id.byteSize() + " bytes)" : "";
        String hex = "0x" + java.util.HexFormat.of().formatHex(bytes) + more;
        return printable ? "\"" + new String(bytes, StandardCharsets.US_ASCII) + more + "\" (" + hex + ")" : hex;
    }

    private static final int ROUTING_ID_SHOWN_BYTES = 64;

    /** One downcall of {@code op} through its non-capturing handle. */
    private int invokeFast(int op, MemorySegment m, long address, long length, int flags) throws Throwable {
        return switch (op) {
            case ZMQ_MSG_SEND -> (int) LibZmq.zmq_msg_send_fast.invokeExact(m, socket, flags);
            case ZMQ_MSG_RECV -> (int) LibZmq.zmq_msg_recv_fast.invokeExact(m, socket, flags);
            default -> (int) LibZmq.zmq_send_fast.invokeExact(socket, address, length, flags);
        };
    }

    /** One downcall of {@code op} through its capturing handle; errno lands in {@link #capture}. */
    private int invokeCapturing(int op, MemorySegment m, long address, long length, int flags) throws Throwable {
        return switch (op) {
            case ZMQ_MSG_SEND -> msgSendCapturing(m, flags);
            case ZMQ_MSG_RECV -> msgRecvCapturing(m, flags);
            default -> sendCapturing(address, length, flags);
        };
    }

    // The capturing handles are called through these instance fields, which C2 does not treat
    // as constants (an exception to "static final handles", on purpose). With the static final
    // handle, C2 inlined the downcall into socketCall's rarely taken failure branch, inlined the
    // JDK's capture check there but left its asSlice out of line as cold, so every repeat
    // allocated the slice: ZeroAllocationTest failed with DONTWAIT spins (up to ~230 B/msg), also
    // with one small method per handle. Through a non-constant handle C2 calls the separately
    // compiled downcall stub, where the capture check is the main path and the slice is removed
    // once C2 has compiled that stub: until then (interpreted or C1 code, or after a
    // deoptimisation) each repeat still allocates its 40 B slice (pipeline ZeroAllocationTest's
    // parallel 1 KiB case, inline sends refused by a full socket).
    private final MethodHandle msgSendCapturing = LibZmq.zmq_msg_send;
    private final MethodHandle msgRecvCapturing = LibZmq.zmq_msg_recv;
    private final MethodHandle sendCapturing = LibZmq.zmq_send;

    private int msgSendCapturing(MemorySegment m, int flags) throws Throwable {
        return (int) msgSendCapturing.invokeExact(capture, m, socket, flags);
    }

    private int msgRecvCapturing(MemorySegment m, int flags) throws Throwable {
        return (int) msgRecvCapturing.invokeExact(capture, m, socket, flags);
    }

    private int sendCapturing(long address, long length, int flags) throws Throwable {
        return (int) sendCapturing.invokeExact(capture, socket, address, length, flags);
    }

    private void closeQuietly(MemorySegment m) {
        try {
            int rc = (int) LibZmq.zmq_msg_close.invokeExact(m);
        } catch (Throwable ignored) {
            // zmq_msg_close only fails with EFAULT on an invalid message
        }
    }

    // ------------------------------------------------------------------ receive

    /**
     * Receives the next frame into {@code msg}, replacing (and freeing) its previous frame and
     * ending views of it. Allocation-free.
     *
     * @param msg an open message to receive into, reused from call to call
     * @param flags 0 (wait for a frame) or {@link #DONTWAIT}; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is received
     * @return true when a frame was received into {@code msg} (see {@link #hasMore()});
     *     false when it would block (DONTWAIT) or the receive timeout expired; the previous
     *     frame is gone then too and {@code msg} is empty (libzmq frees it before it looks for a
     *     message; on STREAM and XPUB sockets, where it does not, this method does)
     * @throws ZmqException when libzmq fails for another reason than would-block (e.g. EFSM for a
     *     REQ or REP socket out of turn, ETERM once the context is shut down or closed, and this
     *     socket has taken the shutdown: see {@link ZmqContext#shutdown()})
     * @throws IllegalStateException once a part with more to follow came in with conflate on (see
     *     {@link #conflate(boolean)}: the socket must be closed); when {@code msg} is closed, after {@link #close()}, or while
     *     another thread is in a call on this socket, or in a call that changes {@code msg} (a
     *     send or receive of it on another socket, say: "message used by two threads at once";
     *     nothing is received)
     */
    public boolean receive(ZmqMessage msg, int flags) {
        checkFlags(flags, DONTWAIT, "receive");
        enter();
        try {
            msg.enter(); // a message in two threads' calls at once: libzmq would work on it from both
            try {
                msg.invalidateView();
                if (!recvMsg(msg.handle(), flags)) {
                    if (type == SocketType.STREAM || type == SocketType.XPUB) {
                        // These two leave the caller's message untouched on EAGAIN: stream_t receives
                        // into its own prefetch message, xpub_t returns EAGAIN when no subscription is
                        // pending before it looks at the message. Every other type has freed it already
                        // (fq_t::recvpipe closes it first; see the return value). WouldBlockEmptiesMessageTest.
                        msg.clearEntered();
                    }
                    return false;
                }
                more = msg.hasMoreEntered();
                return true;
            } finally {
                msg.exit();
            }
        } finally {
            exit();
        }
    }

    /**
     * Receives the next frame into {@code buf}, copying at most {@code buf.length} bytes; the rest
     * of a longer frame is discarded. Allocation-free.
     *
     * @param buf where the frame's bytes go, from index 0
     * @param flags 0 (wait for a frame) or {@link #DONTWAIT}; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is received
     * @return the frame's full size (more than {@code buf.length} means it was truncated, as with
     *     zmq_recv), {@code Integer.MAX_VALUE} for a frame of 2 GiB or more (truncated too: no
     *     array is that long), or -1 when it would block ({@link #DONTWAIT}, or the receive
     *     timeout expired)
     * @throws ZmqException when libzmq fails for another reason than would-block (e.g. EFSM for a
     *     REQ or REP socket out of turn, ETERM once the context is shut down or closed, and this
     *     socket has taken the shutdown: see {@link ZmqContext#shutdown()})
     * @throws IllegalStateException once a part with more to follow came in with conflate on (see
     *     {@link #conflate(boolean)}: the socket must be closed); after {@link #close()}, or while another thread is in a call
     *     on this socket
     */
    public int receive(byte[] buf, int flags) {
        Objects.requireNonNull(buf, "buf");
        long size = receiveCopy(buf, null, flags);
        return size < 0 ? -1 : (int) Math.min(size, Integer.MAX_VALUE);
    }

    /**
     * Receives the next frame into {@code dst} from its offset 0, copying at most
     * {@code dst.byteSize()} bytes; the rest of a longer frame is discarded (zmq_recv semantics).
     * {@code dst} may be native or on the heap; it is the caller's again when the call returns.
     * Allocation-free.
     *
     * <p>A {@code dst} that could not take the bytes is refused before anything is received, so
     * the frame stays queued for the next receive (left to the copy, the check came after the
     * receive had taken the frame off the queue, and the frame was lost).
     *
     * @param dst where the frame's bytes go, from offset 0: writable, alive, and accessible from
     *     this thread
     * @param flags 0 (wait for a frame) or {@link #DONTWAIT}; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is received
     * @return the frame's full size (more than {@code dst.byteSize()} means it was truncated), or
     *     -1 when it would block ({@link #DONTWAIT}, or the receive timeout expired)
     * @throws IllegalArgumentException when {@code dst} is read-only
     * @throws UndeliveredFrameException when the frame could not be written into {@code dst} (a
     *     mapping of a file shortened since it was mapped, whose pages past the file's end fault):
     *     the frame has left the queue, and the exception carries its bytes
     *     ({@link UndeliveredFrameException#frame()}); its later parts stay queued
     * @throws WrongThreadException when {@code dst} is confined to another thread
     * @throws ZmqException when libzmq fails for another reason than would-block (e.g. EFSM for a
     *     REQ or REP socket out of turn, ETERM once the context is shut down or closed, and this
     *     socket has taken the shutdown: see {@link ZmqContext#shutdown()})
     * @throws IllegalStateException once a part with more to follow came in with conflate on (see
     *     {@link #conflate(boolean)}: the socket must be closed); when {@code dst} is no longer alive, after {@link #close()},
     *     or while another thread is in a call on this socket
     */
    public long receive(MemorySegment dst, int flags) {
        Objects.requireNonNull(dst, "dst");
        RawSegments.checkWritable(dst, "dst");
        RawSegments.checkUsable(dst, "dst");
        return receiveCopy(null, dst, flags);
    }

    /**
     * Receives the next frame as a new array (allocates); null when it would block.
     *
     * @param flags 0 (wait for a frame) or {@link #DONTWAIT}; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is received
     * @return the frame's bytes, or null when it would block ({@link #DONTWAIT}, or the receive
     *     timeout expired)
     * @throws ZmqException when libzmq fails for another reason than would-block (e.g. EFSM for a
     *     REQ or REP socket out of turn, ETERM once the context is shut down or closed, and this
     *     socket has taken the shutdown: see {@link ZmqContext#shutdown()})
     * @throws IllegalStateException once a part with more to follow came in with conflate on (see
     *     {@link #conflate(boolean)}: the socket must be closed); after {@link #close()}, or while another thread is in a call
     *     on this socket; or when the frame is too large for a {@code byte[]} (over
     *     {@code Integer.MAX_VALUE - 8} bytes): the message names its size, the frame is dropped,
     *     and the message's later parts stay queued ({@link #hasMore()} tells)
     */
    public byte[] receiveBytes(int flags) {
        checkFlags(flags, DONTWAIT, "receiveBytes");
        enter();
        try {
            if (!recvMsg(recvMsg, flags)) {
                return null;
            }
            try {
                long size = frameSize();
                // Until 2026-11-27 a frame over 2 GiB threw ArithmeticException "integer overflow"
                // from Math.toIntExact, naming nothing (SocketApiTest).
                ZmqMessage.checkArraySize(size, " (the frame is dropped; the message's later parts stay queued:"
                        + " receive frames this large into a ZmqMessage or a MemorySegment)");
                byte[] out = new byte[(int) size];
                copyFrame(out, null, out.length);
                return out;
            } finally {
                dropFrame();
            }
        } finally {
            exit();
        }
    }

    /** The copying receives: into {@code array} or else {@code segment}, truncated to fit; -1 = would block. */
    private long receiveCopy(byte[] array, MemorySegment segment, int flags) {
        checkFlags(flags, DONTWAIT, "receive");
        enter();
        try {
            if (!recvMsg(recvMsg, flags)) {
                return -1;
            }
            try {
                long size = frameSize();
                long n = Math.min(size, array != null ? array.length : segment.byteSize());
                try {
                    copyFrame(array, segment, n);
                } catch (InternalError e) { // SIGBUS writing segment (a shortened file's mapping): see undelivered
                    throw undelivered(segment, n, size, e);
                }
                return size;
            } finally {
                dropFrame();
            }
        } finally {
            exit();
        }
    }

    /** Size of the frame just received into {@link #recvMsg}; records whether more parts follow. */
    private long frameSize() {
        try {
            more = (int) LibZmq.zmq_msg_more.invokeExact(recvMsg) != 0;
            return (long) LibZmq.zmq_msg_size.invokeExact(recvMsg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    private void copyFrame(byte[] array, MemorySegment segment, long n) {
        long addr;
        try {
            addr = (long) LibZmq.zmq_msg_data.invokeExact(recvMsg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        if (array != null) {
            MemorySegment.copy(LibZmq.EVERYTHING, ValueLayout.JAVA_BYTE, addr, array, 0, (int) n);
        } else {
            MemorySegment.copy(LibZmq.EVERYTHING, addr, segment, 0, n);
        }
    }

    /**
     * Frees the frame in {@link #recvMsg} once it is copied, as zmq_recv does: the caller has all it
     * gets, and a pooled buffer behind the frame (inproc zero-copy) goes back to its pool now
     * instead of at this socket's next receive. Allocation-free.
     */
    private void dropFrame() {
        closeQuietly(recvMsg);
        try {
            int rc = (int) LibZmq.zmq_msg_init.invokeExact(recvMsg);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Receives the next frame as UTF-8 text (allocates); null when it would block.
     *
     * @param flags 0 (wait for a frame) or {@link #DONTWAIT}; any other bit is refused with
     *     {@link IllegalArgumentException} before anything is received
     * @return the frame decoded as UTF-8 (malformed bytes become U+FFFD), or null when it would
     *     block
     * @throws ZmqException when libzmq fails for another reason than would-block (e.g. EFSM for a
     *     REQ or REP socket out of turn, ETERM once the context is shut down or closed, and this
     *     socket has taken the shutdown: see {@link ZmqContext#shutdown()})
     * @throws IllegalStateException once a part with more to follow came in with conflate on (see
     *     {@link #conflate(boolean)}: the socket must be closed); after {@link #close()}, or while another thread is in a call
     *     on this socket; or when the frame is too large for a {@code byte[]}, as for
     *     {@link #receiveBytes(int)}
     */
    public String receiveString(int flags) {
        byte[] b = receiveBytes(flags);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * True when the last frame received on this socket has more parts following. Read from what
     * the last receive recorded, not from libzmq (see {@link #rcvmore()}). Allocation-free.
     *
     * @return whether more frames of the same message follow; false before any receive
     * @throws IllegalStateException after {@link #close()}
     */
    public boolean hasMore() {
        ensureOpen();
        return more;
    }

    private boolean recvMsg(MemorySegment m, int flags) {
        if (more && conflated) {
            throw conflatedPartReceived();
        }
        return socketCall(ZMQ_MSG_RECV, m, 0, 0, flags);
    }

    /**
     * The refusal of a receive after a frame with more to follow came in on a socket bound or
     * connected with conflate on. libzmq 4.3.4 keeps one frame, not one message, in a conflating
     * pipe, and its fair queue (fq.cpp:112, {@code zmq_assert (!_more)}) aborts the process when
     * the next receive finds the rest of that message gone, which under a stream of multipart
     * messages from a peer it soon does: a SUB with conflate on, fed a PUB's topic and payload
     * parts, ended the JVM within seconds (until 2026-11-29). No receive can be made on the
     * socket any more without that risk: it has to be closed.
     */
    private IllegalStateException conflatedPartReceived() {
        return new IllegalStateException("receive refused: type=" + type + " has conflate on and received a part with more"
                + " to follow (a peer sent a multipart message, which conflate does not support: libzmq keeps the last frame,"
                + " not the last message); libzmq 4.3.4 aborts the process (fq.cpp:112) on the next receive once the rest is"
                + " gone, so this socket can receive no more: close it, and have its peers send single-part messages or"
                + " make the socket without conflate");
    }

    /** Whether this socket was bound or connected with conflate on, for the proxy's check. */
    boolean conflated() {
        return conflated;
    }

    // ------------------------------------------------------------------ options

    /**
     * Send high-water mark ({@code ZMQ_SNDHWM}): how many outgoing messages libzmq queues per
     * peer; at the limit a send blocks or drops, as the socket type decides. Default 1000.
     * libzmq 4.3 applies a change to existing connections too.
     *
     * @param messages the limit in messages, 0 = no limit
     */
    public void sendHwm(int messages) { setInt("ZMQ_SNDHWM", LibZmq.ZMQ_SNDHWM, messages); }
    /**
     * The send high-water mark ({@code ZMQ_SNDHWM}).
     *
     * @return the limit in messages, 0 = no limit
     */
    public int sendHwm() { return getInt("ZMQ_SNDHWM", LibZmq.ZMQ_SNDHWM); }
    /**
     * Receive high-water mark ({@code ZMQ_RCVHWM}): how many incoming messages libzmq queues per
     * peer; at the limit the peer's sends block or drop, as the socket types decide. Default 1000.
     * libzmq 4.3 applies a change to existing connections too.
     *
     * @param messages the limit in messages, 0 = no limit
     */
    public void receiveHwm(int messages) { setInt("ZMQ_RCVHWM", LibZmq.ZMQ_RCVHWM, messages); }
    /**
     * The receive high-water mark ({@code ZMQ_RCVHWM}).
     *
     * @return the limit in messages, 0 = no limit
     */
    public int receiveHwm() { return getInt("ZMQ_RCVHWM", LibZmq.ZMQ_RCVHWM); }

    /**
     * How long close waits to deliver pending messages; negative = forever. Sets
     * {@code ZMQ_LINGER} (see {@link #lingerMs(int)}); applies at once.
     *
     * @param linger counted in whole milliseconds, at most {@code Integer.MAX_VALUE} (a longer
     *     one, {@code ChronoUnit.FOREVER}'s included, counts as that); zero drops pending
     *     messages at close
     */
    public void linger(Duration linger) { lingerMs(ZmqContext.lingerMs(linger)); }
    /**
     * Linger ({@code ZMQ_LINGER}): how long messages still pending when the socket is closed are
     * kept for delivery, which {@link ZmqContext#close()} waits for. Applies at once. A new
     * socket has its context's default ({@link ZmqContext#DEFAULT_LINGER} unless the builder set
     * another).
     *
     * @param ms milliseconds; -1 = forever (libzmq's own default), 0 = drop them at close
     */
    public void lingerMs(int ms) { setInt("ZMQ_LINGER", LibZmq.ZMQ_LINGER, ms); }
    /**
     * The linger ({@code ZMQ_LINGER}).
     *
     * @return milliseconds; -1 = forever, 0 = pending messages are dropped at close
     */
    public int lingerMs() { return getInt("ZMQ_LINGER", LibZmq.ZMQ_LINGER); }

    /**
     * Routing id ({@code ZMQ_ROUTING_ID}) that this socket announces to its peers: a ROUTER peer
     * addresses it by this id. For REQ, REP, DEALER and ROUTER sockets. Applies to later
     * bind/connect calls only.
     *
     * @param id 1 to 255 bytes, not starting with a zero byte, which libzmq reserves for the ids
     *     it makes up for peers that set none
     * @throws IllegalArgumentException when {@code id} is empty or longer than
     *     255 bytes (libzmq's rule, which it enforces with a bare
     *     EINVAL), naming the length; or when it starts with a zero byte: libzmq takes it, and a
     *     ROUTER that had made up the same id for another peer then ignores this socket for good,
     *     its messages never arriving
     */
    public void routingId(byte[] id) {
        if (id.length == 0 || id.length > MAX_ROUTING_ID_BYTES) {
            throw new IllegalArgumentException("routingId (ZMQ_ROUTING_ID) must be 1 to " + MAX_ROUTING_ID_BYTES
                    + " bytes: length=" + id.length);
        }
        if (id[0] == 0) {
            throw new IllegalArgumentException("routingId must not start with a zero byte: routingId[0]=0, length="
                    + id.length + " (libzmq reserves such ids for the ones it makes up)");
        }
        setBytes("ZMQ_ROUTING_ID", LibZmq.ZMQ_ROUTING_ID, id);
    }
    /**
     * The routing id set on this socket ({@code ZMQ_ROUTING_ID}).
     *
     * @return a copy of the id; empty when none was set
     */
    public byte[] routingId() { return getBytes("ZMQ_ROUTING_ID", LibZmq.ZMQ_ROUTING_ID, MAX_ROUTING_ID_BYTES); }

    /** The longest routing id: ZMTP carries its length in one byte, and libzmq refuses a longer one. */
    private static final int MAX_ROUTING_ID_BYTES = 255;

    /**
     * SUB: receive messages starting with {@code prefix} (empty = everything). Sets
     * {@code ZMQ_SUBSCRIBE}; applies at once. Subscriptions add up: a message that matches any of
     * them is received.
     *
     * @param prefix the leading bytes to match, at most {@value #MAX_SUBSCRIPTION_BYTES}
     * @throws IllegalArgumentException when {@code prefix} is longer than
     *     {@value #MAX_SUBSCRIPTION_BYTES} bytes (see there)
     */
    public void subscribe(byte[] prefix) {
        setBytes("ZMQ_SUBSCRIBE", LibZmq.ZMQ_SUBSCRIBE, subscription("subscribe", prefix));
    }

    /**
     * The longest prefix {@link #subscribe(byte[])} and {@link #unsubscribe(byte[])} take (4 KiB).
     * libzmq 4.3.4 keeps a SUB or XSUB socket's subscriptions in a trie whose every byte is a node,
     * removes one by recursion, one native frame (80 to 96 B) per byte, on the thread that
     * unsubscribes, and frees them all by the same recursion (43 to 64 B per byte) on its reaper
     * thread when the socket is closed. A subscription travels: through a proxy's XPUB and XSUB, a
     * peer's unsubscription (sent by libzmq when the peer goes) is removed on the proxy's thread, so
     * a long one anywhere in the chain overruns whichever stack meets it (a 20,000-byte
     * subscription from a pyzmq SUB, once it disconnected, made a ZmqProxy's JVM die of SIGSEGV; a
     * 192 KiB one killed the process at the close). 4 KiB needs about 400 KiB of stack on the
     * forwarding thread, well within a Java thread's default 1 MiB; see also
     * {@link #XPUB_DEFAULT_MAX_MESSAGE_BYTES}, the same limit for subscriptions from peers.
     */
    public static final int MAX_SUBSCRIPTION_BYTES = 4096;

    /**
     * The {@link #maxMessageSize(long)} an XPUB socket starts with: a subscription message (a byte
     * for subscribe or cancel, then the prefix) of at most {@link #MAX_SUBSCRIPTION_BYTES}, so that a
     * peer's subscription is no longer than a local one may be: a peer that sends a longer message
     * over tcp or ipc is disconnected, as for any limit (inproc is not limited). A SUB peer's
     * unsubscription goes through libzmq's recursion wherever the XPUB forwards it (see
     * {@link #MAX_SUBSCRIPTION_BYTES}): until 2026-11-27 one SUB peer with a 20,000-byte
     * subscription that disconnected killed a ZmqProxy's process. Raise it with
     * {@code maxMessageSize(n)} before the bind or connect only for peers that are trusted and
     * whose subscriptions the forwarding thread's stack holds.
     */
    public static final long XPUB_DEFAULT_MAX_MESSAGE_BYTES = MAX_SUBSCRIPTION_BYTES + 1;

    /**
     * XSUB: refuses a frame of {@code length} bytes (more than {@link #XPUB_DEFAULT_MAX_MESSAGE_BYTES})
     * whose first byte, {@code first}, makes it a subscription (1) or an unsubscription (0), which
     * libzmq would take into the socket's trie: a prefix longer than {@link #MAX_SUBSCRIPTION_BYTES}
     * can crash the process (until 2026-11-27 a 200,000-byte one sent through an XSUB killed the
     * JVM when its context closed). Other frames go upstream untouched, of any length.
     */
    private static void refuseLongSubscription(byte first, long length) {
        if (first == 0 || first == 1) {
            throw new IllegalArgumentException("XSUB " + (first == 1 ? "subscription" : "unsubscription")
                    + " message must be at most " + XPUB_DEFAULT_MAX_MESSAGE_BYTES + " bytes (a byte " + first
                    + ", then a prefix of at most " + MAX_SUBSCRIPTION_BYTES + "): length=" + length
                    + " (libzmq keeps an XSUB socket's subscriptions in a trie it frees by recursion, a native frame"
                    + " per byte: a longer prefix can crash the process; nothing was sent)");
        }
    }

    private static final int SEND_FLAGS = DONTWAIT | SNDMORE;

    /**
     * {@link #checkFlags} for a send, and SNDMORE refused on a socket bound or connected with
     * {@code ZMQ_CONFLATE} on: libzmq 4.3.4 keeps one frame, not one message, in a conflating
     * pipe, so of a multipart message [b1, b2, b3] the receiver got b3 alone, as a whole message,
     * and the sender was told every part went (until 2026-11-29).
     */
    private void checkSendFlags(int flags, String call) {
        checkFlags(flags, SEND_FLAGS, call);
        if ((flags & SNDMORE) != 0 && conflated) {
            throw new IllegalStateException(call + " with SNDMORE on a socket bound or connected with conflate on: type=" + type
                    + " (libzmq keeps the last frame, not the last message, so the receiver would get this message's last"
                    + " part alone as a whole message; nothing was sent: send single-part messages, or make the socket"
                    + " without conflate)");
        }
    }

    /**
     * Refuses flags outside {@code allowed} before anything happens: libzmq ignores bits it does not
     * know, so a receive flag passed to a send (or a constant of another API) went unnoticed.
     */
    private static void checkFlags(int flags, int allowed, String call) {
        if ((flags & ~allowed) != 0) {
            throw new IllegalArgumentException(call + " flags must be " + (allowed == DONTWAIT
                    ? "0 or DONTWAIT (" + DONTWAIT + ")" : "0, DONTWAIT (" + DONTWAIT + "), SNDMORE (" + SNDMORE + ") or both")
                    + ": flags=" + flags + " (nothing was done)");
        }
    }

    /**
     * The error for a received frame that could not be copied into {@code dst}: the frame has left
     * the queue, so the exception carries its bytes (copied from {@link #recvMsg}, still open here).
     */
    private UndeliveredFrameException undelivered(MemorySegment dst, long n, long size, InternalError cause) {
        byte[] frame = null;
        if (size <= JavaArrays.MAX_LENGTH) {
            frame = new byte[(int) size];
            copyFrame(frame, null, size);
        }
        return new UndeliveredFrameException(MemoryFaults.describe("dst", "written", dst, 0, n) + " (frame of " + size
                + " bytes taken off the queue: " + (frame != null ? "its bytes are in this exception's frame()"
                : "too large for a byte[], dropped") + (more ? "; the message's later parts stay queued" : "") + ")",
                frame, size, cause);
    }

    private static byte[] subscription(String call, byte[] prefix) {
        if (prefix.length > MAX_SUBSCRIPTION_BYTES) {
            throw new IllegalArgumentException(call + " prefix must be at most " + MAX_SUBSCRIPTION_BYTES + " bytes: length="
                    + prefix.length + " (libzmq frees a SUB socket's subscriptions by recursion, a native frame per byte, on"
                    + " its reaper thread: a longer prefix can crash the process when the socket is closed)");
        }
        return prefix;
    }
    /**
     * SUB: {@link #subscribe(byte[])} with the UTF-8 bytes of {@code prefix}.
     *
     * @param prefix the leading text to match; {@code ""} for every message
     * @throws IllegalArgumentException when its UTF-8 bytes are more than {@value #MAX_SUBSCRIPTION_BYTES}
     */
    public void subscribe(String prefix) { subscribe(prefix.getBytes(StandardCharsets.UTF_8)); }
    /**
     * SUB: removes one subscription to exactly {@code prefix} ({@code ZMQ_UNSUBSCRIBE});
     * applies at once. Other subscriptions, a second one to the same prefix included, stay.
     *
     * <p>libzmq 4.3.4 removes a subscription by recursion, one native frame (80 to 96 B) per byte
     * of the prefix, on the thread that asks: a prefix longer than
     * {@value #UNSUBSCRIBE_ON_CALLER_MAX_BYTES} bytes is therefore removed on a platform thread of
     * its own, with a stack that holds it, while this call waits (until 2026-11-27 a 16 KiB prefix
     * overran the 1 MiB stack of a Java thread and the JVM died of SIGSEGV; a prefix is now at most
     * {@value #MAX_SUBSCRIPTION_BYTES} bytes, which a thread with a stack of 256 KiB could not
     * remove). An XSUB socket's send refuses a subscription or unsubscription message (a byte 1 or 0, then
     * the prefix) whose prefix is longer than {@value #MAX_SUBSCRIPTION_BYTES}; an unsubscription
     * it sends goes through the same recursion, on the sending thread, which must have the stack
     * for it (about 400 KiB for the longest).
     *
     * @param prefix the bytes given to {@link #subscribe(byte[])}, at most
     *     {@value #MAX_SUBSCRIPTION_BYTES}
     * @throws IllegalArgumentException when {@code prefix} is longer than
     *     {@value #MAX_SUBSCRIPTION_BYTES} bytes (no subscription can be)
     */
    public void unsubscribe(byte[] prefix) {
        setBytes("ZMQ_UNSUBSCRIBE", LibZmq.ZMQ_UNSUBSCRIBE, subscription("unsubscribe", prefix));
    }
    /**
     * SUB: {@link #unsubscribe(byte[])} with the UTF-8 bytes of {@code prefix}.
     *
     * @param prefix the text given to {@link #subscribe(String)}
     * @throws IllegalArgumentException when its UTF-8 bytes are more than {@value #MAX_SUBSCRIPTION_BYTES}
     */
    public void unsubscribe(String prefix) { unsubscribe(prefix.getBytes(StandardCharsets.UTF_8)); }

    /**
     * Receive timeout; -1 = block forever. An expired timeout is reported as "would block". Sets
     * {@code ZMQ_RCVTIMEO}, which applies from the next receive.
     *
     * @param ms milliseconds a blocking receive waits; -1 = forever (the default), 0 = not at all
     *     (as {@link #DONTWAIT})
     */
    public void receiveTimeoutMs(int ms) { setInt("ZMQ_RCVTIMEO", LibZmq.ZMQ_RCVTIMEO, ms); }
    /**
     * The receive timeout ({@code ZMQ_RCVTIMEO}).
     *
     * @return milliseconds; -1 = forever, 0 = a receive never waits
     */
    public int receiveTimeoutMs() { return getInt("ZMQ_RCVTIMEO", LibZmq.ZMQ_RCVTIMEO); }
    /**
     * Send timeout ({@code ZMQ_SNDTIMEO}): how long a blocking send waits for room (at the
     * high-water mark, say); an expired timeout is reported as "would block". Applies from the
     * next send.
     *
     * @param ms milliseconds; -1 = forever (the default), 0 = not at all (as {@link #DONTWAIT})
     */
    public void sendTimeoutMs(int ms) { setInt("ZMQ_SNDTIMEO", LibZmq.ZMQ_SNDTIMEO, ms); }
    /**
     * The send timeout ({@code ZMQ_SNDTIMEO}).
     *
     * @return milliseconds; -1 = forever, 0 = a send never waits
     */
    public int sendTimeoutMs() { return getInt("ZMQ_SNDTIMEO", LibZmq.ZMQ_SNDTIMEO); }

    /**
     * {@code ZMQ_IMMEDIATE}: queue messages only on connections that have completed, not on those
     * still being made, so round-robin sockets (PUSH, DEALER, REQ) do not park messages with a
     * peer that is not there. Default off. Applies to later bind/connect calls only.
     *
     * @param on true to queue only on completed connections
     */
    public void immediate(boolean on) { setInt("ZMQ_IMMEDIATE", LibZmq.ZMQ_IMMEDIATE, on ? 1 : 0); }
    /**
     * Whether {@code ZMQ_IMMEDIATE} is set.
     *
     * @return true when messages are queued only on completed connections
     */
    public boolean immediate() { return getInt("ZMQ_IMMEDIATE", LibZmq.ZMQ_IMMEDIATE) != 0; }
    /**
     * ROUTER (libzmq 4.3.4 takes it on a REP too, whose replies it routes): fail with EHOSTUNREACH
     * (a {@link ZmqException}) instead of dropping unroutable messages ({@code ZMQ_ROUTER_MANDATORY}).
     * Another socket type refuses it with EINVAL, and the exception says so. Applies at once.
     * Write-only in libzmq 4.3. libzmq
     * refuses the message's first part, the routing id, and nothing of the message is sent; the
     * exception's message names that id ({@code routingId="worker-7" (0x776f726b65722d37)}, in hex
     * alone when it is not printable ASCII, its first 64 bytes and length when longer).
     *
     * @param on true to fail unroutable sends; false (the default) drops them
     */
    public void routerMandatory(boolean on) { setInt("ZMQ_ROUTER_MANDATORY", LibZmq.ZMQ_ROUTER_MANDATORY, on ? 1 : 0); }
    /**
     * ROUTER (libzmq 4.3.4 takes it on a REP too): a peer that connects with the routing id of a
     * peer still connected takes the id over, and messages sent to it go to the newcomer
     * ({@code ZMQ_ROUTER_HANDOVER}). Without it (the default) libzmq keeps the first peer and
     * ignores the newcomer: nothing it sends is received, and what is sent to the id still goes to
     * the first peer. Another socket type
     * refuses it with EINVAL, and the exception names this socket's type. Applies to connections
     * made afterwards. Write-only in libzmq 4.3.
     *
     * @param on true to hand a routing id over to the newest peer that gives it
     */
    public void routerHandover(boolean on) { setInt("ZMQ_ROUTER_HANDOVER", LibZmq.ZMQ_ROUTER_HANDOVER, on ? 1 : 0); }
    /**
     * {@code ZMQ_MAXMSGSIZE}: the largest inbound frame (message part) accepted over tcp and ipc;
     * a peer that sends a larger one is disconnected. libzmq 4.3.4 checks it in its ZMTP decoder,
     * frame by frame: a multipart message whose parts each fit passes whatever its total, and
     * inproc, which has no decoder, is not limited at all. The receiver sees nothing of the
     * message that held the frame (parts before it included) and no error: its monitor sees
     * {@link MonitorEvent.Type#DISCONNECTED}, and a connecting sender, which was told its send
     * succeeded, reconnects; what it sends from then on arrives ({@code MaxMessageSizeTest}).
     * Applies to later bind/connect calls only.
     *
     * @param bytes the limit in bytes, 0 or more; -1 = no limit (the default, but on XPUB:
     *     {@link #XPUB_DEFAULT_MAX_MESSAGE_BYTES})
     * @throws IllegalArgumentException when {@code bytes} is below -1: libzmq would take it as no
     *     limit at all
     */
    public void maxMessageSize(long bytes) {
        if (bytes < -1) {
            throw new IllegalArgumentException("maxMessageSize must be -1 (no limit) or 0 or more: maxMessageSize=" + bytes);
        }
        setLong("ZMQ_MAXMSGSIZE", LibZmq.ZMQ_MAXMSGSIZE, bytes);
    }
    /**
     * The inbound frame size limit ({@code ZMQ_MAXMSGSIZE}), see {@link #maxMessageSize(long)}.
     *
     * @return bytes; -1 = no limit
     */
    public long maxMessageSize() { return getLong("ZMQ_MAXMSGSIZE", LibZmq.ZMQ_MAXMSGSIZE); }

    /**
     * TCP keepalive ({@code ZMQ_TCP_KEEPALIVE}, overrides {@code SO_KEEPALIVE}): -1 = OS default,
     * 0 = off, 1 = on. For tcp endpoints. Applies to later bind/connect calls only.
     *
     * @param mode -1 (the default), 0 or 1; other values fail with EINVAL
     */
    public void tcpKeepalive(int mode) { setInt("ZMQ_TCP_KEEPALIVE", LibZmq.ZMQ_TCP_KEEPALIVE, mode); }
    /**
     * The TCP keepalive override ({@code ZMQ_TCP_KEEPALIVE}).
     *
     * @return -1 = OS default, 0 = off, 1 = on
     */
    public int tcpKeepalive() { return getInt("ZMQ_TCP_KEEPALIVE", LibZmq.ZMQ_TCP_KEEPALIVE); }
    /**
     * Idle time before the first keepalive probe ({@code ZMQ_TCP_KEEPALIVE_IDLE}, overrides
     * {@code TCP_KEEPIDLE}). For tcp, and only while {@link #tcpKeepalive(int)} is not -1.
     * Applies to later bind/connect calls only.
     *
     * @param seconds the idle time, 1 to {@value #MAX_TCP_KEEPALIVE_SECONDS} on Linux; -1 = OS
     *     default (the default)
     * @throws IllegalArgumentException on Linux, when {@code seconds} is outside those (see
     *     {@link #MAX_TCP_KEEPALIVE_SECONDS})
     */
    public void tcpKeepaliveIdle(int seconds) {
        setInt("ZMQ_TCP_KEEPALIVE_IDLE", LibZmq.ZMQ_TCP_KEEPALIVE_IDLE,
                keepalive("tcpKeepaliveIdle", seconds, MAX_TCP_KEEPALIVE_SECONDS));
    }
    /**
     * The keepalive idle time ({@code ZMQ_TCP_KEEPALIVE_IDLE}).
     *
     * @return seconds; -1 = OS default
     */
    public int tcpKeepaliveIdle() { return getInt("ZMQ_TCP_KEEPALIVE_IDLE", LibZmq.ZMQ_TCP_KEEPALIVE_IDLE); }
    /**
     * Time between keepalive probes ({@code ZMQ_TCP_KEEPALIVE_INTVL}, overrides
     * {@code TCP_KEEPINTVL}). For tcp, and only while {@link #tcpKeepalive(int)} is not -1.
     * Applies to later bind/connect calls only.
     *
     * @param seconds the interval, 1 to {@value #MAX_TCP_KEEPALIVE_SECONDS} on Linux; -1 = OS
     *     default (the default)
     * @throws IllegalArgumentException on Linux, when {@code seconds} is outside those (see
     *     {@link #MAX_TCP_KEEPALIVE_SECONDS})
     */
    public void tcpKeepaliveIntvl(int seconds) {
        setInt("ZMQ_TCP_KEEPALIVE_INTVL", LibZmq.ZMQ_TCP_KEEPALIVE_INTVL,
                keepalive("tcpKeepaliveIntvl", seconds, MAX_TCP_KEEPALIVE_SECONDS));
    }
    /**
     * The keepalive probe interval ({@code ZMQ_TCP_KEEPALIVE_INTVL}).
     *
     * @return seconds; -1 = OS default
     */
    public int tcpKeepaliveIntvl() { return getInt("ZMQ_TCP_KEEPALIVE_INTVL", LibZmq.ZMQ_TCP_KEEPALIVE_INTVL); }
    /**
     * Unanswered keepalive probes before the connection is dropped ({@code ZMQ_TCP_KEEPALIVE_CNT},
     * overrides {@code TCP_KEEPCNT}). For tcp, and only while {@link #tcpKeepalive(int)} is not
     * -1. Applies to later bind/connect calls only.
     *
     * @param count the number of probes, 1 to {@value #MAX_TCP_KEEPALIVE_CNT} on Linux; -1 = OS
     *     default (the default)
     * @throws IllegalArgumentException on Linux, when {@code count} is outside those (see
     *     {@link #MAX_TCP_KEEPALIVE_SECONDS})
     */
    public void tcpKeepaliveCnt(int count) {
        setInt("ZMQ_TCP_KEEPALIVE_CNT", LibZmq.ZMQ_TCP_KEEPALIVE_CNT,
                keepalive("tcpKeepaliveCnt", count, MAX_TCP_KEEPALIVE_CNT));
    }

    /**
     * {@code value} if Linux would take it for a keepalive setting of at most {@code max}, or -1;
     * on macOS (whose kernel takes any value from 0) what libzmq takes.
     */
    private static int keepalive(String name, int value, int max) {
        if (LibZmq.ERRNO_VALUES == LibZmq.Errno.LINUX && value != -1 && (value < 1 || value > max)) {
            throw new IllegalArgumentException(name + " must be -1 or 1 to " + max + ": " + name + "=" + value
                    + " (Linux refuses it on every new tcp connection, which libzmq then drops and retries for ever)");
        }
        return value;
    }
    /**
     * The keepalive probe count ({@code ZMQ_TCP_KEEPALIVE_CNT}).
     *
     * @return probes; -1 = OS default
     */
    public int tcpKeepaliveCnt() { return getInt("ZMQ_TCP_KEEPALIVE_CNT", LibZmq.ZMQ_TCP_KEEPALIVE_CNT); }

    /**
     * CURVE server role; set with {@link #curveSecretKey} before bind. Sets
     * {@code ZMQ_CURVE_SERVER}. Applies to later bind/connect calls only.
     *
     * @param on true to act as CURVE server; false (the default) returns the socket to no security
     * @throws ZmqException when libzmq was built without CURVE ({@link Curve#isAvailable()}), which
     *     the message says, as it does for the other CURVE options
     */
    public void curveServer(boolean on) { setInt("ZMQ_CURVE_SERVER", LibZmq.ZMQ_CURVE_SERVER, on ? 1 : 0); }
    /**
     * Whether this socket is a CURVE server ({@code ZMQ_CURVE_SERVER}).
     *
     * @return whether the socket acts as CURVE server
     */
    public boolean curveServer() { return getInt("ZMQ_CURVE_SERVER", LibZmq.ZMQ_CURVE_SERVER) != 0; }
    /**
     * This socket's CURVE public key ({@code ZMQ_CURVE_PUBLICKEY}), Z85 (40 characters); a client
     * sets it together with its {@link #curveSecretKey}. Applies to later bind/connect calls only.
     *
     * @param z85 the key in Z85, {@value Curve#Z85_KEY_CHARS} characters (see
     *     {@link Curve#keypair()})
     * @throws IllegalArgumentException when {@code z85} is not {@value Curve#Z85_KEY_CHARS}
     *     characters long, has a character outside the Z85 alphabet (the message names it and
     *     its index), or a group of 5 characters standing for more than 32 bits
     */
    public void curvePublicKey(String z85) { setZ85("ZMQ_CURVE_PUBLICKEY", LibZmq.ZMQ_CURVE_PUBLICKEY, z85); }
    /**
     * This socket's CURVE public key ({@code ZMQ_CURVE_PUBLICKEY}).
     *
     * @return the key in Z85; 40 {@code '0'} characters (the all-zero key) when none was set
     */
    public String curvePublicKey() { return getZ85("ZMQ_CURVE_PUBLICKEY", LibZmq.ZMQ_CURVE_PUBLICKEY); }
    /**
     * This socket's CURVE secret key ({@code ZMQ_CURVE_SECRETKEY}), Z85; both a CURVE server and a
     * client set it. Applies to later bind/connect calls only. The copies this call makes are
     * zeroed before it returns; {@code z85}, a String, cannot be, so keep it short-lived, or use
     * {@link #curveSecretKeyBytes(byte[])}, which takes an array the caller can zero.
     *
     * @param z85 the key in Z85, {@value Curve#Z85_KEY_CHARS} characters (see
     *     {@link Curve#keypair()})
     * @throws IllegalArgumentException when {@code z85} is not {@value Curve#Z85_KEY_CHARS}
     *     characters long, has a character outside the Z85 alphabet (the message names it and
     *     its index), or a group of 5 characters standing for more than 32 bits
     */
    public void curveSecretKey(String z85) { setZ85("ZMQ_CURVE_SECRETKEY", LibZmq.ZMQ_CURVE_SECRETKEY, z85); }
    /**
     * This socket's CURVE secret key ({@code ZMQ_CURVE_SECRETKEY}). The option buffer it passed
     * through is zeroed; the String returned cannot be, so keep it short-lived, or use
     * {@link #curveSecretKeyBytes()}, which gives an array the caller can zero.
     *
     * @return the key in Z85; 40 {@code '0'} characters (the all-zero key) when none was set
     */
    public String curveSecretKey() { return getZ85("ZMQ_CURVE_SECRETKEY", LibZmq.ZMQ_CURVE_SECRETKEY); }
    /**
     * {@link #curveSecretKey(String)} in binary, without a String of the key: e.g. from
     * {@link Curve#keypair(byte[], byte[])} or {@link Curve.KeyPair#secretKeyBytes()}. The array
     * stays the caller's and is not kept: libzmq has its own copy, and the option buffer it
     * passed through is zeroed, so the caller may zero the array as soon as this returns.
     *
     * @param key the secret key, {@value Curve#KEY_BYTES} bytes
     * @throws NullPointerException ({@code "ZMQ_CURVE_SECRETKEY is null"}) when {@code key} is null
     * @throws IllegalArgumentException when {@code key} is not {@value Curve#KEY_BYTES} bytes
     *     long (the message names the option and the length)
     */
    public void curveSecretKeyBytes(byte[] key) {
        Curve.checkBinaryKey("ZMQ_CURVE_SECRETKEY", key);
        setBytes("ZMQ_CURVE_SECRETKEY", LibZmq.ZMQ_CURVE_SECRETKEY, key);
    }
    /**
     * {@link #curveSecretKey()} in binary, without a String of the key. The option buffer it
     * passed through is zeroed.
     *
     * @return a new {@value Curve#KEY_BYTES}-byte array, owned by the caller, who zeroes it once
     *     done; all zero when no secret key was set
     */
    public byte[] curveSecretKeyBytes() {
        enter();
        try {
            return keyEntered("ZMQ_CURVE_SECRETKEY", LibZmq.ZMQ_CURVE_SECRETKEY);
        } finally {
            wipeSecretEntered(LibZmq.ZMQ_CURVE_SECRETKEY, Curve.KEY_BYTES);
            exit();
        }
    }
    /**
     * Client: the server's public key (Z85), {@code ZMQ_CURVE_SERVERKEY}. Applies to later
     * bind/connect calls only. Refused on a CURVE server: libzmq takes this option as "be a
     * client" and turns {@code ZMQ_CURVE_SERVER} off, so a server given its own public key here
     * went on as a client, and every handshake with its clients failed.
     *
     * @param z85 the server's public key, {@value Curve#Z85_KEY_CHARS} Z85 characters
     * @throws IllegalArgumentException when {@code z85} is not {@value Curve#Z85_KEY_CHARS}
     *     characters long, has a character outside the Z85 alphabet (the message names it and
     *     its index), or a group of 5 characters standing for more than 32 bits
     * @throws IllegalStateException when this socket is a CURVE server ({@link #curveServer()});
     *     {@code curveServer(false)} first makes it a client
     */
    public void curveServerKey(String z85) {
        byte[] key = Curve.z85Key("ZMQ_CURVE_SERVERKEY", z85);
        if (curveServer()) {
            throw new IllegalStateException("ZMQ_CURVE_SERVERKEY on a CURVE server (curveServer(true)): libzmq would"
                    + " make it a CURVE client, whose every handshake with a client fails; a server needs no server key"
                    + " (curveServer(false) first makes this socket a client)");
        }
        setBytes("ZMQ_CURVE_SERVERKEY", LibZmq.ZMQ_CURVE_SERVERKEY, key);
    }
    /**
     * The server key this client uses ({@code ZMQ_CURVE_SERVERKEY}).
     *
     * @return the key in Z85; 40 {@code '0'} characters (the all-zero key) when none was set
     */
    public String curveServerKey() { return getZ85("ZMQ_CURVE_SERVERKEY", LibZmq.ZMQ_CURVE_SERVERKEY); }

    /**
     * Kernel send buffer; -1 = OS default. Sets {@code ZMQ_SNDBUF} ({@code SO_SNDBUF} of the
     * socket's connections). Applies to later bind/connect calls only. Linux doubles the value,
     * caps it at twice {@code net.core.wmem_max} and no longer tunes that connection's buffer
     * itself; 0 is not the OS default (as it was in libzmq before 4.2) but the kernel's smallest
     * buffer, 4,608 B on Linux (seen with {@code ss -tm}), which slows a connection down.
     *
     * @param bytes the buffer size in bytes; -1 = OS default (the default)
     */
    public void sndbuf(int bytes) { setInt("ZMQ_SNDBUF", LibZmq.ZMQ_SNDBUF, bytes); }
    /**
     * The kernel send buffer size ({@code ZMQ_SNDBUF}).
     *
     * @return bytes; -1 = OS default
     */
    public int sndbuf() { return getInt("ZMQ_SNDBUF", LibZmq.ZMQ_SNDBUF); }
    /**
     * Kernel receive buffer ({@code ZMQ_RCVBUF}, {@code SO_RCVBUF} of the socket's connections).
     * Applies to later bind/connect calls only. As for {@link #sndbuf(int)} ({@code net.core.rmem_max}
     * here), 0 is the kernel's smallest buffer, 2,304 B, not the OS default.
     *
     * @param bytes the buffer size in bytes; -1 = OS default (the default)
     */
    public void rcvbuf(int bytes) { setInt("ZMQ_RCVBUF", LibZmq.ZMQ_RCVBUF, bytes); }
    /**
     * The kernel receive buffer size ({@code ZMQ_RCVBUF}).
     *
     * @return bytes; -1 = OS default
     */
    public int rcvbuf() { return getInt("ZMQ_RCVBUF", LibZmq.ZMQ_RCVBUF); }
    /**
     * Keep only the last message (single-part messages only): {@code ZMQ_CONFLATE}, which ignores
     * the high-water marks. For PUSH, PULL, PUB, SUB and DEALER. Applies to later bind/connect
     * calls only. Over tcp and ipc it governs this socket's own queues. Over inproc the two
     * sockets share one pipe, which libzmq 4.3.4 makes with the connecting socket's setting: a
     * PULL that binds an inproc endpoint with conflate on keeps every message of a PUSH that
     * connects without it, and a PUSH that connects with it conflates the pipe for both
     * ({@code ConflateTest}).
     *
     * <p>libzmq keeps the last frame, not the last message: of a multipart message only its last
     * part arrives, alone, as a whole message. So once this socket was bound or connected with
     * conflate on, every send with {@link #SNDMORE} is refused ({@link IllegalStateException},
     * nothing sent); over inproc too, whichever side's setting made the pipe. A conflating
     * receiver fed multipart messages by a peer may get any part: its last alone, or one with more
     * to follow, after which libzmq 4.3.4 aborts the process on the next receive once the rest is
     * gone. So after a part with more to follow, every receive on this socket is refused
     * ({@link IllegalStateException}: the socket has to be closed), and a proxy refuses the socket.
     *
     * @param on true to keep only the last message in each queue; false (the default) keeps all
     * @throws IllegalStateException for {@code true} on another socket type (PAIR, REQ, REP, ROUTER,
     *     XPUB, XSUB, STREAM): libzmq 4.3.4 takes it there and ignores it, every message kept (until
     *     2026-11-28 it was passed on, and a PAIR or ROUTER "conflating" received all five of five)
     */
    public void conflate(boolean on) { setInt("ZMQ_CONFLATE", LibZmq.ZMQ_CONFLATE, conflateFlag("conflate", on ? 1 : 0)); }

    /** {@code value}, unless it turns conflate on for a type whose pipes libzmq never conflates. */
    private int conflateFlag(String name, int value) {
        if (value != 0 && !CONFLATING_TYPES.contains(type)) {
            throw new IllegalStateException(name + " is for PUSH, PULL, PUB, SUB and DEALER sockets only: type=" + type
                    + ", " + name + "=" + value + " (libzmq 4.3.4 would take it and keep every message)");
        }
        return value;
    }

    /** The types whose queues libzmq 4.3.4 conflates (options.cpp, get_effective_conflate_option). */
    private static final Set<SocketType> CONFLATING_TYPES =
            Set.of(SocketType.PUSH, SocketType.PULL, SocketType.PUB, SocketType.SUB, SocketType.DEALER);

    /**
     * Whether {@code ZMQ_CONFLATE} is set.
     *
     * @return true when this socket keeps only the last message in each queue
     */
    public boolean conflate() { return getInt("ZMQ_CONFLATE", LibZmq.ZMQ_CONFLATE) != 0; }
    /**
     * Reconnection interval ({@code ZMQ_RECONNECT_IVL}): how long to wait before connecting again
     * after a connection was lost or refused; libzmq may randomise it. Applies to later connect
     * calls only.
     *
     * @param ms milliseconds, 1 or more, default 100; -1 = never reconnect
     * @throws IllegalArgumentException when {@code ms} is 0: libzmq takes it, but 4.3.4 then never
     *     reconnects (as for -1), and libzmq before 4.3.3 divides by it when it schedules a retry,
     *     which ends the process (SIGFPE)
     */
    public void reconnectIvlMs(int ms) {
        setInt("ZMQ_RECONNECT_IVL", LibZmq.ZMQ_RECONNECT_IVL, reconnectIvl("reconnectIvlMs", ms));
    }

    /** {@code ms} unless it is 0, which libzmq takes as "never" (4.3.3 on) or divides by (before). */
    private static int reconnectIvl(String name, int ms) {
        if (ms == 0) {
            throw new IllegalArgumentException(name + " must be -1 (never reconnect) or 1 or more: " + name + "=0"
                    + " (libzmq 4.3.4 never reconnects with 0, and libzmq before 4.3.3 divides by it, ending the process)");
        }
        return ms;
    }
    /**
     * The reconnection interval ({@code ZMQ_RECONNECT_IVL}).
     *
     * @return milliseconds; -1 = no reconnection
     */
    public int reconnectIvlMs() { return getInt("ZMQ_RECONNECT_IVL", LibZmq.ZMQ_RECONNECT_IVL); }
    /**
     * Upper bound of the reconnection interval ({@code ZMQ_RECONNECT_IVL_MAX}): when set, each
     * attempt doubles the interval up to it (exponential backoff). Applies to later connect
     * calls only.
     *
     * @param ms milliseconds; 0 (the default) = no backoff, always {@link #reconnectIvlMs()};
     *     a value below that is ignored
     */
    public void reconnectIvlMaxMs(int ms) { setInt("ZMQ_RECONNECT_IVL_MAX", LibZmq.ZMQ_RECONNECT_IVL_MAX, ms); }
    /**
     * The reconnection interval's upper bound ({@code ZMQ_RECONNECT_IVL_MAX}).
     *
     * @return milliseconds; 0 = no backoff
     */
    public int reconnectIvlMaxMs() { return getInt("ZMQ_RECONNECT_IVL_MAX", LibZmq.ZMQ_RECONNECT_IVL_MAX); }
    /**
     * Listen backlog ({@code ZMQ_BACKLOG}): how many incoming connections may wait to be accepted
     * on a tcp or ipc bind. Applies to later bind calls only.
     *
     * @param connections the queue length, default 100
     */
    public void backlog(int connections) { setInt("ZMQ_BACKLOG", LibZmq.ZMQ_BACKLOG, connections); }
    /**
     * The listen backlog ({@code ZMQ_BACKLOG}).
     *
     * @return connections
     */
    public int backlog() { return getInt("ZMQ_BACKLOG", LibZmq.ZMQ_BACKLOG); }
    /**
     * {@code ZMQ_IPV6}: use IPv6 sockets for tcp endpoints, which also reach IPv4 hosts. Applies
     * to later bind/connect calls only.
     *
     * @param on true for IPv6 and IPv4; false (the default) for IPv4 only
     */
    public void ipv6(boolean on) { setInt("ZMQ_IPV6", LibZmq.ZMQ_IPV6, on ? 1 : 0); }
    /**
     * Whether {@code ZMQ_IPV6} is set.
     *
     * @return true when tcp endpoints use IPv6 sockets
     */
    public boolean ipv6() { return getInt("ZMQ_IPV6", LibZmq.ZMQ_IPV6) != 0; }
    /**
     * Handshake interval ({@code ZMQ_HANDSHAKE_IVL}): how long a new connection may take for the
     * ZMTP handshake before it is closed. Not for STREAM sockets. Applies to later bind/connect
     * calls only.
     *
     * @param ms milliseconds, default 30000; 0 = no limit
     */
    public void handshakeIvlMs(int ms) { setInt("ZMQ_HANDSHAKE_IVL", LibZmq.ZMQ_HANDSHAKE_IVL, ms); }
    /**
     * The handshake interval ({@code ZMQ_HANDSHAKE_IVL}).
     *
     * @return milliseconds; 0 = no limit
     */
    public int handshakeIvlMs() { return getInt("ZMQ_HANDSHAKE_IVL", LibZmq.ZMQ_HANDSHAKE_IVL); }
    /**
     * Heartbeat interval ({@code ZMQ_HEARTBEAT_IVL}): a ZMTP PING goes to each peer this often,
     * the peer answers each with a PONG, and a connection that brings nothing in (no message, no
     * PONG) for {@link #heartbeatTimeoutMs(int)} after a PING is closed, then reconnected as any
     * lost connection (a monitor sees {@link MonitorEvent.Type#DISCONNECTED}). Applies to
     * connections made after the call only (connection-oriented transports: tcp, ipc).
     *
     * @param ms milliseconds; 0 (the default) = no heartbeats; a negative value libzmq refuses
     *     ({@link ZmqException}, EINVAL)
     */
    public void heartbeatIvlMs(int ms) { setInt("ZMQ_HEARTBEAT_IVL", LibZmq.ZMQ_HEARTBEAT_IVL, ms); }
    /**
     * The heartbeat interval ({@code ZMQ_HEARTBEAT_IVL}).
     *
     * @return milliseconds; 0 = no heartbeats
     */
    public int heartbeatIvlMs() { return getInt("ZMQ_HEARTBEAT_IVL", LibZmq.ZMQ_HEARTBEAT_IVL); }
    /**
     * Heartbeat time-to-live ({@code ZMQ_HEARTBEAT_TTL}), sent with each PING: the peer closes the
     * connection when it hears nothing for this long after a PING. Needs
     * {@link #heartbeatIvlMs(int)}, and should exceed it (the peer's clock restarts at each PING, so a
     * TTL below the interval closes a healthy connection). Applies to later bind/connect calls only.
     *
     * <p>The PING carries it in tenths of a second, which libzmq 4.3.4 multiplies by 100 in a 16-bit
     * integer when it receives it (zmtp_engine.cpp, process_heartbeat_message): a TTL of 65,600 ms reached
     * such a peer as 64 ms, so a healthy connection was dropped after every PING, and one of
     * 1,638,400 ms as none; until 2026-11-27 this took any value libzmq takes, up to 6,553,599.
     *
     * @param ms milliseconds, rounded down to tenths of a second (below 100: no effect), at most
     *     {@value #MAX_HEARTBEAT_TTL_MS} (65,500 in effect); 0 (the default) = none. libzmq rounds
     *     -1 to -99 to 0 too, and refuses -100 and below ({@link ZmqException}, EINVAL)
     * @throws IllegalArgumentException when {@code ms} is above {@value #MAX_HEARTBEAT_TTL_MS}
     *     (the message names it and the limit)
     */
    public void heartbeatTtlMs(int ms) {
        setInt("ZMQ_HEARTBEAT_TTL", LibZmq.ZMQ_HEARTBEAT_TTL, heartbeatTtl(ms));
    }

    /**
     * The largest heartbeat TTL a libzmq peer reads back as sent: the PING's 16-bit count of tenths
     * of a second, times 100, must fit 16 bits (65,535 ms) there, and 65,599 rounds down to 65,500.
     */
    public static final int MAX_HEARTBEAT_TTL_MS = 65_599;

    private static int heartbeatTtl(int ms) {
        if (ms > MAX_HEARTBEAT_TTL_MS) {
            throw new IllegalArgumentException("ZMQ_HEARTBEAT_TTL must be at most " + MAX_HEARTBEAT_TTL_MS + " ms: ZMQ_HEARTBEAT_TTL=" + ms
                    + " (a libzmq peer multiplies the tenths of a second it receives by 100 in 16 bits: it would read "
                    + (ms / 100 * 100 & 0xFFFF) + " ms)");
        }
        return ms;
    }
    /**
     * The heartbeat time-to-live ({@code ZMQ_HEARTBEAT_TTL}).
     *
     * @return milliseconds, as rounded down to tenths of a second; 0 = none
     */
    public int heartbeatTtlMs() { return getInt("ZMQ_HEARTBEAT_TTL", LibZmq.ZMQ_HEARTBEAT_TTL); }
    /**
     * Heartbeat timeout ({@code ZMQ_HEARTBEAT_TIMEOUT}): after a PING, how long to wait for any
     * traffic from the peer before closing the connection. Needs {@link #heartbeatIvlMs(int)}.
     * Applies to later bind/connect calls only.
     *
     * @param ms milliseconds, 1 or more; 0 = never time out (PINGs still go, and the connection
     *     is closed only by the peer's TTL or the OS), not "use the interval": that is the default,
     *     which reads -1 and cannot be set again (libzmq refuses a negative value,
     *     {@link ZmqException} EINVAL), so set the interval's value instead
     */
    public void heartbeatTimeoutMs(int ms) { setInt("ZMQ_HEARTBEAT_TIMEOUT", LibZmq.ZMQ_HEARTBEAT_TIMEOUT, ms); }
    /**
     * The heartbeat timeout ({@code ZMQ_HEARTBEAT_TIMEOUT}).
     *
     * @return milliseconds; -1 when never set, and then the heartbeat interval serves as timeout;
     *     0 = never time out
     */
    public int heartbeatTimeoutMs() { return getInt("ZMQ_HEARTBEAT_TIMEOUT", LibZmq.ZMQ_HEARTBEAT_TIMEOUT); }
    /**
     * Connect timeout ({@code ZMQ_CONNECT_TIMEOUT}): how long a tcp {@code connect()} may take
     * before libzmq gives up on that attempt, instead of the OS's much longer timeout.
     * Applies to later connect calls only.
     *
     * @param ms milliseconds; 0 (the default) = the OS's timeout
     */
    public void connectTimeoutMs(int ms) { setInt("ZMQ_CONNECT_TIMEOUT", LibZmq.ZMQ_CONNECT_TIMEOUT, ms); }
    /**
     * The connect timeout ({@code ZMQ_CONNECT_TIMEOUT}).
     *
     * @return milliseconds; 0 = the OS's timeout
     */
    public int connectTimeoutMs() { return getInt("ZMQ_CONNECT_TIMEOUT", LibZmq.ZMQ_CONNECT_TIMEOUT); }
    /**
     * Type-of-Service byte ({@code ZMQ_TOS}: the DSCP and ECN bits of the IP header) of the
     * socket's outgoing packets; on a tcp connection Linux keeps the ECN bits (the low two) to
     * itself, so only the DSCP bits take effect. Applies to later bind/connect calls only.
     *
     * @param tos the byte's value, 0 to 255; default 0
     * @throws IllegalArgumentException when {@code tos} is outside 0 to 255: libzmq takes any
     *     value from 0 and Linux keeps its low byte silently ({@code tos(296)} sent 0x28)
     */
    public void tos(int tos) { setInt("ZMQ_TOS", LibZmq.ZMQ_TOS, tosByte("tos", tos)); }

    /** {@code tos} if it is one byte's value. */
    private static int tosByte(String name, int tos) {
        if (tos < 0 || tos > 0xFF) {
            throw new IllegalArgumentException(name + " must be 0 to 255: " + name + "=" + tos
                    + " (the IP header's Type-of-Service byte; Linux would keep the low byte of it)");
        }
        return tos;
    }
    /**
     * The Type-of-Service byte ({@code ZMQ_TOS}).
     *
     * @return the value set, 0 by default
     */
    public int tos() { return getInt("ZMQ_TOS", LibZmq.ZMQ_TOS); }
    /**
     * XPUB: pass every (un)subscription upstream, not only new ones. Write-only.
     * Sets {@code ZMQ_XPUB_VERBOSE}; applies at once.
     *
     * @param on true to pass every subscription message; false (the default) passes only new ones
     */
    public void xpubVerbose(boolean on) { setInt("ZMQ_XPUB_VERBOSE", LibZmq.ZMQ_XPUB_VERBOSE, on ? 1 : 0); }
    /**
     * XPUB: block or fail with EAGAIN at the HWM instead of dropping. Write-only.
     * Sets {@code ZMQ_XPUB_NODROP}.
     *
     * @param on true to block (or return false with {@link #DONTWAIT}); false (the default) drops
     */
    public void xpubNoDrop(boolean on) { setInt("ZMQ_XPUB_NODROP", LibZmq.ZMQ_XPUB_NODROP, on ? 1 : 0); }
    /**
     * REQ: match replies to requests. Write-only. Sets {@code ZMQ_REQ_CORRELATE}, which prefixes
     * each request with a request id and drops replies that do not carry it. Applies at once.
     *
     * @param on true to correlate; false (the default) relies on message order
     */
    public void reqCorrelate(boolean on) { setInt("ZMQ_REQ_CORRELATE", LibZmq.ZMQ_REQ_CORRELATE, on ? 1 : 0); }
    /**
     * REQ: allow a new request without waiting for the reply. Write-only. Sets
     * {@code ZMQ_REQ_RELAXED}; a late reply to an earlier request is then dropped only with
     * {@link #reqCorrelate(boolean)} on too. Applies at once.
     *
     * @param on true to allow a new request at any time; false (the default) enforces alternation
     */
    public void reqRelaxed(boolean on) { setInt("ZMQ_REQ_RELAXED", LibZmq.ZMQ_REQ_RELAXED, on ? 1 : 0); }
    /**
     * Whether the last frame received had more parts (ZMQ_RCVMORE, read from libzmq).
     *
     * @return true when more frames of the same message follow
     */
    public boolean rcvmore() { return getInt("ZMQ_RCVMORE", LibZmq.ZMQ_RCVMORE) != 0; }
    /**
     * ZMQ_EVENTS: bit 1 = a message can be received, bit 2 = one can be sent. Reading it also
     * lets the socket process its pending commands (a STREAM connection's close completes, say).
     * Allocation-free: read through the handle that captures no errno, and asked again through
     * the capturing one only when it fails (ETERM, the socket closed in libzmq), to name why.
     *
     * @return {@link ZmqPoller#POLLIN} and/or {@link ZmqPoller#POLLOUT} bits, 0 for neither
     */
    public int events() {
        enter();
        try {
            optLen.set(ValueLayout.JAVA_LONG, 0, 4L);
            if ((int) LibZmq.zmq_getsockopt_fast.invokeExact(socket, LibZmq.ZMQ_EVENTS, opt, optLen) != 0) {
                getRawEntered("ZMQ_EVENTS", LibZmq.ZMQ_EVENTS, 4); // throws naming errno, or answers this time
            }
            return opt.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        } finally {
            exit();
        }
    }

    /**
     * Sets any integer option by its ZMQ_* number (for options without a typed setter). Setting
     * {@code ZMQ_SNDTIMEO} or {@code ZMQ_RCVTIMEO} this way is as good as the typed setters: the
     * socket keeps its copy of both timeouts current; the tcp keepalive options
     * ({@code ZMQ_TCP_KEEPALIVE_IDLE}, {@code _INTVL}, {@code _CNT}), {@code ZMQ_RECONNECT_IVL},
     * {@code ZMQ_TOS}, {@code ZMQ_HEARTBEAT_TTL} and {@code ZMQ_CONFLATE} are checked as their typed
     * setters check them.
     *
     * @param option the {@code ZMQ_*} number from {@code zmq.h}, for an option of C type int
     * @param value the option's value
     * @throws IllegalArgumentException for an option of libzmq 4.3.4 whose C type is not int
     *     (an int64_t, uint64_t, string or binary one, such as {@code ZMQ_MAXMSGSIZE} or
     *     {@code ZMQ_ROUTING_ID}), naming it, its type and the typed method where there is one;
     *     on Linux, for a tcp keepalive value the kernel refuses (see
     *     {@link #MAX_TCP_KEEPALIVE_SECONDS}); for a {@code ZMQ_RECONNECT_IVL} of 0 (see
     *     {@link #reconnectIvlMs(int)}); for a {@code ZMQ_TOS} outside 0 to 255 (see {@link #tos(int)});
     *     for a {@code ZMQ_HEARTBEAT_TTL} above {@link #MAX_HEARTBEAT_TTL_MS} (see {@link #heartbeatTtlMs(int)})
     * @throws IllegalStateException for a {@code ZMQ_CONFLATE} other than 0 on a type that does not
     *     conflate (see {@link #conflate(boolean)})
     */
    public void setIntOption(int option, int value) {
        refuseNonInt(option, "setIntOption");
        int checked = switch (option) {
            case LibZmq.ZMQ_TCP_KEEPALIVE_IDLE -> keepalive("ZMQ_TCP_KEEPALIVE_IDLE", value, MAX_TCP_KEEPALIVE_SECONDS);
            case LibZmq.ZMQ_TCP_KEEPALIVE_INTVL -> keepalive("ZMQ_TCP_KEEPALIVE_INTVL", value, MAX_TCP_KEEPALIVE_SECONDS);
            case LibZmq.ZMQ_TCP_KEEPALIVE_CNT -> keepalive("ZMQ_TCP_KEEPALIVE_CNT", value, MAX_TCP_KEEPALIVE_CNT);
            case LibZmq.ZMQ_RECONNECT_IVL -> reconnectIvl("ZMQ_RECONNECT_IVL", value);
            case LibZmq.ZMQ_TOS -> tosByte("ZMQ_TOS", value);
            case LibZmq.ZMQ_HEARTBEAT_TTL -> heartbeatTtl(value);
            case LibZmq.ZMQ_CONFLATE -> conflateFlag("ZMQ_CONFLATE", value);
            default -> value;
        };
        setInt("option " + option, option, checked);
    }
    /**
     * Reads any integer option by its ZMQ_* number.
     *
     * @param option the {@code ZMQ_*} number from {@code zmq.h}, for an option of C type int
     * @return the option's value
     * @throws IllegalArgumentException for an option of libzmq 4.3.4 whose C type is not int, as
     *     {@link #setIntOption} says: libzmq refused the 64-bit ones with a bare EINVAL, and
     *     returned the first bytes of a short binary one, such as a routing id, as a number
     */
    public int getIntOption(int option) {
        refuseNonInt(option, "getIntOption");
        return getInt("option " + option, option);
    }

    /**
     * Refuses, before libzmq sees it, an option of libzmq 4.3.4's stable API whose C type is not
     * int, and the string and binary draft options of 4.3.x. Until 2026-11-29 libzmq answered for
     * them: EINVAL, "option 22=5", for the 64-bit ones, which did not say that the width was wrong,
     * and for a short binary one read as an int its bytes as a number. Until 2026-11-29
     * {@code ZMQ_BINDTODEVICE} and the draft ones were missing from the list: libzmq took the int's
     * four bytes as the device's name (every later tcp bind failed with ENODEV) and, in a release
     * build, as a SOCKS user name or password.
     */
    private static void refuseNonInt(int option, String call) {
        String what = switch (option) {
            case LibZmq.ZMQ_AFFINITY -> "ZMQ_AFFINITY, a uint64_t option";
            case LibZmq.ZMQ_ROUTING_ID -> "ZMQ_ROUTING_ID, a binary option (use routingId)";
            case LibZmq.ZMQ_SUBSCRIBE -> "ZMQ_SUBSCRIBE, a binary option (use subscribe)";
            case LibZmq.ZMQ_UNSUBSCRIBE -> "ZMQ_UNSUBSCRIBE, a binary option (use unsubscribe)";
            case LibZmq.ZMQ_MAXMSGSIZE -> "ZMQ_MAXMSGSIZE, an int64_t option (use maxMessageSize)";
            case LibZmq.ZMQ_LAST_ENDPOINT -> "ZMQ_LAST_ENDPOINT, a string option (use lastEndpoint)";
            case 38 -> "ZMQ_TCP_ACCEPT_FILTER, a binary option";
            case 45 -> "ZMQ_PLAIN_USERNAME, a string option";
            case 46 -> "ZMQ_PLAIN_PASSWORD, a string option";
            case LibZmq.ZMQ_CURVE_PUBLICKEY -> "ZMQ_CURVE_PUBLICKEY, a binary or Z85 option (use curvePublicKey)";
            case LibZmq.ZMQ_CURVE_SECRETKEY -> "ZMQ_CURVE_SECRETKEY, a binary or Z85 option (use curveSecretKey)";
            case LibZmq.ZMQ_CURVE_SERVERKEY -> "ZMQ_CURVE_SERVERKEY, a binary or Z85 option (use curveServerKey)";
            case 55 -> "ZMQ_ZAP_DOMAIN, a string option";
            case 61 -> "ZMQ_CONNECT_ROUTING_ID, a binary option";
            case 63 -> "ZMQ_GSSAPI_PRINCIPAL, a string option";
            case 64 -> "ZMQ_GSSAPI_SERVICE_PRINCIPAL, a string option";
            case 68 -> "ZMQ_SOCKS_PROXY, a string option";
            case 72 -> "ZMQ_XPUB_WELCOME_MSG, a binary option";
            case 85 -> "ZMQ_VMCI_BUFFER_SIZE, a uint64_t option";
            case 86 -> "ZMQ_VMCI_BUFFER_MIN_SIZE, a uint64_t option";
            case 87 -> "ZMQ_VMCI_BUFFER_MAX_SIZE, a uint64_t option";
            case 92 -> "ZMQ_BINDTODEVICE, a string option";
            // Draft options (libzmq built with --enable-drafts; a release build refuses them all):
            // the numbers are the same in every release that has them.
            case 95 -> "ZMQ_METADATA, a string option (draft)";
            case 99 -> "ZMQ_SOCKS_USERNAME, a string option (draft)";
            case 100 -> "ZMQ_SOCKS_PASSWORD, a string option (draft)";
            case 103 -> "ZMQ_WSS_KEY_PEM, a string option (draft)";
            case 104 -> "ZMQ_WSS_CERT_PEM, a string option (draft)";
            case 105 -> "ZMQ_WSS_TRUST_PEM, a string option (draft)";
            case 106 -> "ZMQ_WSS_HOSTNAME, a string option (draft)";
            case 110 -> "ZMQ_HELLO_MSG, a binary option (draft)";
            case 111 -> "ZMQ_DISCONNECT_MSG, a binary option (draft)";
            default -> null;
        };
        if (what != null) {
            throw new IllegalArgumentException(call + " takes options of C type int: option " + option + " is " + what);
        }
    }

    // The option setters and getters below write and read the socket's one option buffer (opt,
    // optLen) only between enter() and exit(): a call refused for "two threads at once" must not
    // overwrite the value that the call inside is passing to libzmq, nor a getter return what
    // another thread's call left there. (The buffer used to be filled before enter() and read
    // after exit(): a refused tcpKeepalive(-1) turned a concurrent sendHwm(5) into EINVAL, see
    // ConcurrentSocketUseTest.)

    private void setInt(String name, int option, int value) {
        enter();
        try {
            opt.set(ValueLayout.JAVA_INT, 0, value);
            int errno = setRawEntered(option, opt, 4);
            if (errno != 0) {
                throw optionRefused(option, name + "=" + value, errno);
            }
            // Every int option, typed or by number, comes through here: keep the cached timeouts
            // that socketCall relies on current (only once libzmq has accepted the value).
            if (option == LibZmq.ZMQ_SNDTIMEO) {
                sendTimeoutMs = value;
            } else if (option == LibZmq.ZMQ_RCVTIMEO) {
                receiveTimeoutMs = value;
            } else if (option == LibZmq.ZMQ_CONFLATE) {
                conflateSet = value != 0;
            }
        } finally {
            exit();
        }
    }

    private void setLong(String name, int option, long value) {
        enter();
        try {
            opt.set(ValueLayout.JAVA_LONG, 0, value);
            int errno = setRawEntered(option, opt, 8);
            if (errno != 0) {
                throw optionRefused(option, name + "=" + value, errno);
            }
        } finally {
            exit();
        }
    }

    /** The value's length, never its bytes, goes into an error message: they may be a secret key. */
    private void setBytes(String name, int option, byte[] value) {
        ensureOpen();
        int errno;
        if (value.length <= OPT_BYTES) {
            enter();
            try {
                MemorySegment.copy(value, 0, opt, ValueLayout.JAVA_BYTE, 0, value.length);
                errno = setRawEntered(option, opt, value.length);
            } finally {
                wipeSecretEntered(option, value.length);
                exit();
            }
        } else {
            // Longer than the socket's option buffer: subscription prefixes may be any length (routing
            // ids are refused above 255 bytes before they come here)
            boolean deep = option == LibZmq.ZMQ_UNSUBSCRIBE && value.length > UNSUBSCRIBE_ON_CALLER_MAX_BYTES;
            try (Arena a = deep ? Arena.ofShared() : Arena.ofConfined()) { // shared: another thread passes it to libzmq
                MemorySegment copy = a.allocateFrom(ValueLayout.JAVA_BYTE, value);
                enter();
                try {
                    errno = deep ? unsubscribeOnDeepStack(copy, value.length) : setRawEntered(option, copy, value.length);
                } finally {
                    exit();
                }
            }
        }
        if (errno != 0) {
            throw optionRefused(option, name + ", length=" + value.length, errno);
        }
    }

    /**
     * The longest prefix {@link #unsubscribe(byte[])} removes on the caller's thread. libzmq 4.3.4
     * removes a subscription from its trie (trie_t::rm) by recursion, one native frame per byte of
     * the prefix, 80 to 96 B each (measured: a 64 KiB prefix needs 5 to 6 MiB of stack, 32 KiB 2 to
     * 3 MiB), on the thread that calls zmq_setsockopt: a 16 KiB prefix overran the 1 MiB stack of a
     * Java thread and the JVM died of SIGSEGV. 1 KiB takes at most about 100 KiB of stack; the
     * longest prefix, {@link #MAX_SUBSCRIPTION_BYTES}, about 400 KiB, more than a thread started
     * with a small stack has.
     */
    static final int UNSUBSCRIBE_ON_CALLER_MAX_BYTES = 1024;
    /** Stack per byte of prefix for {@link #unsubscribeOnDeepStack}: at most 96 B measured, with room to spare. */
    private static final long TRIE_STACK_BYTES_PER_LEVEL = 256;

    /**
     * ZMQ_UNSUBSCRIBE of a prefix longer than {@link #UNSUBSCRIBE_ON_CALLER_MAX_BYTES}, made on a
     * platform thread of its own whose stack holds libzmq's recursion, while the caller, inside its
     * call on this socket, waits for it (start and join order the socket's use, as libzmq asks of a
     * socket that changes threads). An interrupt does not end the wait; it stays set.
     *
     * @return 0, or the errno of libzmq's refusal
     */
    private int unsubscribeOnDeepStack(MemorySegment prefix, long length) {
        int[] errno = new int[1];
        Throwable[] failure = new Throwable[1];
        Thread unsubscriber = Thread.ofPlatform().name("zmq-unsubscribe").daemon()
                .stackSize((1L << 20) + length * TRIE_STACK_BYTES_PER_LEVEL)
                .start(() -> {
                    try {
                        errno[0] = setRawEntered(LibZmq.ZMQ_UNSUBSCRIBE, prefix, length);
                    } catch (Throwable t) {
                        failure[0] = t;
                    }
                });
        if (Threads.joinUninterruptibly(unsubscriber)) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] != null) {
            throw LibZmq.rethrow(failure[0]);
        }
        return errno[0];
    }

    private void setZ85(String name, int option, String z85) {
        byte[] key = Curve.z85Key(name, z85);
        try {
            setBytes(name, option, key);
        } finally {
            Arrays.fill(key, (byte) 0); // may be the secret key
        }
    }

    /**
     * Inside a call: zeroes the first {@code length} bytes of the option buffer when the option
     * just set or read is {@code ZMQ_CURVE_SECRETKEY}. Later options overwrite only their own few
     * bytes, so a secret key left there would stay in memory until the socket is closed, and be
     * freed unzeroed then.
     */
    private void wipeSecretEntered(int option, long length) {
        if (option == LibZmq.ZMQ_CURVE_SECRETKEY) {
            opt.asSlice(0, length).fill((byte) 0);
        }
    }

    /** zmq_setsockopt inside a call: 0, or the errno of its refusal for the caller to report. */
    private int setRawEntered(int option, MemorySegment value, long length) {
        try {
            int rc = (int) LibZmq.zmq_setsockopt.invokeExact(capture, socket, option, value, length);
            return rc == 0 ? 0 : LibZmq.errno(capture);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** @param what the option and the value refused, e.g. {@code ZMQ_SNDHWM=-1} */
    private ZmqException optionRefused(int option, String what, int errno) {
        return new ZmqException("zmq_setsockopt(" + what + ")", errno, refusalNote(option, false, errno));
    }

    /** What libzmq's EINVAL leaves out for {@code option}, set or read ({@code read}): no CURVE, or the wrong socket type; or null. */
    private String refusalNote(int option, boolean read, int errno) {
        String curve = curveNote(option);
        return curve != null || errno != LibZmq.EINVAL ? curve : typeNote(option, read);
    }

    /**
     * For an option libzmq 4.3.4 has on some socket types only, which it refuses on the others with
     * a bare EINVAL ("Invalid argument", as for a bad value; until 2026-11-28 the message said no
     * more): that this socket's type does not have it, and which types do; for a read, that libzmq
     * reads none of these back. Null for other options, and for a value refused on a type that has
     * the option.
     */
    private String typeNote(int option, boolean read) {
        return switch (option) {
            case LibZmq.ZMQ_SUBSCRIBE -> typeNote("ZMQ_SUBSCRIBE", read, SocketType.SUB);
            case LibZmq.ZMQ_UNSUBSCRIBE -> typeNote("ZMQ_UNSUBSCRIBE", read, SocketType.SUB);
            // a REP is a ROUTER inside, a PUB an XPUB: libzmq takes their options
            case LibZmq.ZMQ_ROUTER_MANDATORY -> typeNote("ZMQ_ROUTER_MANDATORY", read, SocketType.ROUTER, SocketType.REP);
            case LibZmq.ZMQ_ROUTER_HANDOVER -> typeNote("ZMQ_ROUTER_HANDOVER", read, SocketType.ROUTER, SocketType.REP);
            case LibZmq.ZMQ_XPUB_VERBOSE -> typeNote("ZMQ_XPUB_VERBOSE", read, SocketType.XPUB, SocketType.PUB);
            case LibZmq.ZMQ_XPUB_NODROP -> typeNote("ZMQ_XPUB_NODROP", read, SocketType.XPUB, SocketType.PUB);
            case LibZmq.ZMQ_REQ_CORRELATE -> typeNote("ZMQ_REQ_CORRELATE", read, SocketType.REQ);
            case LibZmq.ZMQ_REQ_RELAXED -> typeNote("ZMQ_REQ_RELAXED", read, SocketType.REQ);
            default -> null;
        };
    }

    /** {@link #typeNote(int, boolean)} for the option {@code name}, which libzmq takes on {@code types}. */
    private String typeNote(String name, boolean read, SocketType... types) {
        if (read) {
            return name + " is write-only: libzmq 4.3.4 reads it back on no socket type";
        }
        if (Arrays.asList(types).contains(type)) {
            return null;
        }
        String of = types.length == 1 ? types[0].toString() : types[0] + " and " + types[1];
        return name + " is an option of " + of + " sockets only: this socket is " + type;
    }

    /**
     * For a refused option's {@link ZmqException}: that libzmq has no CURVE, when the option is a
     * CURVE one and that is why (such a libzmq refuses them all, set or read, with a bare EINVAL);
     * otherwise null.
     */
    private static String curveNote(int option) {
        return switch (option) {
            case LibZmq.ZMQ_CURVE_SERVER, LibZmq.ZMQ_CURVE_PUBLICKEY, LibZmq.ZMQ_CURVE_SECRETKEY,
                    LibZmq.ZMQ_CURVE_SERVERKEY -> Curve.unavailableNote();
            default -> null;
        };
    }

    private long getRawEntered(String name, int option, long capacity) {
        try {
            optLen.set(ValueLayout.JAVA_LONG, 0, capacity);
            int rc = (int) LibZmq.zmq_getsockopt.invokeExact(capture, socket, option, opt, optLen);
            if (rc != 0) {
                int errno = LibZmq.errno(capture);
                throw new ZmqException("zmq_getsockopt(" + name + ")", errno, refusalNote(option, true, errno));
            }
            return optLen.get(ValueLayout.JAVA_LONG, 0);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    private int getInt(String name, int option) {
        enter();
        try {
            getRawEntered(name, option, 4);
            return opt.get(ValueLayout.JAVA_INT, 0);
        } finally {
            exit();
        }
    }

    private long getLong(String name, int option) {
        enter();
        try {
            getRawEntered(name, option, 8);
            return opt.get(ValueLayout.JAVA_LONG, 0);
        } finally {
            exit();
        }
    }

    private byte[] getBytes(String name, int option, int capacity) {
        enter();
        try {
            long n = getRawEntered(name, option, capacity);
            return opt.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        } finally {
            exit();
        }
    }

    /**
     * A string option. libzmq 4.3 fails one that does not fit the buffer with EINVAL and does not
     * say how long it is (options.cpp, do_getsockopt), and an endpoint may be longer than the
     * option buffer (an inproc name, a tcp host name): the call is made again with a buffer twice
     * as large, up to {@link #MAX_STRING_OPTION_BYTES}.
     */
    private String getString(String name, int option) {
        enter();
        try {
            return getStringEntered(name, option);
        } finally {
            exit();
        }
    }

    /** {@link #getString} inside a call. */
    private String getStringEntered(String name, int option) {
        try {
            MemorySegment buf = opt;
            try (Arena larger = Arena.ofConfined()) {
                for (;;) {
                    optLen.set(ValueLayout.JAVA_LONG, 0, buf.byteSize());
                    int rc = (int) LibZmq.zmq_getsockopt.invokeExact(capture, socket, option, buf, optLen);
                    if (rc == 0) {
                        long n = optLen.get(ValueLayout.JAVA_LONG, 0);
                        return n == 0 ? "" : buf.asSlice(0, n).getString(0);
                    }
                    int errno = LibZmq.errno(capture);
                    if (errno != LibZmq.EINVAL) {
                        throw new ZmqException("zmq_getsockopt(" + name + ")", errno);
                    }
                    if (buf.byteSize() >= MAX_STRING_OPTION_BYTES) {
                        throw new ZmqException("zmq_getsockopt(" + name + ") into " + buf.byteSize() + " bytes", errno);
                    }
                    buf = larger.allocate(buf.byteSize() * 2);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /** {@code ZMQ_IPV6} inside a call (not {@link #ipv6()}, which enters it), for {@link SocketEndpoints}. */
    boolean ipv6Entered() {
        getRawEntered("ZMQ_IPV6", LibZmq.ZMQ_IPV6, 4);
        return opt.get(ValueLayout.JAVA_INT, 0) != 0;
    }

    /**
     * Inside a call: when this socket's bind or connect would use CURVE ({@code ZMQ_MECHANISM}),
     * its keys checked by {@link Curve#checkSocketKeys}, before libzmq is asked.
     *
     * @param call the bind or connect, for the message
     */
    private void checkCurveKeysEntered(String call) {
        getRawEntered("ZMQ_MECHANISM", LibZmq.ZMQ_MECHANISM, 4);
        if (opt.get(ValueLayout.JAVA_INT, 0) != LibZmq.ZMQ_CURVE) {
            return;
        }
        getRawEntered("ZMQ_CURVE_SERVER", LibZmq.ZMQ_CURVE_SERVER, 4);
        boolean server = opt.get(ValueLayout.JAVA_INT, 0) != 0;
        byte[] publicKey = keyEntered("ZMQ_CURVE_PUBLICKEY", LibZmq.ZMQ_CURVE_PUBLICKEY);
        byte[] serverKey = keyEntered("ZMQ_CURVE_SERVERKEY", LibZmq.ZMQ_CURVE_SERVERKEY);
        try {
            // read last, and left in the option buffer, not copied to the heap
            getRawEntered("ZMQ_CURVE_SECRETKEY", LibZmq.ZMQ_CURVE_SECRETKEY, Curve.KEY_BYTES);
            Curve.checkSocketKeys(call, server, publicKey, opt.asSlice(0, Curve.KEY_BYTES), serverKey);
        } finally {
            wipeSecretEntered(LibZmq.ZMQ_CURVE_SECRETKEY, Curve.KEY_BYTES);
        }
    }

    /** A CURVE key option in binary ({@value Curve#KEY_BYTES} bytes ask libzmq for that, not Z85), inside a call. */
    private byte[] keyEntered(String name, int option) {
        getRawEntered(name, option, Curve.KEY_BYTES);
        return opt.asSlice(0, Curve.KEY_BYTES).toArray(ValueLayout.JAVA_BYTE);
    }

    /** The option buffer's bytes as the last option call left them (for tests: what it left there). */
    byte[] optionBufferBytes() {
        enter();
        try {
            return opt.toArray(ValueLayout.JAVA_BYTE);
        } finally {
            exit();
        }
    }

    /** {@code ZMQ_LAST_ENDPOINT} inside a call, for {@link SocketEndpoints}. */
    String lastEndpointEntered() {
        return getStringEntered("ZMQ_LAST_ENDPOINT", LibZmq.ZMQ_LAST_ENDPOINT);
    }

    /** The longest string option {@link #getString} reads, its NUL included (1 MiB): far beyond any real endpoint. */
    static final long MAX_STRING_OPTION_BYTES = 1L << 20;

    private String getZ85(String name, int option) {
        enter();
        try {
            getRawEntered(name, option, Curve.Z85_KEY_CHARS + 1); // 41 bytes asks libzmq for Z85 text
            return opt.getString(0);
        } finally {
            wipeSecretEntered(option, Curve.Z85_KEY_CHARS + 1);
            exit();
        }
    }

    // ------------------------------------------------------------------ monitoring

    /**
     * Starts monitoring this socket for the events in {@code types} ({@code zmq_socket_monitor});
     * see {@link SocketMonitor}.
     *
     * @param types the events to receive, one or more
     * @return the monitor, owned by the caller, who closes it
     * @throws IllegalArgumentException when {@code types} is empty or holds
     *     {@link MonitorEvent.Type#UNKNOWN}
     * @throws IllegalStateException when this socket already has an open monitor, after
     *     {@link #close()}, when the context is closed, or while another thread is in a call on
     *     this socket
     * @throws ZmqException when libzmq refuses (ETERM after the context was shut down, EMFILE when
     *     the context has no room for the two sockets a monitor takes: its receiving one and
     *     one libzmq makes, see {@link ZmqContext#socket}; the message names the limit)
     */
    public SocketMonitor monitor(Set<MonitorEvent.Type> types) {
        return monitor(MonitorEvent.Type.mask(types));
    }

    /**
     * Starts monitoring this socket ({@code zmq_socket_monitor}): libzmq sends the events whose
     * bits are in {@code eventMask} to a new {@link SocketMonitor}, made in this socket's context,
     * from which they are received. Events that happened before this call are not reported. libzmq
     * is asked for {@link MonitorEvent.Type#MONITOR_STOPPED} too, whatever the mask, so that closing
     * the monitor ends a receive blocked on another thread; the monitor returns that event only when
     * the mask has it.
     *
     * <p>One monitor at a time: libzmq itself would replace an open monitor with the new one
     * (sending the old one {@link MonitorEvent.Type#MONITOR_STOPPED}), after which closing the
     * old one would stop the new one; this binding refuses instead, so close the open monitor
     * first.
     *
     * @param eventMask a bitwise or of {@link MonitorEvent.Type#id()}s, or
     *     {@link MonitorEvent.Type#ALL}: not 0, no bit above 0xFFFF (libzmq's event version 1)
     * @return the monitor, owned by the caller, who closes it (before or after this socket)
     * @throws IllegalArgumentException when {@code eventMask} is 0 or has a bit above 0xFFFF
     * @throws IllegalStateException when this socket already has an open monitor, after
     *     {@link #close()}, when the context is closed, or while another thread is in a call on
     *     this socket
     * @throws ZmqException when libzmq refuses (ETERM after the context was shut down, EMFILE when
     *     the context has no room for the two sockets a monitor takes: its receiving one and
     *     one libzmq makes, see {@link ZmqContext#socket}; the message names the limit)
     */
    public SocketMonitor monitor(int eventMask) {
        SocketMonitor.checkMask(eventMask);
        // An open monitor first: making the receiving socket could fail on its own (EMFILE in a context
        // the open monitor filled, until 2026-11-29 thrown instead of this refusal)
        enter();
        try {
            refuseSecondMonitor();
        } finally {
            exit();
        }
        // The receiving socket outside the call on this one: socket() takes the context's lock.
        ZmqSocket events = context.socket(SocketType.PAIR);
        events.monitorReceiver = true;
        try {
            // unbounded: at a high-water mark libzmq would block its I/O thread on the next event
            events.receiveHwm(0);
            events.lingerMs(0);
            enter();
            try {
                refuseSecondMonitor(); // again: another thread may have made one meanwhile
                // MONITOR_STOPPED whatever the mask: the close sends it, which ends a receive blocked on another
                // thread (SocketMonitor returns it only when the mask has it)
                int asked = eventMask | MonitorEvent.Type.MONITOR_STOPPED.id();
                String endpoint = OwnEndpoints.bind("monitor", ep -> monitorCall(ep, asked));
                try {
                    events.connect(endpoint);
                } catch (RuntimeException e) {
                    monitorCall(null, 0);
                    throw e;
                }
                SocketMonitor m = new SocketMonitor(this, events, endpoint, eventMask);
                synchronized (monitorLock) {
                    monitor = m;
                }
                return m;
            } finally {
                exit();
            }
        } catch (RuntimeException e) {
            events.close();
            throw e;
        }
    }

    /** Inside a call: refuses a monitor while one is open (libzmq would replace it silently). */
    private void refuseSecondMonitor() {
        if (monitor != null) {
            throw new IllegalStateException("socket already has an open monitor: type=" + type + ", monitor="
                    + monitor.endpoint() + " (close it first; libzmq would replace it silently)");
        }
    }

    /**
     * Stops {@code m}'s monitoring, for {@link SocketMonitor#close()}, and tells whether the
     * monitor's socket may be closed now. libzmq's end of the monitor must be gone first: an event
     * it sent to a closed monitor socket would block the libzmq thread raising it (the I/O thread,
     * or the reaper for {@code MONITOR_STOPPED}) until the context is terminated.
     *
     * @return true when libzmq's end is gone (stopped here, by {@link #closeNative()}, or by a
     *     shutdown of the context); false when this socket is closed but {@link #closeNative()}
     *     has not run yet (a close waits for a call on another thread): it stops the monitoring
     *     then and closes the monitor's socket itself ({@link SocketMonitor#closeDeferred})
     * @throws IllegalStateException while another thread is in a call on this socket
     */
    boolean stopMonitor(SocketMonitor m) {
        if (!isClosed()) {
            try {
                enter();
            } catch (IllegalStateException e) {
                if (!isClosed()) {
                    throw e;
                }
                return stopMonitorOfClosed(m); // closed meanwhile
            }
            try {
                synchronized (monitorLock) {
                    if (monitor == m) {
                        monitor = null;
                        try {
                            monitorCall(null, 0);
                        } catch (ZmqException e) {
                            if (!e.isContextTerminated()) {
                                throw e;
                            }
                            // shut down: libzmq stopped the monitoring as the socket took the stop
                        }
                    }
                }
                return true;
            } finally {
                exit();
            }
        }
        return stopMonitorOfClosed(m);
    }

    /** {@link #stopMonitor} once this socket is closed: hands {@code m}'s socket to {@link #closeNative()} if it has not run. */
    private boolean stopMonitorOfClosed(SocketMonitor m) {
        synchronized (monitorLock) {
            if (monitor == m) {
                m.closeDeferred = true;
                return false;
            }
            return true;
        }
    }

    /** zmq_socket_monitor inside a call; a null endpoint stops the monitoring. */
    private void monitorCall(String endpoint, int eventMask) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ep = endpoint == null ? MemorySegment.NULL : a.allocateFrom(endpoint, StandardCharsets.UTF_8);
            int rc = (int) LibZmq.zmq_socket_monitor.invokeExact(capture, socket, ep, eventMask);
            if (rc != 0) {
                int errno = LibZmq.errno(capture);
                // libzmq makes a PAIR socket of its own for the events: it takes a slot of the context too
                throw new ZmqException("zmq_socket_monitor(" + endpoint + ", events=0x" + Integer.toHexString(eventMask) + ")",
                        errno, errno == LibZmq.EMFILE ? context.tooManySockets() : null);
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * The native {@code void *} socket, for interop (e.g. a poller); valid until close.
     *
     * @return the socket pointer as a zero-length segment
     * @throws IllegalStateException after {@link #close()}
     */
    public MemorySegment handle() {
        ensureOpen();
        return socket;
    }

    /**
     * The native socket for a call that has {@link #enter() entered} this socket: a close marks it
     * closed at once but frees it only once the call has exited, so unlike {@link #handle()} this
     * does not check {@link #isClosed()} (a context close under the call then ends it with ETERM).
     */
    MemorySegment enteredHandle() {
        return socket;
    }

    /**
     * True after {@link #close()} (or after its context closed it).
     *
     * @return whether the socket is closed or being closed; no new call can begin on it then
     */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * zmq_close. Pending outgoing messages stay with libzmq for the socket's linger; zero-copy
     * buffers among them come back to their pool when libzmq drops them (at the latest when the
     * context terminates). An open {@link SocketMonitor}'s monitoring is stopped first, its last
     * event {@link MonitorEvent.Type#MONITOR_STOPPED}; the monitor still needs closing. Idempotent.
     *
     * <p>Called from another thread while a call on this socket is in progress (a receive blocked
     * in libzmq, say), close marks the socket closed, so that no new call begins, and waits for
     * that call to return before it frees anything: the native socket never goes while libzmq is
     * still using it. A blocked call returns when its context is shut down ({@link
     * ZmqContext#shutdown()}; {@link ZmqContext#close()} does it itself) or when its wait ends;
     * then it throws {@link ZmqException} with {@link ZmqException#isContextTerminated()}, or
     * finishes, and every later call throws {@link IllegalStateException}.
     *
     * <p>A second close returns once the socket is closed, as the first does: called while another
     * thread's close waits for a call in progress, it waits for that call too (one of the two then
     * frees the socket, the other finds it freed); called after a close that threw before libzmq
     * had the socket closed (an {@link Error} such as {@link OutOfMemoryError} as it stops a
     * monitor), it does what that close left undone. Such a socket stays marked closed meanwhile,
     * and {@link ZmqContext#close()} closes it too, as it would an open socket. Until 2026-11-29 a
     * second close returned at once in both cases, the socket not yet closed.
     *
     * @throws IllegalStateException when called inside a call of this thread on this socket (a
     *     callback): it would wait for ever; the socket is left as it was
     */
    @Override
    public void close() {
        if (!guard.close()) {
            // closed before: by a close still waiting for a call on another thread, or one that threw before zmq_close
            guard.awaitNoCall();
        }
        closeNative(); // nothing when freed already
    }

    /** Marks the socket closed, even under a call in progress; true for the one caller that did (and so must close the socket). */
    boolean markClosed() {
        return guard.markClosed();
    }

    /** True while a thread is inside a call on this socket (meaningful once it is marked closed). */
    boolean inCall() {
        return guard.inCall();
    }

    /**
     * Waits until no thread is inside a call on this socket, with the interrupt status kept. Called
     * once the socket is {@linkplain #markClosed() marked closed}, so no call begins after this
     * returns. A thread blocked in libzmq leaves only when its call returns:
     * {@link ZmqContext#shutdown()} makes it return.
     */
    void awaitNoCall() {
        guard.awaitNoCall();
    }

    /**
     * zmq_close and the socket's own memory, once no call is in progress and none can begin. An
     * open monitor's monitoring is stopped first, while its socket is open (sending it a last
     * {@code MONITOR_STOPPED}): libzmq would stop it only as it destroys this socket, after its
     * linger, and an event sent by then to a closed monitor socket blocked the libzmq thread
     * raising it (until 2026-11-29).
     *
     * <p>When it throws before zmq_close has run (an {@link Error} such as
     * {@link OutOfMemoryError}), nothing is freed and a later call does the rest: the socket's
     * memory stays, as libzmq still has the socket. {@link #nativeClosed()} tells which. The
     * socket's own {@link #close()} runs it at each call, a second one included; the context's
     * close runs it for every socket libzmq still has, those whose own close threw included. A run
     * after one on another thread has ended, or has freed the socket, leaves it as it is.
     */
    void closeNative() {
        synchronized (closeLock) {
            if (!freed) {
                closeNativeOnce();
            }
        }
    }

    private void closeNativeOnce() {
        SocketMonitor closedMonitor;
        synchronized (monitorLock) {
            if (monitor != null) {
                try {
                    monitorCall(null, 0);
                } catch (RuntimeException e) {
                    // ETERM: the context was shut down, and libzmq stopped the monitoring as the socket took the stop
                }
                if (monitor.closeDeferred) {
                    eventsToClose = monitor;
                }
                monitor = null;
            }
            closedMonitor = eventsToClose; // kept until zmq_close has run, for a later call when it has not
        }
        if (!nativeClosed) {
            try {
                closeQuietly(recvMsg);
                int rc = (int) LibZmq.zmq_close.invokeExact(capture, socket);
            } catch (Throwable t) {
                throw LibZmq.rethrow(t);
            }
            nativeClosed = true;
        }
        synchronized (monitorLock) {
            eventsToClose = null;
        }
        try {
            endpoints.letGoAll();
        } finally {
            freed = true;
            context.forget(this);
            arena.close();
            if (closedMonitor != null) {
                closedMonitor.closeEvents(); // its close left that to this one, libzmq's end of it gone above
            }
        }
    }

    /** True once {@link #closeNative()} has run zmq_close: libzmq no longer has the socket. */
    boolean nativeClosed() {
        return nativeClosed;
    }

    /**
     * Begins a call that may reach libzmq or this socket's native memory; {@link #exit()} ends it.
     * Calls never nest (a poll enters each of its sockets once), so the {@link CallGuard} holds the
     * one thread inside: a second thread entering while a call is in progress is refused, changing
     * nothing (the class forbids concurrent use and libzmq does not survive it), with a message
     * naming both threads. Against a close on another thread, the guard's Dekker handshake: either
     * this call sees the socket closed and fails, or close sees the call and waits for it. Cost:
     * one compare-and-exchange and one volatile read on entry, a release store on exit.
     *
     * @throws IllegalStateException when another call is in progress on this socket, or it is closed
     */
    void enter() {
        guard.enter();
    }

    /** Ends a call begun by {@link #enter()}. */
    void exit() {
        guard.exit(this);
    }

    private void ensureOpen() {
        guard.checkOpen();
    }

    @Override
    public String toString() {
        return "ZmqSocket[type=" + type + (isClosed() ? ", closed" : "") + "]";
    }
}

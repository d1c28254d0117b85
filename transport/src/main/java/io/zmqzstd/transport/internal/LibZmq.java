package io.zmqzstd.transport.internal;

import io.zmqzstd.nativelib.NativeLibrary;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Raw libzmq 4.3 bindings: one {@code static final MethodHandle} per function, called with
 * {@code invokeExact}. Not for direct use; the public types in {@code io.zmqzstd.transport} own
 * every native handle.
 *
 * <p>Calls that can fail take a leading capture segment ({@link #CAPTURE_LAYOUT}) that receives
 * errno right after the call: a separate {@code zmq_errno()} could see a value the JVM has
 * overwritten in between.
 *
 * <p>Per-message calls come twice. The JDK checks the capture segment on every capturing call by
 * slicing it ({@code SharedUtils.checkCaptureSegment} calls {@code asSlice}): one
 * {@link MemorySegment} per call on the heap, which only disappears once C2 has compiled and
 * inlined the call site so that escape analysis can remove it. At a few hundred messages a
 * second (1 MiB parts) the send and receive paths stay in C1 for minutes, and that slice was the
 * only garbage left per message. So {@code zmq_msg_send}, {@code zmq_msg_recv}, {@code zmq_send}
 * and {@code zmq_poll} each have a plain handle ({@code *_fast}, no capture) for the normal case
 * and the capturing one for a failure: the caller makes the plain call and, only when it returns
 * -1, asks libzmq the same question again through the capturing handle to learn errno. That
 * repeat is equivalent (but for one case, below) because a failed call leaves nothing the repeat
 * could trip over: nothing
 * was sent or taken from a queue; zmq_msg_send leaves the message untouched; zmq_msg_recv
 * either failed before touching it (ETERM, EFSM) or, on EAGAIN, has already closed the previous
 * frame and left the message empty (fq_t::recvpipe frees the old content before it looks for a
 * message), so the repeat finds an empty message and, failing again, leaves it empty (STREAM and
 * XPUB sockets leave the message untouched on EAGAIN instead, and so does the repeat). The
 * failures are either sticky
 * (ETERM, EFSM, ENOTSUP, EHOSTUNREACH: the repeat fails the same way), or transient and worth
 * repeating anyway (EINTR, which callers retry), or "would block", where a repeat that succeeds
 * simply means the message or the room arrived in between. A repeat must not wait a second full
 * timeout: when a finite send/receive timeout is set, {@code ZmqSocket} makes its repeat with
 * DONTWAIT and tells an expired timeout from EINTR by the clock, and {@code ZmqPoller} repeats a
 * failed poll with timeout 0. The logic lives in one
 * place per shape ({@code ZmqSocket.socketCall}, {@code ZmqPoller.poll}). A send inside a
 * message (after a part sent with SNDMORE) is not repeated: on a load-balancing socket (PUSH,
 * DEALER, REQ) its failure can be libzmq dropping the message, after which the repeat would be
 * another question; there {@code ZmqSocket.socketCall} reads errno through {@code zmq_errno()}.
 * A DONTWAIT call that failed asks {@code zmq_errno()} first too, and returns would-block without
 * the repeat when it says EAGAIN (any other value goes to the repeat), as the proxy's loop does:
 * that is the failure of every poll-then-drain loop, and its repeat allocated until C2 compiled
 * the capturing stub. {@code zmq_msg_init_size}, {@code zmq_msg_init_data} and
 * {@code zmq_msg_close} have no capturing form at all: each can fail one way only.
 *
 * <p>On hot paths, raw data pointers and the free-callback hint are passed as {@code long}
 * (JAVA_LONG): a pointer and a 64-bit integer travel in the same register on every 64-bit ABI
 * the JDK supports, and a {@code long} needs no {@link MemorySegment} wrapper per call, which is
 * what keeps the per-message path free of heap allocation. {@code size_t} is JAVA_LONG.
 */
public final class LibZmq {

    private LibZmq() {
    }

    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    // Only for calls that read a field of a zmq_msg_t: they never block and never call back.
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** Layout of the segment that receives errno; allocate one per owner and reuse it. */
    public static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET =
            CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    /** sizeof(zmq_msg_t) in libzmq 4.x: 64 bytes, pointer aligned. */
    public static final MemoryLayout MSG_LAYOUT = MemoryLayout.sequenceLayout(64, ValueLayout.JAVA_BYTE)
            .withByteAlignment(8);

    /**
     * zmq_pollitem_t on POSIX: {@code void *socket; int fd; short events; short revents;}
     * <pre>
     *  0        8     12       14        16
     *  | socket | fd  | events | revents |
     * </pre>
     */
    public static final long POLLITEM_SIZE = 16;
    public static final long POLLITEM_SOCKET = 0;
    public static final long POLLITEM_FD = 8;
    public static final long POLLITEM_EVENTS = 12;
    public static final long POLLITEM_REVENTS = 14;

    /** A segment spanning the whole address space: lets raw addresses be read without a wrapper per call. */
    public static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /**
     * The system errno values this binding compares with. libzmq reports the C library's own
     * values for these (it defines codes of its own only where a system lacks one, as Windows
     * does), and they differ by OS: Linux has EAGAIN 11 and EHOSTUNREACH 113 on every architecture
     * the JDK runs on (asm-generic/errno.h), macOS and the BSDs have 35 and 65. EINTR, ENOMEM and
     * EINVAL are 4, 12 and 22 on both, EMFILE 24, ENOENT 2 and ENODEV 19; EADDRINUSE is 98 on
     * Linux, 48 on macOS, ENAMETOOLONG 36 and 63, EPROTONOSUPPORT 93 and 43. Only Linux and macOS
     * are supported; any other system gets the Linux values.
     */
    public record Errno(int eintr, int eagain, int enomem, int einval, int ehostunreach, int eaddrinuse, int emfile,
            int enoent, int enodev, int enametoolong, int eprotonosupport) {

        public static final Errno LINUX = new Errno(4, 11, 12, 22, 113, 98, 24, 2, 19, 36, 93);
        public static final Errno MACOS = new Errno(4, 35, 12, 22, 65, 48, 24, 2, 19, 63, 43);

        /** The values for a system named as in the {@code os.name} property. */
        public static Errno forOs(String osName) {
            String os = osName.toLowerCase(java.util.Locale.ROOT);
            return os.contains("mac") || os.contains("darwin") ? MACOS : LINUX;
        }
    }

    /** The errno values of the running system. */
    public static final Errno ERRNO_VALUES = Errno.forOs(System.getProperty("os.name", ""));

    // system errno values (per OS, above) and libzmq's own codes (ZMQ_HAUSNUMERO + n)
    public static final int EINTR = ERRNO_VALUES.eintr();
    public static final int EAGAIN = ERRNO_VALUES.eagain();
    public static final int ENOMEM = ERRNO_VALUES.enomem();
    public static final int EINVAL = ERRNO_VALUES.einval();
    public static final int EHOSTUNREACH = ERRNO_VALUES.ehostunreach();
    public static final int EADDRINUSE = ERRNO_VALUES.eaddrinuse();
    public static final int EMFILE = ERRNO_VALUES.emfile();
    public static final int ENOENT = ERRNO_VALUES.enoent();
    public static final int ENODEV = ERRNO_VALUES.enodev();
    public static final int ENAMETOOLONG = ERRNO_VALUES.enametoolong();
    public static final int EPROTONOSUPPORT = ERRNO_VALUES.eprotonosupport();
    private static final int HAUSNUMERO = 156384712;
    public static final int EFSM = HAUSNUMERO + 51;
    public static final int ENOCOMPATPROTO = HAUSNUMERO + 52;
    public static final int ETERM = HAUSNUMERO + 53;
    public static final int EMTHREAD = HAUSNUMERO + 54;

    // send/recv flags
    public static final int ZMQ_DONTWAIT = 1;
    public static final int ZMQ_SNDMORE = 2;

    // poll events
    public static final short ZMQ_POLLIN = 1;
    public static final short ZMQ_POLLOUT = 2;
    public static final short ZMQ_POLLERR = 4;

    // context options
    public static final int ZMQ_IO_THREADS = 1;
    /** zmq_ctx_set: sched(7) policy of the context's I/O threads, applied when they start (libzmq 4.2+). */
    public static final int ZMQ_THREAD_SCHED_POLICY = 4;
    public static final int ZMQ_MAX_SOCKETS = 2;
    /** zmq_ctx_get only: the largest ZMQ_MAX_SOCKETS this build can serve (65535 with epoll). */
    public static final int ZMQ_SOCKET_LIMIT = 3;
    public static final int ZMQ_MAX_MSGSZ = 5;
    public static final int ZMQ_MSG_T_SIZE = 6;
    /** zmq_ctx_set: the linger of sockets made afterwards, -1 when true (libzmq's default), 0 when false. */
    public static final int ZMQ_BLOCKY = 70;

    // socket options (zmq.h 4.3)
    public static final int ZMQ_AFFINITY = 4;
    public static final int ZMQ_ROUTING_ID = 5;
    public static final int ZMQ_SUBSCRIBE = 6;
    public static final int ZMQ_UNSUBSCRIBE = 7;
    public static final int ZMQ_RATE = 8;
    public static final int ZMQ_SNDBUF = 11;
    public static final int ZMQ_RCVBUF = 12;
    public static final int ZMQ_RCVMORE = 13;
    public static final int ZMQ_EVENTS = 15;
    public static final int ZMQ_TYPE = 16;
    public static final int ZMQ_LINGER = 17;
    public static final int ZMQ_RECONNECT_IVL = 18;
    public static final int ZMQ_BACKLOG = 19;
    public static final int ZMQ_RECONNECT_IVL_MAX = 21;
    public static final int ZMQ_MAXMSGSIZE = 22;
    public static final int ZMQ_SNDHWM = 23;
    public static final int ZMQ_RCVHWM = 24;
    public static final int ZMQ_RCVTIMEO = 27;
    public static final int ZMQ_SNDTIMEO = 28;
    public static final int ZMQ_LAST_ENDPOINT = 32;
    public static final int ZMQ_ROUTER_MANDATORY = 33;
    public static final int ZMQ_TCP_KEEPALIVE = 34;
    public static final int ZMQ_TCP_KEEPALIVE_CNT = 35;
    public static final int ZMQ_TCP_KEEPALIVE_IDLE = 36;
    public static final int ZMQ_TCP_KEEPALIVE_INTVL = 37;
    public static final int ZMQ_IMMEDIATE = 39;
    public static final int ZMQ_XPUB_VERBOSE = 40;
    /** A socket option, and the context option (zmq_ctx_set) giving sockets made afterwards their first value. */
    public static final int ZMQ_IPV6 = 42;
    public static final int ZMQ_MECHANISM = 43;
    /** {@code ZMQ_MECHANISM}'s value for CURVE (zmq.h: ZMQ_NULL 0, ZMQ_PLAIN 1, ZMQ_CURVE 2). */
    public static final int ZMQ_CURVE = 2;
    public static final int ZMQ_CURVE_SERVER = 47;
    public static final int ZMQ_CURVE_PUBLICKEY = 48;
    public static final int ZMQ_CURVE_SECRETKEY = 49;
    public static final int ZMQ_CURVE_SERVERKEY = 50;
    public static final int ZMQ_REQ_CORRELATE = 52;
    public static final int ZMQ_REQ_RELAXED = 53;
    public static final int ZMQ_CONFLATE = 54;
    public static final int ZMQ_ROUTER_HANDOVER = 56;
    public static final int ZMQ_TOS = 57;
    public static final int ZMQ_HANDSHAKE_IVL = 66;
    public static final int ZMQ_XPUB_NODROP = 69;
    public static final int ZMQ_HEARTBEAT_IVL = 75;
    public static final int ZMQ_HEARTBEAT_TTL = 76;
    public static final int ZMQ_HEARTBEAT_TIMEOUT = 77;
    public static final int ZMQ_CONNECT_TIMEOUT = 79;
    public static final int ZMQ_TCP_MAXRT = 80;

    private static MethodHandle h(String name, FunctionDescriptor fd, Linker.Option... options) {
        return NativeLibrary.ZMQ.downcall(name, fd, options);
    }

    // --- context ---
    /** void *zmq_ctx_new(void); */
    public static final MethodHandle zmq_ctx_new = h("zmq_ctx_new", FunctionDescriptor.of(ADDRESS), ERRNO);
    /** int zmq_ctx_term(void *context); -- blocks for linger, may run free callbacks */
    public static final MethodHandle zmq_ctx_term = h("zmq_ctx_term", FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO);
    /** int zmq_ctx_shutdown(void *context); */
    public static final MethodHandle zmq_ctx_shutdown = h("zmq_ctx_shutdown", FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO);
    /** int zmq_ctx_set(void *context, int option, int optval); */
    public static final MethodHandle zmq_ctx_set = h("zmq_ctx_set", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), ERRNO);
    /** int zmq_ctx_get(void *context, int option); */
    public static final MethodHandle zmq_ctx_get = h("zmq_ctx_get", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), ERRNO);

    // --- socket ---
    /** void *zmq_socket(void *context, int type); */
    public static final MethodHandle zmq_socket = h("zmq_socket", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), ERRNO);
    /** int zmq_close(void *socket); */
    public static final MethodHandle zmq_close = h("zmq_close", FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO);
    /** int zmq_bind(void *socket, const char *endpoint); */
    public static final MethodHandle zmq_bind = h("zmq_bind", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_connect(void *socket, const char *endpoint); */
    public static final MethodHandle zmq_connect = h("zmq_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_unbind(void *socket, const char *endpoint); */
    public static final MethodHandle zmq_unbind = h("zmq_unbind", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_disconnect(void *socket, const char *endpoint); */
    public static final MethodHandle zmq_disconnect = h("zmq_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_setsockopt(void *socket, int option, const void *optval, size_t optvallen); */
    public static final MethodHandle zmq_setsockopt = h("zmq_setsockopt", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG), ERRNO);
    /** int zmq_getsockopt(void *socket, int option, void *optval, size_t *optvallen); */
    public static final MethodHandle zmq_getsockopt = h("zmq_getsockopt", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /**
     * int zmq_getsockopt(void *socket, int option, void *optval, size_t *optvallen); no capture:
     * for ZmqSocket.socketCall's probe of ZMQ_TYPE after a send failed inside a message, which
     * fails only with ETERM
     */
    public static final MethodHandle zmq_getsockopt_fast = h("zmq_getsockopt", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));

    /**
     * int zmq_socket_monitor(void *socket, const char *endpoint, int events); libzmq makes a PAIR
     * socket of its own, bound to the inproc {@code endpoint}, and sends each event in
     * {@code events} to it as two frames ({@link #MONITOR_EVENT_FRAME_BYTES} bytes, then the
     * endpoint). A NULL endpoint stops monitoring. A second call with an endpoint replaces the
     * first monitor (which gets ZMQ_EVENT_MONITOR_STOPPED). Takes a mutex of its own, shared with
     * the I/O threads that emit the events.
     */
    public static final MethodHandle zmq_socket_monitor = h("zmq_socket_monitor", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), ERRNO);

    /**
     * First frame of a monitor event (event version 1, the only one 4.3 releases send), in the
     * host's byte order:
     * <pre>
     *  0          2                  6
     *  | event id | value            |
     *  | uint16_t | uint32_t         |
     * </pre>
     * The second frame is the endpoint, without a NUL.
     */
    public static final int MONITOR_EVENT_FRAME_BYTES = 6;
    public static final int MONITOR_EVENT_ID_OFFSET = 0;
    public static final int MONITOR_EVENT_VALUE_OFFSET = 2;
    /** ZMQ_EVENT_ALL of event version 1: the event ids are the bits of the low 16; zmq_socket_monitor refuses any above. */
    public static final int ZMQ_EVENT_ALL = 0xFFFF;

    // --- messages ---
    /** int zmq_msg_init(zmq_msg_t *msg); -- cannot fail */
    public static final MethodHandle zmq_msg_init = h("zmq_msg_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /**
     * int zmq_msg_init_size(zmq_msg_t *msg, size_t size); -- fails only with ENOMEM, so errno
     * is not captured: the JDK slices the capture segment per call, a heap allocation that C2
     * does not always remove, and this call is on the per-message path.
     */
    public static final MethodHandle zmq_msg_init_size = h("zmq_msg_init_size", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    /**
     * int zmq_msg_init_data(zmq_msg_t *msg, void *data, size_t size, zmq_free_fn *ffn, void *hint);
     * data and hint as long. With a free function, libzmq 4.3 fails only when it cannot allocate
     * the message's small refcount header (ENOMEM; a NULL data pointer with a non-zero size is an
     * assertion, not an error code), so errno is not captured (see zmq_msg_init_size).
     */
    public static final MethodHandle zmq_msg_init_data = h("zmq_msg_init_data",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG));
    /** void *zmq_msg_data(zmq_msg_t *msg); returned as long */
    public static final MethodHandle zmq_msg_data = h("zmq_msg_data", FunctionDescriptor.of(JAVA_LONG, ADDRESS), CRITICAL);
    /** size_t zmq_msg_size(const zmq_msg_t *msg); */
    public static final MethodHandle zmq_msg_size = h("zmq_msg_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS), CRITICAL);
    /** int zmq_msg_more(const zmq_msg_t *msg); */
    public static final MethodHandle zmq_msg_more = h("zmq_msg_more", FunctionDescriptor.of(JAVA_INT, ADDRESS), CRITICAL);
    /**
     * int zmq_msg_close(zmq_msg_t *msg); -- may run the free callback. Fails only with EFAULT
     * (an invalid message, which our owners never pass), so errno is not captured (see
     * zmq_msg_init_size).
     */
    public static final MethodHandle zmq_msg_close = h("zmq_msg_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** int zmq_msg_copy(zmq_msg_t *dest, zmq_msg_t *src); */
    public static final MethodHandle zmq_msg_copy = h("zmq_msg_copy", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_msg_copy(zmq_msg_t *dest, zmq_msg_t *src); no capture: a proxy's per-frame copy to its capture socket */
    public static final MethodHandle zmq_msg_copy_fast = h("zmq_msg_copy", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** int zmq_msg_move(zmq_msg_t *dest, zmq_msg_t *src); */
    public static final MethodHandle zmq_msg_move = h("zmq_msg_move", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /**
     * int zmq_msg_move(zmq_msg_t *dest, zmq_msg_t *src); no capture: for a {@code src} the caller
     * has just initialised itself (ZmqMessage.set), whose only failure, EFAULT for an invalid
     * message, cannot happen (see zmq_msg_init_size).
     */
    public static final MethodHandle zmq_msg_move_fast = h("zmq_msg_move", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** int zmq_msg_send(zmq_msg_t *msg, void *socket, int flags); errno captured: the repeat after a failed {@link #zmq_msg_send_fast} */
    public static final MethodHandle zmq_msg_send = h("zmq_msg_send", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), ERRNO);
    /** int zmq_msg_send(zmq_msg_t *msg, void *socket, int flags); no capture (see the class comment) */
    public static final MethodHandle zmq_msg_send_fast = h("zmq_msg_send", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** int zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags); errno captured: the repeat after a failed {@link #zmq_msg_recv_fast} */
    public static final MethodHandle zmq_msg_recv = h("zmq_msg_recv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), ERRNO);
    /** int zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags); no capture (see the class comment) */
    public static final MethodHandle zmq_msg_recv_fast = h("zmq_msg_recv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    // --- buffers ---
    /** int zmq_send(void *socket, const void *buf, size_t len, int flags); buf as long; errno captured: the repeat after a failed {@link #zmq_send_fast} */
    public static final MethodHandle zmq_send = h("zmq_send", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT), ERRNO);
    /** int zmq_send(void *socket, const void *buf, size_t len, int flags); buf as long; no capture (see the class comment) */
    public static final MethodHandle zmq_send_fast = h("zmq_send", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    /** int zmq_recv(void *socket, void *buf, size_t len, int flags); buf as long */
    public static final MethodHandle zmq_recv = h("zmq_recv", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT), ERRNO);

    // --- poll ---
    /** int zmq_poll(zmq_pollitem_t *items, int nitems, long timeout); C long is 64-bit on LP64; errno captured: the repeat after a failed {@link #zmq_poll_fast} */
    public static final MethodHandle zmq_poll = h("zmq_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), ERRNO);
    /** int zmq_poll(zmq_pollitem_t *items, int nitems, long timeout); no capture (see the class comment) */
    public static final MethodHandle zmq_poll_fast = h("zmq_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));

    // --- proxy ---
    /**
     * int zmq_proxy_steerable(void *frontend, void *backend, void *capture, void *control);
     * blocks, forwarding between frontend and backend, until the control socket receives
     * TERMINATE (returns 0) or the context is terminated (-1, ETERM); a signal ends it with EINTR.
     * Control commands in 4.3: PAUSE, RESUME, TERMINATE, STATISTICS (replies 8 frames); any other
     * single frame aborts the process (zmq_assert), a multipart one ends the call with -1.
     */
    public static final MethodHandle zmq_proxy_steerable = h("zmq_proxy_steerable",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS), ERRNO);

    // --- misc ---
    /** void zmq_version(int *major, int *minor, int *patch); */
    public static final MethodHandle zmq_version = h("zmq_version", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
    /**
     * int zmq_errno(void); errno as it is when called, which the JVM may have overwritten since the
     * call that set it: for a failed send that must not be repeated, and as a would-block hint
     * after a failed DONTWAIT call, trusted only when it says EAGAIN (ZmqSocket.socketCall, ProxyLoop)
     */
    public static final MethodHandle zmq_errno = h("zmq_errno", FunctionDescriptor.of(JAVA_INT));
    /** const char *zmq_strerror(int errnum); */
    public static final MethodHandle zmq_strerror = h("zmq_strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    /** int zmq_has(const char *capability); 1 when libzmq was built with it ("curve", "ipc", ...), else 0 */
    public static final MethodHandle zmq_has = h("zmq_has", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** int zmq_curve_keypair(char *z85_public_key, char *z85_secret_key); */
    public static final MethodHandle zmq_curve_keypair = h("zmq_curve_keypair", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** int zmq_curve_public(char *z85_public_key, const char *z85_secret_key); the secret key must be 40 Z85 characters: libzmq decodes any multiple of 5 into 32 bytes */
    public static final MethodHandle zmq_curve_public = h("zmq_curve_public", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** char *zmq_z85_encode(char *dest, const uint8_t *data, size_t size); */
    public static final MethodHandle zmq_z85_encode = h("zmq_z85_encode", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG), ERRNO);
    /** uint8_t *zmq_z85_decode(uint8_t *dest, const char *string); */
    public static final MethodHandle zmq_z85_decode = h("zmq_z85_decode", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO);

    /** errno as captured by the last call that was given {@code capture}. */
    public static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO_OFFSET);
    }

    /** zmq_strerror text for {@code errno}. */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) zmq_strerror.invokeExact(errno);
            return s.equals(MemorySegment.NULL) ? "errno " + errno : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** Rethrows what a downcall threw; downcalls declare Throwable but only throw unchecked errors. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.nativelib.internal.Threads;
import io.zmqzstd.transport.internal.LibZmq;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client authorization for the CURVE servers of one context: a ZAP handler (ZeroMQ RFC 27) that
 * lets in a CURVE client only when its long-term public key is in an allowed set.
 *
 * <p>Without a handler, a CURVE server (libzmq 4.3.4) takes any client that knows the server's
 * public key, which is public: the traffic is encrypted, but nobody is kept out. Once a handler
 * is bound at {@value #ZAP_ENDPOINT} in a context, libzmq asks it about every CURVE handshake of
 * every CURVE server socket of that context (those bound before the start too), with the client's
 * public key, and fails the handshake unless it answers 200. A refused client's messages never
 * arrive: the server's monitor and the client's see {@link MonitorEvent.Type#HANDSHAKE_FAILED_AUTH}
 * with the status (400), and libzmq 4.3.4 takes the refusal as a protocol error, so the client
 * does not try that connection again and the messages queued for it are dropped with it; it gets
 * in only by connecting anew.
 *
 * <pre>{@code
 * try (CurveAuthorizer auth = CurveAuthorizer.start(ctx, List.of(clientPublicKeyZ85))) {
 *     ZmqSocket server = ctx.socket(SocketType.PULL);
 *     server.curveServer(true);
 *     server.curveSecretKey(serverSecretKeyZ85);
 *     server.bind("tcp://*:5555"); // only clients with an allowed key get through
 * }
 * }</pre>
 *
 * <p>Answers, one a request, from a thread of the authorizer's own (a daemon named
 * {@code zmqzstd-curve-authorizer-N}):
 * <ul>
 * <li>CURVE, key allowed: 200, status text {@code OK}, user id the key in Z85 (libzmq gives it to
 *     the server's messages from that client as their {@code User-Id} property).</li>
 * <li>CURVE, key not allowed: 400 {@code client key not allowed}.</li>
 * <li>Any other mechanism: 400. libzmq 4.3.4 asks about NULL only for a server socket with a
 *     {@code ZMQ_ZAP_DOMAIN}, which asked for access control, and about PLAIN for every PLAIN
 *     server: neither proves anything this handler knows (a NULL client has no credentials, and it
 *     holds no passwords), so both are refused.</li>
 * <li>A malformed request (fewer than 6 frames after the envelope, a version other than
 *     {@code 1.0}, CURVE credentials other than one 32-byte key, a frame over
 *     {@value #MAX_FRAME_BYTES} bytes): 500, the status text naming what was wrong, the request
 *     id echoed (empty when there was none). Only code in the same process can send one: libzmq's
 *     requests are well formed.</li>
 * </ul>
 * The domain, address and routing id of a request are not looked at: every CURVE server of the
 * context is answered from the same set.
 *
 * <p>Thread safety: every method may be called from any thread. {@link #allow} and {@link #revoke}
 * change the set at once for the handshakes that follow; a connection already let in stays
 * connected after its key is revoked (ZAP is asked once per handshake; close the server socket,
 * or unbind its endpoint, to cut such clients off).
 *
 * <p>Lifetime: {@link #close()} stops the thread, which unbinds {@value #ZAP_ENDPOINT} and closes
 * its socket (another authorizer may then start on the context). {@link ZmqContext#close()} and
 * {@link ZmqContext#shutdown()} end the thread too (its receive ends with ETERM, or its socket is
 * closed by the context's close). Once the handler is gone, libzmq lets every client with the
 * server key into that context's CURVE servers again, as it did before the start: keep the
 * authorizer open for as long as its context's CURVE servers accept connections.
 */
public final class CurveAuthorizer implements AutoCloseable {

    /** Where libzmq looks for a context's ZAP handler (RFC 27): one per context. */
    public static final String ZAP_ENDPOINT = "inproc://zeromq.zap.01";

    /**
     * The longest frame read whole. RFC 27's strings (version, domain, address, routing id,
     * mechanism) are at most 255 bytes, a CURVE key 32, libzmq's request id 1.
     */
    public static final int MAX_FRAME_BYTES = 1024;

    /** How long the thread waits for a request before it looks whether {@link #close()} asked it to stop. */
    static final int STOP_CHECK_MS = 100;

    /** Frames of one request kept: a CURVE request has 7 after the envelope; the rest are counted and dropped. */
    private static final int MAX_FRAMES = 16;
    /** Frames before the credentials: version, request id, domain, address, routing id, mechanism. */
    private static final int HEADER_FRAMES = 6;
    private static final byte[] VERSION = ascii("1.0");
    private static final byte[] STATUS_OK = ascii("200");
    private static final byte[] STATUS_REFUSED = ascii("400");
    private static final byte[] STATUS_MALFORMED = ascii("500");
    private static final byte[] CURVE = ascii("CURVE");
    private static final byte[] NOTHING = new byte[0];
    private static final AtomicLong THREADS = new AtomicLong();

    private final ZmqSocket handler;
    /** The allowed keys, 32 bytes each, in buffers nobody else holds (equal by content). */
    private final Set<ByteBuffer> allowedKeys = ConcurrentHashMap.newKeySet();
    private final AtomicLong allowed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    private CurveAuthorizer(ZmqSocket handler, Set<ByteBuffer> keys) {
        this.handler = handler;
        this.allowedKeys.addAll(keys);
        this.thread = new Thread(this::run, "zmqzstd-curve-authorizer-" + THREADS.incrementAndGet());
        thread.setDaemon(true); // a forgotten authorizer does not keep the JVM alive
    }

    /**
     * Starts an authorizer on {@code context} that lets in the CURVE clients whose public keys are
     * given in Z85.
     *
     * @param context the context whose CURVE servers are to be guarded; open
     * @param z85PublicKeys the allowed clients' public keys, {@value Curve#Z85_KEY_CHARS} Z85
     *     characters each; may be empty (nobody let in until {@link #allow})
     * @return the running authorizer, owned by the caller, who closes it
     * @throws NullPointerException when {@code context}, {@code z85PublicKeys} or a key is null
     * @throws IllegalArgumentException when a key is not a Z85 key (the message says why, as
     *     {@link Curve#z85DecodeKey} does); nothing is started
     * @throws IllegalStateException when another ZAP handler is bound in the context (another
     *     authorizer, or the application's own), when libzmq has no CURVE, or the context is closed
     * @throws ZmqException when libzmq cannot make or bind the handler's socket (ETERM after a
     *     shutdown, EMFILE: it takes one of the context's sockets)
     */
    public static CurveAuthorizer start(ZmqContext context, Iterable<String> z85PublicKeys) {
        Objects.requireNonNull(z85PublicKeys, "z85PublicKeys");
        Set<ByteBuffer> keys = new HashSet<>();
        for (String k : z85PublicKeys) {
            keys.add(key(k));
        }
        return start(context, keys);
    }

    /**
     * Starts an authorizer on {@code context} that lets in the CURVE clients whose public keys are
     * given in binary; {@code start(context)} lets in nobody until {@link #allow}.
     *
     * @param context the context whose CURVE servers are to be guarded; open
     * @param publicKeys the allowed clients' public keys, {@value Curve#KEY_BYTES} bytes each,
     *     copied (the arrays stay the caller's)
     * @return the running authorizer, owned by the caller, who closes it
     * @throws NullPointerException when {@code context}, {@code publicKeys} or a key is null
     * @throws IllegalArgumentException when a key is not {@value Curve#KEY_BYTES} bytes long;
     *     nothing is started
     * @throws IllegalStateException when another ZAP handler is bound in the context (another
     *     authorizer, or the application's own), when libzmq has no CURVE, or the context is closed
     * @throws ZmqException when libzmq cannot make or bind the handler's socket
     */
    public static CurveAuthorizer start(ZmqContext context, byte[]... publicKeys) {
        Objects.requireNonNull(publicKeys, "publicKeys");
        Set<ByteBuffer> keys = new HashSet<>();
        for (byte[] k : publicKeys) {
            keys.add(key(k));
        }
        return start(context, keys);
    }

    private static CurveAuthorizer start(ZmqContext context, Set<ByteBuffer> keys) {
        Objects.requireNonNull(context, "context");
        if (!Curve.isAvailable()) {
            throw new IllegalStateException("a CurveAuthorizer guards CURVE servers, and " + Curve.unavailableNote());
        }
        ZmqSocket handler = context.socket(SocketType.REP);
        try {
            handler.lingerMs(0);
            // No high-water mark: a reply never waits (a send could otherwise block the thread for
            // good on an in-process requester that does not read), nor does libzmq's request.
            handler.sendHwm(0);
            handler.receiveHwm(0);
            handler.receiveTimeoutMs(STOP_CHECK_MS);
            try {
                handler.bind(ZAP_ENDPOINT);
            } catch (ZmqException e) {
                if (e.errno() == LibZmq.EADDRINUSE) {
                    throw new IllegalStateException("a ZAP handler is already bound in this context at " + ZAP_ENDPOINT
                            + " (another CurveAuthorizer, or the application's own): libzmq asks one handler per context;"
                            + " close the other first", e);
                }
                throw e;
            }
            CurveAuthorizer a = new CurveAuthorizer(handler, keys);
            a.thread.start(); // hands the socket over: only the thread uses it from here on
            return a;
        } catch (RuntimeException | Error e) {
            handler.close();
            throw e;
        }
    }

    /**
     * Lets in, from the next handshake on, the CURVE clients with this public key. A client
     * refused before has to connect again: libzmq does not retry a refused connection.
     *
     * @param z85PublicKey the key, {@value Curve#Z85_KEY_CHARS} Z85 characters
     * @return true when the key was not allowed before
     * @throws NullPointerException when the key is null
     * @throws IllegalArgumentException when it is not a Z85 key
     */
    public boolean allow(String z85PublicKey) {
        return allowedKeys.add(key(z85PublicKey));
    }

    /**
     * Lets in, from the next handshake on, the CURVE clients with this public key.
     *
     * @param publicKey the key, {@value Curve#KEY_BYTES} bytes, copied
     * @return true when the key was not allowed before
     * @throws NullPointerException when the key is null
     * @throws IllegalArgumentException when it is not {@value Curve#KEY_BYTES} bytes long
     */
    public boolean allow(byte[] publicKey) {
        return allowedKeys.add(key(publicKey));
    }

    /**
     * Refuses this public key from the next handshake on. A client already connected with it
     * stays connected: ZAP is asked once per handshake.
     *
     * @param z85PublicKey the key, {@value Curve#Z85_KEY_CHARS} Z85 characters
     * @return true when the key was allowed before
     * @throws NullPointerException when the key is null
     * @throws IllegalArgumentException when it is not a Z85 key
     */
    public boolean revoke(String z85PublicKey) {
        return allowedKeys.remove(key(z85PublicKey));
    }

    /**
     * Refuses this public key from the next handshake on; see {@link #revoke(String)}.
     *
     * @param publicKey the key, {@value Curve#KEY_BYTES} bytes
     * @return true when the key was allowed before
     * @throws NullPointerException when the key is null
     * @throws IllegalArgumentException when it is not {@value Curve#KEY_BYTES} bytes long
     */
    public boolean revoke(byte[] publicKey) {
        return allowedKeys.remove(key(publicKey));
    }

    /**
     * Whether a CURVE client with this key would be let in now.
     *
     * @param z85PublicKey the key, {@value Curve#Z85_KEY_CHARS} Z85 characters
     * @return true when it is in the allowed set
     * @throws IllegalArgumentException when it is not a Z85 key
     */
    public boolean isAllowed(String z85PublicKey) {
        return allowedKeys.contains(key(z85PublicKey));
    }

    /**
     * CURVE handshakes let in (answered 200) since the start. Any thread.
     *
     * @return the count; counted before the reply goes out, so a server's
     *     {@link MonitorEvent.Type#HANDSHAKE_SUCCEEDED} is preceded by its count
     */
    public long allowedHandshakes() {
        return allowed.get();
    }

    /**
     * Requests refused (answered 400: a CURVE key not allowed, or another mechanism) since the
     * start. Any thread.
     *
     * @return the count; counted before the reply goes out, so a server's
     *     {@link MonitorEvent.Type#HANDSHAKE_FAILED_AUTH} is preceded by its count
     */
    public long refusedHandshakes() {
        return refused.get();
    }

    /**
     * Malformed requests (answered 500) since the start. Any thread.
     *
     * @return the count, counted before the reply goes out
     */
    public long malformedRequests() {
        return malformed.get();
    }

    /**
     * Whether the handler thread is still answering: false once {@link #close()} returned, or the
     * context was closed or shut down and the thread has seen it.
     *
     * @return true while the thread runs
     */
    public boolean isRunning() {
        return thread.isAlive();
    }

    /** The handler thread, for tests that wait for its end. */
    Thread thread() {
        return thread;
    }

    /**
     * Stops the handler thread and waits for it: it ends within about {@value #STOP_CHECK_MS} ms
     * (a request it is answering is answered first), unbinds {@value #ZAP_ENDPOINT} and closes its
     * socket. From then on libzmq lets any client with the server key into the context's CURVE
     * servers (see the class comment). Idempotent; any thread. An interrupt does not end the
     * wait; the interrupt status is kept.
     */
    @Override
    public void close() {
        stopping = true;
        if (Thread.currentThread() == thread) {
            return;
        }
        if (Threads.joinUninterruptibly(thread)) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "CurveAuthorizer[endpoint=" + ZAP_ENDPOINT + ", allowedKeys=" + allowedKeys.size() + ", allowed=" + allowed.get()
                + ", refused=" + refused.get() + ", malformed=" + malformed.get() + ", running=" + isRunning() + "]";
    }

    /**
     * The thread: answers requests until {@link #close()} or the context ends it. ETERM (a shutdown
     * or a close under the receive) and the socket closed by the context's close end it quietly;
     * anything else ends it through the uncaught exception handler, the endpoint unbound.
     */
    private void run() {
        byte[] scratch = new byte[MAX_FRAME_BYTES];
        Request request = new Request();
        try {
            while (!stopping) {
                if (request.receive(handler, scratch)) {
                    reply(request);
                }
            }
        } catch (ZmqException e) {
            if (!e.isContextTerminated()) {
                throw e;
            }
        } catch (IllegalStateException e) {
            if (!handler.isClosed()) { // closed by ZmqContext.close(): the end
                throw e;
            }
        } finally {
            release();
        }
    }

    /**
     * Unbinds the endpoint (at once, so another handler may bind it as soon as {@link #close()}
     * returns; a closed socket's endpoints are let go only later, by libzmq's reaper) and closes
     * the socket.
     */
    private void release() {
        try {
            handler.unbind(ZAP_ENDPOINT);
        } catch (RuntimeException e) {
            // ETERM, or already closed by the context: nothing is bound any more either way
        }
        handler.close();
    }

    /** Answers {@code r}, counting the answer before it goes out. */
    private void reply(Request r) {
        byte[] status;
        String text;
        byte[] userId = NOTHING;
        String fault = r.fault();
        if (fault != null) {
            malformed.incrementAndGet();
            status = STATUS_MALFORMED;
            text = fault;
        } else if (r.isCurve()) {
            byte[] key = r.frames.get(HEADER_FRAMES);
            if (allowedKeys.contains(ByteBuffer.wrap(key))) {
                allowed.incrementAndGet();
                status = STATUS_OK;
                text = "OK";
                userId = ascii(Curve.z85Encode(key));
            } else {
                refused.incrementAndGet();
                status = STATUS_REFUSED;
                text = "client key not allowed";
            }
        } else {
            refused.incrementAndGet();
            status = STATUS_REFUSED;
            text = "mechanism " + printable(r.frames.get(HEADER_FRAMES - 1)) + " not allowed: only CURVE clients with an"
                    + " allowed public key are let in";
        }
        // REP puts the requester's envelope back in front; a blocking send never waits (no high-water mark)
        handler.send(VERSION, ZmqSocket.SNDMORE);
        handler.send(r.requestId(), ZmqSocket.SNDMORE);
        handler.send(status, ZmqSocket.SNDMORE);
        handler.send(ascii(text), ZmqSocket.SNDMORE);
        handler.send(userId, ZmqSocket.SNDMORE);
        handler.send(NOTHING, 0); // metadata: none
    }

    /** One ZAP request as the REP socket hands it over (no envelope), reused for every request. */
    private static final class Request {
        /** The first {@link #MAX_FRAMES} frames, each whole unless over {@link #MAX_FRAME_BYTES}. */
        final List<byte[]> frames = new ArrayList<>(MAX_FRAMES);
        int count;
        /** Index and size of the first frame over {@link #MAX_FRAME_BYTES}; -1 when none. */
        int oversizeIndex;
        int oversizeBytes;

        /**
         * Receives the next request, all its frames; false when none came within
         * {@link #STOP_CHECK_MS}.
         */
        boolean receive(ZmqSocket socket, byte[] scratch) {
            int size = socket.receive(scratch, 0);
            if (size < 0) {
                return false;
            }
            frames.clear();
            count = 0;
            oversizeIndex = -1;
            for (;;) {
                if (size > scratch.length && oversizeIndex < 0) {
                    oversizeIndex = count;
                    oversizeBytes = size;
                }
                if (count < MAX_FRAMES) {
                    frames.add(Arrays.copyOf(scratch, Math.min(size, scratch.length)));
                }
                count++;
                if (!socket.hasMore()) {
                    return true;
                }
                do { // the parts of a message arrive together: this waits for nothing
                    size = socket.receive(scratch, 0);
                } while (size < 0);
            }
        }

        /** What makes this request malformed, for the status text; null when it is well formed. */
        String fault() {
            if (count < HEADER_FRAMES) {
                return "malformed ZAP request: " + count + " frames, RFC 27 asks for at least " + HEADER_FRAMES
                        + " (version, request id, domain, address, routing id, mechanism) before the credentials";
            }
            if (oversizeIndex >= 0) {
                return "malformed ZAP request: frame " + oversizeIndex + " is " + oversizeBytes + " bytes, more than the "
                        + MAX_FRAME_BYTES + " this handler reads";
            }
            if (!Arrays.equals(frames.get(0), VERSION)) {
                return "unsupported ZAP version " + printable(frames.get(0)) + ": this handler speaks 1.0 (RFC 27)";
            }
            if (isCurve() && (count != HEADER_FRAMES + 1 || frames.get(HEADER_FRAMES).length != Curve.KEY_BYTES)) {
                return "malformed ZAP request: CURVE credentials are one " + Curve.KEY_BYTES + "-byte public key, got "
                        + (count - HEADER_FRAMES) + " frames" + (count > HEADER_FRAMES
                                ? " (the first " + frames.get(HEADER_FRAMES).length + " bytes)" : "");
            }
            return null;
        }

        boolean isCurve() {
            return count >= HEADER_FRAMES && Arrays.equals(frames.get(HEADER_FRAMES - 1), CURVE);
        }

        /** The request id to echo: as sent, or empty when the request had none or it was cut short. */
        byte[] requestId() {
            return count > 1 && oversizeIndex != 1 ? frames.get(1) : NOTHING;
        }
    }

    /** A key for the set: 32 bytes in a buffer of its own. */
    private static ByteBuffer key(byte[] publicKey) {
        Objects.requireNonNull(publicKey, "publicKey is null");
        if (publicKey.length != Curve.KEY_BYTES) {
            throw new IllegalArgumentException("a CURVE public key is " + Curve.KEY_BYTES + " bytes: length=" + publicKey.length);
        }
        return ByteBuffer.wrap(publicKey.clone());
    }

    private static ByteBuffer key(String z85PublicKey) {
        Objects.requireNonNull(z85PublicKey, "z85PublicKey is null");
        return ByteBuffer.wrap(Curve.z85DecodeKey(z85PublicKey));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code b} as quoted ASCII for a status text (at most 255 characters in all), other bytes as {@code \xNN}, at most 32 shown. */
    private static String printable(byte[] b) {
        StringBuilder s = new StringBuilder("\"");
        for (int i = 0; i < Math.min(b.length, 32); i++) {
            int c = b[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
                s.append((char) c);
            } else {
                s.append(String.format("\\x%02x", c));
            }
        }
        return s.append(b.length > 32 ? "...\" (" + b.length + " bytes)" : "\"").toString();
    }
}

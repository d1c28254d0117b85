package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A blocking proxy between two sockets (libzmq's {@code zmq_proxy_steerable}): {@link #run()}
 * forwards every message from the frontend to the backend and back, frame by frame and unchanged,
 * optionally copying each frame to a capture socket, until another thread calls
 * {@link #terminate()}. Other threads may also {@link #pause()} and {@link #resume()} it.
 *
 * <p>Usage, e.g. an XSUB/XPUB forwarder: <pre>{@code
 * ZmqSocket xsub = ctx.socket(SocketType.XSUB); xsub.bind("tcp://*:5556");   // publishers connect here
 * ZmqSocket xpub = ctx.socket(SocketType.XPUB); xpub.bind("tcp://*:5557");   // subscribers here
 * try (ZmqProxy proxy = new ZmqProxy(xsub, xpub, null)) {
 *     Thread forwarder = Thread.ofPlatform().start(proxy::run);
 *     ...
 *     proxy.terminate();   // from any thread; run() returns
 *     forwarder.join();
 * }
 * }</pre>
 *
 * <p>How: the proxy owns two PAIR sockets in the frontend's context, connected over a unique
 * {@code inproc://} endpoint. {@link #run()} hands one to libzmq as the control socket;
 * {@link #pause()}, {@link #resume()} and {@link #terminate()} send libzmq's commands
 * ({@code PAUSE}, {@code RESUME}, {@code TERMINATE}) through the other, under a lock, so they may
 * be called from any thread, in any number; a command sent before {@link #run()} starts waits for
 * it (the control channel has no high-water mark, so a send never blocks). No other command can
 * be sent: libzmq 4.3 aborts the process on an unknown one. libzmq 4.3.4 copies each command to
 * the capture socket too, as a frame of its own.
 *
 * <p>Ownership and threading: the caller owns the frontend, backend and capture sockets and closes
 * them after the proxy. While {@link #run()} is inside libzmq it counts as a call on each of them (as
 * {@link ZmqPoller#poll} does): other threads' calls on them are refused with
 * {@link IllegalStateException}, closing one of them waits for the run to return, and
 * {@link ZmqContext#close()} ends the run (it throws {@link ZmqException} with
 * {@link ZmqException#isContextTerminated()}). A proxy runs once.
 */
public final class ZmqProxy implements AutoCloseable {

    private static final AtomicLong ENDPOINTS = new AtomicLong();
    private static final byte[] PAUSE = "PAUSE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESUME = "RESUME".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TERMINATE = "TERMINATE".getBytes(StandardCharsets.US_ASCII);

    private final ZmqSocket frontend;
    private final ZmqSocket backend;
    private final ZmqSocket capture;
    /** libzmq's end of the control channel: entered by {@link #run()}. */
    private final ZmqSocket controlIn;
    /** Ours: every command goes through it under {@link #lock}. */
    private final ZmqSocket controlOut;
    private final Object lock = new Object();
    private final AtomicBoolean started = new AtomicBoolean();
    /** The last command sent was PAUSE; guarded by {@link #lock}. */
    private boolean paused;
    /** TERMINATE was sent, or the proxy closed; guarded by {@link #lock}. */
    private boolean terminated;
    private volatile boolean running;
    private volatile boolean closed;

    /**
     * A proxy between {@code frontend} and {@code backend}, not yet running.
     *
     * @param frontend an open socket; messages received on it go to {@code backend}
     * @param backend an open socket; messages received on it go to {@code frontend}; may be
     *     {@code frontend} itself (libzmq then sends what it receives back on the same socket)
     * @param capture an open socket that gets a copy of every frame forwarded (and, in libzmq 4.3,
     *     of every command), or null for none; a PUB, PUSH, PAIR or DEALER socket, for one
     *     that can send without waiting for a reply
     * @throws NullPointerException when {@code frontend} or {@code backend} is null
     * @throws IllegalStateException when one of the sockets is closed, or the frontend's context is
     * @throws ZmqException when the control sockets cannot be made
     */
    public ZmqProxy(ZmqSocket frontend, ZmqSocket backend, ZmqSocket capture) {
        this.frontend = Objects.requireNonNull(frontend, "frontend");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.capture = capture;
        for (ZmqSocket s : new ZmqSocket[] {frontend, backend, capture}) {
            if (s != null && s.isClosed()) {
                throw new IllegalStateException("a proxy needs open sockets: closed=" + s);
            }
        }
        String endpoint = "inproc://io.zmqzstd.proxy-control-" + ENDPOINTS.incrementAndGet();
        ZmqContext ctx = frontend.context();
        ZmqSocket in = ctx.socket(SocketType.PAIR);
        ZmqSocket out = null;
        try {
            // No high-water mark on the control channel: commands sent before the run wait there
            // for it, and at libzmq's default (1000 each way) the 2,000th or so blocked its caller
            // for ever, under the lock that terminate() and close() take too.
            in.lingerMs(0);
            in.receiveHwm(0);
            in.bind(endpoint);
            out = ctx.socket(SocketType.PAIR);
            out.lingerMs(0);
            out.sendHwm(0);
            out.connect(endpoint);
        } catch (RuntimeException e) {
            in.close();
            if (out != null) {
                out.close();
            }
            throw e;
        }
        this.controlIn = in;
        this.controlOut = out;
    }

    /**
     * Runs the proxy on this thread until {@link #terminate()} (or {@link #close()}) from another
     * thread: {@code zmq_proxy_steerable}. A signal that interrupts libzmq's wait (EINTR) does not
     * end it: the call is made again, paused again if it was paused.
     *
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} when the context is
     *     shut down or closed while it runs; another {@link ZmqException} when libzmq fails
     *     otherwise (e.g. a send the backend's type does not allow)
     * @throws IllegalStateException when this proxy has run (or is running) already, is closed, or
     *     one of its sockets is closed or in a call on another thread
     */
    public void run() {
        if (closed) {
            throw new IllegalStateException("proxy is closed");
        }
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("proxy has already run: a ZmqProxy runs once");
        }
        List<ZmqSocket> entered = new ArrayList<>(4);
        try {
            for (ZmqSocket s : new ZmqSocket[] {frontend, backend, capture, controlIn}) {
                if (s != null && !entered.contains(s)) {
                    s.enter();
                    entered.add(s);
                }
            }
            running = true;
            runEntered();
        } finally {
            running = false;
            for (ZmqSocket s : entered) {
                s.exit();
            }
        }
    }

    private void runEntered() {
        // Entered handles, not handle(): a context close may mark the sockets closed from now on,
        // and then it is libzmq's ETERM that ends the run, not "socket is closed" before it starts.
        MemorySegment captureHandle = capture == null ? MemorySegment.NULL : capture.enteredHandle();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(LibZmq.CAPTURE_LAYOUT);
            for (;;) {
                int rc = (int) LibZmq.zmq_proxy_steerable.invokeExact(errno, frontend.enteredHandle(),
                        backend.enteredHandle(), captureHandle, controlIn.enteredHandle());
                if (rc == 0) {
                    return; // TERMINATE
                }
                int e = LibZmq.errno(errno);
                if (e != LibZmq.EINTR) {
                    throw new ZmqException("zmq_proxy_steerable", e);
                }
                // A new call starts active: queue PAUSE again (behind any command already queued,
                // which libzmq reads first) if that is the state the interrupted one was in.
                synchronized (lock) {
                    if (paused && !terminated) {
                        controlOut.send(PAUSE, 0);
                    }
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * True from the moment {@link #run()} has taken its sockets (counted its call on each) until it
     * returns; between the two it is in libzmq but for the repeat after a signal.
     *
     * @return whether the proxy is running now
     */
    public boolean isRunning() {
        return running;
    }

    /**
     * Stops forwarding until {@link #resume()}; messages wait in the sockets' queues (up to their
     * high-water marks). Thread-safe. Takes effect when the proxy reads the command, which may be
     * after this returns: a message already being forwarded is forwarded.
     *
     * @throws IllegalStateException after {@link #terminate()} or {@link #close()}
     */
    public void pause() {
        command(PAUSE, true);
    }

    /**
     * Forwards again after {@link #pause()}. Thread-safe.
     *
     * @throws IllegalStateException after {@link #terminate()} or {@link #close()}
     */
    public void resume() {
        command(RESUME, false);
    }

    /**
     * Ends {@link #run()}: it returns once libzmq has read the command (after the message it is
     * forwarding, if any). Before the run starts, it makes the run return at once. Thread-safe and
     * idempotent; nothing to do once the proxy is closed.
     */
    public void terminate() {
        synchronized (lock) {
            if (terminated) {
                return;
            }
            terminated = true;
            try {
                controlOut.send(TERMINATE, 0);
            } catch (ZmqException e) {
                if (!e.isContextTerminated()) {
                    throw e;
                }
                // shut down: a run ends with ETERM
            } catch (IllegalStateException e) {
                if (!controlOut.isClosed()) {
                    throw e;
                }
                // the context closed it, and with it ended any run
            }
        }
    }

    private void command(byte[] command, boolean pause) {
        synchronized (lock) {
            if (terminated) {
                throw new IllegalStateException("proxy is " + (closed ? "closed" : "terminated") + ": command="
                        + new String(command, StandardCharsets.US_ASCII));
            }
            controlOut.send(command, 0);
            paused = pause;
        }
    }

    /**
     * Terminates the proxy if it runs, waits for {@link #run()} to return, and closes the control
     * sockets. The frontend, backend and capture sockets stay open (the caller's). Idempotent;
     * callable from any thread but the one in {@link #run()}.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        terminate();
        controlIn.close(); // waits for a run inside libzmq, which the TERMINATE ends
        controlOut.close();
    }

    @Override
    public String toString() {
        return "ZmqProxy[frontend=" + frontend + ", backend=" + backend + (capture != null ? ", capture=" + capture : "")
                + (running ? ", running" : "") + (closed ? ", closed" : "") + "]";
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A blocking proxy between two sockets, steered like libzmq's {@code zmq_proxy_steerable}:
 * {@link #run()} forwards every message from the frontend to the backend and back, frame by frame and unchanged,
 * optionally copying each frame to a capture socket, until another thread calls
 * {@link #terminate()}. Other threads may also {@link #pause()} and {@link #resume()} it, and ask
 * for its counters with {@link #statistics(Duration)}.
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
 * {@code inproc://} endpoint. {@link #pause()}, {@link #resume()}, {@link #terminate()} and
 * {@link #statistics(Duration)} send commands ({@code PAUSE}, {@code RESUME}, {@code TERMINATE},
 * {@code STATISTICS}) through one, under a lock, so they may be called from any thread, in any
 * number; {@link #run()} reads them from the other between bursts of messages. A command sent
 * before {@link #run()} starts waits for it (the control channel has no high-water mark either
 * way, so neither a command nor the reply to {@code STATISTICS} ever blocks).
 *
 * <p>The loop is this project's, in Java over libzmq's calls ({@code zmq_poll},
 * {@code zmq_msg_recv}, {@code zmq_msg_send}: a frame moves from one socket to the other, its data
 * is not copied, and nothing is allocated per message), not libzmq 4.3.4's
 * {@code zmq_proxy_steerable}, which it replaced on 2026-11-28. That one busy-loops on a core
 * while a message waits for a side that cannot take it yet (no peer, or at its high-water mark:
 * libzmq issue 4071), copies every command to the capture socket as if it were a message, and
 * returns on a signal (EINTR), starting its counters over when called again. Here the proxy sleeps
 * in {@code zmq_poll} until the destination has room; nothing is taken off the source while the
 * destination shows no room (no peer), and a message taken just as it filled up waits in hand for
 * the room (see {@link #terminate()}); commands do not reach the capture; a signal only repeats the
 * wait.
 *
 * <p>A message that its destination cannot route, because the peer it is addressed to has gone (a
 * ROUTER with {@code ZMQ_ROUTER_MANDATORY}, or a STREAM, fails it with EHOSTUNREACH), is dropped,
 * all its frames, as a ROUTER without that option drops it, and the run goes on; it counts as
 * received and not as sent ({@link ProxyStatistics}). libzmq's proxy ended with the error.
 *
 * <p>Socket types: what one side can receive the other must be able to send, so a SUB or PULL
 * stands only opposite a PUB or PUSH, and the constructor refuses other pairs (such messages could
 * never be forwarded). A REQ or REP side takes a message only in its turn: one that comes out of
 * turn waits in the proxy's hand until the turn comes.
 *
 * <p>Ownership and threading: the caller owns the frontend, backend and capture sockets and closes
 * them after the proxy. While {@link #run()} is inside libzmq it counts as a call on each of them (as
 * {@link ZmqPoller#poll} does): other threads' calls on them are refused with
 * {@link IllegalStateException}, closing one of them waits for the run to return, and
 * {@link ZmqContext#close()} ends the run (it throws {@link ZmqException} with
 * {@link ZmqException#isContextTerminated()}). A proxy runs once.
 */
public final class ZmqProxy implements AutoCloseable {

    // The control protocol, sent here and read by ProxyLoop: one frame each.
    static final byte[] PAUSE = "PAUSE".getBytes(StandardCharsets.US_ASCII);
    static final byte[] RESUME = "RESUME".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TERMINATE = "TERMINATE".getBytes(StandardCharsets.US_ASCII);
    static final byte[] STATISTICS = "STATISTICS".getBytes(StandardCharsets.US_ASCII);
    /**
     * Longest single wait for a {@code STATISTICS} reply under {@link #lock}: the lock is let go
     * between waits, so a {@link #pause()}, {@link #terminate()} or other caller waits at most this
     * long behind a {@link #statistics(Duration)} whose reply does not come (the proxy not running).
     */
    private static final int REPLY_WAIT_SLICE_MS = 10;
    /** How long the constructor waits for its own frame on the new control channel (it comes at once). */
    private static final int CHANNEL_CHECK_MS = 2000;

    private final ZmqSocket frontend;
    private final ZmqSocket backend;
    private final ZmqSocket capture;
    /** The run's end of the control channel: entered by {@link #run()}. */
    private final ZmqSocket controlIn;
    /** Ours: every command, and every receive of a reply, goes through it under {@link #lock}. */
    private final ZmqSocket controlOut;
    /**
     * Fair, so that a thread waiting for the lock gets it before a {@link #statistics(Duration)}
     * that lets it go between two waits for its reply takes it again.
     */
    private final ReentrantLock lock = new ReentrantLock(true);
    private final AtomicBoolean started = new AtomicBoolean();
    // STATISTICS bookkeeping, guarded by lock. The run reads commands in order and answers each
    // STATISTICS before it reads the next command, so the n-th reply answers the n-th request
    // (counted from 0); a reply whose caller gave up (timed out) is dropped, never handed to a later one.
    /** STATISTICS requests sent. */
    private long requested;
    /** STATISTICS replies received: the next one answers request number {@code answered}. */
    private long answered;
    /** Requests whose caller still waits. */
    private final Set<Long> waiting = new HashSet<>();
    /** Replies received by another caller for a request in {@link #waiting}, not yet taken. */
    private final Map<Long, ProxyStatistics> answers = new HashMap<>();
    /** The reply wait controlOut's receive timeout is set to now; guarded by {@link #lock}. */
    private int replyWaitMs = -1;
    /** TERMINATE was sent, or the proxy closed; guarded by {@link #lock}. */
    private boolean terminated;
    private volatile boolean running;
    /** The run's loop, once it has started. */
    private volatile ProxyLoop loop;
    /** run() was called and has returned (or thrown): no command is read from now on. */
    private volatile boolean ended;
    private volatile boolean closed;

    /**
     * A proxy between {@code frontend} and {@code backend}, not yet running.
     *
     * @param frontend an open socket; messages received on it go to {@code backend}
     * @param backend an open socket; messages received on it go to {@code frontend}; may be
     *     {@code frontend} itself (the proxy then sends what it receives back on the same socket)
     * @param capture an open socket that gets a copy of every frame forwarded, or null for none.
     *     Each copy goes with a blocking send once the frame has been forwarded (libzmq's proxy
     *     captured first), so the capture holds only whole messages, in the order they were
     *     forwarded: a capture that cannot take it (a PUSH, PAIR or DEALER with no peer, or at its
     *     high-water mark) stops the proxy, commands included, until it can or the context is shut
     *     down, and a send timeout on it that expires ends {@link #run()} with
     *     {@link ZmqException} (EAGAIN), the copy lost, once the rest of the message has been
     *     forwarded (so both sides stay at a message boundary). A PUB capture never waits.
     * @throws NullPointerException when {@code frontend} or {@code backend} is null
     * @throws IllegalArgumentException when a proxy cannot serve the socket types: one side
     *     can receive and the other cannot send (a SUB or PULL opposite anything but a PUB or PUSH),
     *     neither side can receive (PUB or PUSH on both), or the capture is a SUB, PULL, REQ or REP;
     *     the message names the types; also when {@code capture} is {@code frontend} or {@code backend}
     * @throws IllegalStateException when one of the sockets is closed, or was bound or connected
     *     with conflate on (see {@link ZmqSocket#conflate(boolean)}), or the frontend's context is,
     *     or another socket had connected to the name of the control endpoint before the proxy bound it
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
        if (capture != null && (capture == frontend || capture == backend)) {
            // its copies would go out among the frames forwarded on that socket: [a, a, b] then [b] for a message [a, b]
            throw new IllegalArgumentException("the capture must be a socket of its own: capture is the "
                    + (capture == frontend ? "frontend" : "backend") + " (its copies would join the messages forwarded there)");
        }
        checkTypes(frontend.type(), backend.type(), capture == null ? null : capture.type());
        for (ZmqSocket s : new ZmqSocket[] {frontend, backend, capture}) {
            if (s != null && s.conflated()) {
                // multipart messages pass through a proxy; a conflating pipe keeps one frame of them, and
                // libzmq 4.3.4 aborts the process receiving the rest (fq.cpp:112): see ZmqSocket.conflate
                throw new IllegalStateException("a proxy forwards whole messages, multipart ones included, and "
                        + (s == frontend ? "the frontend" : s == backend ? "the backend" : "the capture") + " was bound or"
                        + " connected with conflate on: type=" + s.type() + " (libzmq keeps the last frame, not the last"
                        + " message, and 4.3.4 aborts the process on a receive that finds the rest of one gone): make it"
                        + " without conflate, and conflate at the subscribers if only the latest value matters");
            }
        }
        ZmqContext ctx = frontend.context();
        ZmqSocket in = ctx.socket(SocketType.PAIR);
        ZmqSocket out = null;
        try {
            // No high-water mark on the control channel: commands sent before the run wait there
            // for it, and at libzmq's default (1000 each way) the 2,000th or so blocked its caller
            // for ever, under the lock that terminate() and close() take too.
            in.lingerMs(0);
            in.receiveHwm(0);
            in.sendHwm(0); // STATISTICS replies nobody has read yet must not block the proxy
            String endpoint = OwnEndpoints.bind("proxy-control", in::bind);
            out = ctx.socket(SocketType.PAIR);
            out.lingerMs(0);
            out.sendHwm(0);
            out.receiveHwm(0);
            out.connect(endpoint);
            requireOwnChannel(in, out, endpoint);
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
     * Checks that {@code in}'s peer is {@code out}: a socket the application connected to
     * {@code endpoint} before it was bound becomes {@code in}'s peer instead (a PAIR keeps its first
     * one and turns {@code out} away), and the run would take its messages as commands (libzmq's
     * proxy, used until 2026-11-28, aborted the process on one it did not know), while ours went nowhere. So a frame from {@code in} must reach
     * {@code out}. Sent that way round, not from {@code out}: a send lets libzmq skip the socket's
     * pending commands for about a millisecond after it, and a command sent on {@code out} right
     * after a context shutdown would then go through instead of failing with ETERM.
     */
    private static void requireOwnChannel(ZmqSocket in, ZmqSocket out, String endpoint) {
        byte[] probe = endpoint.getBytes(StandardCharsets.US_ASCII);
        // inproc: the frame is in the pipe once sent, so the wait is a formality unless another socket took the channel
        out.receiveTimeoutMs(CHANNEL_CHECK_MS);
        byte[] got = in.send(probe, ZmqSocket.DONTWAIT) ? out.receiveBytes(0) : null;
        out.receiveTimeoutMs(-1); // what replyWaitMs starts from
        if (!Arrays.equals(probe, got) || out.hasMore()) {
            throw new IllegalStateException("another socket is connected to the proxy's control endpoint: endpoint=" + endpoint
                    + " (connected to that name before the proxy bound it; the proxy would read its messages as commands)");
        }
    }

    /**
     * Refuses the socket types a proxy cannot serve. A side that receives opposite one that cannot
     * send (SUB, PULL): what arrives could never be forwarded (libzmq 4.3.4's proxy kept it and
     * busy-looped on one core for the rest of the run). Two sides that cannot receive (PUB, PUSH)
     * forward nothing. A capture that cannot send (SUB, PULL) or must alternate sends with receives
     * (REQ, REP): the first or second copy fails, which ends the run with that frame lost (ENOTSUP,
     * EFSM), or a REQ with no peer blocks it for good.
     */
    static void checkTypes(SocketType frontend, SocketType backend, SocketType capture) {
        if (!frontend.receives() && !backend.receives()) {
            throw new IllegalArgumentException("a proxy between two sockets that cannot receive forwards nothing: frontend="
                    + frontend + ", backend=" + backend);
        }
        if (frontend.receives() && !backend.sends() || backend.receives() && !frontend.sends()) {
            throw new IllegalArgumentException("a proxy cannot forward what one side receives, the other side cannot send it: frontend="
                    + frontend + ", backend=" + backend + " (such messages could never be forwarded;"
                    + " e.g. XSUB/XPUB, PULL/PUSH, ROUTER/DEALER)");
        }
        if (capture != null && (!capture.sends() || capture == SocketType.REQ || capture == SocketType.REP)) {
            throw new IllegalArgumentException("a capture socket must take every frame with a plain send: capture=" + capture
                    + " (a SUB or PULL cannot send, a REQ or REP must receive between sends; e.g. PUB, PUSH, DEALER, PAIR)");
        }
    }

    /**
     * Runs the proxy on this thread until {@link #terminate()} (or {@link #close()}) from another
     * thread. A signal that interrupts the wait in {@code zmq_poll} (EINTR) does not end it, nor
     * change its state or counters: the proxy waits again.
     *
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} when the context is
     *     shut down or closed while it runs, or closed on another thread as it starts; another
     *     {@link ZmqException} when libzmq fails otherwise (e.g. a send the backend's type does not
     *     allow)
     * @throws IllegalStateException when this proxy has run (or is running) already, is closed
     *     (also on another thread as the run starts: "proxy is closed"), or one of its sockets is
     *     closed or in a call on another thread; a run refused for its sockets has not started, and
     *     the proxy may run once they are free
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
        } catch (RuntimeException refused) {
            // Refused before it started (a socket closed, or in another thread's call): not a run.
            // Until 2026-11-29 it counted as the proxy's one run, and a later run() said "proxy has
            // already run" of a proxy that never had (ZmqProxyTest.shouldRunLaterAfterARunRefusedBeforeItStarted).
            exitAll(entered);
            started.set(false);
            throw controlIn.isClosed() ? startOvertaken(refused) : refused;
        }
        try {
            running = true;
            runEntered();
        } finally {
            running = false;
            ended = true;
            exitAll(entered);
        }
    }

    /**
     * What a close that overtook the run's start did, in the user's words: the run takes the control
     * channel's PAIR socket last, so a {@link #close()} or a context close that came after the run's
     * first steps had closed that socket, and until 2026-11-29 the run threw its refusal, "socket is
     * closed: type=PAIR", naming a socket the user never made (ProxyStartRaceTest).
     */
    private RuntimeException startOvertaken(RuntimeException refused) {
        if (closed) {
            IllegalStateException e = new IllegalStateException(
                    "proxy is closed: it was closed on another thread as this run started, so it did not run");
            e.initCause(refused);
            return e;
        }
        if (controlIn.context().isClosed()) {
            // as a context close ends a run that has taken its sockets (the frontend and backend are taken here)
            ZmqException e = new ZmqException("zmq_poll (proxy run)", LibZmq.ETERM,
                    "the context was closed on another thread as this run started");
            e.initCause(refused);
            return e;
        }
        return refused;
    }

    private static void exitAll(List<ZmqSocket> entered) {
        for (ZmqSocket s : entered) {
            s.exit();
        }
    }

    private void runEntered() {
        // Entered handles, not handle(): a context close may mark the sockets closed from now on,
        // and then it is libzmq's ETERM that ends the run, not "socket is closed" before it starts.
        ProxyLoop l = new ProxyLoop(frontend, backend, capture, controlIn);
        loop = l;
        l.run();
    }

    /** Waits of the run that a signal interrupted (EINTR); 0 before the run. For tests. */
    int interruptedPolls() {
        ProxyLoop l = loop;
        return l == null ? 0 : l.interruptedPolls();
    }

    /** Messages the run holds now, taken off one side while the other had no room; 0 before the run. For tests. */
    int pendingMessages() {
        ProxyLoop l = loop;
        return l == null ? 0 : l.pending();
    }

    /** Messages the run dropped because their destination could not route them (EHOSTUNREACH); 0 before the run. For tests. */
    int unroutableMessages() {
        ProxyLoop l = loop;
        return l == null ? 0 : l.unroutable();
    }

    /** Messages the run let go at TERMINATE, their destination's linger over; 0 before the run. For tests. */
    int droppedAtTerminate() {
        ProxyLoop l = loop;
        return l == null ? 0 : l.dropped();
    }

    /**
     * True from the moment {@link #run()} has taken its sockets (counted its call on each) until it
     * returns.
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
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} once the context is shut
     *     down or closed (no run can read the command)
     */
    public void pause() {
        command(PAUSE);
    }

    /**
     * Forwards again after {@link #pause()}. Thread-safe.
     *
     * @throws IllegalStateException after {@link #terminate()} or {@link #close()}
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} once the context is shut
     *     down or closed
     */
    public void resume() {
        command(RESUME);
    }

    /**
     * Ends {@link #run()}: it returns once the run has read the command (after the message it is
     * forwarding, if any: a message waiting for the capture socket to take it holds the command
     * up as long as it waits). A message the run has taken off one side that the other side had no
     * room for yet (it filled up in the middle of a burst) is delivered first, for as long as that
     * side's {@link ZmqSocket#lingerMs() linger} (as libzmq keeps a closed socket's queued messages):
     * with linger -1 the run waits for the room, with 0 it lets the message go at once. Before the
     * run starts, it makes the run return at once. Thread-safe and idempotent; nothing to do once the
     * proxy is closed.
     */
    public void terminate() {
        lock.lock();
        try {
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
        } finally {
            lock.unlock();
        }
    }

    private void command(byte[] command) {
        lock.lock();
        try {
            requireNotTerminated(command);
            sendOrTerm(command);
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}: refuses a command once TERMINATE is sent or the proxy closed. */
    private void requireNotTerminated(byte[] command) {
        if (terminated) {
            throw new IllegalStateException("proxy is " + (closed ? "closed" : "terminated") + ": command="
                    + new String(command, StandardCharsets.US_ASCII));
        }
    }

    /**
     * The proxy's counters now ({@link ProxyStatistics}): sends the {@code STATISTICS} command
     * and waits up to {@code timeout} for the proxy's reply. Thread-safe: any number of threads may
     * ask at once, each gets the reply to its own request.
     *
     * <p>Only the proxy answers, and only while {@link #run()} runs (paused or not):
     * <ul>
     * <li>Before {@link #run()} starts, the request waits for it like any command; the run answers
     *     it first thing (all counters 0) if it starts within {@code timeout}, else this returns
     *     empty. A reply that comes after its caller gave up is dropped, never returned to a later
     *     call: replies come in the order of the requests, and each is matched to its own.</li>
     * <li>During the run, the reply normally comes within microseconds; the proxy reads commands
     *     between bursts of messages, so a busy proxy takes a little longer.</li>
     * <li>When the run ends during the wait ({@link #terminate()} from another thread after this
     *     request, {@link #close()}, a failed call) without having answered, this returns empty
     *     at once. A request sent before a {@code TERMINATE} is answered before the run ends, so
     *     {@code statistics(t)} then {@code terminate()} gives the run's final counts.</li>
     * </ul>
     *
     * <p>The counters cover the whole run, from 0 at its start; a signal leaves them as they are
     * (with libzmq's {@code zmq_proxy_steerable}, used until 2026-11-28, they started over at 0).
     *
     * <p>Costs one command and the allocation of the reply (nothing goes to the capture socket). The lock that the other commands take is let go every
     * {@value #REPLY_WAIT_SLICE_MS} ms of the wait, so they are not held up by it.
     *
     * @param timeout how long to wait for the reply; {@link Duration#ZERO} takes only a reply that
     *     is already there (in practice, none)
     * @return the counters, or empty when no reply came within {@code timeout} (the run had not
     *     started) or the run ended before it answered
     * @throws NullPointerException when {@code timeout} is null
     * @throws IllegalArgumentException when {@code timeout} is negative
     * @throws IllegalStateException after {@link #terminate()} or {@link #close()}, or once the
     *     run has ended (a proxy runs once, so no reply can come)
     * @throws ZmqException with {@link ZmqException#isContextTerminated()} when the context is shut
     *     down or closed during the wait, or before the call while the run had not started
     */
    public Optional<ProxyStatistics> statistics(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: timeout=" + timeout);
        }
        long timeoutNs = saturatedNanos(timeout);
        long startNs = System.nanoTime();
        long request;
        lock.lock();
        try {
            requireNotTerminated(STATISTICS);
            if (ended) {
                throw new IllegalStateException("proxy's run has ended: no STATISTICS reply can come");
            }
            sendOrTerm(STATISTICS);
            request = requested++;
            waiting.add(request);
        } finally {
            lock.unlock();
        }
        try {
            return awaitReply(request, startNs, timeoutNs);
        } finally {
            lock.lock();
            try {
                waiting.remove(request);
                answers.remove(request);
            } finally {
                lock.unlock();
            }
        }
    }

    private Optional<ProxyStatistics> awaitReply(long request, long startNs, long timeoutNs) {
        for (;;) {
            lock.lock();
            try {
                ProxyStatistics mine = answers.remove(request);
                if (mine != null) {
                    return Optional.of(mine);
                }
                if (closed && controlOut.isClosed()) {
                    return Optional.empty(); // close() took what had come for the waiting requests
                }
                // Read before the receive: once the run has returned, every reply it sent is queued.
                boolean over = ended;
                long leftNs = timeoutNs - (System.nanoTime() - startNs);
                boolean last = over || leftNs <= 0;
                byte[][] reply = receiveReply(last ? 0 : (int) Math.min(REPLY_WAIT_SLICE_MS, (leftNs + 999_999) / 1_000_000));
                if (reply == null) {
                    if (last) {
                        return Optional.empty();
                    }
                    continue;
                }
                long index = answered++; // counted before it is read, so that one malformed reply cannot shift the rest
                if (index == request) {
                    return Optional.of(parse(reply));
                }
                if (waiting.contains(index)) {
                    answers.put(index, parse(reply));
                } // else stale: its caller gave up
            } finally {
                lock.unlock();
            }
        }
    }

    private static ProxyStatistics parse(byte[][] reply) {
        try {
            return ProxyStatistics.fromReply(reply);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the run answered STATISTICS with a reply of another shape: " + e.getMessage(), e);
        }
    }

    /**
     * Under {@link #lock}: the frames of the next STATISTICS reply, waiting up to {@code waitMs}
     * (0: only one already queued), or null when none came. The caller counts it in {@link #answered}.
     */
    private byte[][] receiveReply(int waitMs) {
        byte[] first;
        try {
            if (waitMs > 0 && waitMs != replyWaitMs) {
                controlOut.receiveTimeoutMs(waitMs);
                replyWaitMs = waitMs;
            }
            first = controlOut.receiveBytes(waitMs > 0 ? 0 : ZmqSocket.DONTWAIT);
        } catch (IllegalStateException e) {
            if (controlOut.isClosed()) {
                // the context's close closed it between two waits: as a wait it had been in would end
                throw new ZmqException("zmq_msg_recv (proxy STATISTICS reply)", LibZmq.ETERM);
            }
            throw e;
        }
        if (first == null) {
            return null;
        }
        List<byte[]> frames = new ArrayList<>(ProxyStatistics.FRAMES);
        frames.add(first);
        while (controlOut.hasMore()) {
            // a message arrives whole: the rest of it is there already
            byte[] next = controlOut.receiveBytes(ZmqSocket.DONTWAIT);
            if (next == null) {
                break;
            }
            frames.add(next);
        }
        return frames.toArray(byte[][]::new);
    }

    /**
     * Under {@link #lock}: sends {@code command}; a context shut down, or a socket the context's
     * close closed, reports ETERM. The shutdown is asked first: libzmq's send looks at the socket's
     * commands (where the shutdown waits) at most about once a millisecond, so a command right
     * after another went through after a shutdown into a channel no run reads (until 2026-11-29).
     */
    private void sendOrTerm(byte[] command) {
        try {
            if (controlOut.context().isShutDown()) {
                throw terminated(command);
            }
            controlOut.send(command, 0);
        } catch (IllegalStateException e) {
            if (controlOut.isClosed() && !closed) {
                throw terminated(command);
            }
            throw e;
        }
    }

    private static ZmqException terminated(byte[] command) {
        return new ZmqException("zmq_send (proxy " + new String(command, StandardCharsets.US_ASCII) + ")", LibZmq.ETERM);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Terminates the proxy if it runs, waits for {@link #run()} to return (as long as the run takes
     * to read the {@code TERMINATE}: see {@link #terminate()}), and closes the control sockets. The
     * frontend, backend and capture sockets stay open (the caller's). Idempotent;
     * callable from any thread but the one in {@link #run()}.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        terminate();
        controlIn.close(); // waits for the run, which the TERMINATE ends
        lock.lock();
        try {
            // the replies of a run that has ended, for the statistics() calls still waiting for them
            for (byte[][] reply; !controlOut.isClosed() && (reply = receiveReply(0)) != null; answered++) {
                if (waiting.contains(answered)) {
                    answers.put(answered, parse(reply));
                }
            }
        } catch (RuntimeException e) {
            // the context is gone, and the replies with it
        } finally {
            controlOut.close();
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ZmqProxy[frontend=" + frontend + ", backend=" + backend + (capture != null ? ", capture=" + capture : "")
                + (running ? ", running" : "") + (closed ? ", closed" : "") + "]";
    }
}

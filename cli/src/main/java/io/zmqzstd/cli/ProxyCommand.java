package io.zmqzstd.cli;

import io.zmqzstd.transport.ProxyStatistics;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code proxy}: a hub between senders and receivers that forwards their messages without
 * decompressing them ({@link ZmqProxy}): every frame passes
 * unchanged, so dictionary IDs, checksums, topics and frames that are not zstd at all reach the
 * receivers as the senders made them, and the proxy needs neither dictionaries nor CPU for zstd.
 *
 * <p>It runs until SIGINT or SIGTERM, which it takes over for the run (a shutdown hook could not
 * change the JVM's 128 + signal exit status): the handler terminates the proxy, the main thread
 * closes monitors, proxy and sockets in that order and the command exits 0, a proxy's normal end.
 * The JVM's own handlers come back when the first signal arrives, so a second one ends the JVM its
 * usual way should the first not suffice.
 *
 * <p>{@code --stats} and {@code --progress} read the proxy's counters ({@link ZmqProxy#statistics}),
 * which only the proxy's run answers, from threads other than the one in {@code run()}: the
 * progress thread, and for the summary the stop handler, which asks before it terminates the
 * proxy, so that the summary has the run's final counts (the run answers a request before it reads
 * the TERMINATE behind it).
 */
@Command(name = "proxy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Forward compressed messages between senders and receivers without decompressing them.",
                "Every frame passes unchanged (dictionary IDs, checksums, topics), so the proxy needs no --dict.",
                "--type pubsub: publishers (send --type pub) connect to the frontend, subscribers (recv --type sub) to"
                        + " the backend; subscriptions travel upstream, so --subscribe works through it, and a publisher sees"
                        + " one subscription per topic (--wait-subscribers 1: the proxy has a subscriber for it).",
                "--type pipeline: senders (send) push to the frontend, receivers (recv) pull from the backend, each"
                        + " message to one receiver (fan-in to fan-out).",
                "CURVE per side, independently: frontend and backend may each be a CURVE server"
                        + " (--frontend-curve-server, --backend-curve-server, with a secret key file), a"
                        + " CURVE client of the peer it connects to (--frontend-curve-server-key,"
                        + " --backend-curve-server-key) or plain. Frames are decrypted on one side and"
                        + " encrypted again on the other, still compressed as the senders made them.",
                "Runs until SIGINT or SIGTERM, then exits 0.",
                "--stats, --progress: messages and bytes forwarded each way (a multipart message counts once, with"
                        + " all its frames' bytes), elapsed time since start, rate and throughput over it."},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {"0:Stopped by SIGINT or SIGTERM.",
                ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE})
final class ProxyCommand implements Callable<Integer> {

    /** The two sockets of each kind of proxy: frontend (where senders go) and backend (where receivers go). */
    enum Type {
        pubsub(SocketType.XSUB, SocketType.XPUB, "the frontend (xsub) receives only from pub (send --type pub)",
                "the backend (xpub) sends only to sub (recv --type sub)"),
        pipeline(SocketType.PULL, SocketType.PUSH, "the frontend (pull) receives only from push (send --type push)",
                "the backend (push) sends only to pull (recv --type pull)");

        final SocketType frontend;
        final SocketType backend;
        /** The peers each side takes (libzmq drops any other). */
        final String frontendPeers;
        final String backendPeers;

        Type(SocketType frontend, SocketType backend, String frontendPeers, String backendPeers) {
            this.frontend = frontend;
            this.backend = backend;
            this.frontendPeers = frontendPeers;
            this.backendPeers = backendPeers;
        }
    }

    /** The signals that stop the proxy. */
    private static final List<String> STOP_SIGNALS = List.of("INT", "TERM");

    @Spec
    CommandSpec spec;

    @Option(names = "--type", paramLabel = "TYPE", required = true,
            description = "pubsub (XSUB frontend, XPUB backend) or pipeline (PULL frontend, PUSH backend).")
    Type type;

    @Option(names = "--frontend-bind", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Senders' side: bind to ENDPOINT (repeatable), e.g. tcp://*:5556.")
    List<String> frontendBinds = new ArrayList<>();

    @Option(names = "--frontend-connect", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Senders' side: connect to ENDPOINT (repeatable), e.g. a send that binds.")
    List<String> frontendConnects = new ArrayList<>();

    @Option(names = "--backend-bind", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Receivers' side: bind to ENDPOINT (repeatable), e.g. tcp://*:5557.")
    List<String> backendBinds = new ArrayList<>();

    @Option(names = "--backend-connect", paramLabel = "ENDPOINT", converter = Values.Endpoint.class,
            description = "Receivers' side: connect to ENDPOINT (repeatable), e.g. a recv that binds.")
    List<String> backendConnects = new ArrayList<>();

    @Option(names = "--hwm", paramLabel = "N", defaultValue = "1000",
            description = "High-water mark of both sockets in messages (default ${DEFAULT-VALUE}, libzmq's; 0: no limit).")
    int hwm;

    @Mixin
    ProxyCurveOptions curve;

    @Mixin
    EventOptions eventOptions;

    @Mixin
    StatsOptions statsOptions;

    /** How long the stop handler and each progress line wait for the proxy's counters (it answers in microseconds). */
    private static final Duration STATISTICS_WAIT = Duration.ofSeconds(2);
    /** No traffic: what the summary shows when the proxy never answered (stopped before it ran). */
    private static final ProxyStatistics NONE = new ProxyStatistics(0, 0, 0, 0, 0, 0, 0, 0);

    /** The proxy's counters, and the nanoTime they were asked for. */
    private record Sample(ProxyStatistics counts, long nanos) {
    }

    /** Set by {@link #stop()}, which may come before the proxy exists. */
    private volatile boolean stopRequested;
    private volatile ZmqProxy proxy;
    /** The latest counters a progress line read. */
    private volatile Sample latest;
    /** The counters {@link #stop()} read just before it terminated the run: its total. */
    private volatile Sample last;
    private StatsPrinter printer;

    @Override
    public Integer call() {
        SocketEndpoints front = new SocketEndpoints(spec.commandLine(), "frontend endpoint", "--frontend-bind",
                frontendBinds, "--frontend-connect", frontendConnects);
        SocketEndpoints back = new SocketEndpoints(spec.commandLine(), "backend endpoint", "--backend-bind",
                backendBinds, "--backend-connect", backendConnects);
        front.check();
        back.check();
        EndpointOptions.requireHwm(spec, hwm);
        requireSeparateSides();
        // keys read and checked before any socket exists: a usage error binds nothing
        Consumer<ZmqSocket> frontendCurve = curve.frontend().resolve();
        Consumer<ZmqSocket> backendCurve = curve.backend().resolve();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        printer = new StatsPrinter(name, statsOptions, err);
        // What is still queued when the proxy stops is dropped: a stopped hub does not wait for receivers.
        ZmqContext context = ZmqContext.builder().defaultLinger(Duration.ZERO).build();
        try (front; back; context) { // the sides after the context: they remove the ipc socket files their binds made
            ZmqSocket frontend = context.socket(type.frontend);
            ZmqSocket backend = context.socket(type.backend);
            frontendCurve.accept(frontend);
            backendCurve.accept(backend);
            // Closed in reverse: the monitors once run() has returned (closing one is a call on its
            // socket), the signal handlers, the proxy's control sockets, then the context.
            try (ZmqProxy p = new ZmqProxy(frontend, backend, null);
                 Restore signals = onStopSignals();
                 EventReporter frontendEvents = eventOptions.start(frontend, name, "frontend",
                         CurveSide.peers(type.frontendPeers, curve.frontend().enabled()), frontendBinds, err);
                 EventReporter backendEvents = eventOptions.start(backend, name, "backend",
                         CurveSide.peers(type.backendPeers, curve.backend().enabled()), backendBinds, err)) {
                proxy = p;
                if (stopRequested) {
                    p.terminate(); // a signal before the proxy existed: run() returns at once
                }
                front.attach(frontend, hwm);
                back.attach(backend, hwm);
                printer.start(this::line);
                try {
                    p.run();
                } finally {
                    printer.finish(); // after a failure too, with the latest counters read
                }
            }
            return ExitCodes.OK;
        } catch (ZmqException e) {
            throw new CliException(ExitCodes.FAILURE, e.getMessage(), e);
        }
    }

    /**
     * Ends the run: {@code run()} returns once libzmq has read the command, and the command exits 0.
     * What SIGINT and SIGTERM call; thread-safe, idempotent.
     */
    void stop() {
        stopRequested = true;
        ZmqProxy p = proxy;
        if (p != null) {
            if (printer.wantsSummary()) {
                // asked before TERMINATE, so answered before the run ends: the run's total
                Sample total = sample(p);
                if (total != null) {
                    last = total;
                }
            }
            p.terminate();
        }
    }

    /** The proxy's counters now, or null when it did not answer (not running, or ended or terminated already). */
    private static Sample sample(ZmqProxy p) {
        long nanos = System.nanoTime();
        try {
            return p.statistics(STATISTICS_WAIT).map(c -> new Sample(c, nanos)).orElse(null);
        } catch (IllegalStateException | ZmqException e) {
            return null; // terminated, ended or shut down: the latest counters read stand
        }
    }

    /**
     * A --progress or --stats line: {@code zmq-zstd proxy: summary: messagesToBackend=...
     * bytesToBackend=... messagesToFrontend=... bytesToFrontend=... elapsed=...s rate=...msg/s
     * throughput=...MB/s}; rate and throughput count both ways over the time since start. A
     * progress line reads the counters now (null, no line, when the proxy does not answer); the
     * summary shows those {@link #stop()} read, else the latest a progress line read, else none.
     */
    private String line(String kind) {
        Sample s;
        if (kind.equals("summary")) {
            s = last != null ? last : latest;
            if (s == null) {
                s = new Sample(NONE, System.nanoTime());
            }
        } else {
            ZmqProxy p = proxy;
            s = p == null ? null : sample(p);
            if (s == null) {
                return null;
            }
            latest = s;
        }
        ProxyStatistics c = s.counts();
        double elapsed = printer.elapsedSeconds(s.nanos());
        return printer.head(kind)
                .append(" messagesToBackend=").append(c.backendMessagesSent())
                .append(" bytesToBackend=").append(c.backendBytesSent())
                .append(" messagesToFrontend=").append(c.frontendMessagesSent())
                .append(" bytesToFrontend=").append(c.frontendBytesSent())
                .append(StatsPrinter.rates(elapsed, -1, Math.max(elapsed, 1e-9), c.backendMessagesSent() + c.frontendMessagesSent(),
                        c.backendBytesSent() + c.frontendBytesSent()))
                .toString();
    }

    /**
     * SIGINT and SIGTERM call {@link #stop()} until the returned handle is closed; each gives the
     * JVM its own handler back when it arrives, so a second signal ends the JVM as usual.
     */
    private Restore onStopSignals() {
        Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
        for (String name : STOP_SIGNALS) {
            Signal signal = new Signal(name);
            SignalHandler[] before = new SignalHandler[1];
            before[0] = Signal.handle(signal, s -> {
                Signal.handle(s, before[0]);
                stop();
            });
            previous.put(signal, before[0]);
        }
        return () -> previous.forEach(Signal::handle);
    }

    /** Puts back what was replaced; closing throws nothing. */
    private interface Restore extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * An endpoint on both sides would make the proxy bind one address twice (address in use) or,
     * connected to its own other side, forward every message back to itself for ever; but for a
     * bind that picks its own address ({@link #picksItsOwnAddress}), which binds two.
     */
    private void requireSeparateSides() {
        List<String> frontendSide = new ArrayList<>(frontendBinds);
        frontendSide.addAll(frontendConnects);
        List<String> backendSide = new ArrayList<>(backendBinds);
        backendSide.addAll(backendConnects);
        for (String endpoint : frontendSide) {
            // A bind that picks its own address (tcp://HOST:*, ipc://*) gets a fresh one on each side
            // (a connect to such an endpoint is refused on its own)
            boolean freshOnEachSide = picksItsOwnAddress(endpoint) && frontendBinds.contains(endpoint)
                    && backendBinds.contains(endpoint);
            if (backendSide.contains(endpoint) && !freshOnEachSide) {
                throw new ParameterException(spec.commandLine(), "the frontend and the backend need different endpoints:"
                        + " endpoint=" + endpoint + " is on both sides (a proxy would bind it twice, or forward to itself)");
            }
            for (String other : backendSide) {
                // one address written two ways: tcp://127.0.0.1:5555 on one side, tcp://localhost:5555 (or ipc paths) on the other
                String address = SocketEndpoints.sameAddress(endpoint, frontendBinds.contains(endpoint), other,
                        backendBinds.contains(other));
                if (address != null) {
                    throw new ParameterException(spec.commandLine(), "the frontend and the backend need different addresses:"
                            + " endpoint=" + endpoint + " and endpoint=" + other + " are both " + address
                            + " (a proxy would bind it twice, or forward to itself)");
                }
            }
        }
    }

    /**
     * Whether binding {@code endpoint} twice gives two addresses: a tcp or ws port {@code *} or
     * {@code 0} (a free port each time: two binds of {@code ws://127.0.0.1:*} listened on two), or
     * {@code ipc://*} (a fresh path each time).
     */
    static boolean picksItsOwnAddress(String endpoint) {
        return endpoint.equals("ipc://*") || Values.anyPort(endpoint) != null;
    }
}

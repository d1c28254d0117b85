package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.Curve;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code proxy}, in-process over tcp loopback: send → proxy → recv, stopped the way SIGINT/SIGTERM
 * stop it ({@link ProxyCommand#stop()}; CliProcessIT sends the real signal).
 */
class ProxyTest {

    /**
     * Each run on a thread of its own: a proxy blocks its thread for the whole test, and the common
     * pool has a single worker on two cores.
     */
    private static final Executor THREADS = task -> Thread.ofPlatform().daemon().start(task);

    /**
     * A proxy running on another thread, the command to stop it, and its stderr so far; closing
     * stops it too (a failed test).
     */
    private record Running(CompletableFuture<Result> result, ProxyCommand command, StringWriter err) implements AutoCloseable {
        Result stop() throws Exception {
            command.stop();
            return result.get(60, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            command.stop();
        }
    }

    private static Running proxy(String... args) {
        AtomicReference<ProxyCommand> command = new AtomicReference<>();
        StringWriter err = new StringWriter();
        CompletableFuture<Result> result = CompletableFuture.supplyAsync(() -> InProcess.execute(
                cl -> command.set((ProxyCommand) cl.getSubcommands().get("proxy").getCommand()), err, prepend("proxy", args)), THREADS);
        while (command.get() == null && !result.isDone()) {
            Thread.onSpinWait(); // set by the first thing execute does
        }
        return new Running(result, command.get(), err);
    }

    /** A finished recv: its result, and what it wrote to standard output. */
    private record Received(Result result, String stdout) {
    }

    /** A recv that must exit 0: what it wrote to standard output. */
    private static CompletableFuture<String> recv(String... args) {
        return recvAnyExit(args).thenApply(r -> {
            assertEquals(ExitCodes.OK, r.result().code(), r.result()::toString);
            return r.stdout();
        });
    }

    private static CompletableFuture<Received> recvAnyExit(String... args) {
        return CompletableFuture.supplyAsync(() -> {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            Result r = InProcess.execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                    prepend("recv", args));
            return new Received(r, stdout.toString(StandardCharsets.UTF_8));
        }, THREADS);
    }

    private static CompletableFuture<Result> send(String stdin, String... args) {
        return CompletableFuture.supplyAsync(() -> InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send")
                .getCommand()).stdin = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), prepend("send", args)), THREADS);
    }

    private static String[] prepend(String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    private static String tcp() {
        return "tcp://127.0.0.1:" + Ports.unused();
    }

    private static String lines(String prefix, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append("{\"src\":\"").append(prefix).append("\",\"seq\":").append(i).append(",\"host\":\"web-").append(i % 7)
                    .append("\"}\n");
        }
        return b.toString();
    }

    /**
     * PUB → proxy (pubsub) → SUB with a dictionary and checksums: the proxy has no dictionary, and
     * the subscriber still decodes every message byte for byte, so the frames passed untouched. The
     * subscription travels up through the proxy (send's --wait-subscribers is met), and --events
     * shows both of the proxy's sides.
     */
    @Test
    void shouldForwardPubSubFramesUntouchedWithADictionary(@TempDir Path dir) throws Exception {
        Path dict = dir.resolve("d.dict");
        ZstdDictionary.train(lines("train", 2000).lines().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList(), 2048).save(dict);
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pubsub", "--frontend-bind", frontend, "--backend-bind", backend, "--events")) {
            forwardPubSub(proxy, dict, frontend, backend);
        }
    }

    private static void forwardPubSub(Running proxy, Path dict, String frontend, String backend) throws Exception {
        String input = lines("pub", 500);
        CompletableFuture<String> sub = recv("--type", "sub", "--connect", backend, "--dict", dict.toString(),
                "--count", "500", "--timeout", "30s");
        Result pub = send(input, "--type", "pub", "--connect", frontend, "--dict", dict.toString(), "--checksum",
                "--wait-subscribers", "1", "--timeout", "30s").get(60, TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, pub.code(), pub::toString);
        assertEquals(input, sub.get(60, TimeUnit.SECONDS));
        Result r = proxy.stop();
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        for (String side : List.of("frontend endpoint=" + frontend, "backend endpoint=" + backend)) {
            assertTrue(r.err().contains("zmq-zstd proxy: event: ACCEPTED socket=" + side + " value="), r::toString);
        }
        assertTrue(r.err().lines().allMatch(l -> l.startsWith("zmq-zstd proxy: event: ")), r::toString);
    }

    /**
     * Through a pubsub proxy a publisher sees one subscription per topic, however many subscribers
     * have it: the proxy's XPUB passes on the first subscription to a topic, and its XSUB sends each
     * topic once to a publisher that connects. So with two subscribers --wait-subscribers 2 times out
     * with one seen, and --wait-subscribers 1 (the proxy has a subscriber) delivers to both.
     */
    @Test
    void shouldShowAPublisherOneSubscriptionPerTopicThroughTheProxy() throws Exception {
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pubsub", "--frontend-bind", frontend, "--backend-bind", backend, "--events")) {
            List<CompletableFuture<String>> subs = List.of(
                    recv("--type", "sub", "--connect", backend, "--count", "1", "--timeout", "30s"),
                    recv("--type", "sub", "--connect", backend, "--count", "1", "--timeout", "30s"));
            awaitAcceptedOnBackend(proxy, 2);
            Result two = send("never sent\n", "--type", "pub", "--connect", frontend, "--wait-subscribers", "2",
                    "--timeout", "2s").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.TIMEOUT, two.code(), two::toString);
            assertTrue(two.err().contains("timeout: subscriptions=1 of 2 within 2s"), two::toString);
            Result one = send("to both\n", "--type", "pub", "--connect", frontend, "--wait-subscribers", "1",
                    "--timeout", "30s").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, one.code(), one::toString);
            for (CompletableFuture<String> sub : subs) {
                assertEquals("to both\n", sub.get(60, TimeUnit.SECONDS));
            }
        }
    }

    /** Waits until the proxy's --events shows {@code n} connections accepted on its backend. */
    private static void awaitAcceptedOnBackend(Running proxy, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (proxy.err().toString().lines().filter(l -> l.startsWith("zmq-zstd proxy: event: HANDSHAKE_SUCCEEDED socket=backend ")).count() < n) {
            assertFalse(proxy.result().isDone(), () -> "the proxy ended: " + proxy.result().join());
            assertTrue(System.nanoTime() < deadline, () -> n + " subscribers never connected: " + proxy.err());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Two senders into one pipeline proxy, one receiver behind it: every message, each sender's in its order. */
    @Test
    void shouldFanInTwoSendersThroughAPipelineProxy() throws Exception {
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", frontend, "--backend-bind", backend)) {
            fanIn(proxy, frontend, backend);
        }
    }

    private static void fanIn(Running proxy, String frontend, String backend) throws Exception {
        String a = lines("a", 1000);
        String b = lines("b", 1000);
        CompletableFuture<String> received = recv("--connect", backend, "--count", "2000", "--timeout", "30s");
        CompletableFuture<Result> sendA = send(a, "--connect", frontend, "--timeout", "30s");
        CompletableFuture<Result> sendB = send(b, "--connect", frontend, "--timeout", "30s", "--level", "19");
        for (CompletableFuture<Result> s : List.of(sendA, sendB)) {
            Result r = s.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
        }
        List<String> got = received.get(60, TimeUnit.SECONDS).lines().toList();
        assertEquals(2000, got.size());
        Set<String> fromA = Set.copyOf(a.lines().toList());
        assertEquals(a.lines().toList(), got.stream().filter(fromA::contains).toList(), "sender a's messages, in order");
        assertEquals(b.lines().toList(), got.stream().filter(l -> !fromA.contains(l)).toList(), "sender b's messages, in order");
        Result r = proxy.stop();
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals("", r.err(), r::toString);
    }

    /** A proxy --progress or --stats line with every documented field, in order; groups: messages and bytes each way. */
    private static final Pattern STATS_LINE = Pattern.compile("zmq-zstd proxy: (?:progress|summary): messagesToBackend=(\\d+)"
            + " bytesToBackend=(\\d+) messagesToFrontend=(\\d+) bytesToFrontend=(\\d+)"
            + " elapsed=\\d+\\.\\d{3}s rate=\\d+msg/s throughput=\\d+\\.\\d{2}MB/s");

    /** The counts of a proxy stats line, checked against {@link #STATS_LINE}: messages and bytes to the backend, then to the frontend. */
    private static List<Long> counts(String line) {
        Matcher m = STATS_LINE.matcher(line);
        assertTrue(m.matches(), () -> "not a proxy stats line with the documented fields: " + line);
        return List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4)));
    }

    /** The value of {@code key} in send's --stats summary line. */
    private static long sendSummary(Result send, String key) {
        Matcher m = Pattern.compile("zmq-zstd send: summary: .* " + key + "=(\\d+) ").matcher(send.err());
        assertTrue(m.find(), send::toString);
        return Long.parseLong(m.group(1));
    }

    /**
     * --stats: the summary the stop prints has the run's real totals, taken before the proxy was
     * terminated: as many messages as went through, and as many bytes as the senders' compressed
     * frames (send's own --stats bytesOut), nothing back the other way.
     */
    @Test
    void shouldPrintTheRunsTotalsOnStopWithStats() throws Exception {
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", frontend, "--backend-bind", backend, "--stats")) {
            CompletableFuture<String> received = recv("--connect", backend, "--count", "700", "--timeout", "30s");
            Result a = send(lines("a", 300), "--connect", frontend, "--timeout", "30s", "--stats").get(60, TimeUnit.SECONDS);
            Result b = send(lines("b", 400), "--connect", frontend, "--timeout", "30s", "--stats", "--level", "19")
                    .get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, a.code(), a::toString);
            assertEquals(ExitCodes.OK, b.code(), b::toString);
            assertEquals(700, received.get(60, TimeUnit.SECONDS).lines().count());
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r::toString);
            assertTrue(lines.getFirst().startsWith("zmq-zstd proxy: summary: "), r::toString);
            assertEquals(List.of(700L, sendSummary(a, "bytesOut") + sendSummary(b, "bytesOut"), 0L, 0L), counts(lines.getFirst()));
        }
    }

    /**
     * --progress: while the proxy runs, a line every second with the counts so far (awaited until
     * it shows all 50 messages), and with --stats the summary at the stop; every line with the
     * documented fields.
     */
    @Test
    void shouldPrintProgressEverySecondWhileRunning() throws Exception {
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", frontend, "--backend-bind", backend, "--progress",
                "--stats")) {
            CompletableFuture<String> received = recv("--connect", backend, "--count", "50", "--timeout", "30s");
            Result sent = send(lines("p", 50), "--connect", frontend, "--timeout", "30s", "--stats").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, sent.code(), sent::toString);
            assertEquals(50, received.get(60, TimeUnit.SECONDS).lines().count());
            List<Long> expected = List.of(50L, sendSummary(sent, "bytesOut"), 0L, 0L);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (proxy.err().toString().lines().noneMatch(l -> l.contains(": progress: messagesToBackend=50 "))) {
                assertTrue(System.nanoTime() < deadline, () -> "no progress line with the 50 messages: " + proxy.err());
                Thread.onSpinWait();
                Thread.yield();
            }
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            List<String> progress = r.err().lines().filter(l -> l.startsWith("zmq-zstd proxy: progress: ")).toList();
            assertFalse(progress.isEmpty(), r::toString);
            progress.forEach(ProxyTest::counts);
            List<String> summary = r.err().lines().filter(l -> l.startsWith("zmq-zstd proxy: summary: ")).toList();
            assertEquals(1, summary.size(), r::toString);
            assertEquals(expected, counts(summary.getFirst()));
            assertEquals(r.err().lines().count(), progress.size() + 1, r::toString);
        }
    }

    /**
     * The same wildcard bind on both sides ({@code tcp://127.0.0.1:*}) binds two free ports, one per
     * side, which --events names: it is not "one endpoint on both sides", and messages go through.
     */
    @Test
    void shouldBindAWildcardPortOnEachSide() throws Exception {
        String any = "tcp://127.0.0.1:*";
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", any, "--backend-bind", any, "--events")) {
            Pattern listening = Pattern.compile("zmq-zstd proxy: event: LISTENING socket=(frontend|backend) endpoint=(\\S+) value=\\d+");
            Map<String, String> bound = new HashMap<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (bound.size() < 2) {
                assertFalse(proxy.result().isDone(), () -> "the proxy ended: " + proxy.result().join());
                assertTrue(System.nanoTime() < deadline, () -> "no LISTENING line for each side: " + proxy.err());
                for (String line : proxy.err().toString().lines().toList()) {
                    Matcher m = listening.matcher(line);
                    if (m.matches()) {
                        bound.put(m.group(1), m.group(2));
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            assertFalse(bound.get("frontend").equals(bound.get("backend")), bound::toString);
            CompletableFuture<String> received = recv("--connect", bound.get("backend"), "--count", "1", "--timeout", "30s");
            Result sent = send("through a wildcard\n", "--connect", bound.get("frontend"), "--timeout", "30s").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, sent.code(), sent::toString);
            assertEquals("through a wildcard\n", received.get(60, TimeUnit.SECONDS));
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
        }
    }

    /** A stop that comes before the proxy runs (a signal at start-up) ends it at once, exit 0. */
    @Test
    void shouldStopAtOnceWhenStoppedBeforeRunning() throws Exception {
        AtomicReference<ProxyCommand> command = new AtomicReference<>();
        Result r = InProcess.execute(cl -> {
            ProxyCommand p = (ProxyCommand) cl.getSubcommands().get("proxy").getCommand();
            p.stop();
            command.set(p);
        }, "proxy", "--type", "pipeline", "--frontend-bind", tcp(), "--backend-bind", tcp());
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals("", r.err(), r::toString);
    }

    /** Option combinations that cannot make a proxy: exit 2, one line naming what is wrong. */
    @Test
    void shouldRefuseBadOptionCombinationsWithOneLine() {
        String[][] wrong = {
                {"missing required option: '--type", "--frontend-bind", "tcp://127.0.0.1:5556", "--backend-bind", "tcp://127.0.0.1:5557"},
                {"'--type': expected one of [pubsub, pipeline]", "--type", "queue", "--frontend-bind", "tcp://127.0.0.1:5556",
                        "--backend-bind", "tcp://127.0.0.1:5557"},
                {"missing frontend endpoint: give --frontend-bind ENDPOINT or --frontend-connect ENDPOINT", "--type", "pubsub",
                        "--backend-bind", "tcp://127.0.0.1:5557"},
                {"missing backend endpoint: give --backend-bind ENDPOINT or --backend-connect ENDPOINT", "--type", "pipeline",
                        "--frontend-bind", "tcp://127.0.0.1:5556"},
                {"endpoint=tcp://127.0.0.1:5556 is on both sides", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:5556",
                        "--backend-connect", "tcp://127.0.0.1:5556"},
                {"--backend-connect cannot reach port 0: endpoint=tcp://127.0.0.1:0", "--type", "pipeline",
                        "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", "tcp://127.0.0.1:0"},
                {"--frontend-connect cannot resolve host: endpoint=tcp://no-such-host.invalid:5556", "--type", "pubsub",
                        "--frontend-connect", "tcp://no-such-host.invalid:5556", "--backend-bind", "tcp://127.0.0.1:*"},
                {"malformed tcp endpoint 'tcp://localhost'", "--type", "pubsub", "--frontend-bind", "tcp://localhost",
                        "--backend-bind", "tcp://127.0.0.1:*"},
                {"--hwm must not be negative: hwm=-1", "--type", "pubsub", "--frontend-bind", "tcp://127.0.0.1:*",
                        "--backend-bind", "tcp://127.0.0.1:*", "--hwm", "-1"},
                {"cannot bind: endpoint=udp://127.0.0.1:5556", "--type", "pipeline", "--frontend-bind", "udp://127.0.0.1:5556",
                        "--backend-bind", "tcp://127.0.0.1:*"},
        };
        for (String[] c : wrong) {
            assertRefusedInOneLine(c[0], prepend("proxy", Arrays.copyOfRange(c, 1, c.length)));
        }
    }

    /** A usage error: exit 2, one line that contains {@code expected} (ignoring case) and points to the help. */
    private static void assertRefusedInOneLine(String expected, String... args) {
        Result r = InProcess.execute(cl -> { }, args);
        String what = String.join(" ", args) + " -> " + r;
        assertEquals(ExitCodes.USAGE, r.code(), what);
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), what);
        assertTrue(lines.getFirst().startsWith("zmq-zstd " + args[0] + ": "), what);
        assertTrue(lines.getFirst().toLowerCase(java.util.Locale.ROOT).contains(expected.toLowerCase(java.util.Locale.ROOT)), what);
        assertTrue(lines.getFirst().endsWith("(see 'zmq-zstd " + args[0] + " --help')"), what);
    }

    /** A new key pair in FILE and its public key in FILE.pub, as {@code keygen --out FILE} writes them. */
    private static Curve.KeyPair keyFiles(Path file) throws Exception {
        Curve.KeyPair keys = Curve.keypair();
        Files.writeString(file, CharBuffer.wrap(CurveOptions.formatKeyPair(keys)));
        Files.writeString(Path.of(file + ".pub"), "public=" + keys.publicKey() + "\n");
        return keys;
    }

    /**
     * A proxy whose frontend and backend are both CURVE servers, each with a key of its own (the
     * frontend's from a key pair file, the backend's from a file holding its secret key alone):
     * a send that is a client of the frontend (its key from {@code @FILE.pub}) reaches a recv that
     * is a client of the backend, every message decompressed as sent. Both clients refuse a peer
     * that is not a CURVE server, so both sides were encrypted.
     */
    @Test
    void shouldForwardBetweenCurveClientsWhenBothSidesAreCurveServers(@TempDir Path dir) throws Exception {
        Path frontendKeys = dir.resolve("frontend.key");
        keyFiles(frontendKeys);
        Curve.KeyPair backendKeys = Curve.keypair();
        Path backendSecret = Files.writeString(dir.resolve("backend.secret"), backendKeys.secretKey() + "\n");
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pipeline",
                "--frontend-bind", frontend, "--frontend-curve-server", "--frontend-curve-keypair-file", frontendKeys.toString(),
                "--backend-bind", backend, "--backend-curve-server", "--backend-curve-secret-key-file", backendSecret.toString())) {
            String input = lines("secret", 300);
            CompletableFuture<String> received = recv("--connect", backend, "--curve-server-key", backendKeys.publicKey(),
                    "--count", "300", "--timeout", "30s");
            Result sent = send(input, "--connect", frontend, "--curve-server-key", "@" + frontendKeys + ".pub", "--timeout", "30s")
                    .get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, sent.code(), sent::toString);
            assertEquals(input, received.get(60, TimeUnit.SECONDS));
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals("", r.err(), r::toString);
        }
    }

    /**
     * A sender with a wrong server key never completes the handshake with a CURVE frontend: it
     * times out (exit 3), the receiver behind the proxy gets nothing and times out too, and the
     * proxy's summary counts no message either way.
     */
    @Test
    void shouldLetNothingThroughFromASenderWithTheWrongServerKey(@TempDir Path dir) throws Exception {
        Path frontendKeys = dir.resolve("frontend.key");
        keyFiles(frontendKeys);
        String frontend = tcp();
        String backend = tcp();
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", frontend, "--frontend-curve-server",
                "--frontend-curve-keypair-file", frontendKeys.toString(), "--backend-bind", backend, "--stats")) {
            CompletableFuture<Received> received = recvAnyExit("--connect", backend, "--timeout", "4s");
            Result sent = send("must not arrive\n", "--connect", frontend, "--curve-server-key", Curve.keypair().publicKey(),
                    "--timeout", "2s").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.TIMEOUT, sent.code(), sent::toString);
            Received got = received.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.TIMEOUT, got.result().code(), got.result()::toString);
            assertEquals("", got.stdout());
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals(List.of(0L, 0L, 0L, 0L), counts(r.err().strip()), r::toString);
        }
    }

    /**
     * A plain frontend and a CURVE backend that is a client (with a key pair of its own) of a recv
     * that binds as the CURVE server: plain senders' messages reach the receiver, encrypted on the
     * way out.
     */
    @Test
    void shouldForwardFromAPlainFrontendToACurveClientBackend(@TempDir Path dir) throws Exception {
        Path recvKeys = dir.resolve("recv.key");
        keyFiles(recvKeys);
        Path proxyKeys = dir.resolve("proxy.key");
        keyFiles(proxyKeys);
        String frontend = tcp();
        String backend = tcp();
        CompletableFuture<String> received = recv("--bind", backend, "--curve-server", "--curve-keypair-file", recvKeys.toString(),
                "--count", "300", "--timeout", "30s");
        try (Running proxy = proxy("--type", "pipeline", "--frontend-bind", frontend, "--backend-connect", backend,
                "--backend-curve-server-key", "@" + recvKeys + ".pub", "--backend-curve-keypair-file", proxyKeys.toString())) {
            String input = lines("plain", 300);
            Result sent = send(input, "--connect", frontend, "--timeout", "30s").get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, sent.code(), sent::toString);
            assertEquals(input, received.get(60, TimeUnit.SECONDS));
            Result r = proxy.stop();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
        }
    }

    /**
     * A side's CURVE options that cannot work: exit 2, one line naming the option of that side as
     * typed, before anything is bound (with --events a bound socket would add a LISTENING line).
     * The same file mistake in recv is named in its words as before.
     */
    @Test
    void shouldRefuseBadCurveOptionsNamingTheSidesOption(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.key");
        Curve.KeyPair keys = keyFiles(good);
        Path mixed = Files.writeString(dir.resolve("mixed.key"),
                "public=" + Curve.keypair().publicKey() + "\nsecret=" + keys.secretKey() + "\n");
        Path publicOnly = Path.of(good + ".pub");
        Path missing = dir.resolve("missing.key");
        String[][] wrong = {
                {"--frontend-curve-server needs the server's secret key: --frontend-curve-secret-key-file FILE"
                        + " or --frontend-curve-keypair-file FILE", "--frontend-curve-server"},
                {"--backend-curve-server needs the server's secret key", "--frontend-curve-server", "--frontend-curve-keypair-file",
                        good.toString(), "--backend-curve-server"},
                {"--backend-curve-server and --backend-curve-server-key exclude each other", "--backend-curve-server",
                        "--backend-curve-keypair-file", good.toString(), "--backend-curve-server-key", keys.publicKey()},
                {"--frontend-curve-keypair-file: cannot read key file: file=" + missing + ", error=no such file",
                        "--frontend-curve-server", "--frontend-curve-keypair-file", missing.toString()},
                {"--backend-curve-server-key: cannot read key file: file=" + missing + ", error=no such file",
                        "--backend-curve-server-key", "@" + missing},
                {"invalid CURVE key (--backend-curve-server-key): expected 40 Z85 characters, length=5",
                        "--backend-curve-server-key", "short"},
                {"a CURVE key file needs --frontend-curve-server (this side is the server) or --frontend-curve-server-key"
                        + " (this side is a client)", "--frontend-curve-keypair-file", good.toString()},
                {"give either --backend-curve-secret-key-file or --backend-curve-keypair-file, not both", "--backend-curve-server",
                        "--backend-curve-secret-key-file", good.toString(), "--backend-curve-keypair-file", good.toString()},
                {"a CURVE client needs its public key too: use --frontend-curve-keypair-file instead of"
                        + " --frontend-curve-secret-key-file", "--frontend-curve-server-key", keys.publicKey(),
                        "--frontend-curve-secret-key-file", good.toString()},
                {"--frontend-curve-keypair-file: the public and secret keys in file=" + mixed + " do not match",
                        "--frontend-curve-server", "--frontend-curve-keypair-file", mixed.toString()},
                {"--backend-curve-secret-key-file: no secret key in file=" + publicOnly, "--backend-curve-server",
                        "--backend-curve-secret-key-file", publicOnly.toString()},
                {"--backend-curve-keypair-file: a key pair file needs 'public=' and 'secret=' lines: file=" + publicOnly,
                        "--backend-curve-server-key", keys.publicKey(), "--backend-curve-keypair-file", publicOnly.toString()},
        };
        String[] sides = {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-bind", "tcp://127.0.0.1:*",
                "--events"};
        for (String[] c : wrong) {
            String[] args = Arrays.copyOf(sides, sides.length + c.length - 1);
            System.arraycopy(c, 1, args, sides.length, c.length - 1);
            assertRefusedInOneLine(c[0], args);
        }
        Result r = InProcess.execute(cl -> { }, "recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file",
                missing.toString());
        assertEquals("zmq-zstd recv: cannot read key file: file=" + missing + ", error=no such file (see 'zmq-zstd recv --help')",
                r.err().strip(), r::toString);
    }
}

package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.codec.ZstdDictionary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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

    private static CompletableFuture<String> recv(String... args) {
        return CompletableFuture.supplyAsync(() -> {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            Result r = InProcess.execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                    prepend("recv", args));
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            return stdout.toString(StandardCharsets.UTF_8);
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
        return "tcp://127.0.0.1:" + CliProcess.freePort();
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
            String[] args = prepend("proxy", java.util.Arrays.copyOfRange(c, 1, c.length));
            Result r = InProcess.execute(cl -> { }, args);
            String what = String.join(" ", args) + " -> " + r;
            assertEquals(ExitCodes.USAGE, r.code(), what);
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), what);
            assertTrue(lines.getFirst().startsWith("zmq-zstd proxy: "), what);
            assertTrue(lines.getFirst().toLowerCase(java.util.Locale.ROOT).contains(c[0].toLowerCase(java.util.Locale.ROOT)), what);
            assertTrue(lines.getFirst().endsWith("(see 'zmq-zstd proxy --help')"), what);
        }
    }
}

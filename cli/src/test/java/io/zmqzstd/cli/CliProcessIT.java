package io.zmqzstd.cli;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The tool as operators run it: {@code java -jar zmq-zstd.jar}, processes piped over tcp. */
class CliProcessIT {

    @TempDir
    Path dir;

    /** Small telemetry-like JSON messages: where a dictionary matters. */
    static List<String> telemetry(int n, long seed) {
        Random r = new Random(seed);
        String[] hosts = {"web-01", "web-02", "db-01", "cache-03", "edge-17"};
        String[] metrics = {"cpu.user", "cpu.system", "mem.used", "net.rx_bytes", "disk.io_wait"};
        List<String> lines = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            lines.add(String.format(Locale.ROOT,
                    "{\"ts\":%d,\"host\":\"%s\",\"metric\":\"%s\",\"value\":%.3f,\"seq\":%d,\"tags\":{\"dc\":\"eu-west-%d\"}}",
                    1_700_000_000_000L + i * 17L, hosts[r.nextInt(hosts.length)], metrics[r.nextInt(metrics.length)],
                    r.nextDouble() * 100, i, r.nextInt(3)));
        }
        return lines;
    }

    static byte[] joinLines(List<String> lines) {
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String tcp(int port) {
        return "tcp://127.0.0.1:" + port;
    }

    private static double ratioOf(String summary) {
        Matcher m = Pattern.compile("ratio=([0-9.]+)").matcher(summary);
        assertTrue(m.find(), summary);
        return Double.parseDouble(m.group(1));
    }

    private static String summary(CliProcess p) {
        return p.stderrLines().stream().filter(l -> l.contains(": summary: ")).findFirst()
                .orElseThrow(() -> new AssertionError("no summary: " + p));
    }

    private static void assertNoWarnings(CliProcess p) {
        assertFalse(p.stderrText().contains("WARNING"), () -> "JVM warning on stderr: " + p);
    }

    @Test
    void shouldDeliverEveryLineFromSendToRecvOverTcp() {
        List<String> lines = telemetry(20_000, 1);
        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--count", "20000", "--stats");
             CliProcess send = CliProcess.start(joinLines(lines), "send", "--connect", tcp(port), "--stats")) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(lines, recv.stdoutLines());
            assertTrue(summary(send).contains("messages=20000"), send::toString);
            assertTrue(summary(recv).contains("messages=20000 "), recv::toString);
            assertTrue(summary(recv).contains("errors=0"), recv::toString);
            assertNoWarnings(send);
            assertNoWarnings(recv);
        }
    }

    @Test
    void shouldShrinkSmallMessagesWithADictionaryFromTrain() throws IOException {
        Path dict = dir.resolve("telemetry.dict");
        CliProcess train = CliProcess.run(joinLines(telemetry(5_000, 2)), "train", "--out", dict.toString(), "--size", "16K");
        assertEquals(0, train.awaitExit(), train::toString);
        long id = Long.parseLong(train.stdoutText().strip());
        assertEquals(id, Integer.toUnsignedLong(ZstdDictionary.load(dict).id()), "printed ID is the file's ID");

        List<String> lines = telemetry(3_000, 3); // other messages than the samples
        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--dict", dict.toString(),
                "--count", "3000", "--stats");
             CliProcess send = CliProcess.start(joinLines(lines), "send", "--connect", tcp(port),
                     "--dict", dict.toString(), "--stats")) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(lines, recv.stdoutLines());
            // Without a dictionary zstd expands messages this small; with one they shrink.
            assertTrue(ratioOf(summary(recv)) > 1.5, recv::toString);
        }
    }

    @Test
    void shouldDeliverOnlySubscribedTopicsOverPubSub() {
        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--type", "sub", "--bind", tcp(port), "--subscribe", "alpha",
                "--count", "3", "--print-topic")) {
            // Each PUB waits for recv's subscription before sending, so nothing is lost to the join race.
            CliProcess beta = CliProcess.run("b1\nb2\nb3\n".getBytes(StandardCharsets.UTF_8), "send", "--type", "pub",
                    "--topic", "beta", "--connect", tcp(port), "--wait-subscribers", "1", "--timeout", "30s");
            assertEquals(0, beta.awaitExit(), beta::toString);
            CliProcess alpha = CliProcess.run("a1\na2\na3\n".getBytes(StandardCharsets.UTF_8), "send", "--type", "pub",
                    "--topic", "alpha", "--connect", tcp(port), "--wait-subscribers", "1", "--timeout", "30s");
            assertEquals(0, alpha.awaitExit(), alpha::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("alpha a1", "alpha a2", "alpha a3"), recv.stdoutLines());
        }
    }

    @Test
    void shouldReportBadFramesFromARawSocketAndKeepCounting() {
        int port = freePort();
        byte[] good = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--count", "3", "--max-size", "1K", "--stats");
             ZmqContext ctx = new ZmqContext();
             ZstdCompressor plain = new ZstdCompressor(3);
             ZstdDictionary dict = ZstdDictionary.train(telemetry(2_000, 4).stream()
                     .map(s -> s.getBytes(StandardCharsets.UTF_8)).toList(), 4096);
             ZstdCompressor withDict = ZstdCompressor.builder().dictionary(dict).build()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(tcp(port));
            byte[] frame = plain.compress(good);
            push.send("this is not zstd".getBytes(StandardCharsets.UTF_8), 0);
            push.send(new byte[0], 0);
            push.send(plain.compress(new byte[4096]), 0);                       // declares 4096 > --max-size 1K
            push.send(Arrays.copyOf(frame, frame.length - 3), 0);               // cut short
            push.send(withDict.compress(good), 0);                              // recv has no dictionary
            for (int i = 0; i < 3; i++) {
                push.send(frame, 0);
            }
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("{\"ok\":true}", "{\"ok\":true}", "{\"ok\":true}"), recv.stdoutLines());
            List<String> errors = recv.stderrLines().stream().filter(l -> l.contains("bad frame")).toList();
            assertEquals(5, errors.size(), recv::toString);
            for (String reason : List.of("NOT_ZSTD", "EMPTY", "TOO_LARGE", "TRUNCATED", "DICTIONARY_MISSING")) {
                assertTrue(errors.stream().anyMatch(l -> l.startsWith("zmq-zstd recv: bad frame:") && l.contains("reason=" + reason)),
                        () -> reason + " not reported: " + recv);
            }
            assertTrue(summary(recv).contains("messages=3 "), recv::toString);
            assertTrue(summary(recv).contains("errors=5"), recv::toString);
        }
    }

    @Test
    void shouldStreamABinaryFileInChunks() throws IOException {
        byte[] data = new byte[1_500_000];
        Random r = new Random(5);
        r.nextBytes(data);
        byte[] text = joinLines(telemetry(5_000, 6)); // a compressible half
        System.arraycopy(text, 0, data, 0, Math.min(text.length, data.length / 2));
        Path file = dir.resolve("in.bin");
        Files.write(file, data);
        int chunk = 64 * 1024;
        int chunks = (data.length + chunk - 1) / chunk;
        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--delimiter", "", "--count",
                String.valueOf(chunks));
             CliProcess send = CliProcess.startFrom(file, "send", "--connect", tcp(port), "--chunk", "64K")) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertArrayEquals(data, recv.stdout());
        }
    }

    @Test
    void shouldRejectUsageErrorsWithOneLineAndExit2() {
        // The full table runs in-process (CommandLineTest); here a few, through the real jar, at once.
        String[][] wrong = {
                {"send", "--connect", "tcp://localhost"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--timeout", "soon"},
                {"frobnicate"},
        };
        List<CliProcess> runs = Arrays.stream(wrong).map(args -> CliProcess.start(new byte[0], args)).toList();
        for (int i = 0; i < wrong.length; i++) {
            CliProcess p = runs.get(i);
            String what = String.join(" ", wrong[i]) + " -> " + p;
            assertEquals(2, p.awaitExit(), what);
            List<String> err = p.stderrLines();
            assertEquals(1, err.size(), what);
            assertTrue(err.getFirst().startsWith("zmq-zstd"), what);
            assertFalse(err.getFirst().contains("Exception") || err.getFirst().contains("\tat "), what);
            assertEquals("", p.stdoutText(), what);
        }
    }

    @Test
    void shouldEncryptWithCurveAndReceiveNothingWithAWrongServerKey() throws IOException {
        Path server = dir.resolve("server.key");
        CliProcess keygen = CliProcess.run(new byte[0], "keygen", "--out", server.toString());
        assertEquals(0, keygen.awaitExit(), keygen::toString);
        String serverPublic = keygen.stdoutText().strip();
        assertTrue(Files.readString(dir.resolve("server.key.pub")).contains(serverPublic));
        CliProcess other = CliProcess.run(new byte[0], "keygen");
        assertEquals(0, other.awaitExit(), other::toString);
        String wrongPublic = CurveOptions.parse(other.stdoutLines()).publicKey();

        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--curve-server",
                "--curve-keypair-file", server.toString(), "--count", "2", "--timeout", "60s");
             CliProcess send = CliProcess.start("secret one\nsecret two\n".getBytes(StandardCharsets.UTF_8), "send",
                     "--connect", tcp(port), "--curve-server-key", "@" + dir.resolve("server.key.pub"))) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("secret one", "secret two"), recv.stdoutLines());
        }

        int port2 = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port2), "--curve-server",
                "--curve-secret-key-file", server.toString(), "--count", "1", "--timeout", "2s");
             CliProcess send = CliProcess.start("must not arrive\n".getBytes(StandardCharsets.UTF_8), "send",
                     "--connect", tcp(port2), "--curve-server-key", wrongPublic, "--timeout", "2s")) {
            assertEquals(3, send.awaitExit(), send::toString);
            assertEquals(3, recv.awaitExit(), recv::toString);
            assertEquals("", recv.stdoutText());
            assertTrue(send.stderrText().contains("timeout"), send::toString);
            assertTrue(recv.stderrText().contains("timeout"), recv::toString);
        }
    }

    @Test
    void shouldTrainADictionaryTheZstdCliCanUse() throws IOException, InterruptedException {
        assumeTrue(onPath("zstd"), "zstd CLI not on PATH: interop check skipped");
        Path dict = dir.resolve("d.dict");
        CliProcess train = CliProcess.run(joinLines(telemetry(5_000, 7)), "train", "--out", dict.toString(), "--size", "8K");
        assertEquals(0, train.awaitExit(), train::toString);
        Path sample = dir.resolve("sample.json");
        Files.writeString(sample, telemetry(1, 8).getFirst());
        assertEquals(0, exec("zstd", "-q", "-f", "-D", dict.toString(), sample.toString(), "-o", dir.resolve("s.zst").toString()));
        assertEquals(0, exec("zstd", "-q", "-f", "-d", "-D", dict.toString(), dir.resolve("s.zst").toString(),
                "-o", dir.resolve("s.out").toString()));
        assertArrayEquals(Files.readAllBytes(sample), Files.readAllBytes(dir.resolve("s.out")));
        // The frame needs the dictionary: without it zstd refuses, so the dictionary really was used.
        assertTrue(exec("zstd", "-q", "-f", "-d", dir.resolve("s.zst").toString(), "-o", dir.resolve("s.bad").toString()) != 0);
    }

    @Test
    void shouldPrintTheSummaryWhenTerminated() {
        int port = freePort();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--stats")) {
            CliProcess send = CliProcess.run("one\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", tcp(port));
            assertEquals(0, send.awaitExit(), send::toString);
            recv.awaitStdoutBytes(4); // "one\n" arrived: recv is in its loop
            recv.terminate();
            assertEquals(143, recv.awaitExit(), recv::toString); // 128 + SIGTERM
            assertEquals("one\n", recv.stdoutText());
            assertTrue(summary(recv).contains("messages=1 "), recv::toString);
        }
    }

    private static int freePort() {
        return CliProcess.freePort();
    }

    private static boolean onPath(String tool) {
        try {
            return exec(tool, "--version") == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static int exec(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return p.waitFor();
    }
}

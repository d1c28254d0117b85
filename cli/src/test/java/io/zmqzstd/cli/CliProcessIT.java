package io.zmqzstd.cli;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The tool as operators run it: {@code java -jar zmq-zstd.jar}, processes piped over tcp. */
class CliProcessIT {

    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

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
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--count", "20000", "--stats");
             CliProcess send = CliProcess.start(joinLines(lines), "send", "--connect", tcp(port), "--stats")) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(lines, recv.stdoutLines());
            assertTrue(summary(send).contains("messages=20000 "), send::toString);
            assertTrue(summary(send).contains(" errors=0 "), send::toString);
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
        int port = Ports.unused();
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
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--type", "sub", "--bind", tcp(port), "--subscribe", "alpha",
                "--count", "3", "--print-topic")) {
            // --wait-subscribers counts only subscriptions that take the topic sent: recv's "alpha" is no
            // subscriber of beta, so beta's wait is not met and nothing of it is sent
            CliProcess beta = CliProcess.run("b1\nb2\nb3\n".getBytes(StandardCharsets.UTF_8), "send", "--type", "pub",
                    "--topic", "beta", "--connect", tcp(port), "--wait-subscribers", "1", "--timeout", "2s");
            assertEquals(3, beta.awaitExit(), beta::toString);
            assertEquals(List.of("zmq-zstd send: timeout: subscriptions=0 of 1 within 2s (counting those to a prefix of"
                    + " topic='beta', which receive its messages; others=1)"), beta.stderrLines(), beta::toString);
            // alpha waits for recv's subscription before sending, so nothing is lost to the join race
            // this one through compressing threads: the topic still travels uncompressed in front
            CliProcess alpha = CliProcess.run("a1\na2\na3\n".getBytes(StandardCharsets.UTF_8), "send", "--type", "pub",
                    "--topic", "alpha", "--connect", tcp(port), "--wait-subscribers", "1", "--timeout", "30s",
                    "--threads", "2");
            assertEquals(0, alpha.awaitExit(), alpha::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("alpha a1", "alpha a2", "alpha a3"), recv.stdoutLines());
        }
    }

    @Test
    void shouldReportBadFramesFromARawSocketAndKeepCounting() {
        int port = Ports.unused();
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

    /**
     * send --no-dict-id leaves the 4-byte dictionary ID out of every frame; recv --dict-for-no-id
     * decodes those and frames from zstd --no-dictID -D; a recv without it reports such a frame as a
     * bad frame that declares no dictionary ID, naming --dict-for-no-id, and goes on.
     */
    @Test
    void shouldCarryFramesWithoutDictionaryIdFromSendAndZstdToRecvNoIdDict() throws Exception {
        Path dict = dir.resolve("t.dict");
        CliProcess train = CliProcess.run(joinLines(telemetry(5_000, 2)), "train", "--out", dict.toString(), "--size", "16K");
        assertEquals(0, train.awaitExit(), train::toString);
        assertTrue(ZstdDictionary.load(dict).id() >= 65536 || ZstdDictionary.load(dict).id() < 0, "a 4-byte ID field");
        List<String> lines = telemetry(200, 3);
        Path sample = Files.write(dir.resolve("one.json"), telemetry(1, 9).getFirst().getBytes(StandardCharsets.UTF_8));
        Path zstdFrame = dir.resolve("one.zst");
        boolean zstdCli = onPath("zstd");
        if (zstdCli) {
            assertEquals(0, exec("zstd", "-q", "-f", "--no-dictID", "-D", dict.toString(), sample.toString(), "-o", zstdFrame.toString()));
        }
        int port = Ports.unused();
        int expected = 2 * lines.size() + (zstdCli ? 1 : 0);
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--dict-for-no-id", dict.toString(), "--dict", dict.toString(),
                "--count", Integer.toString(expected), "--stats")) {
            CliProcess withId = CliProcess.run(joinLines(lines), "send", "--connect", tcp(port), "--dict", dict.toString(), "--stats");
            assertEquals(0, withId.awaitExit(), withId::toString);
            CliProcess noId = CliProcess.run(joinLines(lines), "send", "--connect", tcp(port), "--dict", dict.toString(),
                    "--no-dict-id", "--stats");
            assertEquals(0, noId.awaitExit(), noId::toString);
            if (zstdCli) {
                try (ZmqContext ctx = new ZmqContext()) {
                    ZmqSocket push = ctx.socket(SocketType.PUSH);
                    push.connect(tcp(port));
                    assertTrue(push.send(Files.readAllBytes(zstdFrame), 0));
                    assertEquals(0, recv.awaitExit(), recv::toString); // before the context's close drops the frame
                }
            }
            assertEquals(0, recv.awaitExit(), recv::toString);
            List<String> all = new ArrayList<>(lines);
            all.addAll(lines);
            if (zstdCli) {
                all.add(telemetry(1, 9).getFirst());
            }
            assertEquals(all, recv.stdoutLines());
            assertEquals(4L * lines.size(), bytesOut(summary(withId)) - bytesOut(summary(noId)),
                    () -> "4 bytes less a frame: " + withId + noId);
        }
        assumeTrue(zstdCli, "zstd CLI not on PATH: its frames without an ID not checked");
        int otherPort = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(otherPort), "--dict", dict.toString(), "--count", "1");
             ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(tcp(otherPort));
            assertTrue(push.send(Files.readAllBytes(zstdFrame), 0));
            try (ZstdDictionary d = ZstdDictionary.load(dict);
                 ZstdCompressor c = ZstdCompressor.builder().dictionary(d).build()) {
                assertTrue(push.send(c.compress("{\"next\":1}".getBytes(StandardCharsets.UTF_8)), 0));
            }
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("{\"next\":1}"), recv.stdoutLines());
            List<String> bad = recv.stderrLines().stream().filter(l -> l.contains("bad frame")).toList();
            assertEquals(1, bad.size(), recv::toString);
            assertTrue(bad.getFirst().contains("the frame declares no dictionary ID")
                    && bad.getFirst().endsWith("(zmq-zstd recv --dict-for-no-id FILE)"), recv::toString);
        }
    }

    private static long bytesOut(String summary) {
        Matcher m = Pattern.compile("bytesOut=(\\d+)").matcher(summary);
        assertTrue(m.find(), summary);
        return Long.parseLong(m.group(1));
    }

    /** A --progress or --stats line with every documented field, in order. */
    private static final Pattern STATS_LINE = Pattern.compile("zmq-zstd (send|recv): (progress|summary): messages=\\d+"
            + " bytesIn=\\d+ bytesOut=\\d+ ratio=\\d+\\.\\d{3} errors=\\d+( [A-Z_]+=\\d+)*( wouldBlock=\\d+)?"
            + " elapsed=\\d+\\.\\d{3}s active=\\d+\\.\\d{3}s rate=\\d+msg/s throughput=\\d+\\.\\d{2}MB/s");

    /**
     * PAIR over the second of two --bind endpoints, with --progress on both sides: after the first
     * line the test holds send's stdin open until each side has printed a progress line for it,
     * so both runs last more than a second whatever the machine's speed.
     */
    @Test
    void shouldStreamOverPairAndPrintProgressWhileRunning() {
        int port = Ports.unused();
        String ipc = "ipc://" + dir.resolve("pair.sock");
        try (CliProcess recv = CliProcess.start("recv", "--type", "pair", "--bind", ipc, "--bind", tcp(port),
                "--count", "2", "--progress", "--stats");
             CliProcess send = CliProcess.startInteractive("send", "--type", "pair", "--connect", tcp(port),
                     "--progress", "--stats")) {
            send.writeStdin("first\n");
            recv.awaitStdoutBytes("first\n".length());
            send.awaitStderrLine(l -> l.startsWith("zmq-zstd send: progress: messages=1 "));
            recv.awaitStderrLine(l -> l.startsWith("zmq-zstd recv: progress: messages=1 "));
            send.writeStdin("second\n");
            send.closeStdin();
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("first", "second"), recv.stdoutLines());
            for (CliProcess p : List.of(send, recv)) {
                List<String> progress = p.stderrLines().stream().filter(l -> l.contains(": progress: ")).toList();
                assertFalse(progress.isEmpty(), p::toString);
                for (String line : progress) {
                    assertTrue(STATS_LINE.matcher(line).matches(), () -> "progress line without the documented fields: " + line);
                    assertTrue(line.contains(" errors=0 "), line);
                }
                String summary = summary(p);
                assertTrue(STATS_LINE.matcher(summary).matches(), summary);
                assertTrue(summary.contains("messages=2 ") && summary.contains(" errors=0 "), summary);
            }
            assertTrue(summary(send).contains(" bytesIn=" + "firstsecond".length() + " "), send::toString);
        }
    }

    /**
     * Dictionaries from `train FILE...` (each file one sample) and `train --lines FILE...` (each
     * line one sample), used by two DEALER senders that bind (one at level 19, one at level -5),
     * and one DEALER recv that connects to both and holds both dictionaries: every message of
     * both senders decodes, each sender's in its order.
     */
    @Test
    void shouldTrainFromFilesAndDecodeTwoDictionariesFromTwoDealers() throws IOException {
        Path samples = Files.createDirectory(dir.resolve("samples"));
        List<String> sampleArgs = new ArrayList<>(List.of("train", "--out", dir.resolve("files.dict").toString(), "--size", "4K"));
        List<String> perFile = telemetry(1_000, 20);
        for (int i = 0; i < perFile.size(); i++) {
            Path f = samples.resolve("sample-" + i + ".json");
            Files.writeString(f, perFile.get(i));
            sampleArgs.add(f.toString());
        }
        Path linesA = dir.resolve("lines-a.txt");
        Path linesB = dir.resolve("lines-b.txt");
        Files.write(linesA, joinLines(telemetry(2_000, 21)));
        Files.write(linesB, joinLines(telemetry(2_000, 22)));
        try (CliProcess trainFiles = CliProcess.start(sampleArgs.toArray(String[]::new));
             CliProcess trainLines = CliProcess.start("train", "--lines", "--out", dir.resolve("lines.dict").toString(),
                     "--size", "4K", linesA.toString(), linesB.toString())) {
            assertEquals(0, trainFiles.awaitExit(), trainFiles::toString);
            assertEquals(0, trainLines.awaitExit(), trainLines::toString);
            assertTrue(trainFiles.stderrText().contains("samples=1000,"), trainFiles::toString); // one per file
            assertTrue(trainLines.stderrText().contains("samples=4000,"), trainLines::toString); // one per line
        }
        long filesId = Integer.toUnsignedLong(ZstdDictionary.load(dir.resolve("files.dict")).id());
        long linesId = Integer.toUnsignedLong(ZstdDictionary.load(dir.resolve("lines.dict")).id());
        assertTrue(filesId != linesId, "two dictionaries, two IDs: " + filesId);

        List<String> fromA = telemetry(1_000, 23);
        List<String> fromB = telemetry(1_000, 24);
        int portA = Ports.unused();
        int portB = Ports.unused();
        try (CliProcess sendA = CliProcess.start(joinLines(fromA), "send", "--type", "dealer", "--bind", tcp(portA),
                "--dict", dir.resolve("files.dict").toString(), "--level", "19", "--stats");
             CliProcess sendB = CliProcess.start(joinLines(fromB), "send", "--type", "dealer", "--bind", tcp(portB),
                     "--dict", dir.resolve("lines.dict").toString(), "--level", "-5", "--stats");
             CliProcess recv = CliProcess.start("recv", "--type", "dealer", "--connect", tcp(portA), "--connect", tcp(portB),
                     "--dict", dir.resolve("files.dict").toString(), "--dict", dir.resolve("lines.dict").toString(),
                     "--count", "2000", "--stats")) {
            assertEquals(0, sendA.awaitExit(), sendA::toString);
            assertEquals(0, sendB.awaitExit(), sendB::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            List<String> got = recv.stdoutLines();
            assertEquals(2000, got.size(), recv::toString);
            Set<String> a = Set.copyOf(fromA);
            assertEquals(fromA, got.stream().filter(a::contains).toList(), "sender A's messages, in order");
            assertEquals(fromB, got.stream().filter(l -> !a.contains(l)).toList(), "sender B's messages, in order");
            assertTrue(summary(recv).contains(" errors=0 "), recv::toString);
            // Messages this small expand without a dictionary: a ratio above 1 shows each sender used its own.
            assertTrue(ratioOf(summary(sendA)) > 1.2, sendA::toString);
            assertTrue(ratioOf(summary(sendB)) > 1.2, sendB::toString);
        }
    }

    /**
     * --whole with more input than the heap can hold (a sparse 512 MiB file, below the limit, for
     * a 64 MiB heap): one line saying so and what to do, exit 1, instead of OutOfMemoryError and
     * its stack trace.
     */
    @Test
    void shouldSayWhenTheHeapCannotHoldAWholeInput() throws IOException {
        Path sparse = dir.resolve("sparse.bin");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength(512L << 20);
        }
        CliProcess p = CliProcess.startFrom(List.of("-Xmx64m"), sparse, "send", "--connect", tcp(Ports.unused()), "--whole",
                "--timeout", "5s");
        assertEquals(1, p.awaitExit(), p::toString);
        List<String> err = p.stderrLines();
        assertEquals(1, err.size(), p::toString);
        assertTrue(err.getFirst().startsWith("zmq-zstd send: not enough Java heap for a message of more than "), p::toString);
        assertTrue(err.getFirst().contains("-Xmx") && err.getFirst().contains("--chunk"), p::toString);
    }

    /**
     * train with more sample lines than the heap holds (each line a sample, kept until training):
     * OutOfMemoryError and its stack trace, where a single sample FILE too large had one line.
     * Now one line too, naming how far it got and what to do, exit 1.
     */
    @Test
    void shouldSayWhenTheHeapCannotHoldTheSamples() throws IOException {
        Path lines = dir.resolve("many-lines.txt");
        byte[] line = "{\"host\":\"web-01\",\"metric\":\"cpu.user\",\"value\":42}\n".getBytes(StandardCharsets.US_ASCII);
        try (java.io.OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(lines))) {
            for (int i = 0; i < 1_000_000; i++) { // 51 MB of 51-byte lines for a 16 MiB heap
                out.write(line);
            }
        }
        CliProcess p = CliProcess.startFrom(List.of("-Xmx16m"), lines, "train", "--out", dir.resolve("heap.dict").toString(),
                "--size", "16K");
        assertEquals(1, p.awaitExit(), p::toString);
        List<String> err = p.stderrLines();
        assertEquals(1, err.size(), p::toString);
        assertTrue(err.getFirst().startsWith("zmq-zstd train: the samples do not fit in the Java heap: samples="), p::toString);
        assertTrue(err.getFirst().contains("-Xmx"), p::toString);
        assertFalse(Files.exists(dir.resolve("heap.dict")), p::toString);
    }

    /**
     * A message that does not fit in memory decompressed, with a --max-size above it (here a frame
     * declaring 16 GiB in 512 KiB of RLE blocks, for a recv whose address space {@code ulimit -v}
     * holds to 8 GiB, as a container or a small machine would): recv died of OutOfMemoryError with
     * a stack trace. Now the summary, one line naming the size it could not allocate and what to do,
     * exit 1; the message before it was written.
     */
    @Test
    void shouldSayWhenAMessageDoesNotFitInMemoryDecompressed() {
        int port = Ports.unused();
        // the JVM's own reservations kept small (glibc's malloc arenas among them), far below the limit
        String script = "ulimit -v 8388608 && export MALLOC_ARENA_MAX=2 && java=$1 && shift && exec \"$java\" -XX:-UsePerfData"
                + " -Xmx64m -XX:ReservedCodeCacheSize=64m -XX:CompressedClassSpaceSize=64m \"$@\"";
        try (CliProcess recv = CliProcess.startUnder(List.of("/bin/sh", "-c", script, "sh"), "recv", "--bind", tcp(port),
                "--max-size", "32G", "--stats");
             ZmqContext ctx = new ZmqContext();
             ZstdCompressor compressor = new ZstdCompressor(3)) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.linger(java.time.Duration.ZERO);
            push.connect(tcp(port));
            push.send(compressor.compress("before".getBytes(StandardCharsets.UTF_8)), 0);
            push.send(rleFrame(16 << 3 << 10), 0); // 131 072 blocks of 128 KiB: 16 GiB
            assertEquals(ExitCodes.FAILURE, recv.awaitExit(), recv::toString);
            assertEquals(List.of("before"), recv.stdoutLines(), recv::toString);
            List<String> err = recv.stderrLines();
            assertEquals(2, err.size(), recv::toString);
            assertTrue(err.get(0).startsWith("zmq-zstd recv: summary: messages=1 "), recv::toString);
            // the JDK's own words for the failed allocation in between (here "Unable to allocate 17179869232 bytes")
            assertTrue(err.get(1).startsWith("zmq-zstd recv: not enough memory to decompress a message: error="), recv::toString);
            assertTrue(err.get(1).endsWith(" (a message is decompressed whole, and --max-size lets one part be up to "
                    + (32L << 30) + " bytes); lower --max-size, which refuses a larger frame as a bad frame (TOO_LARGE), or give"
                    + " recv more memory"), recv::toString);
        }
    }

    /**
     * A zstd frame of {@code blocks} RLE blocks of 128 KiB (4 bytes each), declaring their sum as
     * its content size: a few bytes that decode to much, which the receiver's check that the blocks
     * can hold the declared size lets through.
     */
    private static byte[] rleFrame(int blocks) {
        int block = 128 << 10;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 + 1 + 1 + 8 + 4 * blocks).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xFD2FB528);             // magic
        b.put((byte) 0xC0);               // frame header descriptor: 8-byte content size; no single segment, checksum or dictionary ID
        b.put((byte) (7 << 3));           // window descriptor: 2^(10 + 7) = 128 KiB, the largest block
        b.putLong((long) blocks * block); // content size
        for (int i = 0; i < blocks; i++) {
            int header = block << 3 | 1 << 1 | (i == blocks - 1 ? 1 : 0); // block size, type 1 (RLE), last block
            b.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16)).put((byte) 'x');
        }
        return b.array();
    }

    /**
     * Under the C locale (LANG unset, as in cron and many containers) the JVM decodes its arguments
     * as ASCII and replaces every other byte with U+FFFD: recv --delimiter '→' wrote three U+FFFD
     * after each message, and a --subscribe or --topic with a non-ASCII character was another topic,
     * without a word. Now such an argument is a usage error naming the remedy.
     */
    @Test
    void shouldRefuseAnArgumentTheLocaleCouldNotDecode() {
        assumeTrue(java.nio.charset.Charset.forName(System.getProperty("sun.jnu.encoding")).equals(StandardCharsets.UTF_8),
                "this JVM passes its arguments to the child as UTF-8");
        try (CliProcess recv = CliProcess.startUnder(List.of("/usr/bin/env", "LC_ALL=C", "LANG=C"), "recv", "--bind",
                tcp(Ports.unused()), "--delimiter", "\u2192", "--timeout", "1s")) {
            assertEquals(ExitCodes.USAGE, recv.awaitExit(), recv::toString);
            assertEquals(1, recv.stderrLines().size(), recv::toString);
            assertTrue(recv.stderrLines().getFirst().matches("zmq-zstd recv: argument '(\\uFFFD|\\?){3}' has bytes that the JVM could"
                    + " not decode in this locale's charset, .+ \\(LC_ALL, LC_CTYPE or LANG unset, C or POSIX\\), and replaced each"
                    + " with U\\+FFFD; run zmq-zstd in a UTF-8 locale, e\\.g\\. LC_ALL=C\\.UTF-8 \\(see 'zmq-zstd recv --help'\\)"),
                    recv::toString);
        }
    }

    /**
     * train --out /dev/stdout: standard output carries the ID train prints, so it is refused as
     * "--out -" is, before any sample is read (it failed after training with "no such file": a link
     * to a pipe has no real path). A link to another pipe, /dev/stderr here, is written through: the
     * whole dictionary, then the summary line.
     */
    @Test
    void shouldRefuseToTrainIntoStandardOutputAndWriteThroughALinkToAPipe() throws IOException {
        Path samples = dir.resolve("pipe-samples.txt");
        Files.write(samples, joinLines(telemetry(2_000, 31)));
        try (CliProcess train = CliProcess.start("train", "--lines", "--size", "4K", "--out", "/dev/stdout", samples.toString())) {
            assertEquals(ExitCodes.FAILURE, train.awaitExit(), train::toString);
            assertEquals(List.of("zmq-zstd train: cannot write dictionary: file=/dev/stdout, error=it is standard output, which"
                    + " carries the printed ID behind the dictionary; give --out a file"), train.stderrLines(), train::toString);
            assertEquals(0, train.stdout().length, train::toString);
        }
        try (CliProcess train = CliProcess.start("train", "--lines", "--size", "4K", "--out", "/dev/stderr", samples.toString())) {
            assertEquals(0, train.awaitExit(), train::toString);
            long id = Long.parseLong(train.stdoutText().strip());
            byte[] err = train.stderr();
            Matcher summary = Pattern.compile("zmq-zstd train: wrote dictionary: id=" + id
                    + ", bytes=(\\d+), .*out=/dev/stderr\n$").matcher(new String(err, StandardCharsets.ISO_8859_1));
            assertTrue(summary.find(), train::toString);
            int bytes = Integer.parseInt(summary.group(1));
            assertEquals(err.length - (summary.end() - summary.start()), bytes, "the dictionary whole, then the summary");
            ZstdDictionary written = ZstdDictionary.of(Arrays.copyOf(err, bytes));
            assertEquals(id, Integer.toUnsignedLong(written.id()));
        }
    }

    /**
     * Runtime failures through the jar: exit 1 and one line naming what was wrong; and a send that
     * --timeout ends reports the message it could not send as an error in its summary (exit 3).
     */
    @Test
    void shouldExitWithOneLineAnd1OnRuntimeFailures() throws IOException {
        String missing = dir.resolve("missing.dict").toString();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String inUse = tcp(taken.getLocalPort());
            Object[][] failures = {
                    {new String[] {"recv", "--bind", inUse}, "zmq-zstd recv: cannot bind: endpoint=" + inUse},
                    {new String[] {"send", "--bind", inUse}, "zmq-zstd send: cannot bind: endpoint=" + inUse},
                    {new String[] {"recv", "--bind", tcp(Ports.unused()), "--dict", missing},
                            "zmq-zstd recv: cannot read dictionary: file=" + missing + ", error=no such file"},
                    {new String[] {"send", "--connect", tcp(Ports.unused()), "--dict", missing},
                            "zmq-zstd send: cannot read dictionary: file=" + missing + ", error=no such file"},
                    {new String[] {"train", "--out", dir.resolve("x.dict").toString(), dir.resolve("none.txt").toString()},
                            "zmq-zstd train: cannot read sample file: file=" + dir.resolve("none.txt") + ", error=no such file"},
                    {new String[] {"train", "--out", dir.resolve("y.dict").toString()},
                            "zmq-zstd train: dictionary training failed: "},
            };
            byte[] fewSamples = "one\ntwo\nthree\n".getBytes(StandardCharsets.UTF_8);
            List<CliProcess> runs = Arrays.stream(failures).map(f -> CliProcess.start(fewSamples, (String[]) f[0])).toList();
            CliProcess timedOut = CliProcess.start("lost\n".getBytes(StandardCharsets.UTF_8), "send",
                    "--connect", tcp(Ports.unused()), "--timeout", "1s", "--stats");
            for (int i = 0; i < failures.length; i++) {
                CliProcess p = runs.get(i);
                String expected = (String) failures[i][1];
                assertEquals(1, p.awaitExit(), p::toString);
                List<String> err = p.stderrLines();
                assertEquals(1, err.size(), p::toString);
                assertTrue(err.getFirst().startsWith(expected), () -> "expected " + expected + ": " + p);
                assertFalse(err.getFirst().contains("Exception") || err.getFirst().contains("\tat "), p::toString);
            }
            assertTrue(runs.get(0).stderrText().contains("Address already in use"), runs.get(0)::toString);
            assertEquals(3, timedOut.awaitExit(), timedOut::toString);
            assertTrue(timedOut.stderrLines().contains("zmq-zstd send: timeout: no peer took message=1 within 1s (sent=0)"),
                    timedOut::toString);
            assertTrue(summary(timedOut).contains("messages=0 ") && summary(timedOut).contains(" errors=1 "), timedOut::toString);
        }
    }

    /**
     * recv --bind ipc://PATH run as another user (nobody) where PATH is root's leftover socket file in
     * a sticky directory, as in /tmp, one nobody may connect to (mode 0777): libzmq's unlink fails
     * (EPERM) without a word, and its bind said only "Address already in use". The line names the
     * path, the sticky directory and the owner.
     */
    @Test
    void shouldNameAnotherUsersLeftoverSocketFileInAStickyDirectory() throws Exception {
        Path sticky = sharedDirectory("sticky", 01777);
        Path path = rootLeftover(sticky.resolve("hub.sock"), "rwxrwxrwx");
        assertRefusedToNobody(path, path + " is a socket file nobody listens on (left by a process that ended), which libzmq"
                + " could not remove to bind there: its directory " + sticky + " is sticky (as /tmp is), and the file belongs to"
                + " another user: owner=root; have it removed, or give another path");
        assertTrue(Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * recv --bind ipc://PATH run as nobody where root listens on PATH, with the socket file's usual
     * mode (0755: nobody may not connect, so the check cannot tell whether somebody listens). In a
     * directory nobody may change (0777, not sticky) libzmq unlinked root's file and took the path
     * from its listener without a word until 2026-11-27 (recv ran on to its --timeout, exit 3, and
     * root's listener was reached no more); in a sticky one it refused, and the line said "nobody
     * listens on (left by a process that ended)". Now both are refused before libzmq is asked, the
     * line saying that whether somebody listens cannot be told, and root's listener keeps its path.
     */
    @Test
    void shouldNotTakeThePathOfASocketThatAnotherUserMayListenOn() throws Exception {
        Path open = sharedDirectory("open", 0777);
        Path path = open.resolve("feed.sock");
        try (ServerSocketChannel server = rootListener(path, "rwxr-xr-x")) {
            assertRefusedToNobody(path, path + " is a socket file this process may not connect to (owner=root), so whether"
                    + " somebody listens on it cannot be told, and libzmq would take the path from a listener without a word; have"
                    + " it removed if it is left over, or bind another path");
            server.configureBlocking(false);
            try (java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                client.connect(java.net.UnixDomainSocketAddress.of(path)); // queued at once on a listener with room
                try (java.nio.channels.SocketChannel accepted = server.accept()) {
                    assertTrue(accepted != null, "root's listener no longer has its path");
                }
            }
        }
        Path sticky = sharedDirectory("sticky", 01777);
        Path leftover = rootLeftover(sticky.resolve("hub.sock"), "rwxr-xr-x"); // the mode libzmq's files have
        assertRefusedToNobody(leftover, leftover + " is a socket file this process may not connect to, so whether somebody listens"
                + " on it cannot be told, and libzmq could not remove it to bind there: its directory " + sticky + " is sticky (as"
                + " /tmp is), and the file belongs to another user: owner=root; have it removed if it is left over, or bind"
                + " another path");
    }

    /** recv --bind ipc://PATH run as nobody in root's directory of mode 0755: libzmq's "Permission denied", and whose directory. */
    @Test
    void shouldNameTheDirectoryAnIpcBindMayNotCreateItsFileIn() throws Exception {
        Path closed = sharedDirectory("closed", 0755);
        String endpoint = "ipc://" + closed.resolve("feed.sock");
        try (CliProcess recv = CliProcess.startUnder(List.of(SETPRIV.toString(), "--reuid=65534", "--regid=65534", "--clear-groups"),
                "recv", "--bind", endpoint, "--timeout", "2s")) {
            assertEquals(1, recv.awaitExit(), recv::toString);
            assertEquals(List.of("zmq-zstd recv: cannot bind: endpoint=" + endpoint + ", errno=13, error=Permission denied"
                    + " (this user may not create a file in " + closed + ")"), recv.stderrLines(), recv::toString);
        }
    }

    /**
     * recv --bind ipc://* run as nobody with $TMPDIR root's directory of mode 0755: libzmq makes the
     * fresh path's directory there (else in the working directory, a service's often /) and said only
     * "Permission denied", naming no directory. Now the line names where and what to do.
     */
    @Test
    void shouldNameWhereAnIpcStarBindMayNotMakeItsDirectory() throws Exception {
        Path closed = sharedDirectory("closed", 0755);
        try (CliProcess recv = CliProcess.startUnder(List.of("/usr/bin/env", "TMPDIR=" + closed, SETPRIV.toString(), "--reuid=65534",
                "--regid=65534", "--clear-groups"), "recv", "--bind", "ipc://*", "--timeout", "2s")) {
            assertEquals(1, recv.awaitExit(), recv::toString);
            assertEquals(List.of("zmq-zstd recv: cannot bind: endpoint=ipc://*, errno=13, error=Permission denied (ipc://* makes"
                    + " its fresh directory in $TMPDIR=" + closed + ", where this user may not create a file; set TMPDIR to a"
                    + " directory it may, or bind a path)"), recv.stderrLines(), recv::toString);
        }
    }

    /**
     * An output in a directory this user may not write: train read and trained on all its samples
     * before it found out (here, with no sample, it said "no samples" and never looked), and both
     * said "permission denied" alone. Now refused first, naming the directory.
     */
    @Test
    void shouldNameTheDirectoryAnOutputMayNotBeMadeInBeforeAnyWork() throws Exception {
        Path closed = sharedDirectory("closed", 0755);
        for (String[] args : new String[][] {{"train", "--out", closed.resolve("new.dict").toString()},
                {"keygen", "--out", closed.resolve("new.key").toString()}}) {
            try (CliProcess p = CliProcess.startUnder(List.of(SETPRIV.toString(), "--reuid=65534", "--regid=65534",
                    "--clear-groups"), args)) {
                assertEquals(1, p.awaitExit(), p::toString);
                assertEquals(List.of("zmq-zstd " + args[0] + ": cannot write " + (args[0].equals("train") ? "dictionary" : "key file")
                        + ": file=" + args[2] + ", error=permission denied: this user may not create a file in " + closed),
                        p.stderrLines(), p::toString);
            }
        }
    }

    /**
     * A directory of mode {@code mode} under this test's, which nobody may pass through; skips the
     * test unless it runs as root with setpriv, to run the jar as nobody.
     */
    private Path sharedDirectory(String name, int mode) throws IOException {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(SETPRIV),
                "needs root and setpriv, to run the jar as nobody");
        Files.setAttribute(dir, "unix:mode", 0711);
        Path shared = Files.createDirectory(dir.resolve(name));
        Files.setAttribute(shared, "unix:mode", mode);
        return shared;
    }

    /** Root listening on a Unix-domain socket at {@code path}, its file given {@code permissions}. */
    private static ServerSocketChannel rootListener(Path path, String permissions) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        server.bind(java.net.UnixDomainSocketAddress.of(path));
        Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString(permissions));
        return server;
    }

    /** Root's socket file at {@code path}, given {@code permissions}, left behind by a listener that closed. */
    private static Path rootLeftover(Path path, String permissions) throws IOException {
        rootListener(path, permissions).close();
        return path;
    }

    /** {@code recv --bind ipc://path} run as nobody ends with one line, exit 1: address in use, and {@code why}. */
    private static void assertRefusedToNobody(Path path, String why) {
        String endpoint = "ipc://" + path;
        try (CliProcess recv = CliProcess.startUnder(List.of(SETPRIV.toString(), "--reuid=65534", "--regid=65534", "--clear-groups"),
                "recv", "--bind", endpoint, "--timeout", "2s")) {
            assertEquals(1, recv.awaitExit(), recv::toString);
            assertEquals(List.of("zmq-zstd recv: cannot bind: endpoint=" + endpoint + ", errno=98, error=Address already in use ("
                    + why + ")"), recv.stderrLines(), recv::toString);
        }
    }

    @ParameterizedTest(name = "--threads {0}")
    @ValueSource(ints = {0, 3})
    void shouldStreamABinaryFileInChunks(int threads) throws IOException {
        byte[] data = new byte[1_500_000];
        Random r = new Random(5);
        r.nextBytes(data);
        byte[] text = joinLines(telemetry(5_000, 6)); // a compressible half
        System.arraycopy(text, 0, data, 0, Math.min(text.length, data.length / 2));
        Path file = dir.resolve("in.bin");
        Files.write(file, data);
        int chunk = 64 * 1024;
        int chunks = (data.length + chunk - 1) / chunk;
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--delimiter", "", "--count",
                String.valueOf(chunks));
             CliProcess send = CliProcess.startFrom(file, "send", "--connect", tcp(port), "--chunk", "64K",
                     "--threads", String.valueOf(threads))) {
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

    /**
     * CURVE in both role shapes: recv as server with send as client, and send as server with recv
     * as client. Each shape first delivers with the right key (a positive control with the same
     * options and timeouts), then, with a wrong server key, both sides time out and nothing is
     * received. The wrong-key runs only count if the two sides overlapped: the client side prints
     * a progress line once it has connected, and at that moment the server side must still be
     * waiting, with seconds left for the handshake to be tried and refused.
     */
    @Test
    void shouldEncryptWithCurveAndReceiveNothingWithAWrongServerKeyInEitherRole() throws IOException {
        Path server = dir.resolve("server.key");
        CliProcess keygen = CliProcess.run(new byte[0], "keygen", "--out", server.toString());
        assertEquals(0, keygen.awaitExit(), keygen::toString);
        String serverPublic = keygen.stdoutText().strip();
        assertTrue(Files.readString(dir.resolve("server.key.pub")).contains(serverPublic));
        CliProcess other = CliProcess.run(new byte[0], "keygen");
        assertEquals(0, other.awaitExit(), other::toString);
        String wrongPublic = new String(CurveOptions.parse(String.join("\n", other.stdoutLines())).publicKey());
        String rightKeyFile = "@" + dir.resolve("server.key.pub");

        // Positive controls, both shapes at once.
        List<CurveRun> right = List.of(
                CurveRun.recvAsServer(server, rightKeyFile, "secret one"),
                CurveRun.sendAsServer(server, rightKeyFile, "secret two"));
        for (CurveRun r : right) {
            assertEquals(0, r.send.awaitExit(), r.send::toString);
            assertEquals(0, r.recv.awaitExit(), r.recv::toString);
            assertEquals(List.of(r.message), r.recv.stdoutLines(), r.recv::toString);
            r.close();
        }

        List<CurveRun> wrong = List.of(
                CurveRun.recvAsServer(server, wrongPublic, "must not arrive (recv is the server)"),
                CurveRun.sendAsServer(server, wrongPublic, "must not arrive (recv is the client)"));
        for (CurveRun r : wrong) {
            r.client.awaitStderrLine(l -> l.contains(": progress: "));
            assertTrue(r.server.isAlive(), () -> "the server side gave up before the client had connected, so no "
                    + "handshake was tried: server " + r.server + "\nclient " + r.client);
        }
        for (CurveRun r : wrong) {
            assertEquals(3, r.send.awaitExit(), r.send::toString);
            assertEquals(3, r.recv.awaitExit(), r.recv::toString);
            assertEquals("", r.recv.stdoutText(), r.recv::toString);
            assertTrue(r.send.stderrLines().stream().anyMatch(l -> l.startsWith("zmq-zstd send: timeout: no peer took message=1")),
                    r.send::toString);
            assertTrue(r.recv.stderrLines().stream().anyMatch(l -> l.startsWith("zmq-zstd recv: timeout: no message within 10s")),
                    r.recv::toString);
            r.close();
        }
    }

    /** One send and one recv over CURVE: the binding side is the server, the connecting side its client. */
    private record CurveRun(CliProcess send, CliProcess recv, CliProcess server, CliProcess client, String message)
            implements AutoCloseable {

        /** Both sides give up after this long; the client's progress line shows they overlapped. */
        static final String TIMEOUT = "10s";

        static CurveRun recvAsServer(Path serverKeys, String clientsServerKey, String message) {
            int port = Ports.unused();
            CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--curve-server",
                    "--curve-keypair-file", serverKeys.toString(), "--count", "1", "--timeout", TIMEOUT);
            CliProcess send = CliProcess.start((message + "\n").getBytes(StandardCharsets.UTF_8), "send",
                    "--connect", tcp(port), "--curve-server-key", clientsServerKey, "--timeout", TIMEOUT, "--progress");
            return new CurveRun(send, recv, recv, send, message);
        }

        static CurveRun sendAsServer(Path serverKeys, String clientsServerKey, String message) {
            int port = Ports.unused();
            CliProcess send = CliProcess.start((message + "\n").getBytes(StandardCharsets.UTF_8), "send",
                    "--bind", tcp(port), "--curve-server", "--curve-secret-key-file", serverKeys.toString(),
                    "--timeout", TIMEOUT);
            CliProcess recv = CliProcess.start("recv", "--connect", tcp(port), "--curve-server-key", clientsServerKey,
                    "--count", "1", "--timeout", TIMEOUT, "--progress");
            return new CurveRun(send, recv, send, recv, message);
        }

        @Override
        public void close() {
            send.close();
            recv.close();
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

    /**
     * --threads: lines through three compressing threads arrive complete and in order; with no peer,
     * --timeout ends the run with exit 3, and every line taken and not sent is counted as an error.
     */
    @Test
    void shouldSendInOrderThroughCompressingThreadsAndTimeOutWithoutAPeer() {
        List<String> lines = telemetry(20_000, 7);
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--count", "20000", "--stats");
             CliProcess send = CliProcess.start(joinLines(lines), "send", "--connect", tcp(port), "--threads", "3",
                     "--stats");
             CliProcess noPeer = CliProcess.start(joinLines(lines.subList(0, 50)), "send", "--connect", tcp(Ports.unused()),
                     "--threads", "2", "--timeout", "1s", "--stats")) {
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(lines, recv.stdoutLines());
            assertTrue(summary(send).contains("messages=20000 ") && summary(send).contains(" errors=0 "), send::toString);
            assertNoWarnings(send);

            assertEquals(3, noPeer.awaitExit(), noPeer::toString);
            assertTrue(noPeer.stderrLines().contains("zmq-zstd send: timeout: no peer took message=1 within 1s (sent=0)"),
                    noPeer::toString);
            assertTrue(summary(noPeer).contains("messages=0 ") && summary(noPeer).contains(" errors=50 "), noPeer::toString);
        }
    }

    /** A signal while the compressing threads wait for a peer: the summary, and the shell's 143. */
    @Test
    void shouldPrintTheSummaryWhenTerminatedWhileThreadsWaitForAPeer() {
        try (CliProcess send = CliProcess.startInteractive("send", "--connect", tcp(Ports.unused()), "--threads", "2",
                "--stats", "--progress")) {
            send.writeStdin("waiting\n");
            send.closeStdin(); // end of input: send now waits in close() for the message to go out
            send.awaitStderrLine(l -> l.contains(": progress: "));
            send.terminate();
            assertEquals(143, send.awaitExit(), send::toString);
            assertTrue(summary(send).contains("messages=0 "), send::toString);
        }
    }

    /** SIGTERM and SIGINT: what was received is on standard output, the summary is printed, and the shell's 128 + signal. */
    @ParameterizedTest(name = "SIG{0}")
    @ValueSource(strings = {"TERM", "INT"})
    void shouldPrintTheSummaryWhenTerminated(String signal) throws IOException {
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--stats")) {
            assumeTrue(signal.equals("TERM") || Files.isDirectory(Path.of("/proc/self")), "reads /proc/PID/status (Linux)");
            assumeTrue(signal.equals("TERM") || !recv.ignoresSigint(), "SIGINT is ignored by this test's parent process");
            CliProcess send = CliProcess.run("one\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", tcp(port));
            assertEquals(0, send.awaitExit(), send::toString);
            recv.awaitStdoutBytes(4); // "one\n" arrived: recv is in its loop
            if (signal.equals("TERM")) {
                recv.terminate();
            } else {
                recv.interrupt();
            }
            assertEquals(signal.equals("TERM") ? 143 : 130, recv.awaitExit(), recv::toString); // 128 + 15 or 2
            assertEquals("one\n", recv.stdoutText());
            assertTrue(summary(recv).contains("messages=1 "), recv::toString);
        }
    }

    /**
     * SIGINT or SIGTERM while send waits for more of a standard input that is still open, with an
     * unfinished chunk or line read: it was lost ({@code abcdefghij} with {@code --chunk 4}: abcd and
     * efgh arrived, ij did not, and the summary said {@code messages=2 bytesIn=8}). Now the signal
     * ends the input: what was read goes out as the last message, as at the end of input, and is
     * counted; exit 130 or 143 as before.
     *
     * <p>Lines: {@code one\ntwo\nthr} is one write, read by one read(2) (a 64 KiB buffer), so once
     * recv has {@code two}, send holds {@code thr}. Chunks: send's buffer is one chunk, so it reads
     * {@code ij} after it sent {@code efgh}: a read that follows a send by microseconds, against
     * recv's whole path to the test's await.
     */
    @ParameterizedTest(name = "SIG{0} {1}")
    @CsvSource({"INT,chunk", "TERM,chunk", "INT,lines", "TERM,lines", "TERM,lines --threads 2"})
    void shouldSendWhatItHadReadWhenASignalEndsTheInput(String signal, String framing) throws IOException {
        boolean chunks = framing.equals("chunk");
        String input = chunks ? "abcdefghij" : "one\ntwo\nthr";
        String before = chunks ? "abcd\nefgh\n" : "one\ntwo\n";
        String last = chunks ? "ij" : "thr";
        int bytesIn = chunks ? 10 : 9; // the lines without their newlines
        int port = Ports.unused();
        List<String> options = new ArrayList<>(List.of("send", "--connect", tcp(port), "--stats"));
        options.addAll(chunks ? List.of("--chunk", "4") : framing.equals("lines") ? List.of() : List.of("--threads", "2"));
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port));
             CliProcess send = CliProcess.startInteractive(options.toArray(String[]::new))) {
            assumeTrue(signal.equals("TERM") || Files.isDirectory(Path.of("/proc/self")), "reads /proc/PID/status (Linux)");
            assumeTrue(signal.equals("TERM") || !send.ignoresSigint(), "SIGINT is ignored by this test's parent process");
            send.writeStdin(input); // and standard input stays open: send waits for the rest
            recv.awaitStdoutBytes(before.length());
            if (signal.equals("TERM")) {
                send.terminate();
            } else {
                send.interrupt();
            }
            assertEquals(signal.equals("TERM") ? 143 : 130, send.awaitExit(), send::toString);
            assertTrue(summary(send).contains(" messages=3 bytesIn=" + bytesIn + " "), send::toString);
            assertTrue(summary(send).contains(" errors=0 "), send::toString);
            recv.awaitStdoutBytes(before.length() + last.length() + 1);
            assertEquals(before + last + "\n", recv.stdoutText());
        }
    }

    /**
     * {@code recv --bind tcp://127.0.0.1:PORT --stats [options]} as a plain child process whose
     * standard output is a pipe only the test reads (or does not), standard error to {@code stderr},
     * after a {@code send} of {@code input} to it has ended (exit 0). The caller destroys it.
     */
    private static Process recvFedBy(byte[] input, Path stderr, String... options) throws IOException {
        int port = Ports.unused();
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(javaCommand, "-jar", CliProcess.JAR.toString(),
                "recv", "--bind", tcp(port), "--stats"));
        command.addAll(List.of(options));
        Process recv = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(stderr.toFile()).start();
        try (CliProcess send = CliProcess.run(input, "send", "--connect", tcp(port))) {
            assertEquals(0, send.awaitExit(), send::toString);
        } catch (RuntimeException | Error e) {
            recv.destroyForcibly();
            throw e;
        }
        return recv;
    }

    /**
     * {@code recv | head -1} on a stream that has gone quiet: the reader of recv's standard output
     * closes it after the first line, and no other message comes. recv waited inside libzmq for the
     * next message, whose write would have been the first to fail, so it never ended; now it ends
     * at once with the line a failed write gives, after its summary, exit 1.
     */
    @Test
    void shouldEndWhenTheReaderOfStandardOutputClosesItWhileTheStreamIsQuiet() throws Exception {
        Path stderr = dir.resolve("recv.err");
        Process recv = recvFedBy("one\n".getBytes(StandardCharsets.UTF_8), stderr);
        try {
            InputStream stdout = recv.getInputStream(); // our end of the pipe, read by no other thread
            assertArrayEquals("one\n".getBytes(StandardCharsets.UTF_8), stdout.readNBytes(4));
            stdout.close(); // as head -1 exits: the pipe has no reader any more, and recv waits for a message
            assertTrue(recv.waitFor(CliProcess.PATIENCE.toMillis(), TimeUnit.MILLISECONDS),
                    () -> "recv still running after its standard output was closed: " + read(stderr));
            String err = read(stderr);
            assertEquals(ExitCodes.FAILURE, recv.exitValue(), err);
            List<String> lines = err.lines().toList();
            assertEquals(2, lines.size(), err);
            assertTrue(lines.get(0).startsWith("zmq-zstd recv: summary: messages=1 "), err);
            assertEquals("zmq-zstd recv: cannot write standard output: error=Broken pipe", lines.get(1), err);
        } finally {
            recv.destroyForcibly();
        }
    }

    /**
     * SIGTERM while recv's standard output is a full pipe nobody reads: the main thread is stuck in
     * a write, so the shutdown hook prints the summary. It counted every message received as
     * delivered ({@code messages=} the received count: here about 63 more than the pipe holds, a
     * 64 KiB output buffer of them); now {@code messages=} is the messages whose write had returned,
     * the rest {@code unwritten=}. That is no more than the whole lines in the pipe, and fewer when
     * the blocked write put some lines there before it blocked (recv flushed at a pause in the
     * stream, then filled its buffer again): recv cannot see how far a blocked write got. The
     * {@code --progress} lines while it is stuck count the same: they counted what was received
     * (128 where the pipe held 63 lines), so progress and summary disagreed.
     */
    @Test
    void shouldNotCountAsDeliveredWhatAFullPipeDidNotTakeWhileStuckOrWhenTerminated() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/wchan")), "reads /proc/PID/task/TID/wchan (Linux)");
        Path stderr = dir.resolve("recv.err");
        int sent = 1000; // lines of 1 KiB, 1 MiB: within recv's high-water mark, so send ends while recv is stuck
        Process recv = recvFedBy(("x".repeat(1024) + "\n").repeat(sent).getBytes(StandardCharsets.UTF_8), stderr, "--progress");
        try {
            InputStream stdout = recv.getInputStream(); // read by nobody until recv has ended
            // A thread of recv blocked writing to the full pipe (its capacity is 64 KiB, or a page or two
            // for a user over fs.pipe-user-pages-soft): the kernel function it waits in names it.
            long deadline = System.nanoTime() + CliProcess.PATIENCE.toNanos();
            while (!blockedInPipeWrite(recv.pid()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(blockedInPipeWrite(recv.pid()), () -> "recv never blocked on its standard output: " + read(stderr));
            // a progress line printed once stuck: nothing is written any more, so it is the final count
            long stuckAt = progressLines(read(stderr)).size();
            while (progressLines(read(stderr)).size() <= stuckAt && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(progressLines(read(stderr)).size() > stuckAt, () -> "no progress line while stuck: " + read(stderr));
            recv.toHandle().destroy(); // SIGTERM
            // not read before recv has ended: a read would let the stuck write finish
            assertTrue(recv.waitFor(CliProcess.PATIENCE.toMillis(), TimeUnit.MILLISECONDS), () -> read(stderr));
            byte[] written = stdout.readAllBytes(); // what the pipe took, still in it
            String err = read(stderr);
            assertEquals(143, recv.exitValue(), err);
            long wholeLines = new String(written, StandardCharsets.UTF_8).chars().filter(c -> c == '\n').count();
            Matcher m = Pattern.compile("summary: messages=(\\d+) .* unwritten=(\\d+) ").matcher(err);
            assertTrue(m.find(), err);
            long delivered = Long.parseLong(m.group(1));
            long unwritten = Long.parseLong(m.group(2));
            assertTrue(delivered <= wholeLines, () -> "counted as delivered more than the pipe took whole: wholeLines="
                    + wholeLines + "\n" + err);
            assertTrue(unwritten > 0 && wholeLines <= delivered + unwritten && delivered + unwritten <= sent,
                    () -> "wholeLines=" + wholeLines + "\n" + err);
            List<String> progress = progressLines(err); // the last one printed while stuck
            Matcher stuck = Pattern.compile("^zmq-zstd recv: progress: messages=(\\d+) ").matcher(progress.getLast());
            assertTrue(stuck.find(), err);
            assertEquals(delivered, Long.parseLong(stuck.group(1)), err);
            assertFalse(progress.getLast().contains("unwritten="), err); // a summary field: in a progress line they are not lost yet
        } finally {
            recv.destroyForcibly();
        }
    }

    private static List<String> progressLines(String stderr) {
        return stderr.lines().filter(l -> l.startsWith("zmq-zstd recv: progress: ")).toList();
    }

    /** Whether a thread of process {@code pid} waits in the kernel's write to a pipe (anon_pipe_write, pipe_write). */
    private static boolean blockedInPipeWrite(long pid) throws IOException {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("wchan")).contains("pipe_write")) {
                        return true;
                    }
                } catch (IOException threadEnded) {
                    // gone between the listing and the read
                }
            }
        }
        return false;
    }

    /**
     * Standard input closed when the command starts ({@code <&-}): the JVM's module image took
     * descriptor 0, so send sent it (145 MB as 944 555 messages, exit 0 to a live recv; here, with
     * no peer, exit 3 at --timeout) and train wrote a dictionary trained on it. Each now refuses in
     * one line, exit 1, before connecting or reading. The same jar redirected on purpose
     * ({@code < zmq-zstd.jar}) is still read: the JVM holds the jar at a descriptor of its own.
     */
    @Test
    void shouldRefuseAStandardInputThatWasClosedAtTheStart() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "the check reads /proc/self/fd (Linux)");
        String tcp = tcp(Ports.unused()); // nobody listens: the old send waited for a peer there
        for (String command : List.of("send --connect " + tcp + " --timeout 2s", "train --out " + dir.resolve("closed.dict"))) {
            ShellRun r = shell("exec \"$0\" -jar \"$1\" " + command + " <&-");
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            List<String> lines = r.stderr().lines().toList();
            assertEquals(1, lines.size(), r::toString);
            assertTrue(lines.getFirst().matches("zmq-zstd (send|train): cannot read standard input: error=it was closed when the"
                    + " command started \\(descriptor 0 is the JVM's own .*/lib/modules\\); .*"), r::toString);
        }
        assertFalse(Files.exists(dir.resolve("closed.dict")));

        ShellRun jar = shell("exec \"$0\" -jar \"$1\" send --whole --connect " + tcp + " --timeout 1s < \"$1\"");
        assertEquals(ExitCodes.TIMEOUT, jar.code(), jar::toString); // read and offered: nobody took it
    }

    /**
     * {@code train --out FILE < FILE}: standard input was read whole, then the file replaced by the
     * dictionary, exit 0. Refused before reading, the samples unchanged.
     */
    @Test
    void shouldNotWriteTheDictionaryOverTheFileStandardInputReads() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "the check reads /proc/self/fd (Linux)");
        byte[] text = joinLines(telemetry(3_000, 11));
        Path samples = Files.write(dir.resolve("samples.json"), text);
        ShellRun r = shell("exec \"$0\" -jar \"$1\" train --out " + samples + " --size 4K < " + samples);
        assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
        assertEquals("zmq-zstd train: cannot write dictionary: file=" + samples + ", error=it is the file standard input reads,"
                + " which the dictionary would replace; give --out another file", r.stderr().strip(), r::toString);
        assertArrayEquals(text, Files.readAllBytes(samples));
    }

    /**
     * train whose write of the dictionary fails part way (here a file size limit of 4 KiB, {@code
     * ulimit -f 8}, for a 16 KiB dictionary): it wrote in place, so it left the first 4 KiB, which
     * send and recv take for a whole dictionary (a cut inside the content cannot be told), and an
     * old dictionary there was gone. Now there is no file where there was none, and the old one is
     * unchanged; nothing else is left in the directory.
     */
    @Test
    void shouldWriteTheDictionaryWholeOrNotAtAll() throws Exception {
        Path samples = Files.write(dir.resolve("samples.json"), joinLines(telemetry(3_000, 12)));
        Path out = dir.resolve("out");
        Files.createDirectory(out);
        Path fresh = out.resolve("fresh.dict");
        Path old = Files.writeString(out.resolve("old.dict"), "the dictionary the receivers have");
        for (Path dict : List.of(fresh, old)) {
            ShellRun r = shell("ulimit -f 8 && exec \"$0\" -XX:-UsePerfData -jar \"$1\" train --out " + dict
                    + " --size 16K --lines " + samples + " " + samples);
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            assertEquals("zmq-zstd train: cannot write dictionary: file=" + dict + ", error=File too large", r.stderr().strip(),
                    r::toString);
        }
        assertFalse(Files.exists(fresh), "the start of a dictionary was left");
        assertEquals("the dictionary the receivers have", Files.readString(old));
        try (var left = Files.list(out)) {
            assertEquals(List.of(old), left.toList());
        }
    }

    /**
     * keygen --out under a file size limit of 0 ({@code ulimit -f 0}): it created FILE and could
     * write nothing into it, so an empty secret key file was left, which a second run refused as
     * "file exists". Now neither file is left.
     */
    @Test
    void shouldLeaveNoKeyFileWhoseWriteFailed() throws Exception {
        Path keys = Files.createDirectory(dir.resolve("keys"));
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        // standard error to a pipe: the limit holds for every regular file, a file for stderr too
        Process p = new ProcessBuilder("/bin/sh", "-c", "ulimit -f 0 && exec \"$0\" -XX:-UsePerfData -jar \"$1\" keygen --out \"$2\"",
                javaCommand, CliProcess.JAR.toString(), keys.resolve("server.key").toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(CliProcess.PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "keygen still running");
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8); // one line: the pipe held it
        assertEquals(ExitCodes.FAILURE, p.exitValue(), err);
        assertEquals("zmq-zstd keygen: cannot write key file: file=" + keys.resolve("server.key") + ", error=File too large",
                err.strip());
        try (var left = Files.list(keys)) {
            assertEquals(List.of(), left.toList());
        }
    }

    /** A {@code /bin/sh -c SCRIPT} run, the java command as {@code $0} and the jar as {@code $1}. */
    private record ShellRun(int code, String stderr) {
    }

    private ShellRun shell(String script) throws IOException, InterruptedException {
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        Path stderr = Files.createTempFile(dir, "stderr", ".txt");
        Process p = new ProcessBuilder("/bin/sh", "-c", script, javaCommand, CliProcess.JAR.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
        if (!p.waitFor(CliProcess.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running after " + CliProcess.PATIENCE + ": " + script + "\n" + read(stderr));
        }
        return new ShellRun(p.exitValue(), read(stderr));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /**
     * --events through the jar on both sides of a tcp stream, then SIGTERM to recv while its event
     * thread waits on the monitor: the summary and the shell's 143, as without --events, and no
     * stack trace from closing the monitor after the context was shut down.
     */
    @Test
    void shouldReportEventsOnBothSidesAndStillEndOnSigterm() {
        int port = Ports.unused();
        try (CliProcess recv = CliProcess.start("recv", "--bind", tcp(port), "--events", "--stats")) {
            CliProcess send = CliProcess.run("one\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", tcp(port), "--events");
            assertEquals(0, send.awaitExit(), send::toString);
            assertTrue(send.stderrLines().stream().anyMatch(l -> l.startsWith("zmq-zstd send: event: CONNECTED endpoint="
                    + tcp(port) + " value=")), send::toString);
            recv.awaitStdoutBytes(4);
            recv.terminate();
            assertEquals(143, recv.awaitExit(), recv::toString);
            assertEquals("one\n", recv.stdoutText());
            assertTrue(recv.stderrLines().stream().anyMatch(l -> l.startsWith("zmq-zstd recv: event: ACCEPTED endpoint="
                    + tcp(port) + " value=")), recv::toString);
            assertTrue(summary(recv).contains("messages=1 "), recv::toString);
            assertFalse(recv.stderrText().contains("Exception") || recv.stderrText().contains("\tat "), recv::toString);
        }
    }

    /**
     * proxy through the jar: a pipeline proxy forwards a send to a recv, and SIGTERM stops it
     * cleanly with exit 0 (send and recv end with 143; a proxy's signal is its normal end), after
     * its --events monitors on both sides are closed, with no stack trace; the signal handler takes
     * the --stats summary before it terminates the run, so it counts both messages.
     */
    @Test
    void shouldForwardThroughAProxyAndStopItWithExit0OnSigterm() {
        int frontend = Ports.unused();
        int backend = Ports.unused();
        try (CliProcess proxy = CliProcess.start("proxy", "--type", "pipeline", "--frontend-bind", tcp(frontend),
                "--backend-bind", tcp(backend), "--events", "--stats");
             CliProcess recv = CliProcess.start("recv", "--connect", tcp(backend), "--count", "2")) {
            CliProcess send = CliProcess.run("one\ntwo\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", tcp(frontend));
            assertEquals(0, send.awaitExit(), send::toString);
            assertEquals(0, recv.awaitExit(), recv::toString);
            assertEquals(List.of("one", "two"), recv.stdoutLines());
            proxy.awaitStderrLine(l -> l.startsWith("zmq-zstd proxy: event: ACCEPTED socket=backend endpoint=" + tcp(backend)));
            proxy.terminate();
            assertEquals(0, proxy.awaitExit(), proxy::toString);
            assertTrue(summary(proxy).startsWith("zmq-zstd proxy: summary: messagesToBackend=2 bytesToBackend="), proxy::toString);
            assertTrue(summary(proxy).contains(" messagesToFrontend=0 bytesToFrontend=0 elapsed="), proxy::toString);
            assertTrue(proxy.stderrLines().stream().allMatch(l -> l.startsWith("zmq-zstd proxy: event: ") || l.equals(summary(proxy))),
                    proxy::toString);
            assertTrue(proxy.stderrLines().stream().anyMatch(l -> l.startsWith("zmq-zstd proxy: event: ACCEPTED socket=frontend endpoint="
                    + tcp(frontend))), proxy::toString);
            assertNoWarnings(proxy);
        }
    }

    /**
     * SIGTERM through the jar to a recv, a send and a proxy bound to ipc paths: libzmq 4.3.4 leaves
     * a bind's socket file behind, and each run left its files; now they are removed, also by the
     * send whose main thread is still blocked reading a quiet standard input when the JVM exits.
     */
    @Test
    void shouldRemoveTheIpcSocketFilesItBoundWhenTerminated() {
        Path recvFile = dir.resolve("recv.sock");
        Path sendFile = dir.resolve("send.sock");
        Path front = dir.resolve("front.sock");
        Path back = dir.resolve("back.sock");
        try (CliProcess recv = CliProcess.start("recv", "--bind", "ipc://" + recvFile, "--events");
             CliProcess send = CliProcess.startInteractive("send", "--bind", "ipc://" + sendFile, "--events");
             CliProcess proxy = CliProcess.start("proxy", "--type", "pipeline", "--frontend-bind", "ipc://" + front,
                     "--backend-bind", "ipc://" + back, "--events")) {
            recv.awaitStderrLine(l -> l.startsWith("zmq-zstd recv: event: LISTENING endpoint=ipc://" + recvFile));
            send.awaitStderrLine(l -> l.startsWith("zmq-zstd send: event: LISTENING endpoint=ipc://" + sendFile));
            proxy.awaitStderrLine(l -> l.startsWith("zmq-zstd proxy: event: LISTENING socket=backend endpoint=ipc://" + back));
            assertTrue(Files.exists(front, LinkOption.NOFOLLOW_LINKS), proxy::toString);
            recv.terminate();
            send.terminate();
            proxy.terminate();
            assertEquals(143, recv.awaitExit(), recv::toString);
            assertEquals(143, send.awaitExit(), send::toString);
            assertEquals(0, proxy.awaitExit(), proxy::toString);
            for (Path file : List.of(recvFile, sendFile, front, back)) {
                assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS), "left behind: " + file);
            }
        }
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

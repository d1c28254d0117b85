package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Claims of cli/README.md and the commands' help that no other test pinned, each checked
 * in-process: defaults, the sub side of topics, recv's summary per reason, keygen's files, train's
 * empty samples, send's --delay; and that the root README's command lines parse.
 */
class DocumentedBehaviourTest {

    /** A recv on a thread of its own, its standard output captured. */
    private static CompletableFuture<Result> recv(OutputStream stdout, String... args) {
        return recv(stdout, new java.io.StringWriter(), args);
    }

    /** As {@link #recv(OutputStream, String...)}, with its err written to {@code err}, which the test may read as it runs. */
    private static CompletableFuture<Result> recv(OutputStream stdout, java.io.StringWriter err, String... args) {
        return CompletableFuture.supplyAsync(() -> InProcess.execute(
                cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout, err, prepend("recv", args)),
                task -> Thread.ofPlatform().daemon().start(task));
    }

    /** A PUSH socket bound to a free tcp loopback port, its sends waiting up to 30 s for a peer. */
    private static ZmqSocket boundPush(ZmqContext ctx) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.bind("tcp://127.0.0.1:*");
        push.sendTimeoutMs(30_000);
        return push;
    }

    /**
     * {@code recv --type sub --print-topic --count 2} (and {@code more}) connected to {@code xpub},
     * bound here, once its subscription to everything has arrived.
     */
    private static CompletableFuture<Result> subscribedPrintingTopics(ZmqSocket xpub, OutputStream stdout, String... more) {
        xpub.bind("tcp://127.0.0.1:*");
        xpub.receiveTimeoutMs(30_000);
        List<String> args = new java.util.ArrayList<>(List.of("--type", "sub", "--connect", xpub.lastEndpoint(), "--print-topic",
                "--count", "2", "--timeout", "30s"));
        args.addAll(List.of(more));
        CompletableFuture<Result> recv = recv(stdout, args.toArray(String[]::new));
        byte[] subscription = xpub.receiveBytes(0); // recv has connected and subscribed to everything
        assertArrayEquals(new byte[] {1}, subscription, () -> "no subscription: " + recv.getNow(null));
        return recv;
    }

    private static String[] prepend(String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    /** The defaults the README's tables and the help state, as the options declare them. */
    @Test
    void shouldDeclareTheDocumentedDefaults() {
        CommandLine cl = Main.commandLine();
        Map<String, Map<String, String>> documented = Map.of(
                "send", Map.of("--type", "push", "--level", "3", "--threads", "0", "--hwm", "1000", "--timeout", "forever",
                        "--linger", "forever"),
                "recv", Map.of("--type", "pull", "--hwm", "1000", "--max-size", "64M", "--timeout", "forever", "--delimiter", "\\n"),
                "proxy", Map.of("--hwm", "1000"),
                "train", Map.of("--size", "112640", "--delimiter", "\\n"));
        documented.forEach((command, defaults) -> defaults.forEach((option, value) -> assertEquals(value,
                cl.getSubcommands().get(command).getCommandSpec().findOption(option).defaultValue(), command + " " + option)));
    }

    /**
     * The help states the ranges validation enforces (CommandLineTest refuses one past each), as the
     * README does; and the top level's 130/143 is for send and recv, a proxy exits 0.
     */
    @Test
    void shouldStateTheEnforcedRangesInTheHelp() {
        CommandLine cl = Main.commandLine();
        Map<String, String> ranges = Map.of("send --hwm", "0: no limit", "recv --hwm", "0: no limit", "proxy --hwm", "0: no limit",
                "send --chunk", "1 to 1G", "send --threads", "0 to 256", "send --level", "negative (fastest) to 22",
                "train --size", "256 to 32M");
        ranges.forEach((option, text) -> {
            String[] commandAndOption = option.split(" ");
            String help = String.join(" ", cl.getSubcommands().get(commandAndOption[0]).getCommandSpec()
                    .findOption(commandAndOption[1]).description());
            assertTrue(help.contains(text), () -> option + ": " + help);
        });
        Result top = InProcess.execute(c -> { }, "--help");
        assertTrue(top.out().contains("send, recv: interrupted by SIGINT/SIGTERM") && top.out().contains("proxy: exit 0"), top::out);
    }

    /**
     * sub: a message whose only part is the topic has no compressed part (NO_PAYLOAD, one line,
     * skipped, not counted towards --count); --print-topic writes the topic and a space, an empty
     * topic too (send --type pub without --topic); the summary counts errors by reason, and bytesIn
     * only the delivered frames, bytesOut only the payloads.
     */
    @Test
    void shouldReportAOnePartMessageOnSubAsNoPayloadAndPrintEmptyTopics() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket xpub = ctx.socket(SocketType.XPUB);
             ZstdCompressor zstd = new ZstdCompressor(3)) {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            CompletableFuture<Result> recv = subscribedPrintingTopics(xpub, stdout, "--stats");
            byte[] frame = zstd.compress("payload".getBytes(StandardCharsets.US_ASCII));
            xpub.send(frame, 0);                                               // one part: the topic only
            xpub.send(new byte[0], ZmqSocket.SNDMORE);
            xpub.send(frame, 0);
            xpub.send("alerts".getBytes(StandardCharsets.US_ASCII), ZmqSocket.SNDMORE);
            xpub.send(frame, 0);
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals(" payload\nalerts payload\n", stdout.toString(StandardCharsets.US_ASCII), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(2, lines.size(), r::toString);
            assertTrue(lines.get(0).startsWith("zmq-zstd recv: bad frame: part=") && lines.get(0).contains("reason=NO_PAYLOAD"),
                    r::toString);
            assertTrue(lines.get(1).startsWith("zmq-zstd recv: summary: messages=2 bytesIn=" + 2 * frame.length
                    + " bytesOut=" + 2 * "payload".length() + " "), r::toString);
            assertTrue(lines.get(1).contains(" errors=1 NO_PAYLOAD=1 elapsed="), r::toString);
        }
    }

    /**
     * sub --print-topic writes the topic alone before the payload: a 0-byte part between payload
     * parts (which the receiver keeps as an envelope part, a REQ/REP delimiter) is no topic. It was
     * written with a space of its own, so "t", frame, "", frame came out as "t one two" with a space
     * inside the payload, where recv without --print-topic writes "onetwo".
     */
    @Test
    void shouldPrintOnlyTheTopicNotAnEmptyPartBetweenPayloadParts() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket xpub = ctx.socket(SocketType.XPUB);
             ZstdCompressor zstd = new ZstdCompressor(3)) {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            CompletableFuture<Result> recv = subscribedPrintingTopics(xpub, stdout);
            xpub.send("t".getBytes(StandardCharsets.US_ASCII), ZmqSocket.SNDMORE);
            xpub.send(zstd.compress("one".getBytes(StandardCharsets.US_ASCII)), ZmqSocket.SNDMORE);
            xpub.send(new byte[0], ZmqSocket.SNDMORE);
            xpub.send(zstd.compress("two".getBytes(StandardCharsets.US_ASCII)), 0);
            xpub.send("u".getBytes(StandardCharsets.US_ASCII), ZmqSocket.SNDMORE);
            xpub.send(new byte[0], ZmqSocket.SNDMORE);
            xpub.send(zstd.compress("three".getBytes(StandardCharsets.US_ASCII)), 0);
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals("t onetwo\nu three\n", stdout.toString(StandardCharsets.US_ASCII), r::toString);
        }
    }

    /**
     * recv's {@code --delimiter TEXT} is written as its UTF-8 bytes, a character outside the BMP
     * too: an emoji is two Java chars, which were encoded one at a time, so recv wrote "??" after
     * each message instead of the emoji.
     */
    @Test
    void shouldWriteADelimiterOutsideTheBmpAsItsUtf8Bytes() throws Exception {
        String emoji = "\uD83D\uDE00"; // U+1F600
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = boundPush(ctx); ZstdCompressor zstd = new ZstdCompressor(3)) {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            CompletableFuture<Result> recv = recv(stdout, "--connect", push.lastEndpoint(), "--delimiter", emoji + "\\n",
                    "--count", "2", "--timeout", "30s");
            assertTrue(push.send(zstd.compress("one".getBytes(StandardCharsets.US_ASCII)), 0), () -> "no recv: " + recv.getNow(null));
            assertTrue(push.send(zstd.compress("two".getBytes(StandardCharsets.US_ASCII)), 0));
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals("one" + emoji + "\ntwo" + emoji + "\n", stdout.toString(StandardCharsets.UTF_8), r::toString);
        }
    }

    /**
     * A message of several compressed parts (a program's multipart send through the pipeline) is
     * written as its parts' payloads one after another, with one delimiter after the last: a PUSH of
     * {@code abc} and {@code def} as one message gives {@code abcdef} and a newline.
     */
    @Test
    void shouldWriteThePartsOfAMultipartMessageAsOnePayloadAndOneDelimiter() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = boundPush(ctx); ZstdCompressor zstd = new ZstdCompressor(3)) {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            CompletableFuture<Result> recv = recv(stdout, "--connect", push.lastEndpoint(), "--count", "2", "--stats",
                    "--timeout", "30s");
            assertTrue(push.send(zstd.compress("abc".getBytes(StandardCharsets.US_ASCII)), ZmqSocket.SNDMORE),
                    () -> "no recv: " + recv.getNow(null));
            assertTrue(push.send(zstd.compress("def".getBytes(StandardCharsets.US_ASCII)), 0));
            assertTrue(push.send(zstd.compress("ghi".getBytes(StandardCharsets.US_ASCII)), 0));
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals("abcdef\nghi\n", stdout.toString(StandardCharsets.US_ASCII), r::toString);
            assertTrue(r.err().startsWith("zmq-zstd recv: summary: messages=2 "), r::toString);
        }
    }

    /**
     * recv's --timeout is for no message, good or bad: bad frames 0.8 s apart keep a recv with
     * {@code --timeout 2s} running well past 2 s, until the good message its --count waits for. The
     * pauses are the gaps under test; each bad frame is awaited by its line before the next pause.
     */
    @Test
    void shouldRestartTheReceiveTimeoutAtABadFrame() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = boundPush(ctx); ZstdCompressor zstd = new ZstdCompressor(3)) {
            java.io.StringWriter err = new java.io.StringWriter();
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            CompletableFuture<Result> recv = recv(stdout, err, "--connect", push.lastEndpoint(), "--count", "1", "--timeout", "2s");
            long start = System.nanoTime();
            for (int i = 1; i <= 4; i++) {
                assertTrue(push.send("not zstd".getBytes(StandardCharsets.US_ASCII), 0), () -> "no recv: " + recv.getNow(null));
                int lines = i;
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (err.toString().lines().count() < lines && !recv.isDone() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertFalse(recv.isDone(), () -> "ended at bad frame " + lines + ": " + recv.getNow(null));
                Thread.sleep(800);
            }
            assertTrue(System.nanoTime() - start > 3_000_000_000L, "the bad frames spanned more than the timeout");
            assertTrue(push.send(zstd.compress("good".getBytes(StandardCharsets.US_ASCII)), 0));
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals("good\n", stdout.toString(StandardCharsets.US_ASCII));
            assertEquals(4, r.err().lines().filter(l -> l.contains("reason=NOT_ZSTD")).count(), r::toString);
        }
    }

    /**
     * A bind that picks its own address may be repeated, each getting one of its own, which --events
     * names: two {@code ipc://*} binds of one recv listen on two paths (relative to the working
     * directory when no $TMPDIR is set), and the run goes on to its --timeout (exit 3).
     */
    @Test
    void shouldBindIpcStarTwiceToTwoFreshPaths() {
        Result r = InProcess.execute(cl -> { }, "recv", "--bind", "ipc://*", "--bind", "ipc://*", "--events", "--timeout", "200ms");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        List<String> listening = r.err().lines().filter(l -> l.startsWith("zmq-zstd recv: event: LISTENING endpoint=ipc://")).toList();
        assertEquals(2, listening.size(), r::toString);
        List<String> paths = listening.stream().map(l -> l.replaceAll(".* endpoint=ipc://(\\S+) value=.*", "$1")).distinct().toList();
        assertEquals(2, paths.size(), r::toString);
        assertTrue(r.err().contains("zmq-zstd recv: timeout: no message within 200ms (delivered=0)"), r::toString);
        for (String path : paths) {
            assertFalse(Files.exists(Path.of(path)), () -> "left behind: " + path); // the command removes what its binds made
        }
    }

    /**
     * send's --no-dict-id with a raw-content --dict changes nothing (raw content has no ID): its
     * frames are byte for byte those without it.
     */
    @Test
    void shouldMakeTheSameFramesFromRawContentWithOrWithoutNoDictId(@TempDir Path dir) throws Exception {
        Path raw = Files.writeString(dir.resolve("raw.txt"), "{\"host\":\"web-3\",\"cpu\":21}\n".repeat(20));
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.bind("tcp://127.0.0.1:*");
            pull.receiveTimeoutMs(30_000);
            byte[][] frames = new byte[2][];
            String[][] options = {{}, {"--no-dict-id"}};
            for (int i = 0; i < options.length; i++) {
                List<String> args = new ArrayList<>(List.of("send", "--connect", pull.lastEndpoint(), "--dict", raw.toString(),
                        "--raw-dict", "--timeout", "30s"));
                args.addAll(List.of(options[i]));
                Result r = InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                        = new ByteArrayInputStream("{\"host\":\"web-3\",\"cpu\":22}\n".getBytes(StandardCharsets.US_ASCII)),
                        args.toArray(String[]::new));
                assertEquals(ExitCodes.OK, r.code(), r::toString);
                assertEquals("", r.err(), r::toString);
                frames[i] = pull.receiveBytes(0);
            }
            assertArrayEquals(frames[0], frames[1]);
        }
    }

    /**
     * Standard output and standard error into one file ({@code recv > all.log 2>&1}): a bad frame's
     * line comes after the messages before it and at the start of a line. recv's 64 KiB output
     * buffer was written out whenever it filled, mid-message, and the rest of that message stayed in
     * it while the bad-frame line went straight out: 100 lines of 1000 bytes, then a bad frame, gave
     * a line that ended {@code xxxzmq-zstd recv: bad frame: ...} after 65 whole lines. The messages
     * are queued at the sender before recv binds, so that they arrive together and recv takes them
     * without a flush in between.
     */
    @Test
    void shouldWriteABadFrameLineBetweenWholeMessagesWhenStandardOutputAndErrorAreOneFile() throws Exception {
        java.io.StringWriter combined = new java.io.StringWriter();
        OutputStream stdout = new OutputStream() {
            @Override
            public void write(int b) {
                combined.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                combined.write(new String(b, off, len, StandardCharsets.ISO_8859_1));
            }
        };
        String line = "x".repeat(1000);
        int port = io.zmqzstd.testkit.Ports.unused();
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = ctx.socket(SocketType.PUSH);
             ZstdCompressor zstd = new ZstdCompressor(3)) {
            push.sendTimeoutMs(30_000);
            push.connect("tcp://127.0.0.1:" + port); // queues until recv binds (not ZMQ_IMMEDIATE)
            byte[] frame = zstd.compress(line.getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 100; i++) {
                assertTrue(push.send(frame, 0));
            }
            assertTrue(push.send("not zstd".getBytes(StandardCharsets.US_ASCII), 0));
            assertTrue(push.send(zstd.compress("last".getBytes(StandardCharsets.US_ASCII)), 0));
            Result r = InProcess.execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                    combined, "recv", "--bind", "tcp://127.0.0.1:" + port, "--count", "101", "--timeout", "30s");
            assertEquals(ExitCodes.OK, r.code(), combined::toString);
            List<String> lines = combined.toString().lines().toList();
            assertEquals(102, lines.size(), combined::toString);
            assertEquals(List.of(line), lines.subList(0, 100).stream().distinct().toList(), combined::toString);
            assertTrue(lines.get(100).startsWith("zmq-zstd recv: bad frame: part=0, reason=NOT_ZSTD"), combined::toString);
            assertEquals("last", lines.get(101), combined::toString);
        }
    }

    /**
     * Standard output that fails part-way through a message: the summary counts as delivered only the
     * messages written whole, and the others as {@code unwritten=} (it counted every message received,
     * so {@code recv | head -1} said messages=2 of a message that never reached the reader). A 200 KiB
     * message is written in pieces of the 64 KiB buffer: the first piece goes out, the second fails.
     */
    @Test
    void shouldNotCountAMessageWhoseWriteFailedAsDelivered() throws Exception {
        CompletableFuture<Void> firstWritten = new CompletableFuture<>();
        long budgetBytes = "one\n".length() + 64 * 1024;
        OutputStream failsPastBudget = new OutputStream() {
            private long taken;

            @Override
            public void write(int b) throws java.io.IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                if (taken + len > budgetBytes) {
                    throw new java.io.IOException("Broken pipe");
                }
                taken += len;
                firstWritten.complete(null);
            }
        };
        byte[] large = new byte[200 * 1024];
        new java.util.Random(5).nextBytes(large);
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = boundPush(ctx); ZstdCompressor zstd = new ZstdCompressor(3)) {
            CompletableFuture<Result> recv = recv(failsPastBudget, "--connect", push.lastEndpoint(), "--stats", "--timeout", "30s");
            byte[] one = zstd.compress("one".getBytes(StandardCharsets.US_ASCII));
            byte[] two = zstd.compress(large);
            assertTrue(push.send(one, 0), () -> "recv did not connect: " + recv.getNow(null));
            firstWritten.get(30, TimeUnit.SECONDS); // written alone: recv flushes when nothing else is waiting
            assertTrue(push.send(two, 0));
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(2, lines.size(), r::toString);
            assertTrue(lines.get(0).startsWith("zmq-zstd recv: summary: messages=1 bytesIn=" + (one.length + two.length)
                    + " bytesOut=" + (3 + large.length) + " "), r::toString);
            assertTrue(lines.get(0).contains(" errors=0 unwritten=1 elapsed="), r::toString);
            assertEquals("zmq-zstd recv: cannot write standard output: error=Broken pipe", lines.get(1), r::toString);
        }
    }

    /**
     * The frames send makes, as a plain PULL socket receives them: a standard frame with its
     * content size; --checksum sets the header's checksum flag; a --raw-dict file gives frames
     * without a dictionary ID and with a checksum (the README said only the first), a trained
     * dictionary frames with an ID and without one, and with --no-dict-id without the ID, exactly
     * the ID field shorter.
     */
    @Test
    void shouldMakeFramesWithTheDocumentedHeaderFields(@TempDir Path dir) throws Exception {
        Path raw = Files.writeString(dir.resolve("raw.txt"), "not a dictionary, only raw content\n".repeat(50));
        Path trained = dir.resolve("trained.dict");
        StringBuilder samples = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            samples.append("{\"host\":\"web-").append(i % 17).append("\",\"cpu\":").append(i * 7 % 100).append("}\n");
        }
        assertEquals(ExitCodes.OK, train(samples.toString(), "--out", trained.toString(), "--size", "1K").code());
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.bind("tcp://127.0.0.1:*");
            pull.receiveTimeoutMs(30_000);
            String[][] options = {{}, {"--checksum"}, {"--dict", raw.toString(), "--raw-dict"}, {"--dict", trained.toString()},
                {"--dict", trained.toString(), "--no-dict-id"}};
            int[] checksumFlag = {0, 1, 1, 0, 0}; // a raw-content dictionary's frames always carry one
            boolean[] dictionaryId = {false, false, false, true, false};
            int[] lengths = new int[options.length];
            for (int i = 0; i < options.length; i++) {
                List<String> args = new java.util.ArrayList<>(List.of("send", "--connect", pull.lastEndpoint(), "--timeout", "30s"));
                args.addAll(List.of(options[i]));
                Result r = InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                        = new ByteArrayInputStream("{\"host\":\"web-3\",\"cpu\":21}\n".getBytes(StandardCharsets.US_ASCII)),
                        args.toArray(String[]::new));
                assertEquals(ExitCodes.OK, r.code(), r::toString);
                byte[] frame = pull.receiveBytes(0);
                String what = args + ": " + java.util.HexFormat.of().formatHex(frame);
                assertArrayEquals(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD}, java.util.Arrays.copyOf(frame, 4), what);
                int descriptor = frame[4] & 0xFF;
                assertTrue((descriptor >> 6) != 0 || (descriptor & 0x20) != 0, () -> "no content size: " + what);
                assertEquals(checksumFlag[i], (descriptor >> 2) & 1, () -> "checksum flag: " + what);
                assertEquals(dictionaryId[i], (descriptor & 3) != 0, () -> "dictionary ID: " + what);
                lengths[i] = frame.length;
            }
            // --no-dict-id: the same frame less the ID field (4 bytes for an ID of 65536 or more)
            int id = io.zmqzstd.codec.ZstdDictionary.load(trained).id();
            assertEquals(Integer.compareUnsigned(id, 65536) >= 0 ? 4 : 2, lengths[3] - lengths[4]);
        }
    }

    /** recv's --max-size is 64M by default: a frame declaring one byte more is refused from its header, 64 MiB passes. */
    @Test
    void shouldRefuseFramesOver64MiBByDefault() throws Exception {
        int limit = 64 << 20;
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = boundPush(ctx); ZstdCompressor zstd = new ZstdCompressor(1)) {
            long[] written = {0};
            OutputStream counting = new OutputStream() {
                @Override
                public void write(int b) {
                    written[0]++;
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    written[0] += len;
                }
            };
            CompletableFuture<Result> recv = recv(counting, "--connect", push.lastEndpoint(), "--count", "1", "--timeout", "30s");
            assertTrue(push.send(zstd.compress(new byte[limit + 1]), 0), () -> "recv did not connect: " + recv.getNow(null));
            assertTrue(push.send(zstd.compress(new byte[limit]), 0));
            Result r = recv.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertEquals(1, r.err().lines().count(), r::toString);
            assertTrue(r.err().contains("reason=TOO_LARGE"), r::toString);
            assertEquals(limit + 1, written[0], "64 MiB and the newline");
        }
    }

    /**
     * keygen --out FILE: FILE created rw------- with both halves (a matching pair), FILE.pub with
     * the public half, and the public key printed.
     */
    @Test
    void shouldWriteTheSecretKeyForTheOwnerOnlyAndPrintThePublicKey(@TempDir Path dir) throws Exception {
        assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        Path out = dir.resolve("server.key");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        Result r;
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.US_ASCII));
            r = InProcess.execute(cl -> { }, "keygen", "--out", out.toString());
        } finally {
            System.setOut(saved);
        }
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals("", r.err(), r::toString);
        String publicKey = printed.toString(StandardCharsets.US_ASCII).strip();
        assertEquals(Curve.Z85_KEY_CHARS, publicKey.length(), publicKey);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
        assertEquals("public=" + publicKey + "\n", Files.readString(dir.resolve("server.key.pub")));
        CurveOptions.Keys pair = CurveOptions.parse(Files.readString(out));
        assertEquals(publicKey, new String(pair.publicKey()));
        assertEquals(publicKey, Curve.publicKey(new String(pair.secretKey())));
    }

    /** train skips empty samples: blank lines between the samples count for nothing, and only blank lines are no samples. */
    @Test
    void shouldSkipEmptySamples(@TempDir Path dir) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            text.append("{\"host\":\"web-").append(i % 17).append("\",\"cpu\":").append(i * 7 % 100).append("}\n\n");
        }
        String out = dir.resolve("x.dict").toString();
        Result r = train(text.toString(), "--out", out, "--size", "1K");
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertTrue(r.err().contains(", samples=2000, "), r::toString);

        r = train("\n\n\n", "--out", dir.resolve("y.dict").toString());
        assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
        assertEquals("zmq-zstd train: no samples: standard input was empty (empty samples, such as blank lines, are skipped)\n",
                r.err(), r::toString);
        assertTrue(Files.notExists(dir.resolve("y.dict")));
    }

    private static Result train(String stdin, String... args) {
        return InProcess.execute(cl -> ((TrainCommand) cl.getSubcommands().get("train").getCommand()).stdin
                = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.US_ASCII)), prepend("train", args));
    }

    /**
     * The longest --topic recv takes, 64 KiB of UTF-8, is delivered; one byte more is a usage error
     * of send. It was sent (exit 0), and every recv refused every message as TOO_LARGE.
     */
    @Test
    void shouldSendATopicUpToWhatRecvTakesAndRefuseALongerOne() throws Exception {
        String longest = "x".repeat(64 * 1024);
        String endpoint = "tcp://127.0.0.1:" + io.zmqzstd.testkit.Ports.unused();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        CompletableFuture<Result> recv = recv(stdout, "--type", "sub", "--bind", endpoint, "--print-topic", "--count", "1",
                "--timeout", "30s");
        Consumer<CommandLine> stdin = cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = new ByteArrayInputStream("payload\n".getBytes(StandardCharsets.US_ASCII));
        Result send = InProcess.execute(stdin, "send", "--type", "pub", "--connect", endpoint, "--topic", longest,
                "--wait-subscribers", "1", "--timeout", "30s");
        assertEquals(ExitCodes.OK, send.code(), send::toString);
        Result r = recv.get(60, TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals(longest + " payload\n", stdout.toString(StandardCharsets.US_ASCII));

        String oneByteMore = "\u00e9".repeat(32 * 1024) + "x"; // 32 769 characters, 65 537 bytes of UTF-8
        send = InProcess.execute(stdin, "send", "--type", "pub", "--connect", endpoint, "--topic", oneByteMore,
                "--wait-subscribers", "1", "--timeout", "1s");
        assertEquals(ExitCodes.USAGE, send.code(), send::toString);
        assertEquals(1, send.err().lines().count(), send::toString);
        assertTrue(send.err().startsWith("zmq-zstd send: --topic longer than recv takes: bytes=65537, limit=65536 "), send::toString);
    }

    /** send --delay: it waits that long after binding before the first message (here PUB, which waits for nothing else). */
    @Test
    void shouldWaitTheDelayBeforeTheFirstMessage() {
        Consumer<CommandLine> stdin = cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = new ByteArrayInputStream("x\n".getBytes(StandardCharsets.US_ASCII));
        long start = System.nanoTime();
        Result r = InProcess.execute(stdin, "send", "--type", "pub", "--bind", "tcp://127.0.0.1:*", "--delay", "400ms");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertTrue(elapsedMs >= 400, () -> "--delay 400ms, done after " + elapsedMs + " ms");
    }

    /**
     * Every command line of the root README's shell block is one the tool takes: each option
     * exists for its command and each value converts (endpoints, sizes, levels, durations), so a
     * renamed or removed option fails here. Parsed only, nothing run.
     */
    @Test
    void shouldParseEveryCommandOfTheRootReadme() throws Exception {
        String jar = "java -jar cli/target/zmq-zstd.jar ";
        List<String> commands = Files.readAllLines(Path.of("../README.md"), StandardCharsets.UTF_8).stream()
                .filter(line -> line.startsWith(jar))
                .toList();
        assertTrue(commands.size() >= 6, () -> "the root README's commands were not found: " + commands);
        for (String command : commands) {
            String[] args = shellWords(command.substring(jar.length())).toArray(String[]::new);
            try {
                Main.commandLine().parseArgs(args);
            } catch (CommandLine.ParameterException e) {
                fail(command + "\n" + e.getMessage());
            }
        }
    }

    /** The words of a shell command up to its first redirection, pipe or comment, quotes removed. */
    private static List<String> shellWords(String command) {
        List<String> words = new ArrayList<>();
        Matcher word = Pattern.compile("'([^']*)'|(\\S+)").matcher(command);
        while (word.find() && (word.group(2) == null || !word.group(2).matches("[<>|#].*"))) {
            words.add(word.group(1) != null ? word.group(1) : word.group(2));
        }
        return words;
    }
}

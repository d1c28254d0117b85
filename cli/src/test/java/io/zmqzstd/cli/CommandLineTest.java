package io.zmqzstd.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Option parsing and validation, in-process (the same code the jar runs; {@code CliProcessIT}
 * checks a few of these through real processes).
 */
class CommandLineTest {

    private static Result run(String... args) {
        return run(new byte[0], args);
    }

    /** As {@link #run(String...)}, with {@code stdin} as send's standard input (never the test JVM's own). */
    private static Result run(byte[] stdin, String... args) {
        return run(send -> send.stdin = new java.io.ByteArrayInputStream(stdin), args);
    }

    /** As {@link #run(String...)}, with send set up by {@code sendSetup} (its stdin must be set there). */
    private static Result run(java.util.function.Consumer<SendCommand> sendSetup, String... args) {
        return execute(cl -> sendSetup.accept((SendCommand) cl.getSubcommands().get("send").getCommand()), args);
    }

    /** As {@link #run(String...)}, with {@code stdin} as train's standard input. */
    private static Result train(byte[] stdin, String... args) {
        return execute(cl -> ((TrainCommand) cl.getSubcommands().get("train").getCommand()).stdin
                = new java.io.ByteArrayInputStream(stdin), args);
    }

    private static Result execute(java.util.function.Consumer<CommandLine> setup, String... args) {
        return InProcess.execute(setup, args);
    }

    @Test
    void shouldNameTheLoadedLibraryVersionsInVersion() {
        Result r = run("--version");
        assertEquals(0, r.code(), r::err);
        List<String> lines = r.out().lines().toList();
        assertEquals(3, lines.size(), r::out);
        assertTrue(lines.get(0).startsWith("zmq-zstd "), r::out);
        assertTrue(lines.get(1).matches("libzstd 1\\.\\d+\\.\\d+ \\(/.*/libzstd[^/]*\\)"), r::out);
        assertTrue(lines.get(2).matches("libzmq 4\\.\\d+\\.\\d+ \\(/.*/libzmq[^/]*\\)"), r::out);
        assertEquals("libzstd " + io.zmqzstd.codec.Zstd.versionString() + " ("
                + io.zmqzstd.nativelib.NativeLibrary.ZSTD.file().orElseThrow() + ")", lines.get(1));
    }

    /** Every command's help offers -V, --version: it printed nothing (exit 0) below the top level. */
    @Test
    void shouldPrintTheSameVersionFromEveryCommand() {
        String top = run("--version").out();
        for (String command : List.of("send", "recv", "proxy", "train", "keygen")) {
            Result r = run(command, "--version");
            assertEquals(0, r.code(), r::toString);
            assertEquals(top, r.out(), command);
        }
    }

    @Test
    void shouldRejectEveryUsageErrorWithOneLineAndExit2() {
        String[][] wrong = {
                {"send", "--connect", "tcp://127.0.0.1:1", "--bogus"},
                {"send", "--connect", "tcp://localhost"},
                {"send", "--connect", "localhost:5555"},
                {"send", "--connect", "tcp://host:70000"},
                {"send"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--type", "router"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--topic", "x"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--type", "pub", "--wait-subscribers", "-1"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--chunk", "1K", "--whole"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--chunk", "0"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--chunk", "1073741825"}, // 1G + 1
                {"send", "--connect", "tcp://127.0.0.1:1", "--hwm", "-1"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--delimiter", "ab"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--level", "23"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--level", "high"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--threads", "-1"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--threads", "257"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--delay", "forever"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--timeout", "soon"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--count", "x"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--count", "0"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--max-size", "lots"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--hwm", "-1"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--subscribe", "t"},
                {"recv", "--bind", "tcp://127.0.0.1:1", "--type", "push"},
                {"recv", "--bind", "tcp://no-such-interface-zz:5555"},
                {"recv", "--connect", "tcp://127.0.0.1:1", "--curve-server", "--curve-server-key", "x"},
                {"recv", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", "short"},
                {"recv", "--connect", "tcp://127.0.0.1:1", "--curve-server"},
                {"recv", "--connect", "tcp://127.0.0.1:1", "--curve-server", "--curve-secret-key-file", "/no/such/file"},
                {"train"},
                {"train", "--out", "/tmp/x.dict", "--size", "10"},
                {"train", "--out", "/tmp/x.dict", "--size", "33554433"}, // 32M + 1
                {"keygen", "--bogus"},
                {"frobnicate"},
        };
        for (String[] args : wrong) {
            Result r = run(args);
            String what = String.join(" ", args) + " -> " + r;
            assertEquals(ExitCodes.USAGE, r.code(), what);
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), what);
            assertTrue(lines.getFirst().startsWith("zmq-zstd"), what);
            assertTrue(lines.getFirst().contains("--help"), what);
            assertFalse(lines.getFirst().contains("Exception"), what);
            assertEquals("", r.out(), what);
        }
    }

    @Test
    void shouldDocumentEveryCommandAndItsExitCodes() {
        for (String command : List.of("send", "recv", "proxy", "train", "keygen")) {
            Result r = run(command, "--help");
            assertEquals(0, r.code(), command);
            assertTrue(r.out().startsWith("Usage: zmq-zstd " + command), r.out());
            assertTrue(r.out().contains("Exit codes:"), r.out());
            assertTrue(r.out().contains("  2 "), r.out());
        }
        Result top = run("--help");
        assertEquals(0, top.code());
        for (String command : List.of("send", "recv", "proxy", "train", "keygen")) {
            assertTrue(top.out().contains("  " + command + " "), top.out());
        }
        // picocli wraps each description line as a paragraph of its own, and the command list shows
        // the first: a sentence cut over two lines read "... without decompressing them: every frame"
        CommandLine cl = Main.commandLine();
        for (String command : List.of("send", "recv", "proxy", "train", "keygen")) {
            for (String line : cl.getSubcommands().get(command).getCommandSpec().usageMessage().description()) {
                assertTrue(line.isEmpty() || line.endsWith("."), () -> command + ": " + line);
            }
        }
    }

    @Test
    void shouldExplainAMissingCommandOnStderr() {
        Result r = run();
        assertEquals(ExitCodes.USAGE, r.code());
        assertTrue(r.err().contains("Usage: zmq-zstd"), r.err());
    }

    @Test
    void shouldNameADamagedDictionaryAndDictionariesThatShareAnId(@TempDir Path dir) throws Exception {
        List<byte[]> samples = new java.util.ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            samples.add(("{\"host\":\"web-" + (i % 17) + "\",\"cpu\":" + (i * 7 % 100) + ",\"event\":\"tick\"}")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        Path good = dir.resolve("good.dict");
        ZstdDictionary.train(samples, 4096).save(good);
        Path damaged = dir.resolve("damaged.dict");
        Files.write(damaged, Arrays.copyOf(Files.readAllBytes(good), 100)); // magic and ID, tables cut off
        Path copy = dir.resolve("copy.dict");
        Files.copy(good, copy);

        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", damaged.toString(), "--timeout", "1s");
        String what = r.toString();
        assertEquals(ExitCodes.FAILURE, r.code(), what);
        assertEquals(1, r.err().lines().count(), what);
        assertTrue(r.err().contains("cannot read dictionary: file=" + damaged), what);
        assertTrue(r.err().contains("zstd dictionary cut short or damaged: id="), what);
        assertFalse(r.err().contains("internal error") || r.err().contains("Exception"), what);

        r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", good.toString(), "--dict", copy.toString(),
                "--timeout", "1s");
        what = r.toString();
        assertOneLine(r, ExitCodes.USAGE, what, "--dict " + copy + " has the same dictionary ID as --dict " + good);
    }

    @Test
    void shouldRefuseAFileThatIsNotADictionaryUnlessRawIsAsked(@TempDir Path dir) throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "not a dictionary, but zstd would take any bytes as raw content\n".repeat(50));
        for (String[] args : new String[][] {
                {"recv", "--bind", "tcp://127.0.0.1:*", "--dict", text.toString(), "--timeout", "1s"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--dict", text.toString(), "--timeout", "1s"}}) {
            Result r = run(args);
            String what = r.toString();
            assertEquals(ExitCodes.FAILURE, r.code(), what);
            assertEquals(1, r.err().lines().count(), what);
            assertTrue(r.err().contains("not a zstd dictionary: file=" + text), what);
            assertTrue(r.err().contains("--raw-dict"), what);
        }
        // The magic and less than an ID after it: said to be cut short, not said to lack the magic.
        Path cut = dir.resolve("cut.dict");
        Files.write(cut, new byte[] {0x37, (byte) 0xA4, 0x30, (byte) 0xEC, 1, 2});
        Result cutOff = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", cut.toString(), "--timeout", "1s");
        assertOneLine(cutOff, ExitCodes.FAILURE, cutOff.toString(), "starts with the dictionary magic but is 6 bytes long");
        // Asked for, the file is accepted: recv starts and waits for messages until its timeout.
        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", text.toString(), "--raw-dict", "--timeout", "1s");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r.toString());
        assertFalse(r.err().contains("dictionary"), r.toString());
        // Two raw files: frames without an ID can use one; it said they had "the same dictionary ID ...: id=0".
        Path other = Files.writeString(dir.resolve("other.txt"), "more raw content\n".repeat(50));
        r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", text.toString(), "--dict", other.toString(), "--raw-dict",
                "--timeout", "1s");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd recv: --dict " + other + " and --dict " + text
                + " are both raw content (--raw-dict): frames without a dictionary ID can use only one");
    }

    /**
     * A --dict FILE far larger than any dictionary (a wrong file: an image, a log, /dev/zero) was
     * read whole into the heap: above 2 GiB an OutOfMemoryError and a stack trace, exit 1. Refused
     * in one line above zstd's own limit (its CLI's DICTSIZE_MAX, 32 MiB), and read no further.
     */
    @Test
    void shouldRefuseADictionaryFileLargerThanZstdTakes(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("disk.img");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength((32L << 20) + 1); // sparse
        }
        for (String[] args : new String[][] {
                {"recv", "--bind", "tcp://127.0.0.1:*", "--dict", big.toString(), "--timeout", "1s"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--dict", big.toString(), "--raw-dict", "--timeout", "1s"}}) {
            Result r = run(args);
            assertOneLine(r, ExitCodes.FAILURE, r.toString(), "cannot read dictionary: file=" + big,
                    "error=larger than a zstd dictionary may be: limit=33554432 bytes");
        }
        Result r = run("train", "--out", dir.resolve("x.dict").toString(), "--size", "33M");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "--size out of range: bytes=34603008, range=256..33554432");
    }

    /**
     * train FILE reads each file whole as one sample: one over the largest Java array (here a
     * 3 GiB sparse file, taken in by mistake) threw OutOfMemoryError out of the command, a stack
     * trace instead of a line.
     */
    @Test
    void shouldNameASampleFileTooLargeForTheHeap(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("disk.img");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(3L << 30); // sparse
        }
        Result r = run("train", "--out", dir.resolve("x.dict").toString(), big.toString());
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "cannot read sample file: file=" + big,
                "error=does not fit in the Java heap", "--lines");
        assertFalse(r.err().contains("Exception") || r.err().contains("Error:"), r::toString);
    }

    /** A --subscribe topic longer than the transport takes is a usage error naming its length, before anything binds. */
    @Test
    void shouldRefuseASubscriptionLongerThanTheTransportTakes() {
        Result r = run("recv", "--type", "sub", "--bind", "tcp://127.0.0.1:*", "--subscribe", "t".repeat(4097), "--timeout", "1s");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "--subscribe topic longer than a subscription may be: bytes=4097,"
                + " limit=4096");
    }

    /**
     * A transport the socket type cannot use (udp:// is for RADIO/DISH; libzmq says
     * ENOCOMPATPROTO) is a wrong endpoint, as EINVAL is: exit 2, not a runtime failure.
     */
    @Test
    void shouldRefuseATransportTheSocketTypeCannotUseAsAUsageError() {
        for (String[] args : new String[][] {
                {"send", "--connect", "udp://127.0.0.1:5555", "--timeout", "1s"},
                {"recv", "--bind", "udp://127.0.0.1:5555", "--timeout", "1s"}}) {
            Result r = run("x\n".getBytes(StandardCharsets.UTF_8), args);
            String what = String.join(" ", args) + " -> " + r;
            assertOneLine(r, ExitCodes.USAGE, what, "endpoint=udp://127.0.0.1:5555",
                    ", errno=156384764 (ENOCOMPATPROTO), error=The protocol is not compatible with the socket type");
            assertFalse(r.err().contains("failed: errno="), what); // the transport's text once, not whole again
        }
    }

    /**
     * A ws port outside 0 to 65535, which the transport refuses (libzmq would read another port):
     * until 2026-11-27 that IllegalArgumentException reached the command as an "internal error" with
     * a stack trace, exit 1, for send, recv and a proxy side; now one line, exit 2, as for a tcp port.
     */
    @Test
    void shouldRefuseAWsPortOutsideItsRangeAsAUsageError() {
        for (String[] args : new String[][] {
                {"send", "--connect", "ws://127.0.0.1:99999", "--timeout", "1s"},
                {"recv", "--bind", "ws://127.0.0.1:99999", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "ws://127.0.0.1:99999", "--backend-bind", "tcp://127.0.0.1:*"}}) {
            Result r = run("x\n".getBytes(StandardCharsets.UTF_8), args);
            String what = String.join(" ", args) + " -> " + r;
            assertOneLine(r, ExitCodes.USAGE, what, "endpoint=ws://127.0.0.1:99999",
                    "error=port must be * or a number from 0 to 65535: port=99999");
            assertFalse(r.err().contains("internal error"), what);
        }
    }

    /**
     * libzmq accepts tcp://host:0 for connect and fails in the background, retrying for ever:
     * without a check the command waited for a peer that cannot exist (exit 3 with --timeout).
     */
    @Test
    void shouldRefuseToConnectToPortZero() {
        for (String[] args : new String[][] {
                {"send", "--connect", "tcp://127.0.0.1:0", "--timeout", "1s"},
                {"recv", "--connect", "tcp://127.0.0.1:0", "--timeout", "1s"}}) {
            Result r = run("x\n".getBytes(StandardCharsets.UTF_8), args);
            String what = String.join(" ", args) + " -> " + r;
            assertOneLine(r, ExitCodes.USAGE, what, "--connect", "tcp://127.0.0.1:0", "port 0");
        }
    }

    /**
     * Port {@code *} is "any free port" as 0 is, for a bind only: a tcp connect to it came back from
     * libzmq as "cannot connect: …, errno=22, error=Invalid argument", which names neither the port
     * nor --bind, and ws was not checked at all (port * the same, port 0 the transport's advice to
     * ask a bind's lastEndpoint(), a method the user has no hold of). Each is the line port 0 gets,
     * before anything starts, a proxy side too.
     */
    @Test
    void shouldRefuseToConnectToAnyPortOverTcpAndWs() {
        String[][] cases = {
                {"send", "--connect", "tcp://127.0.0.1:*", "--timeout", "1s"},
                {"recv", "--connect", "tcp://127.0.0.1:*", "--timeout", "1s"},
                {"send", "--connect", "tcp://127.0.0.1:0;127.0.0.1:*", "--timeout", "1s"},
                {"send", "--connect", "ws://127.0.0.1:*/feed", "--timeout", "1s"},
                {"recv", "--connect", "ws://127.0.0.1:0", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", "ws://127.0.0.1:*"}};
        for (String[] args : cases) {
            String endpoint = args[Arrays.asList(args).indexOf(args[0].equals("proxy") ? "--backend-connect" : "--connect") + 1];
            String port = endpoint.contains(":*") ? "*" : "0";
            assertEachUsageErrorBeforeRunning(new String[][] {args}, "connect cannot reach port " + port + ": endpoint=" + endpoint,
                    "only for --" + (args[0].equals("proxy") ? "backend-" : "") + "bind");
        }
    }

    /**
     * Host {@code *} is every interface, for a bind only: a connect to it came back from libzmq as
     * "cannot connect: …, errno=22, error=Invalid argument", which named neither the host nor
     * --bind. Now a usage error that says so and offers an address, for tcp (with a source too) and
     * ws, a proxy side too.
     */
    @Test
    void shouldRefuseToConnectToEveryInterface() {
        String[][] cases = {
                {"send", "--connect", "tcp://*:5555", "--timeout", "1s"},
                {"recv", "--connect", "ws://*:5555/feed", "--timeout", "1s"},
                {"send", "--connect", "tcp://127.0.0.1:0;*:5555", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-connect", "tcp://*:5555", "--backend-bind", "tcp://127.0.0.1:*"}};
        String[] expected = {"e.g. tcp://127.0.0.1:5555)", "e.g. ws://127.0.0.1:5555/feed)", "e.g. tcp://127.0.0.1:0;127.0.0.1:5555)",
                "e.g. tcp://127.0.0.1:5555)"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = cases[i];
            String option = args[0].equals("proxy") ? "--frontend-" : "--";
            String endpoint = args[Arrays.asList(args).indexOf(option + "connect") + 1];
            assertEachUsageErrorBeforeRunning(new String[][] {args}, option + "connect needs a host to reach: endpoint=" + endpoint,
                    "only for " + option + "bind", expected[i]);
        }
    }

    /**
     * {@code ipc://*} is a fresh path for a bind; libzmq takes it for a connect too, as a socket file
     * named '*' in the working directory, so a send or recv connected to it (copied from a bind's
     * endpoint) waited for a peer that was not there: exit 3 with --timeout, for ever without. Now a
     * usage error naming the option, as port 0 is; a proxy side too.
     */
    @Test
    void shouldRefuseToConnectToIpcStar() {
        assertEachUsageErrorBeforeRunning(new String[][] {
                {"send", "--connect", "ipc://*", "--timeout", "1s"},
                {"recv", "--connect", "ipc://*", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", "ipc://*"}},
                "connect cannot reach ipc://*", "ipc://./*");
    }

    /**
     * A tipc address libzmq 4.3.4 cannot read ({@code tipc://1000}, a reserved service type, a range
     * whose lower end is above its upper) failed with "Resource temporarily unavailable" (EAGAIN,
     * exit 1): libzmq refuses it without setting errno. Now a usage error naming the forms it takes;
     * a proxy side too. So are {@code tipc://<*>} to connect and a port identity to bind (libzmq's
     * "Invalid argument").
     */
    @Test
    void shouldRefuseATipcAddressLibzmqCannotReadNamingTheForms() {
        assertEachUsageErrorBeforeRunning(new String[][] {
                {"recv", "--bind", "tipc://1000", "--timeout", "1s"},
                {"recv", "--connect", "tipc://1000", "--timeout", "1s"},
                {"send", "--connect", "tipc://{63,0,0}", "--timeout", "1s"},
                {"send", "--bind", "tipc://{5560,5,1}", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-bind", "tipc://{5560,1}@1.2"}},
                "malformed tipc endpoint", "tipc://{TYPE,INSTANCE}", "tipc://<*>");
        assertEachUsageErrorBeforeRunning(new String[][] {{"recv", "--connect", "tipc://<*>", "--timeout", "1s"}},
                "--connect cannot reach tipc://<*>", "only for --bind");
        assertEachUsageErrorBeforeRunning(new String[][] {{"recv", "--bind", "tipc://<1.2.3:4>", "--timeout", "1s"}},
                "--bind cannot take a port identity: endpoint=tipc://<1.2.3:4>");
    }

    /**
     * A transport this libzmq was built without said only "Protocol not supported" (vmci with
     * Debian's libzmq 4.3.4; wss, which zmq_has does not report): now the line says this libzmq
     * has no such transport and names those it has, as zmq_has reports them.
     */
    @Test
    void shouldNameTheTransportsThisLibzmqHasForOneItLacks() {
        assumeTrue(!ZmqContext.has("vmci") && ZmqContext.has("ipc"), "needs a libzmq with ipc and without vmci");
        assertEachUsageErrorBeforeRunning(new String[][] {
                {"send", "--connect", "vmci://1:5555", "--timeout", "1s"},
                {"recv", "--bind", "vmci://1:5555", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", "vmci://1:5555"}},
                "cannot use endpoint=vmci://1:5555: this libzmq has no vmci transport (zmq_has(\"vmci\") is 0); it has tcp, ipc");
        Result r = run("recv", "--connect", "wss://127.0.0.1:5555", "--timeout", "200ms");
        if (r.err().contains("Protocol not supported")) {
            assertOneLine(r, ExitCodes.USAGE, r.toString(), "this libzmq has no wss transport", "it has tcp, ipc");
        }
    }

    /**
     * pgm, epgm and norm carry only pub and sub sockets, udp only RADIO and DISH: libzmq's "The
     * protocol is not compatible with the socket type" named neither; now the line says which.
     */
    @Test
    void shouldSayWhichSocketsAMulticastOrUdpTransportCarries() {
        assumeTrue(ZmqContext.has("pgm") && ZmqContext.has("norm"), "needs a libzmq with pgm and norm");
        assertEachUsageErrorBeforeRunning(new String[][] {
                {"recv", "--connect", "epgm://lo;239.192.1.1:5555", "--timeout", "1s"},
                {"send", "--bind", "norm://1,127.0.0.1:5555", "--timeout", "1s"}},
                "is multicast, for pub and sub sockets only: send --type pub, recv --type sub");
        assertEachUsageErrorBeforeRunning(new String[][] {{"recv", "--bind", "udp://127.0.0.1:5555", "--timeout", "1s"}},
                "udp carries only RADIO, DISH and DGRAM sockets");
    }

    /**
     * tipc on a kernel that has not loaded it: a bind failed with "Address family not supported by
     * protocol" alone, and a connect retried in the background without a word until --timeout. Now
     * both name the missing module.
     */
    @Test
    void shouldSayWhenTheKernelHasNotLoadedTipc() throws IOException {
        assumeTrue(ZmqContext.has("tipc"), "needs a libzmq with tipc");
        assumeTrue(Files.readAllLines(Path.of("/proc/net/protocols")).stream().noneMatch(l -> l.startsWith("TIPC")),
                "needs a kernel without TIPC loaded");
        Result bind = run("recv", "--bind", "tipc://{5560,0,0}", "--timeout", "200ms");
        assertOneLine(bind, ExitCodes.FAILURE, bind.toString(), "cannot bind: endpoint=tipc://{5560,0,0}",
                "this kernel has not loaded TIPC", "modprobe tipc");
        Result connect = run("recv", "--connect", "tipc://{5560,0,0}", "--timeout", "200ms");
        assertEquals(ExitCodes.TIMEOUT, connect.code(), connect::toString);
        assertTrue(connect.err().contains("warning: endpoint=tipc://{5560,0,0}: this kernel has not loaded TIPC"),
                connect::toString);
    }

    /**
     * inproc:// reaches only sockets of the same libzmq context, and each command is a process of
     * its own with one socket (the proxy's two sides may not share an endpoint): such a send or recv
     * waited for a peer that cannot exist (exit 3 with --timeout, for ever without), and so did a
     * proxy. Refused before anything starts, naming the transports that do reach another process.
     */
    @Test
    void shouldRefuseInprocEndpointsThatNoOtherProcessCanReach() {
        assertEachUsageErrorBeforeRunning(new String[][] {
                {"send", "--connect", "inproc://feed", "--timeout", "1s"},
                {"send", "--bind", "inproc://feed", "--timeout", "1s"},
                {"recv", "--connect", "inproc://feed", "--timeout", "1s"},
                {"recv", "--bind", "inproc://feed", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "inproc://in", "--backend-bind", "tcp://127.0.0.1:*"}},
                "inproc://", "ipc://", "tcp://");
    }

    /**
     * Each command line is one usage error line containing {@code parts}, within 30 s: a proxy that
     * took the endpoint would run until stopped.
     */
    private static void assertEachUsageErrorBeforeRunning(String[][] commandLines, String... parts) {
        for (String[] args : commandLines) {
            Result r = assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> run("x\n".getBytes(StandardCharsets.UTF_8), args), String.join(" ", args));
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r, parts);
        }
    }

    /**
     * One endpoint twice on one socket: two connects shared a PUSH socket's messages between two
     * connections to one peer, which received them out of order (exit 0); a second bind failed as
     * "Address already in use" (exit 1); a bind and a connect of one endpoint waited for the socket
     * itself (exit 3). Each is a usage error naming the option and the endpoint, a proxy side too; a
     * bind that picks its own port may repeat.
     */
    @Test
    void shouldRefuseAnEndpointGivenTwiceToOneSocket() {
        String endpoint = "tcp://127.0.0.1:" + io.zmqzstd.testkit.Ports.unused();
        String[][] cases = {
                {"send", "--connect", endpoint, "--connect", endpoint, "--timeout", "1s"},
                {"recv", "--connect", endpoint, "--connect", endpoint, "--timeout", "1s"},
                {"recv", "--bind", endpoint, "--bind", endpoint, "--timeout", "1s"},
                {"send", "--bind", endpoint, "--connect", endpoint, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", endpoint,
                        "--backend-connect", endpoint}};
        String[] expected = {"--connect given twice: endpoint=" + endpoint, "--connect given twice: endpoint=" + endpoint,
                "--bind given twice: endpoint=" + endpoint, "--bind and --connect given the same endpoint=" + endpoint,
                "--backend-connect given twice: endpoint=" + endpoint};
        assertEachAUsageError(cases, expected);
        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--bind", "tcp://127.0.0.1:*", "--timeout", "200ms");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
    }

    /**
     * One address written two ways: {@code tcp://localhost:P} and {@code tcp://127.0.0.1:P} (or an
     * interface, or {@code *}) passed the check of the endpoint text, so two connects shared the
     * messages between two connections to one peer, a bind and a connect connected the socket to
     * itself, two binds failed as "Address already in use", and a proxy forwarded to itself (each
     * ran on to its --timeout, exit 3). Each is now a usage error naming both endpoints and the
     * address; other ports still run.
     */
    @Test
    void shouldRefuseOneAddressWrittenTwoWays() {
        int port = io.zmqzstd.testkit.Ports.unused();
        String loopback = "tcp://127.0.0.1:" + port;
        String named = "tcp://localhost:" + port;
        String[][] cases = {
                {"send", "--connect", loopback, "--connect", named, "--timeout", "1s"},
                {"recv", "--bind", loopback, "--connect", named, "--timeout", "1s"},
                {"recv", "--bind", "tcp://*:" + port, "--connect", loopback, "--timeout", "1s"},
                {"recv", "--bind", "tcp://lo:" + port, "--bind", loopback, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", loopback, "--backend-connect", named}};
        String[] expected = {
                "--connect given one address twice: endpoint=" + loopback + " and endpoint=" + named + " are both 127.0.0.1:" + port,
                "--bind and --connect given one address: endpoint=" + loopback + " and endpoint=" + named + " are both 127.0.0.1:" + port,
                "--bind and --connect given one address: endpoint=tcp://*:" + port + " and endpoint=" + loopback
                        + " are both 127.0.0.1:" + port + " of this machine",
                "--bind given one address twice: endpoint=tcp://lo:" + port + " and endpoint=" + loopback,
                "the frontend and the backend need different addresses: endpoint=" + loopback + " and endpoint=" + named};
        assertEachAUsageError(cases, expected);
        Result r = run("recv", "--connect", loopback, "--connect", "tcp://localhost:" + io.zmqzstd.testkit.Ports.unused(),
                "--timeout", "200ms");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
    }

    /**
     * ws endpoints got only the same-text check: libzmq 4.3.4's ws listener takes a connection
     * whatever path it asks for (a recv bound to {@code ws://127.0.0.1:P/a} received from a send
     * connected to {@code ws://127.0.0.1:P/b}), and one port takes one listener, so the address is
     * host and port, as for tcp. A PAIR send bound to {@code ws://127.0.0.1:P/a} and connected to
     * {@code ws://127.0.0.1:P/b} (or {@code ws://localhost:P/feed} with {@code /feed}) sent its
     * message to itself, exit 0 with {@code messages=1}; two binds of one port with other paths
     * failed "Address already in use", exit 1. Each is now the usage error tcp gets. A ws bind to
     * port {@code *} picks a port of its own each time, so it may be repeated as a tcp one may (it
     * was refused as "given twice"); a tcp and a ws endpoint are not compared.
     */
    @Test
    void shouldRefuseOneWsAddressWrittenTwoWaysWhateverItsPath() {
        int port = io.zmqzstd.testkit.Ports.unused();
        String at = "127.0.0.1:" + port;
        String[][] cases = {
                {"send", "--type", "pair", "--bind", "ws://" + at + "/feed", "--connect", "ws://localhost:" + port + "/feed",
                        "--timeout", "2s"},
                {"send", "--type", "pair", "--bind", "ws://" + at + "/a", "--connect", "ws://" + at + "/b", "--timeout", "2s"},
                {"send", "--connect", "ws://" + at + "/a", "--connect", "ws://localhost:" + port + "/a", "--timeout", "1s"},
                {"recv", "--bind", "ws://" + at + "/a", "--bind", "ws://" + at + "/b", "--timeout", "1s"},
                {"recv", "--bind", "ws://*:" + port, "--connect", "ws://" + at + "/x", "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "ws://" + at + "/in", "--backend-connect",
                        "ws://localhost:" + port + "/out"}};
        String anyPath = " (a ws listener takes every path)";
        String[] expected = {
                "--bind and --connect given one address: endpoint=ws://" + at + "/feed and endpoint=ws://localhost:" + port
                        + "/feed are both " + at + " (the socket would connect to itself)",
                "--bind and --connect given one address: endpoint=ws://" + at + "/a and endpoint=ws://" + at + "/b are both "
                        + at + anyPath + " (the socket would connect to itself)",
                "--connect given one address twice: endpoint=ws://" + at + "/a and endpoint=ws://localhost:" + port
                        + "/a are both " + at + " (",
                "--bind given one address twice: endpoint=ws://" + at + "/a and endpoint=ws://" + at + "/b are both " + at
                        + anyPath + " (one socket cannot bind one address twice)",
                "--bind and --connect given one address: endpoint=ws://*:" + port + " and endpoint=ws://" + at + "/x are both "
                        + at + " of this machine" + anyPath,
                "the frontend and the backend need different addresses: endpoint=ws://" + at + "/in and endpoint=ws://localhost:"
                        + port + "/out are both " + at + anyPath + " (a proxy would bind it twice, or forward to itself)"};
        assertEachAUsageError(cases, expected);
        // a port of its own for each bind
        for (String[] args : new String[][] {
                {"recv", "--bind", "ws://127.0.0.1:*/a", "--bind", "ws://127.0.0.1:*/b", "--timeout", "200ms"},
                {"recv", "--bind", "ws://127.0.0.1:*", "--bind", "ws://127.0.0.1:*", "--timeout", "200ms"}}) {
            Result r = run(args);
            assertEquals(ExitCodes.TIMEOUT, r.code(), () -> String.join(" ", args) + " -> " + r);
        }
    }

    /**
     * A tcp and a ws endpoint of one port were never compared: {@code proxy --frontend-bind tcp://A:P
     * --backend-connect ws://A:P} ran, its backend connecting to its own frontend and failing the
     * handshake again and again without a word (only {@code --events} showed it); a tcp and a ws bind
     * of one port failed "Address already in use", as if another process had it; one socket's tcp and
     * ws connects to one port ran, one of them never completing. One port takes one listener, which
     * speaks one of the two: now each is the usage error of one address given twice. Other ports, and
     * a port each bind picks, still run.
     */
    @Test
    void shouldTakeATcpAndAWsEndpointOfOnePortForOneAddress() {
        int port = io.zmqzstd.testkit.Ports.unused();
        String at = "127.0.0.1:" + port;
        String[][] cases = {
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://" + at, "--backend-connect", "ws://localhost:" + port + "/out"},
                {"proxy", "--type", "pubsub", "--frontend-bind", "ws://" + at, "--backend-bind", "tcp://" + at},
                {"send", "--type", "pair", "--bind", "tcp://*:" + port, "--connect", "ws://" + at, "--timeout", "1s"},
                {"recv", "--connect", "tcp://" + at, "--connect", "ws://" + at, "--timeout", "1s"}};
        String[] expected = {
                "the frontend and the backend need different addresses: endpoint=tcp://" + at + " and endpoint=ws://localhost:"
                        + port + "/out are both " + at + " (one port takes one listener, whether tcp or ws) (a proxy would bind it"
                        + " twice, or forward to itself)",
                "the frontend and the backend need different addresses: endpoint=ws://" + at + " and endpoint=tcp://" + at
                        + " are both " + at + " (one port takes one listener, whether ws or tcp) (a proxy would bind it twice, or"
                        + " forward to itself)",
                "--bind and --connect given one address: endpoint=tcp://*:" + port + " and endpoint=ws://" + at + " are both "
                        + at + " of this machine (one port takes one listener, whether tcp or ws) (the socket would connect to"
                        + " itself)",
                "--connect given one address twice: endpoint=tcp://" + at + " and endpoint=ws://" + at + " are both " + at
                        + " (one port takes one listener, whether tcp or ws) ("};
        assertEachAUsageError(cases, expected);
        int other = io.zmqzstd.testkit.Ports.unused();
        while (other == port) {
            other = io.zmqzstd.testkit.Ports.unused();
        }
        for (String[] args : new String[][] {
                {"recv", "--connect", "tcp://" + at, "--connect", "ws://127.0.0.1:" + other, "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--bind", "ws://127.0.0.1:*", "--timeout", "200ms"}}) {
            Result r = run(args);
            assertEquals(ExitCodes.TIMEOUT, r.code(), () -> String.join(" ", args) + " -> " + r);
        }
    }

    /**
     * A bind to the unspecified address ({@code 0.0.0.0}, {@code [::]}) listens on every interface as
     * {@code *} does, but was not taken for it: a PAIR send bound to {@code tcp://0.0.0.0:P} and
     * connected to {@code tcp://127.0.0.1:P} sent its message to itself and exited 0 with
     * {@code messages=1}, lost, and a proxy's backend could connect to its own frontend. Each is the
     * usage error {@code *} gets. A connect to {@code 0.0.0.0} reaches 127.0.0.1 (Linux): bound there
     * too, the same socket sent to itself.
     */
    @Test
    void shouldTakeABindToTheUnspecifiedAddressForEveryInterface() {
        int port = io.zmqzstd.testkit.Ports.unused();
        String loopback = "tcp://127.0.0.1:" + port;
        String[][] cases = {
                {"send", "--type", "pair", "--bind", "tcp://0.0.0.0:" + port, "--connect", loopback, "--timeout", "2s"},
                {"send", "--type", "pair", "--bind", "tcp://[::]:" + port, "--connect", loopback, "--timeout", "2s"},
                {"send", "--type", "pair", "--bind", "tcp://0.0.0.0:" + port, "--connect", "tcp://[::1]:" + port, "--timeout", "2s"},
                {"recv", "--bind", "tcp://0.0.0.0:" + port, "--bind", loopback, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://0.0.0.0:" + port, "--backend-connect", loopback},
                // Linux connects a connect to the unspecified address to the loopback one
                {"send", "--type", "pair", "--bind", loopback, "--connect", "tcp://0.0.0.0:" + port, "--timeout", "2s"}};
        String[] expected = {
                "--bind and --connect given one address: endpoint=tcp://0.0.0.0:" + port + " and endpoint=" + loopback
                        + " are both 127.0.0.1:" + port + " of this machine",
                "--bind and --connect given one address: endpoint=tcp://[::]:" + port + " and endpoint=" + loopback
                        + " are both 127.0.0.1:" + port + " of this machine",
                // on a socket with ZMQ_IPV6 (set for the [::1] connect) a bind to 0.0.0.0 took that connect too
                "--bind and --connect given one address: endpoint=tcp://0.0.0.0:" + port + " and endpoint=tcp://[::1]:" + port,
                "--bind given one address twice: endpoint=tcp://0.0.0.0:" + port + " and endpoint=" + loopback,
                "the frontend and the backend need different addresses: endpoint=tcp://0.0.0.0:" + port + " and endpoint=" + loopback,
                "--bind and --connect given one address: endpoint=" + loopback + " and endpoint=tcp://0.0.0.0:" + port
                        + " are both 127.0.0.1:" + port};
        assertEachAUsageError(cases, expected);
    }

    /**
     * One ipc path written two ways ({@code ipc://DIR/feed.sock} and {@code ipc://DIR/./feed.sock}):
     * a PAIR send bound to one and connected to the other sent its message to itself and exited 0
     * with {@code messages=1}, lost; two connects shared the messages between two connections to
     * one peer; a proxy's backend connected to its own frontend. Each is now a usage error naming
     * both endpoints and the path. Two binds of one path stay the transport's to refuse (exit 1,
     * IpcBindTest).
     */
    @Test
    void shouldRefuseOneIpcPathWrittenTwoWays(@TempDir Path dir) {
        String plain = "ipc://" + dir.resolve("feed.sock");
        String dotted = "ipc://" + dir.resolve(".").resolve("feed.sock");
        String[][] cases = {
                {"send", "--type", "pair", "--bind", plain, "--connect", dotted, "--timeout", "2s"},
                {"recv", "--connect", plain, "--connect", dotted, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", plain, "--backend-connect", dotted}};
        String[] expected = {
                "--bind and --connect given one address: endpoint=" + plain + " and endpoint=" + dotted + " are both path="
                        + dir.resolve("feed.sock"),
                "--connect given one address twice: endpoint=" + plain + " and endpoint=" + dotted,
                "the frontend and the backend need different addresses: endpoint=" + plain + " and endpoint=" + dotted};
        assertEachAUsageError(cases, expected);
    }

    /**
     * libzmq binds no host name: {@code --bind tcp://localhost:P} failed as "cannot bind: ...,
     * errno=19, error=No such device". It is refused before anything binds, naming the host and
     * the address to use.
     */
    @Test
    void shouldRefuseAHostNameToBindWithTheAddressToUse() {
        int port = io.zmqzstd.testkit.Ports.unused();
        for (String[] args : new String[][] {
                {"recv", "--bind", "tcp://localhost:" + port, "--timeout", "1s"},
                {"send", "--bind", "tcp://localhost:" + port, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://localhost:" + port, "--backend-bind", "tcp://127.0.0.1:*"}}) {
            Result r = run(args);
            String option = args[0].equals("proxy") ? "--frontend-bind" : "--bind";
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r, option + " takes no host name: endpoint=tcp://localhost:"
                    + port + ", host=localhost", "for this machine only: tcp://127.0.0.1:" + port);
        }
    }

    /**
     * libzmq's zmq_connect takes any host it cannot resolve (an unknown name, brackets around no
     * address) and retries in the background for ever: the command waited for a peer that cannot
     * exist (exit 3 with --timeout, a hang without). Each is refused before anything starts.
     */
    @Test
    void shouldRefuseAConnectEndpointWhoseHostCannotBeResolved() {
        String[][] cases = {
                {"tcp://[zz::1]:5555", "'zz::1' is not an IPv6 (or IPv4) address"},
                {"tcp://[::1:5555", "'[' without ']'"},
                {"tcp://[::1%]:5555", "'%' without a zone"},
                {"tcp://no-such-host.invalid:5555", "cannot resolve host: endpoint=tcp://no-such-host.invalid:5555, host=no-such-host.invalid"},
                {"tcp://10.0.0.1:0;no-such-host.invalid:5555", "host=no-such-host.invalid"},
        };
        for (String command : List.of("send", "recv")) {
            for (String[] c : cases) {
                Result r = run("x\n".getBytes(StandardCharsets.UTF_8), command, "--connect", c[0], "--timeout", "5s");
                String what = command + " --connect " + c[0] + " -> " + r;
                assertEquals(ExitCodes.USAGE, r.code(), what);
                assertEquals(1, r.err().lines().count(), what);
                assertTrue(r.err().contains(c[0]) && r.err().contains(c[1]), what);
            }
        }
    }

    /**
     * libzmq reads the host of a ws or wss endpoint as it reads a tcp one, but the command checked
     * only tcp's: {@code --bind ws://localhost:P} failed as "cannot bind: ..., errno=19, error=No
     * such device", and {@code --connect ws://no-such-host.invalid:P} as "cannot connect: ...,
     * errno=22, error=Invalid argument" (wss, which this libzmq lacks, as "Protocol not supported"),
     * naming neither the host nor the reason. Each is now refused as the tcp one is.
     */
    @Test
    void shouldCheckTheHostOfAWsEndpointAsATcpOne() {
        int port = io.zmqzstd.testkit.Ports.unused();
        String[][] cases = {
                {"recv", "--bind", "ws://localhost:" + port + "/feed", "--timeout", "1s"},
                {"send", "--bind", "wss://localhost:" + port, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "ws://localhost:" + port, "--backend-bind", "tcp://127.0.0.1:*"},
                {"send", "--connect", "ws://no-such-host.invalid:" + port + "/feed", "--timeout", "1s"},
                {"recv", "--connect", "wss://no-such-host.invalid:" + port, "--timeout", "1s"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", "ws://no-such-host.invalid:" + port}};
        String[] expected = {
                "--bind takes no host name: endpoint=ws://localhost:" + port + "/feed, host=localhost is neither an IP address"
                        + " nor a network interface of this machine",
                "--bind takes no host name: endpoint=wss://localhost:" + port + ", host=localhost",
                "--frontend-bind takes no host name: endpoint=ws://localhost:" + port + ", host=localhost",
                "--connect cannot resolve host: endpoint=ws://no-such-host.invalid:" + port + "/feed, host=no-such-host.invalid, error=",
                "--connect cannot resolve host: endpoint=wss://no-such-host.invalid:" + port + ", host=no-such-host.invalid, error=",
                "--backend-connect cannot resolve host: endpoint=ws://no-such-host.invalid:" + port + ", host=no-such-host.invalid"};
        assertEachAUsageError(cases, expected);
        Result r = run("recv", "--bind", "ws://localhost:" + port + "/feed", "--timeout", "1s");
        assertTrue(r.err().contains("for this machine only: ws://127.0.0.1:" + port + "/feed)"), r::toString);
    }

    /** What libzmq takes for ws still works: a bind to a network interface, a connect to a name that resolves. */
    @Test
    void shouldSendOverWsFromAnInterfaceAndToAName() throws Exception {
        byte[] input = "over ws\n".getBytes(StandardCharsets.UTF_8);
        String loopback = java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getByName("127.0.0.1")).getName();
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(10_000);
            pull.bind("ws://127.0.0.1:*/feed");
            String endpoint = pull.lastEndpoint().replace("127.0.0.1", "localhost");
            Result r = run(input, "send", "--connect", endpoint, "--timeout", "10s");
            assertEquals(ExitCodes.OK, r.code(), () -> endpoint + " -> " + r);
            assertTrue(pull.receiveBytes(0) != null, r::toString);
        }
        int port = io.zmqzstd.testkit.Ports.unused();
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(10_000);
            pull.connect("ws://127.0.0.1:" + port + "/feed");
            Result r = run(input, "send", "--bind", "ws://" + loopback + ":" + port + "/feed", "--timeout", "10s");
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertTrue(pull.receiveBytes(0) != null, r::toString);
        }
    }

    /**
     * libzmq reads the source part of a connect endpoint ({@code tcp://SOURCE;HOST:PORT}) only when
     * it connects, in the background, as an IP address or an interface, with a port, of the
     * destination's address family, and looks no name up: with any other source it retried for ever
     * and the command waited for a peer it could never reach (exit 3 with --timeout). Each is refused
     * before anything starts.
     */
    @Test
    void shouldRefuseAConnectSourceLibzmqCannotUse() {
        String[][] cases = {
                {"tcp://localhost:0;127.0.0.1:5555", "source=localhost:0", "neither an IP address nor a network interface"},
                {"tcp://127.0.0.1;127.0.0.1:5555", "source=127.0.0.1", "expected ADDRESS:PORT"},
                {"tcp://no-such-nic0:0;127.0.0.1:5555", "source=no-such-nic0:0", "neither an IP address nor a network interface"},
                {"tcp://[zz::1]:0;127.0.0.1:5555", "source=[zz::1]:0", "'zz::1' is not an IPv6 (or IPv4) address"},
                {"tcp://127.0.0.1:70000;127.0.0.1:5555", "source=127.0.0.1:70000", "above 65535"},
                {"tcp://[::1]:0;127.0.0.1:5555", "source=[::1]:0", "an IPv6 source cannot connect to the IPv4 destination"},
                {"tcp://*:0;127.0.0.1:5555", "source=*:0", "'*' (any interface) is for --bind"},
        };
        for (String command : List.of("send", "recv")) {
            for (String[] c : cases) {
                Result r = run("x\n".getBytes(StandardCharsets.UTF_8), command, "--connect", c[0], "--timeout", "5s");
                String what = command + " --connect " + c[0] + " -> " + r;
                assertOneLine(r, ExitCodes.USAGE, what, "--connect cannot use source address", c[0], c[1], c[2]);
            }
        }
    }

    /** A source libzmq takes (an address or an interface, port 0 for any) connects and delivers. */
    @Test
    void shouldSendFromAGivenSourceAddressOrInterface() throws Exception {
        byte[] input = "from a source\n".getBytes(StandardCharsets.UTF_8);
        String loopback = java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getByName("127.0.0.1")).getName();
        for (String source : List.of("127.0.0.1:0", loopback + ":0", "127.0.0.1:*")) {
            try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
                pull.receiveTimeoutMs(10_000);
                pull.bind("tcp://127.0.0.1:*");
                String endpoint = "tcp://" + source + ";" + pull.lastEndpoint().substring("tcp://".length());
                Result r = run(input, "send", "--connect", endpoint, "--timeout", "10s");
                assertEquals(ExitCodes.OK, r.code(), () -> endpoint + " -> " + r);
                byte[] frame = pull.receiveBytes(0);
                assertTrue(frame != null, () -> endpoint + ": nothing arrived");
                try (ZstdDecompressor d = ZstdDecompressor.builder().build()) {
                    assertEquals("from a source", new String(d.decompress(frame), StandardCharsets.UTF_8), endpoint);
                }
            }
        }
    }

    /**
     * An IPv6 address in brackets is usable, to bind and to connect, over tcp:// and ws://: libzmq
     * resolves it only on a socket with ZMQ_IPV6, which the command sets when an endpoint needs it
     * (a tcp one waited for ever; a ws one, whose IPv6 address the command did not look for, failed
     * as "No such device" to bind and "Invalid argument" to connect, exit 2).
     */
    @Test
    void shouldSendToAndFromAnIpv6Address() throws Exception {
        assumeTrue(hasIpv6Loopback(), "no IPv6 loopback address on this machine");
        byte[] input = "over IPv6\n".getBytes(StandardCharsets.UTF_8);
        for (String transport : new String[] {"tcp", "ws"}) {
            try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
                pull.ipv6(true);
                pull.receiveTimeoutMs(10_000);
                pull.bind(transport + "://[::1]:*");
                Result r = run(input, "send", "--connect", pull.lastEndpoint(), "--timeout", "10s");
                assertEquals(ExitCodes.OK, r.code(), r::toString);
                try (ZstdDecompressor d = ZstdDecompressor.builder().build()) {
                    assertEquals("over IPv6", new String(d.decompress(pull.receiveBytes(0)), StandardCharsets.UTF_8), r::toString);
                }
            }
            // not an ephemeral port from ServerSocket(0): the pull below connects before send binds,
            // and its reconnects could take that port as their source (see Ports.unused)
            int port = io.zmqzstd.testkit.Ports.unused();
            try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
                pull.ipv6(true);
                pull.receiveTimeoutMs(10_000);
                pull.connect(transport + "://[::1]:" + port);
                Result r = run(input, "send", "--bind", transport + "://[::1]:" + port, "--timeout", "10s");
                assertEquals(ExitCodes.OK, r.code(), r::toString);
                assertTrue(pull.receiveBytes(0) != null, r::toString);
            }
        }
    }

    private static boolean hasIpv6Loopback() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("::1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A key of the right length with a character outside Z85: the message says which, not "expected 40 characters". */
    @Test
    void shouldSayWhatIsWrongWithACurveKeyOfTheRightLength() {
        String notZ85 = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf~"; // 40 characters, the last not in the alphabet
        Result r = run("recv", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", notZ85, "--timeout", "1s");
        String what = r.toString();
        assertOneLine(r, ExitCodes.USAGE, what, "invalid CURVE key (--curve-server-key)", "not a Z85 character at index 39: '~'");

        r = run("recv", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", "#".repeat(40), "--timeout", "1s");
        what = r.toString();
        assertOneLine(r, ExitCodes.USAGE, what, "invalid CURVE key (--curve-server-key)",
                "the group of 5 characters at index 0 stands for more than 32 bits");
    }

    /**
     * A key file given to --curve-server-key without its '@' ({@code server.key.pub}) was refused as
     * "expected 40 Z85 characters, length=…", which did not say that the value names a file or how
     * to read the key from it. Now the line says both, on send, recv and a proxy side.
     */
    @Test
    void shouldPointToAtFileForAKeyFileGivenAsAServerKey(@TempDir Path dir) throws Exception {
        Path pub = Files.writeString(dir.resolve("server.key.pub"), "public=" + io.zmqzstd.transport.Curve.keypair().publicKey() + "\n");
        String[][] cases = {
                {"--curve-server-key", "send", "--connect", "tcp://127.0.0.1:1", "--timeout", "1s", "--curve-server-key"},
                {"--curve-server-key", "recv", "--connect", "tcp://127.0.0.1:1", "--timeout", "1s", "--curve-server-key"},
                {"--backend-curve-server-key", "proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*",
                        "--backend-connect", "tcp://127.0.0.1:1", "--backend-curve-server-key"}};
        for (String[] c : cases) {
            String[] args = Arrays.copyOfRange(c, 1, c.length + 1);
            args[args.length - 1] = pub.toString();
            Result r = run("x\n".getBytes(StandardCharsets.UTF_8), args);
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r, "invalid CURVE key (" + c[0] + "): " + pub
                    + " is a file, not a key; give @" + pub);
        }
    }

    /**
     * A wrong key in a {@code --curve-server-key @FILE} file (a {@code public=} line a character short, or
     * with a character outside Z85) was {@code invalid CURVE key (--curve-server-key): …}, naming the option
     * but not the file, where a secret key's line names its file. Now the file too (never the key's text),
     * on send, recv and a proxy side (there after the option, as the proxy's key file lines are).
     */
    @Test
    void shouldNameTheFileOfAWrongServerKeyReadFromOne(@TempDir Path dir) throws Exception {
        String key = io.zmqzstd.transport.Curve.keypair().publicKey();
        Path short39 = Files.writeString(dir.resolve("short.key.pub"), "public=" + key.substring(1) + "\n");
        Path notZ85 = Files.writeString(dir.resolve("tilde.key.pub"), "public=" + key.substring(1) + "~\n");
        String connect = "tcp://127.0.0.1:1";
        String[][] cases = {
                {"send", "--connect", connect, "--curve-server-key", "@" + short39, "--timeout", "200ms"},
                {"recv", "--connect", connect, "--curve-server-key", "@" + notZ85, "--timeout", "200ms"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--backend-curve-server-key", "@" + short39}};
        String[] expected = {
                "invalid CURVE key (public key in " + short39 + "): expected 40 Z85 characters, length=39",
                "invalid CURVE key (public key in " + notZ85 + "): not a Z85 character at index 39: '~'",
                "--backend-curve-server-key: invalid CURVE key (public key in " + short39 + "): expected 40 Z85 characters,"
                        + " length=39"};
        assertEachAUsageError(cases, expected);
        for (String[] args : cases) {
            assertFalse(run(args).err().contains(key.substring(1, 20)), "the key's text is not printed");
        }
    }

    /**
     * {@code --curve-server-key @server.key}: keygen's pair file (not its {@code server.key.pub}) gave
     * the client the server's public key, and the run went on, so the server's secret key was on the
     * client's machine without a word. Refused, naming the public key file; a zcert secret
     * certificate ({@code NAME_secret}) names {@code NAME}. Nothing is sent.
     */
    @Test
    void shouldRefuseASecretKeyFileGivenForTheServersPublicKey(@TempDir Path dir) throws Exception {
        Path keys = dir.resolve("server.key");
        assertEquals(ExitCodes.OK, run("keygen", "--out", keys.toString()).code());
        io.zmqzstd.transport.Curve.KeyPair pair = io.zmqzstd.transport.Curve.keypair();
        Path zcert = Files.writeString(dir.resolve("server.cert_secret"), "#   ZeroMQ CURVE **Secret** Certificate\n"
                + "metadata\ncurve\n    public-key = \"" + pair.publicKey() + "\"\n    secret-key = \"" + pair.secretKey() + "\"\n");
        String connect = "tcp://127.0.0.1:1";
        String[][] cases = {
                {"send", "--connect", connect, "--curve-server-key", "@" + keys, "--timeout", "200ms"},
                {"recv", "--connect", connect, "--curve-server-key", "@" + zcert, "--timeout", "200ms"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--backend-curve-server-key", "@" + keys}};
        String[] expected = {
                "Invalid value for option '--curve-server-key': file=" + keys + " holds a secret key, which a client"
                        + " must not have: give the server's public key file, @" + keys + ".pub, and keep " + keys
                        + " on the server",
                "Invalid value for option '--curve-server-key': file=" + zcert + " holds a secret key, which a client"
                        + " must not have: give the server's public key file, @" + dir.resolve("server.cert") + ", and keep "
                        + zcert + " on the server",
                "Invalid value for option '--backend-curve-server-key': file=" + keys + " holds a secret key, which a"
                        + " client must not have: give the server's public key file, @" + keys + ".pub, and keep " + keys
                        + " on the server"};
        assertEachAUsageError(cases, expected);
        Result pub = run("x\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", connect, "--curve-server-key",
                "@" + keys + ".pub", "--timeout", "200ms");
        assertEquals(ExitCodes.TIMEOUT, pub.code(), pub::toString); // the public key file is taken, as before
    }

    /**
     * A key file whose one key is a character short or long, or cut by a space, or an empty one, was
     * "no public key in file=… (expected a 'public=' line or a bare Z85 key)", as if nothing like a
     * key were there. Now the line names the file's line and its length (never its text, which may be
     * a secret key), or says that the file is empty.
     */
    @Test
    void shouldSayWhyAKeyFileLineIsNotAKey(@TempDir Path dir) throws Exception {
        String key = io.zmqzstd.transport.Curve.keypair().publicKey();
        // the last character cut, not the first: a key's second character may be '#', which would make the line a comment
        Path short39 = Files.writeString(dir.resolve("short.pub"), key.substring(0, key.length() - 1) + "\r\n");
        Path long41 = Files.writeString(dir.resolve("long.key"), key + "A\n");
        Path spaced = Files.writeString(dir.resolve("spaced.pub"), "# the server\n" + key.substring(0, 20) + " " + key.substring(20) + "\n");
        Path empty = Files.writeString(dir.resolve("empty.pub"), "");
        String connect = "tcp://127.0.0.1:1";
        String[][] cases = {
                {"send", "--connect", connect, "--curve-server-key", "@" + short39, "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-secret-key-file", long41.toString(), "--timeout", "200ms"},
                {"send", "--connect", connect, "--curve-server-key", "@" + spaced, "--timeout", "200ms"},
                {"recv", "--connect", connect, "--curve-server-key", "@" + empty, "--timeout", "200ms"},
                {"send", "--connect", connect, "--curve-server-key", key, "--curve-keypair-file", long41.toString(), "--timeout", "200ms"}};
        String[] expected = {
                "no public key in file=" + short39 + " (expected a 'public=' line or a bare Z85 key; line 1 (39 characters) is"
                        + " neither a key entry nor a bare Z85 key of 40 characters)",
                "no secret key in file=" + long41 + " (expected a 'secret=' line or a bare Z85 key; line 1 (41 characters) is"
                        + " neither a key entry nor a bare Z85 key of 40 characters)",
                "no public key in file=" + spaced + " (expected a 'public=' line or a bare Z85 key; line 2 (41 characters with a"
                        + " space) is neither a key entry nor a bare Z85 key of 40 characters)",
                "no public key in file=" + empty + " (expected a 'public=' line or a bare Z85 key; the file is empty)",
                "a key pair file needs 'public=' and 'secret=' lines: file=" + long41 + "; line 1 (41 characters) is neither a key"
                        + " entry nor a bare Z85 key of 40 characters"};
        assertEachAUsageError(cases, expected);
    }

    /**
     * A key cut by its first character whose second is '#' (or with '#' in place of its first) is a
     * line of a key's length that begins with '#': it was skipped as a comment, and the line that said
     * the key was missing named nothing, where any other line of about a key's length is named. No Z85
     * key begins with '#' (a group of 5 led by it stands for more than 32 bits), so such a line stays a
     * comment, now named; a written comment (with spaces) is not, and a key line still wins over it.
     */
    @Test
    void shouldNameACommentOfAKeysLengthWhenNoKeyIsRead(@TempDir Path dir) throws Exception {
        String key = null;
        for (int i = 0; i < 100_000 && key == null; i++) {
            String candidate = io.zmqzstd.transport.Curve.keypair().publicKey();
            key = candidate.charAt(1) == '#' ? candidate : null;
        }
        assertNotNull(key, "no key with '#' as its second character in 100,000");
        assertFalse(CurveOptions.isKey("#" + key.substring(1)), "a Z85 key that begins with '#'");
        Path cut = Files.writeString(dir.resolve("cut.pub"), "# the server's public key\n" + key.substring(1) + "\n");
        Path changed = Files.writeString(dir.resolve("changed.key"), "#" + key.substring(1) + "\n");
        Path commentsOnly = Files.writeString(dir.resolve("comments.pub"), "#   ****  Generated on 2026-11-29 by hand, no key yet  ****\n");
        Path both = Files.writeString(dir.resolve("both.pub"), key.substring(1) + "\n" + key.substring(0, 39) + "\n");
        String connect = "tcp://127.0.0.1:1";
        String[][] cases = {
                {"send", "--connect", connect, "--curve-server-key", "@" + cut, "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-secret-key-file", changed.toString(), "--timeout", "200ms"},
                {"send", "--connect", connect, "--curve-server-key", "@" + commentsOnly, "--timeout", "200ms"},
                {"send", "--connect", connect, "--curve-server-key", "@" + both, "--timeout", "200ms"}};
        String[] expected = {
                "no public key in file=" + cut + " (expected a 'public=' line or a bare Z85 key; line 2 (39 characters) begins"
                        + " with '#' and is read as a comment: no Z85 key begins with '#', so if it is a key, its start was cut or changed)",
                "no secret key in file=" + changed + " (expected a 'secret=' line or a bare Z85 key; line 1 (40 characters) begins"
                        + " with '#' and is read as a comment: no Z85 key begins with '#', so if it is a key, its start was cut or changed)",
                "no public key in file=" + commentsOnly + " (expected a 'public=' line or a bare Z85 key)",
                "no public key in file=" + both + " (expected a 'public=' line or a bare Z85 key; line 2 (39 characters) is"
                        + " neither a key entry nor a bare Z85 key of 40 characters)"};
        assertEachAUsageError(cases, expected);
    }

    /**
     * A key pair file whose public half is not its secret half's: libzmq takes it, and the CURVE
     * handshake fails with nothing to say why (clients of the server, or the server of a client,
     * never got a message: exit 3 with --timeout). Refused in one line naming the option.
     */
    @Test
    void shouldRefuseAKeyPairWhoseHalvesDoNotMatch(@TempDir Path dir) throws Exception {
        io.zmqzstd.transport.Curve.KeyPair a = io.zmqzstd.transport.Curve.keypair();
        io.zmqzstd.transport.Curve.KeyPair b = io.zmqzstd.transport.Curve.keypair();
        Path mixed = Files.writeString(dir.resolve("mixed.key"), "public=" + a.publicKey() + "\nsecret=" + b.secretKey() + "\n");
        Path good = Files.writeString(dir.resolve("good.key"), CharBuffer.wrap(CurveOptions.formatKeyPair(a)));
        Path bare = Files.writeString(dir.resolve("bare.key"), a.secretKey() + "\n");
        String[][] cases = {
                {"--curve-keypair-file", "recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", mixed.toString()},
                {"--curve-secret-key-file", "recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-secret-key-file", mixed.toString()},
                {"--curve-keypair-file", "send", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", b.publicKey(),
                        "--curve-keypair-file", mixed.toString()},
        };
        for (String[] c : cases) {
            String[] args = Arrays.copyOfRange(c, 1, c.length + 2);
            args[args.length - 2] = "--timeout";
            args[args.length - 1] = "5s";
            Result r = run("x\n".getBytes(StandardCharsets.UTF_8), args);
            String what = String.join(" ", args) + " -> " + r;
            assertEquals(ExitCodes.USAGE, r.code(), what);
            assertEquals(1, r.err().lines().count(), what);
            assertTrue(r.err().contains(c[0] + ": the public and secret keys in file=" + mixed + " do not match"), what);
            assertTrue(r.err().contains("public=" + a.publicKey()) && r.err().contains(b.publicKey()), what);
            assertFalse(r.err().contains(b.secretKey()), what);
        }
        // a client's pair must be a pair; a server may give its secret key alone
        Result r = run("send", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", b.publicKey(),
                "--curve-keypair-file", bare.toString(), "--timeout", "5s");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("--curve-keypair-file needs a key pair, but file=" + bare + " holds a single key"), r::toString);
        for (Path accepted : List.of(good, bare)) {
            r = run("recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", accepted.toString(),
                    "--timeout", "200ms");
            assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        }
    }

    /**
     * A key file option given a wrong, large file (a log, an image, {@code /dev/zero}): it was read
     * whole, as lines, so {@code /dev/zero} ended in OutOfMemoryError and a stack trace. A key file
     * is a few hundred bytes: a larger one is refused in one line, read no further.
     */
    @Test
    void shouldRefuseAKeyFileLargerThanAKeyFileCanBe(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.key");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(1 << 20); // sparse: zeros, no line end
        }
        String[][] cases = {
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", big.toString(), "--timeout", "1s"},
                {"send", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", "@" + big, "--timeout", "1s"},
        };
        for (String[] args : cases) {
            Result r = run(args);
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r,
                    "cannot read key file: file=" + big, "larger than a key file may be: limit=");
        }
    }

    /**
     * A binary file given as a key file (an executable, a compressed certificate): the line said
     * "error=Input length = 1", the text of Java's MalformedInputException, naming neither what was
     * wrong nor where.
     */
    @Test
    void shouldSayAKeyFileIsNotTextWhenItHoldsANonAsciiByte(@TempDir Path dir) throws Exception {
        Path binary = Files.write(dir.resolve("binary.key"), new byte[] {'p', 'u', 'b', (byte) 0xC3, (byte) 0xA9, '\n'});
        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", binary.toString(),
                "--timeout", "1s");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "cannot read key file: file=" + binary,
                "error=not a text key file: a byte that is not ASCII at offset=3 (0xC3)");
        assertFalse(r.err().contains("Input length"), r::toString);
    }

    /**
     * A key file saved by a Windows editor starts with a UTF-8 byte-order mark, which was refused as
     * {@code a byte that is not ASCII at offset=0 (0xEF)}. The mark is no part of the text: it is
     * skipped, and the keys work, as a server's key pair and as a client's server key and key pair;
     * one further in is still a byte that is not ASCII. A UTF-16 file ("Unicode") is refused as
     * UTF-16 text, not as a byte at offset 0.
     */
    @Test
    void shouldSkipAUtf8ByteOrderMarkAtTheStartOfAKeyFile(@TempDir Path dir) throws Exception {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        Curve.KeyPair server = Curve.keypair();
        Curve.KeyPair client = Curve.keypair();
        Path serverKey = withBom(dir.resolve("server.key"), bom, "public=" + server.publicKey() + "\r\nsecret=" + server.secretKey() + "\r\n");
        Path serverPub = withBom(dir.resolve("server.key.pub"), bom, "public=" + server.publicKey() + "\r\n");
        Path clientKey = withBom(dir.resolve("client.key"), bom, "public=" + client.publicKey() + "\nsecret=" + client.secretKey() + "\n");
        try (ZmqContext ctx = new ZmqContext();
             io.zmqzstd.codec.ZstdCompressor zstd = io.zmqzstd.codec.ZstdCompressor.builder().build()) {
            // recv as the CURVE server with the marked pair file, then as a client with the marked .pub and pair files
            for (boolean recvIsServer : new boolean[] {true, false}) {
                try (ZmqSocket push = ctx.socket(SocketType.PUSH)) {
                    if (recvIsServer) {
                        push.curveServerKey(server.publicKey());
                        push.curvePublicKey(client.publicKey());
                        push.curveSecretKey(client.secretKey());
                    } else {
                        push.curveServer(true);
                        push.curveSecretKey(server.secretKey());
                    }
                    push.bind("tcp://127.0.0.1:*");
                    push.sendTimeoutMs(100);
                    String[] curve = recvIsServer ? new String[] {"--curve-server", "--curve-keypair-file", serverKey.toString()}
                            : new String[] {"--curve-server-key", "@" + serverPub, "--curve-keypair-file", clientKey.toString()};
                    List<String> args = new java.util.ArrayList<>(List.of("recv", "--connect", push.lastEndpoint(), "--count", "1",
                            "--timeout", "30s"));
                    args.addAll(List.of(curve));
                    java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
                    java.util.concurrent.CompletableFuture<Result> recv = java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                                    args.toArray(String[]::new)));
                    // a send waits until recv has connected and completed the CURVE handshake, or recv has ended (refused)
                    boolean sent = false;
                    while (!sent && !recv.isDone()) {
                        sent = push.send(zstd.compress("over curve".getBytes(StandardCharsets.US_ASCII)), 0);
                    }
                    assertTrue(sent, () -> args + " -> " + recv.join());
                    Result r = recv.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    assertEquals(ExitCodes.OK, r.code(), args + " -> " + r);
                    assertEquals("over curve\n", stdout.toString(StandardCharsets.US_ASCII), args + " -> " + r);
                }
            }
        }
        Path markTwice = withBom(dir.resolve("twice.key.pub"), bom, new String(bom, StandardCharsets.ISO_8859_1) + server.publicKey() + "\n");
        Result r = run("send", "--connect", "tcp://127.0.0.1:1", "--curve-server-key", "@" + markTwice, "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "cannot read key file: file=" + markTwice,
                "error=not a text key file: a byte that is not ASCII at offset=3 (0xEF)");
        Path utf16 = Files.write(dir.resolve("utf16.key"), ("\uFEFFpublic=" + server.publicKey() + "\r\nsecret=" + server.secretKey()
                + "\r\n").getBytes(StandardCharsets.UTF_16LE));
        r = run("recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", utf16.toString(), "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd recv: cannot read key file: file=" + utf16 + ", error=not a text key"
                + " file in ASCII or UTF-8: it starts with a UTF-16 byte-order mark (0xFF 0xFE), so it is UTF-16 text; save it as"
                + " ASCII or UTF-8");
    }

    private static Path withBom(Path file, byte[] bom, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.ISO_8859_1);
        byte[] bytes = Arrays.copyOf(bom, bom.length + body.length);
        System.arraycopy(body, 0, bytes, bom.length, body.length);
        return Files.write(file, bytes);
    }

    /**
     * What the README says of a peer that is not ZeroMQ: libzmq takes a listener that answers with
     * anything but a ZMTP greeting for a legacy (ZMTP 1.0) peer and writes the messages to it, so
     * send exits 0; as a CURVE client it refuses such a peer, so nothing is sent (exit 3).
     */
    @Test
    void shouldHandMessagesToAPeerThatIsNotZeroMqUnlessCurveIsOn() throws Exception {
        byte[] input = "one\ntwo\n".getBytes(StandardCharsets.UTF_8);
        try (java.net.ServerSocket http = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<Long> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (java.net.Socket c = http.accept()) {
                    c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n".getBytes(StandardCharsets.US_ASCII));
                    return c.getInputStream().transferTo(OutputStream.nullOutputStream()); // until send closes
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Result r = run(input, "send", "--connect", "tcp://127.0.0.1:" + http.getLocalPort(), "--timeout", "10s");
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            // more than libzmq's 10-byte greeting: the frames went to a server that understood none of it
            assertTrue(read.get(10, java.util.concurrent.TimeUnit.SECONDS) > 10, r::toString);
        }
        try (java.net.ServerSocket http = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try (java.net.Socket c = http.accept()) {
                    c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n".getBytes(StandardCharsets.US_ASCII));
                    c.getInputStream().transferTo(OutputStream.nullOutputStream());
                } catch (IOException e) {
                    // libzmq drops the connection: expected
                }
            });
            Result r = run(input, "send", "--connect", "tcp://127.0.0.1:" + http.getLocalPort(), "--timeout", "1s",
                    "--curve-server-key", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
            assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        }
    }

    /**
     * What the README says of --linger: a peer that connected and then stopped reading holds send at
     * the end for the whole linger, and a finite one ends the run, dropping what is still queued,
     * with exit 0. The peer is a listener that answers like a server (a legacy ZMTP peer to libzmq)
     * and never reads: 32 MiB of incompressible chunks stay queued behind its full TCP window.
     */
    @Test
    void shouldWaitAFiniteLingerForAPeerThatStoppedReadingThenExit0() throws Exception {
        byte[] input = new byte[32 << 20];
        new java.util.Random(7).nextBytes(input);
        try (java.net.ServerSocket stalled = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<java.net.Socket> accepted = acceptAndNeverRead(stalled);
            long start = System.nanoTime();
            Result r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> run(input, "send", "--connect", "tcp://127.0.0.1:" + stalled.getLocalPort(), "--chunk", "64K",
                            "--linger", "1s", "--stats"));
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            accepted.get(10, java.util.concurrent.TimeUnit.SECONDS).close();
            assertEquals(ExitCodes.OK, r.code(), r::toString);
            assertTrue(r.err().startsWith("zmq-zstd send: summary: messages=512 bytesIn=" + input.length + " "), r::toString);
            assertTrue(elapsedMs >= 1000, () -> "send did not linger: elapsedMs=" + elapsedMs + ", " + r);
        }
    }

    /**
     * Every line a command prints goes to its own error stream (picocli's, which this test
     * captures), as its usage and failure lines do: recv's bad-frame and timeout lines, the
     * --stats summary and train's report went to System.err, past a caller's stream.
     */
    @Test
    void shouldWriteEveryLineToTheCommandsErrorStream(@TempDir Path dir) throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            push.bind("tcp://127.0.0.1:*");
            push.sendTimeoutMs(30_000);
            String endpoint = push.lastEndpoint();
            java.util.concurrent.CompletableFuture<Result> recv = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> run("recv", "--connect", endpoint, "--timeout", "1s", "--stats"));
            // blocks until recv has connected
            assertTrue(push.send("not zstd".getBytes(StandardCharsets.UTF_8), 0), () -> "recv did not connect: " + recv.join());
            Result r = recv.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(3, lines.size(), r::toString);
            assertTrue(lines.get(0).startsWith("zmq-zstd recv: bad frame: part=0, reason=NOT_ZSTD"), r::toString);
            assertEquals("zmq-zstd recv: timeout: no message within 1s (delivered=0)", lines.get(1), r::toString);
            assertTrue(lines.get(2).startsWith("zmq-zstd recv: summary: messages=0 ") && lines.get(2).contains("NOT_ZSTD=1"),
                    r::toString);
        }
        Result r = run("x\n".getBytes(StandardCharsets.UTF_8), "send", "--connect", "tcp://127.0.0.1:1", "--timeout", "200ms", "--stats");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        assertTrue(r.err().startsWith("zmq-zstd send: summary: messages=0 "), r::toString);

        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        r = run("train", "--out", dir.resolve("d.dict").toString(), "--size", "1K", "--lines", samples.toString());
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertTrue(r.err().startsWith("zmq-zstd train: wrote dictionary: id="), r::toString);
    }

    /**
     * --whole over the largest Java array: a file is refused from its size, before connecting
     * and before reading anything (it read 2 GiB into the heap, then failed with a line that
     * named neither the option nor a remedy, or with OutOfMemoryError on a smaller heap); a stream
     * once one byte more than the limit has come.
     */
    @Test
    void shouldRefuseAWholeInputOverTheLimitNamingIt(@TempDir Path dir) throws Exception {
        Path sparse = dir.resolve("sparse.bin"); // 2 GiB + 1 byte, none of it on disk
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength((2L << 30) + 1);
        }
        long started = System.nanoTime();
        try (java.io.FileInputStream file = new java.io.FileInputStream(sparse.toFile())) {
            Result r = run(send -> send.stdin = file, "send", "--connect", "tcp://127.0.0.1:1", "--whole", "--timeout", "5s");
            String what = r.toString();
            assertEquals(ExitCodes.USAGE, r.code(), what);
            assertEquals(1, r.err().lines().count(), what);
            assertTrue(r.err().contains("--whole takes at most 2147483631 bytes"), what);
            assertTrue(r.err().contains("standard input has 2147483649 bytes") && r.err().contains("--chunk"), what);
            assertEquals(0, file.getChannel().position(), "read before refusing: " + what);
        }
        assertTrue(System.nanoTime() - started < 5_000_000_000L, "took as long as --timeout: it waited for a peer first");

        long[] read = {0};
        java.io.InputStream endless = new java.io.InputStream() {
            @Override
            public int read() {
                read[0]++;
                return 0;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                read[0] += len;
                return len;
            }
        };
        Result r = run(send -> {
            send.stdin = endless;
            send.wholeMaxBytes = 1 << 20;
        }, "send", "--connect", "tcp://127.0.0.1:1", "--whole", "--timeout", "5s");
        String what = r.toString();
        assertEquals(ExitCodes.USAGE, r.code(), what);
        assertEquals(1, r.err().lines().count(), what);
        assertTrue(r.err().contains("--whole takes at most 1048576 bytes") && r.err().contains("standard input is longer"), what);
        assertEquals((1 << 20) + 1, read[0], what);
    }

    /**
     * A line longer than the longest message (one Java array, lowered here): the lines before it are
     * sent, and the run ends with one line naming the limit and --chunk, the way to send such input.
     * It said only "message longer than 2147483631 bytes: bytes=2147483631".
     */
    @Test
    void shouldNameTheLimitAndChunkForALineLongerThanAMessageCanBe() throws Exception {
        java.io.InputStream endlessLine = new java.io.SequenceInputStream(
                new java.io.ByteArrayInputStream("first\nsecond\n".getBytes(StandardCharsets.US_ASCII)), endlessZeros());
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(10_000);
            pull.bind("tcp://127.0.0.1:*");
            Result r = run(send -> {
                send.stdin = endlessLine;
                send.delimitedMaxBytes = 1 << 20;
            }, "send", "--connect", pull.lastEndpoint(), "--timeout", "10s");
            assertOneLine(r, ExitCodes.FAILURE, r.toString(), "zmq-zstd send: message longer than the limit: limit=1048576 bytes",
                    "no newline within it", "--chunk BYTES");
            try (ZstdDecompressor d = ZstdDecompressor.builder().build()) {
                assertEquals("first", new String(d.decompress(pull.receiveBytes(0)), StandardCharsets.US_ASCII));
                assertEquals("second", new String(d.decompress(pull.receiveBytes(0)), StandardCharsets.US_ASCII));
            }
        }
        Result r = run(send -> {
            send.stdin = endlessZeros();
            send.delimitedMaxBytes = 1 << 20;
        }, "send", "--connect", "tcp://127.0.0.1:1", "--delimiter", ",", "--timeout", "1s");
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "limit=1048576 bytes", "no delimiter=0x2c within it", "--chunk");
    }

    /**
     * train given a line longer than one sample can be (the largest Java array, lowered here): through
     * the jar, a 2 GiB + 1 byte sparse file took 7 s and 5.4 GB of memory to say "cannot read
     * standard input: error=message longer than 2147483631 bytes: bytes=2147483631", a read failure
     * with no remedy. Now one line names the limit, where, and --delimiter; nothing is written.
     */
    @Test
    void shouldNameTheLimitAndDelimiterForATrainingLineLongerThanASampleCanBe(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("x.dict");
        Result r = execute(cl -> {
            TrainCommand train = (TrainCommand) cl.getSubcommands().get("train").getCommand();
            train.stdin = new java.io.SequenceInputStream(
                    new java.io.ByteArrayInputStream("first\nsecond\n".getBytes(StandardCharsets.US_ASCII)), endlessZeros());
            train.sampleMaxBytes = 1 << 20;
        }, "train", "--out", out.toString());
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "zmq-zstd train: sample longer than the limit: limit=1048576 bytes",
                "no newline within it, in standard input", "--delimiter BYTE");
        Path file = dir.resolve("samples.bin");
        Files.write(file, new byte[(1 << 20) + 1]);
        r = execute(cl -> ((TrainCommand) cl.getSubcommands().get("train").getCommand()).sampleMaxBytes = 1 << 20,
                "train", "--out", out.toString(), "--lines", "--delimiter", ",", file.toString());
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "limit=1048576 bytes", "no delimiter=0x2c within it, file=" + file,
                "--delimiter BYTE");
        assertFalse(Files.exists(out));
    }

    /**
     * libzstd's trainer refuses samples of 4 GiB - 1 or more in all ("Src size is incorrect"), and
     * train followed that with "zstd needs hundreds of samples", the advice for too few. Now the
     * reading stops once the samples pass the limit (lowered here: 4 GiB of samples needs a heap of
     * more), in one line naming it and saying to give fewer.
     */
    @Test
    void shouldRefuseMoreSampleBytesThanTheTrainerTakes(@TempDir Path dir) {
        Path out = dir.resolve("x.dict");
        byte[] samples = "0123456789\n".repeat(2000).getBytes(StandardCharsets.US_ASCII); // 20 000 sample bytes
        Result r = execute(cl -> {
            TrainCommand train = (TrainCommand) cl.getSubcommands().get("train").getCommand();
            train.stdin = new java.io.ByteArrayInputStream(samples);
            train.totalMaxBytes = 10_000;
        }, "train", "--out", out.toString(), "--size", "1K");
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "zmq-zstd train: the samples add up to more than zstd's trainer takes:"
                + " limit=10000 bytes in all, passed at sample=1001; give fewer samples", "102400 bytes");
        assertFalse(Files.exists(out));
        assertEquals(TrainCommand.ZDICT_MAX_TOTAL_BYTES, new TrainCommand().totalMaxBytes);
    }

    /** Zero bytes for ever, without a newline. */
    private static java.io.InputStream endlessZeros() {
        return new java.io.InputStream() {
            @Override
            public int read() {
                return 0;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                java.util.Arrays.fill(b, off, off + len, (byte) 0);
                return len;
            }
        };
    }

    /** A standard output on a full disk: every write fails, as into /dev/full. */
    private static PrintStream diskFull() {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        }, true);
    }

    /** As {@code zmq-zstd keygen > /dev/full}: PrintStream keeps write errors to itself, so the tool must ask. */
    @Test
    void shouldNotReportSuccessWhenTheKeysCouldNotBeWrittenToStandardOutput() {
        PrintStream saved = System.out;
        Result r;
        try {
            System.setOut(diskFull());
            r = run("keygen");
        } finally {
            System.setOut(saved);
        }
        assertEquals(ExitCodes.FAILURE, r.code(), () -> "the key pair was lost, yet keygen reported success: " + r.err());
        assertTrue(r.err().startsWith("zmq-zstd keygen: cannot write standard output"), r::err);
    }

    /**
     * picocli leaves the arguments after --version or help COMMAND unmatched, and the commands
     * printed and exited 0 ({@code zmq-zstd help send extra}, {@code zmq-zstd --version extra}).
     * Now each is a usage error naming the extra argument, nothing printed on standard output;
     * --help still prints whatever else the line holds.
     */
    @Test
    void shouldRefuseArgumentsAfterVersionOrHelpCommand() {
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(List.of("--version", "extra"), "zmq-zstd: --version takes no other argument: unexpected argument 'extra'");
        cases.put(List.of("-V", "--bogus"), "zmq-zstd: --version takes no other argument: unexpected argument '--bogus'");
        cases.put(List.of("send", "--version", "extra"), "zmq-zstd send: --version takes no other argument: unexpected argument 'extra'");
        cases.put(List.of("help", "send", "extra"), "zmq-zstd help: help takes at most one COMMAND: unexpected argument 'extra'");
        cases.put(List.of("help", "send", "extra", "more"), "zmq-zstd help: help takes at most one COMMAND: unexpected argument 'extra' and 1 more");
        cases.forEach((args, expected) -> {
            Result r = run(args.toArray(String[]::new));
            assertOneLine(r, ExitCodes.USAGE, args + " -> " + r, expected);
            assertEquals("", r.out(), args::toString);
        });
        for (List<String> args : List.of(List.of("--help", "extra"), List.of("send", "--help", "--bogus"), List.of("help", "send"))) {
            Result r = run(args.toArray(String[]::new));
            assertEquals(ExitCodes.OK, r.code(), () -> args + " -> " + r);
            assertTrue(r.out().startsWith("Usage: zmq-zstd"), () -> args + " -> " + r);
        }
    }

    /**
     * As {@code zmq-zstd --version > /dev/full}: picocli prints help and version through a
     * PrintStream over standard output, which keeps write errors to itself, so each of these
     * exited 0 with nothing written. Now one line, exit 1, naming the command.
     */
    @Test
    void shouldNotReportSuccessWhenHelpOrVersionCouldNotBeWrittenToStandardOutput() {
        PrintStream saved = System.out;
        Map<List<String>, String> commands = new LinkedHashMap<>();
        commands.put(List.of("--version"), "zmq-zstd");
        commands.put(List.of("--help"), "zmq-zstd");
        commands.put(List.of("send", "--help"), "zmq-zstd send");
        commands.put(List.of("recv", "--version"), "zmq-zstd recv");
        commands.put(List.of("help", "proxy"), "zmq-zstd help");
        commands.forEach((args, name) -> {
            StringWriter err = new StringWriter();
            int code;
            try {
                System.setOut(diskFull());
                CommandLine cl = Main.commandLine(); // picocli's own standard output: System.out's PrintStream
                cl.setErr(new PrintWriter(err, true));
                code = cl.execute(args.toArray(String[]::new));
            } finally {
                System.setOut(saved);
            }
            assertEquals(ExitCodes.FAILURE, code, () -> args + ": the text was lost, yet it exited 0: " + err);
            assertEquals(name + ": cannot write standard output (full disk or closed pipe?)", err.toString().strip(), args::toString);
        });
    }

    /**
     * --timeout 0 on send would make libzmq's send non-blocking: the first message fails before an
     * asynchronous connect can complete, so every run times out. recv refuses 0 already; so does send.
     */
    @Test
    void shouldRefuseAZeroSendTimeout() {
        for (String zero : List.of("0", "0ms", "0.0001s")) {
            Result r = run("one\n".getBytes(StandardCharsets.US_ASCII),
                    "send", "--connect", "tcp://127.0.0.1:1", "--timeout", zero);
            assertOneLine(r, ExitCodes.USAGE, zero + " -> " + r, "--timeout must be positive (or 'forever'): timeout=0");
        }
    }

    /**
     * --max-size 0 let only empty messages through: every other frame was a bad frame (TOO_LARGE),
     * though --hwm 0 in the same command means "no limit". Refused in one line instead.
     */
    @Test
    void shouldRefuseAZeroMaxSize() {
        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--max-size", "0", "--timeout", "1s");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "--max-size must be positive: bytes=0", "--help");
    }

    /** --force overwrites a key file, never a directory in its place (an empty one was deleted and replaced). */
    @Test
    void shouldNotReplaceADirectoryWithAKeyFile(@TempDir Path dir) throws Exception {
        Path keys = Files.createDirectory(dir.resolve("keys"));
        for (String[] args : new String[][] {{"keygen", "--out", keys.toString(), "--force"},
                {"keygen", "--out", dir.resolve("server.key").toString(), "--force"}}) {
            if (args[2].endsWith("server.key")) {
                Files.createDirectory(dir.resolve("server.key.pub")); // the public key's place is taken
            }
            Result r = run(args);
            String what = String.join(" ", args) + " -> " + r;
            assertOneLine(r, ExitCodes.FAILURE, what, "cannot write key file: file=", "error=is a directory");
            assertFalse(r.err().contains("Exception"), what);
            assertEquals("", r.out(), what);
        }
        assertTrue(Files.isDirectory(keys));
        assertTrue(Files.isDirectory(dir.resolve("server.key.pub")));
        assertFalse(Files.exists(dir.resolve("server.key")), "a secret key left behind without its public half");
    }

    /**
     * keygen --out FILE whose FILE.pub cannot be written (here its name is too long: FILE has 253
     * characters, FILE.pub 257, past the usual 255): it left the secret key in FILE without its
     * public half, and a second run refused FILE as "file exists". Now neither file is left.
     */
    @Test
    void shouldLeaveNoSecretKeyWhenThePublicKeyFileCannotBeWritten(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("k".repeat(253));
        Result r = run("keygen", "--out", secret.toString());
        assumeTrue(r.code() != ExitCodes.OK, "this file system takes names of 257 characters");
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "cannot write key file: file=" + secret + ".pub, error=");
        assertFalse(Files.exists(secret), "a secret key left behind without its public half");
        // the reason alone: it was "error=PATH.pub: File name too long", the long path a second time
        assertTrue(r.err().strip().endsWith(".pub, error=File name too long"), r::toString);
        assertEquals("", r.out(), r::toString);
    }

    /**
     * --force over a special file: it deleted whatever was there, so run as root {@code keygen --out
     * /dev/null --force} deleted the device node and left a regular file holding the secret key in its
     * place. A FIFO and a socket stand in for a device here (no root needed); neither key file is written.
     */
    @Test
    void shouldNotReplaceASpecialFileWithAKeyFile(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo.key");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        assumeTrue(mkfifo.waitFor() == 0 && Files.exists(fifo), "mkfifo made no FIFO");
        Path socketKey = dir.resolve("socket.key");
        try (var listener = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            listener.bind(java.net.UnixDomainSocketAddress.of(dir.resolve("socket.key.pub"))); // FILE.pub's place
            for (Path out : List.of(fifo, socketKey)) {
                Result r = run("keygen", "--out", out.toString(), "--force");
                String what = "keygen --out " + out + " --force -> " + r;
                assertOneLine(r, ExitCodes.FAILURE, what, "cannot write key file: file=" + (out == fifo ? fifo : out + ".pub"),
                        "error=is a special file (a device, FIFO or socket), which --force does not replace");
                assertEquals("", r.out(), what);
            }
        }
        assertTrue(Files.exists(fifo) && !Files.isRegularFile(fifo), "the FIFO was replaced");
        assertFalse(Files.isRegularFile(dir.resolve("socket.key.pub")), "the socket was replaced");
        assertFalse(Files.exists(dir.resolve("fifo.key.pub")) || Files.exists(socketKey), "a key file was written");
    }

    /**
     * --force over a symbolic link (FILE or FILE.pub, to a file or to none yet) deleted the link and
     * wrote a regular file in its place, the link's target untouched; without --force it was "file
     * exists (use --force to overwrite)". Writing through the link would put the secret key wherever
     * it points, with that file's owner and permissions: a link is refused either way, neither key
     * file written, the link and its target as they were.
     */
    @Test
    void shouldRefuseASymbolicLinkAsAKeyFile(@TempDir Path dir) throws Exception {
        Path target = Files.writeString(dir.resolve("target.key"), "old\n");
        Path secretLink = Files.createSymbolicLink(dir.resolve("server.key"), target);
        Path dangling = Files.createSymbolicLink(dir.resolve("next.key"), dir.resolve("not-there-yet.key"));
        Path pubLink = Files.createSymbolicLink(dir.resolve("client.key.pub"), target);
        String[][] cases = {{"keygen", "--out", secretLink.toString(), "--force"}, {"keygen", "--out", secretLink.toString()},
                {"keygen", "--out", dangling.toString(), "--force"}, {"keygen", "--out", dir.resolve("client.key").toString(), "--force"}};
        String[] expected = {
                "cannot write key file: file=" + secretLink + ", error=is a symbolic link to " + target
                        + ", which keygen neither writes through nor replaces: give --out the target's path",
                "cannot write key file: file=" + secretLink + ", error=is a symbolic link to " + target,
                "cannot write key file: file=" + dangling + ", error=is a symbolic link to " + dir.resolve("not-there-yet.key")
                        + ", which keygen neither writes through nor replaces: give --out the target's path",
                "cannot write key file: file=" + pubLink + ", error=is a symbolic link to " + target
                        + ", which keygen neither writes through nor replaces: give --out a FILE whose FILE.pub is not a link"};
        for (int i = 0; i < cases.length; i++) {
            Result r = run(cases[i]);
            String what = String.join(" ", cases[i]) + " -> " + r;
            assertOneLine(r, ExitCodes.FAILURE, what, expected[i]);
            assertEquals("", r.out(), what);
        }
        for (Path link : List.of(secretLink, dangling, pubLink)) {
            assertTrue(Files.isSymbolicLink(link), link + " was replaced");
        }
        assertEquals("old\n", Files.readString(target), "written through the link");
        assertFalse(Files.exists(dir.resolve("not-there-yet.key")), "written through the dangling link");
        assertFalse(Files.exists(dir.resolve("server.key.pub")) || Files.exists(dir.resolve("next.key.pub"))
                || Files.exists(dir.resolve("client.key"), java.nio.file.LinkOption.NOFOLLOW_LINKS), "a key file was written");
    }

    /**
     * keygen --out FILE where only FILE.pub exists (an old public key, or a key copied back): it
     * wrote a new secret key to FILE, then refused FILE.pub, leaving a new secret key beside the
     * old public key, a pair that does not match and that a second run refuses to touch.
     */
    @Test
    void shouldWriteNoKeyFileWhenThePublicKeyFileExists(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("server.key");
        Path pub = Files.writeString(dir.resolve("server.key.pub"), "public=old\n");
        Result r = run("keygen", "--out", secret.toString());
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "file exists: file=" + pub, "--force");
        assertFalse(Files.exists(secret), "a new secret key left beside the old public key");
        assertEquals("public=old\n", Files.readString(pub));
        assertEquals("", r.out(), r::toString);
    }

    /** An output file whose directory is missing, or that is a directory: one line that says which, before any work. */
    @Test
    void shouldNameAnOutputDirectoryThatIsMissing(@TempDir Path dir) throws Exception {
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        Path missing = dir.resolve("no-such-dir");
        Path taken = Files.createDirectory(dir.resolve("taken"));
        String[][] cases = {
                {"keygen", "--out", missing.resolve("server.key").toString()},
                {"train", "--out", missing.resolve("x.dict").toString(), "--size", "1K", "--lines", samples.toString()},
                {"train", "--out", taken.toString(), "--size", "1K", "--lines", samples.toString()},
        };
        String[] errors = {"error=no such directory: " + missing, "error=no such directory: " + missing, "error=is a directory"};
        for (int i = 0; i < cases.length; i++) {
            Result r = run(cases[i]);
            String what = String.join(" ", cases[i]) + " -> " + r;
            assertOneLine(r, ExitCodes.FAILURE, what, "file=" + cases[i][2] + ", " + errors[i]);
        }
    }

    /**
     * train --out naming one of its sample FILEs (as written, or another spelling of it): the
     * samples were read whole, then replaced by the dictionary, exit 0. Refused before reading, the
     * file unchanged.
     */
    @Test
    void shouldNotWriteTheDictionaryOverASampleFile(@TempDir Path dir) throws Exception {
        byte[] text = sampleLines("\n");
        Path samples = Files.write(dir.resolve("samples.txt"), text);
        Path other = Files.write(dir.resolve("other.txt"), text);
        String[][] cases = {
                {"train", "--out", samples.toString(), "--size", "1K", "--lines", samples.toString()},
                {"train", "--out", dir.resolve(".").resolve("samples.txt").toString(), "--size", "1K", "--lines",
                        other.toString(), samples.toString()},
        };
        for (String[] args : cases) {
            Result r = run(args);
            String what = String.join(" ", args) + " -> " + r;
            assertOneLine(r, ExitCodes.FAILURE, what, "cannot write dictionary: file=" + args[2] + ", error=it is the sample file "
                    + samples + ", which the dictionary would replace; give --out another file");
            assertEquals("", r.out(), what);
        }
        assertArrayEquals(text, Files.readAllBytes(samples));
    }

    /**
     * train replaces an existing --out by renaming a new file over it (so that a failed write leaves
     * the old dictionary; CliProcessIT pins that): the new one keeps the old file's permissions, as
     * a write in place did, and no other file is left.
     */
    @Test
    void shouldKeepThePermissionsOfTheDictionaryItReplaces(@TempDir Path dir) throws Exception {
        assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        Path out = Files.createDirectory(dir.resolve("out"));
        Path dict = Files.writeString(out.resolve("app.dict"), "old");
        var mode = java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----");
        Files.setPosixFilePermissions(dict, mode);
        Result r = run("train", "--out", dict.toString(), "--size", "1K", "--lines", samples.toString());
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        byte[] written = Files.readAllBytes(dict);
        assertEquals(0xEC30A437, java.nio.ByteBuffer.wrap(written).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(), "a zstd dictionary");
        assertEquals(mode, Files.getPosixFilePermissions(dict));
        try (var left = Files.list(out)) {
            assertEquals(List.of(dict), left.toList());
        }
    }

    /**
     * An --out that is a symbolic link to a file not there yet (a dangling link, as deployment tools
     * set up ahead of the file): the rename that writes the dictionary replaced the link itself with
     * a regular file, and the file it named was never written. Now the dictionary is written at the
     * link's target, followed link by link, and the links stay; a target in a missing directory, and
     * a loop of links, are refused before any sample is read.
     */
    @Test
    void shouldWriteTheDictionaryAtTheTargetOfALinkToAFileNotThereYet(@TempDir Path dir) throws Exception {
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        Path dicts = Files.createDirectory(dir.resolve("dicts"));
        Path link = Files.createSymbolicLink(dir.resolve("current.dict"), Path.of("next.dict"));
        Files.createSymbolicLink(dir.resolve("next.dict"), Path.of("dicts", "v2.dict")); // relative to the link's directory
        Result r = run("train", "--out", link.toString(), "--size", "1K", "--lines", samples.toString());
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertTrue(Files.isSymbolicLink(link) && Files.isSymbolicLink(dir.resolve("next.dict")), "a link was replaced");
        byte[] written = Files.readAllBytes(dicts.resolve("v2.dict"));
        assertTrue(r.err().contains("wrote dictionary: id=" + Integer.toUnsignedString(ZstdDictionary.of(written).id()) + ","),
                r::toString);
        try (var left = Files.list(dicts)) {
            assertEquals(List.of(dicts.resolve("v2.dict")), left.toList());
        }

        Path nowhere = Files.createSymbolicLink(dir.resolve("nowhere.dict"), dir.resolve("missing").resolve("v1.dict"));
        Files.createSymbolicLink(dir.resolve("loop.a"), Path.of("loop.b"));
        Path loop = Files.createSymbolicLink(dir.resolve("loop.b"), Path.of("loop.a"));
        Map<Path, String> refused = Map.of(nowhere, "no such directory: " + dir.resolve("missing"),
                loop, "too many levels of symbolic links");
        for (Map.Entry<Path, String> c : refused.entrySet()) {
            Result f = run("train", "--out", c.getKey().toString(), "--size", "1K", "--lines", dir.resolve("unread.txt").toString());
            assertOneLine(f, ExitCodes.FAILURE, f.toString(), "cannot write dictionary: file=" + c.getKey() + ", error=" + c.getValue());
        }
    }

    /**
     * "no samples" names what was read: it said "standard input and the files were empty" for FILEs
     * alone, whose train never reads standard input, and for standard input alone.
     */
    @Test
    void shouldNameWhatHeldNoSamples(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.json"), "");
        Path blank = Files.writeString(dir.resolve("blank.json"), "\n\n");
        String out = dir.resolve("x.dict").toString();
        String skipped = " empty (empty samples, such as blank lines, are skipped)";
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(List.of(empty.toString()), "file=" + empty + " was");
        cases.put(List.of("--lines", empty.toString(), blank.toString()), "files=" + empty + "," + blank + " were");
        cases.put(List.of("-", "--lines", blank.toString()), "standard input and file=" + blank + " were");
        cases.forEach((files, sources) -> {
            List<String> args = new java.util.ArrayList<>(List.of("train", "--out", out));
            args.addAll(files);
            Result r = train("\n".getBytes(StandardCharsets.UTF_8), args.toArray(String[]::new));
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            assertEquals("zmq-zstd train: no samples: " + sources + skipped, r.err().strip(), files::toString);
            assertTrue(Files.notExists(Path.of(out)), files::toString);
        });
    }

    /**
     * An empty path given to an option that takes a file ({@code --dict ''}, {@code --out ''},
     * {@code --curve-server-key @}, a key file, a sample FILE) was the working directory: "cannot
     * read dictionary: file=, error=Is a directory", exit 1, naming neither the option nor that the
     * path was empty. Now a usage error (exit 2) that says so and names the option; nothing is
     * read, bound or written.
     */
    @Test
    void shouldRefuseAnEmptyPathNamingTheOption() {
        String key = Curve.keypair().publicKey();
        String connect = "tcp://127.0.0.1:1";
        String[][] cases = {
                {"send", "--connect", connect, "--dict", ""},
                {"recv", "--connect", connect, "--dict", ""},
                {"recv", "--connect", connect, "--dict-for-no-id", ""},
                {"send", "--connect", connect, "--curve-server-key", "@"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-secret-key-file", ""},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", ""},
                {"send", "--connect", connect, "--curve-server-key", key, "--curve-keypair-file", ""},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--backend-curve-server-key", "@"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--frontend-curve-server", "--frontend-curve-keypair-file", ""},
                {"train", "--out", ""},
                {"train", "--out", "never-written.dict", ""},
                {"keygen", "--out", ""}};
        String[] expected = {
                "Invalid value for option '--dict': empty path: give a file name",
                "Invalid value for option '--dict' (FILE): empty path: give a file name", // picocli names a repeatable one's label
                "Invalid value for option '--dict-for-no-id': empty path: give a file name",
                "Invalid value for option '--curve-server-key': empty path after '@': give @FILE, e.g. @server.key.pub, or the key",
                "Invalid value for option '--curve-secret-key-file': empty path: give a file name",
                "Invalid value for option '--curve-keypair-file': empty path: give a file name",
                "Invalid value for option '--curve-keypair-file': empty path: give a file name",
                "Invalid value for option '--backend-curve-server-key': empty path after '@': give @FILE, e.g. @server.key.pub, or the key",
                "Invalid value for option '--frontend-curve-keypair-file': empty path: give a file name",
                "Invalid value for option '--out': empty path: give a file name",
                "Invalid value for sample FILE 1 of 1: empty path: give a file name",
                "Invalid value for option '--out': empty path: give a file name"};
        assertEachAUsageError(cases, expected);
        assertFalse(Files.exists(Path.of("never-written.dict")), "train wrote its dictionary");
    }

    /**
     * {@code --out -}: train reads a FILE of '-' as standard input, so '-' reads as standard output
     * here, but it wrote a file named '-' (and keygen '-' and '-.pub') and printed the ID or key as
     * usual. Refused before anything is read or written; ./- is a file of that name.
     */
    @Test
    void shouldRefuseADashAsAnOutputFile(@TempDir Path dir) throws Exception {
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        for (String[] args : new String[][] {{"keygen", "--out", "-"},
                {"train", "--out", "-", "--size", "1K", "--lines", samples.toString()}}) {
            Result r = run(args);
            assertOneLine(r, ExitCodes.FAILURE, String.join(" ", args) + " -> " + r, "file=-, error='-' is not standard output here",
                    "give ./- for such a file");
            assertEquals("", r.out(), r::toString);
        }
        assertFalse(Files.exists(Path.of("-")) || Files.exists(Path.of("-.pub")), "a file named '-' was written");
        Path dash = dir.resolve("-");
        Result r = run("train", "--out", dash.toString(), "--size", "1K", "--lines", samples.toString());
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertTrue(Files.size(dash) > 0);
    }

    /**
     * An {@code --out} that ends with '/' names a directory, but {@code Path.of} drops the '/': {@code
     * train --out dicts/} with no {@code dicts} there wrote the dictionary to a file named {@code dicts},
     * and {@code keygen --out keys/} the secret key to {@code keys} and {@code keys.pub}, exit 0. Now a
     * usage error naming the option, before anything is read or written.
     */
    @Test
    void shouldRefuseAnOutputFileThatEndsWithASlash(@TempDir Path dir) throws Exception {
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        Path missing = dir.resolve("dicts");
        for (String out : new String[] {missing + "/", dir + "/"}) {
            for (String[] args : new String[][] {{"keygen", "--out", out},
                    {"train", "--out", out, "--size", "1K", "--lines", samples.toString()}}) {
                Result r = run(args);
                assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r, "zmq-zstd " + args[0]
                        + ": Invalid value for option '--out': '" + out + "' ends with '/', which names a directory: give a"
                        + " file name, e.g. " + out + "NAME");
                assertEquals("", r.out(), r::toString);
            }
        }
        assertFalse(Files.exists(missing, java.nio.file.LinkOption.NOFOLLOW_LINKS), "a file named dicts was written");
        assertFalse(Files.exists(dir.resolve("dicts.pub")), "a file named dicts.pub was written");
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(samples), listing.toList(), "only the samples are there");
        }
    }

    /**
     * {@code keygen --out server.key.pub} (a name copied from a client's {@code --curve-server-key
     * @server.key.pub}) wrote the key pair, secret key included, into {@code server.key.pub}, the file
     * handed to clients, and the public key into {@code server.key.pub.pub}, exit 0. Now a usage error
     * that says why and which {@code --out} to give, nothing written, nothing printed.
     */
    @Test
    void shouldRefuseAnOutputFileNamedAsAPublicKeyFile(@TempDir Path dir) throws Exception {
        Path pub = dir.resolve("server.key.pub");
        Path bare = dir.resolve(".pub");
        String[][] cases = {{"keygen", "--out", pub.toString()}, {"keygen", "--out", bare.toString(), "--force"}};
        String[] expected = {
                "Invalid value for option '--out': '" + pub + "' ends with '.pub', the name of a public key file, but FILE gets"
                        + " the key pair, its secret key included (the public key goes to FILE.pub, here server.key.pub.pub):"
                        + " give --out " + dir.resolve("server.key") + ", which writes " + dir.resolve("server.key") + " and "
                        + pub,
                "Invalid value for option '--out': '" + bare + "' ends with '.pub', the name of a public key file, but FILE gets"
                        + " the key pair, its secret key included (the public key goes to FILE.pub, here .pub.pub): give a name"
                        + " without it, e.g. --out server.key, which writes server.key and server.key.pub"};
        for (int i = 0; i < cases.length; i++) {
            Result r = run(cases[i]);
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", cases[i]) + " -> " + r, "zmq-zstd keygen: " + expected[i]);
            assertEquals("", r.out(), r::toString);
        }
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(), listing.toList(), "no key file was written");
        }
    }

    /**
     * A file to read given with a trailing '/' ({@code --dict d.dict/}): {@code Path.of} drops the '/', so
     * the file was read and the command ran (open(2) refuses such a path with ENOTDIR). Now a usage
     * error naming the option and the file without the '/', before anything is bound or sent, as
     * train's and keygen's {@code --out} are.
     */
    @Test
    void shouldRefuseAFileToReadThatEndsWithASlash(@TempDir Path dir) throws Exception {
        Path dict = dir.resolve("d.dict");
        try (ZstdDictionary trained = ZstdDictionary.train(java.util.stream.IntStream.range(0, 2000)
                .mapToObj(i -> ("{\"host\":\"web-" + i % 17 + "\",\"cpu\":" + i * 7 % 100 + "}").getBytes(StandardCharsets.US_ASCII))
                .toList(), 1024)) {
            trained.save(dict);
        }
        Path keys = dir.resolve("server.key");
        assertEquals(ExitCodes.OK, run("keygen", "--out", keys.toString()).code());
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        String connect = "tcp://127.0.0.1:1";
        String d = dict + "/";
        String k = keys + "/";
        String pub = keys + ".pub/";
        String[][] cases = {
                {"send", "--connect", connect, "--dict", d, "--timeout", "200ms"},
                {"recv", "--connect", connect, "--dict", d, "--timeout", "200ms"},
                {"recv", "--connect", connect, "--dict-for-no-id", d, "--timeout", "200ms"},
                {"send", "--connect", connect, "--curve-server-key", "@" + pub, "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-secret-key-file", k, "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--curve-server", "--curve-keypair-file", k, "--timeout", "200ms"},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--backend-curve-server-key", "@" + pub},
                {"proxy", "--type", "pipeline", "--frontend-bind", "tcp://127.0.0.1:*", "--backend-connect", connect,
                        "--frontend-curve-server", "--frontend-curve-keypair-file", k},
                {"train", "--out", dir.resolve("never-written.dict").toString(), "--size", "1K", samples + "/"},
                {"recv", "--connect", connect, "--dict", dir + "/", "--timeout", "200ms"}};
        String[] expected = {
                "Invalid value for option '--dict': '" + d + "' ends with '/', which names a directory: " + dict
                        + " is a file: give it without the '/'",
                "Invalid value for option '--dict' (FILE): '" + d + "' ends with '/', which names a directory: " + dict
                        + " is a file: give it without the '/'",
                "Invalid value for option '--dict-for-no-id': '" + d + "' ends with '/', which names a directory: " + dict
                        + " is a file: give it without the '/'",
                "Invalid value for option '--curve-server-key': '" + pub + "' ends with '/', which names a directory: " + keys
                        + ".pub is a file: give it without the '/'",
                "Invalid value for option '--curve-secret-key-file': '" + k + "' ends with '/', which names a directory: " + keys
                        + " is a file: give it without the '/'",
                "Invalid value for option '--curve-keypair-file': '" + k + "' ends with '/', which names a directory: " + keys
                        + " is a file: give it without the '/'",
                "Invalid value for option '--backend-curve-server-key': '" + pub + "' ends with '/', which names a directory: "
                        + keys + ".pub is a file: give it without the '/'",
                "Invalid value for option '--frontend-curve-keypair-file': '" + k + "' ends with '/', which names a directory: "
                        + keys + " is a file: give it without the '/'",
                "Invalid value for sample FILE 1 of 1: '" + samples + "/' ends with '/', which names a directory: " + samples
                        + " is a file: give it without the '/'",
                "Invalid value for option '--dict' (FILE): '" + dir + "/' ends with '/', which names a directory: give a file name,"
                        + " e.g. " + dir + "/NAME"};
        assertEachAUsageError(cases, expected);
        assertFalse(Files.exists(dir.resolve("never-written.dict")), "train wrote its dictionary");
    }

    /**
     * An output file on the kernel's proc file system: {@code train --out /proc/version} (there, but
     * its directory takes no new file, which run as root fails ENOENT) trained, then said "no such
     * file", and keygen too for a new file there. Now refused before anything is read, naming the file
     * system; nothing written.
     */
    @Test
    void shouldNameTheKernelFileSystemOfAnOutputFileRatherThanNoSuchFile(@TempDir Path dir) throws Exception {
        assumeTrue(Files.getFileStore(Path.of("/proc")).type().equals("proc"), "needs Linux's /proc");
        Path samples = Files.write(dir.resolve("samples.txt"), sampleLines("\n"));
        String[][] cases = {
                {"train", "--out", "/proc/version", "--size", "1K", "--lines", samples.toString()},
                {"train", "--out", "/proc/zmq-zstd-test.dict", "--size", "1K", "--lines", samples.toString()},
                {"keygen", "--out", "/proc/zmq-zstd-test.key"},
                {"keygen", "--force", "--out", "/proc/version"}};
        String[] expected = {"cannot write dictionary: file=/proc/version, error=it is on the kernel's proc file system",
                "cannot write dictionary: file=/proc/zmq-zstd-test.dict, error=its directory /proc is on the kernel's proc file system",
                "file=/proc/zmq-zstd-test.key, error=its directory /proc is on the kernel's proc file system",
                "file=/proc/version, error=it is on the kernel's proc file system"};
        for (int i = 0; i < cases.length; i++) {
            Result r = run(cases[i]);
            assertOneLine(r, ExitCodes.FAILURE, String.join(" ", cases[i]) + " -> " + r, expected[i]);
            assertEquals("", r.out(), r::toString);
        }
        assertTrue(Files.readString(Path.of("/proc/version")).startsWith("Linux"));
    }

    /**
     * As {@code send < /tmp}: reading standard input fails (EISDIR). The line said only
     * "zmq-zstd send: Is a directory", naming neither standard input nor what was being done.
     */
    @Test
    void shouldNameStandardInputWhenItCannotBeRead() {
        java.io.InputStream directory = failing("Is a directory");
        Result send = run(s -> s.stdin = directory, "send", "--connect", "tcp://127.0.0.1:1", "--timeout", "1s");
        assertOneLine(send, ExitCodes.FAILURE, send.toString(), "zmq-zstd send: cannot read standard input: error=Is a directory");

        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        ((TrainCommand) cl.getSubcommands().get("train").getCommand()).stdin = directory;
        cl.setErr(new PrintWriter(err, true));
        Result train = new Result(cl.execute("train", "--out", "/tmp/never-written.dict"), "", err.toString());
        assertOneLine(train, ExitCodes.FAILURE, train.toString(), "zmq-zstd train: cannot read standard input: error=Is a directory");
    }

    /**
     * --threads with no peer and no --timeout: three lines are read ahead into the workers' ring (each
     * blocked for a peer), then standard input fails. The run waited for ever for the ring to drain
     * before saying anything; the input error now ends it at once, as after a --timeout (linger 0),
     * and the messages read ahead are dropped and counted.
     */
    @Test
    void shouldReportAStandardInputErrorBehindMessagesReadAheadWithoutAPeer() {
        java.io.InputStream failsAfterThreeLines = new java.io.SequenceInputStream(
                new java.io.ByteArrayInputStream("one\ntwo\nthree\n".getBytes(StandardCharsets.US_ASCII)),
                failing("Input/output error"));
        Result r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                () -> run(s -> s.stdin = failsAfterThreeLines, "send", "--connect", "tcp://127.0.0.1:1", "--threads", "2", "--stats"),
                "send waited for a peer before reporting that standard input failed");
        assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
        List<String> lines = r.err().lines().toList();
        assertEquals(2, lines.size(), r::toString);
        assertTrue(lines.get(0).startsWith("zmq-zstd send: summary: messages=0 bytesIn=0 bytesOut=0 ratio=0.000 errors=3 "), r::toString);
        assertEquals("zmq-zstd send: cannot read standard input: error=Input/output error", lines.get(1), r::toString);
    }

    /**
     * As above with a peer that connected and stopped reading (a listener that never reads, a
     * legacy ZMTP peer to libzmq): messages are queued in libzmq for it, and workers blocked behind
     * them. Waking the workers shuts the context down, after which the socket takes no option: its
     * linger must already be 0, or closing it waits for ever for the queued messages.
     */
    @Test
    void shouldReportAStandardInputErrorBehindMessagesReadAheadForAStalledPeer() throws Exception {
        byte[] data = new byte[12 << 20];
        new java.util.Random(11).nextBytes(data); // incompressible: 48 chunks of 256 KiB, fewer than the ring takes
        java.io.InputStream failsAfterData = new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(data),
                failing("Input/output error"));
        try (java.net.ServerSocket stalled = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<java.net.Socket> accepted = acceptAndNeverRead(stalled);
            Result r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                    () -> run(s -> s.stdin = failsAfterData, "send", "--connect", "tcp://127.0.0.1:" + stalled.getLocalPort(),
                            "--chunk", "256K", "--hwm", "1", "--threads", "2", "--stats"),
                    "send waited for a stalled peer before reporting that standard input failed");
            accepted.get(10, java.util.concurrent.TimeUnit.SECONDS).close();
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals(2, lines.size(), r::toString);
            // messages were still in the workers' hands when the input failed (about 2.75 MiB filled the
            // stalled connection here): they are dropped and counted
            assertTrue(lines.get(0).startsWith("zmq-zstd send: summary: ") && !lines.get(0).contains(" errors=0 "), r::toString);
            assertEquals("zmq-zstd send: cannot read standard input: error=Input/output error", lines.get(1), r::toString);
        }
    }

    /**
     * --delimiter, --chunk and --whole: given twice, one is named as --hwm twice is (picocli's group
     * said "expected only one match but got [--delimiter=BYTE | --chunk=BYTES | --whole]={--whole} and ...");
     * two of them together are named as excluding each other.
     */
    @Test
    void shouldNameARepeatedOrConflictingFramingOption() {
        String[][] twice = {{"--whole", "--whole"}, {"--delimiter", ",", "--delimiter", "x"}, {"--chunk", "1K", "--chunk", "2K"}};
        for (String[] framing : twice) {
            Result r = run(concat(framing));
            assertOneLine(r, ExitCodes.USAGE, r.toString(), "option '" + framing[0] + "'", "should be specified only once");
            assertFalse(r.err().contains("expected only one match"), r::toString);
        }
        Result both = run(concat("--chunk", "1K", "--whole"));
        assertOneLine(both, ExitCodes.USAGE, both.toString(), "--chunk and --whole exclude each other");
        Result all = run(concat("--delimiter", ",", "--chunk", "1K"));
        assertOneLine(all, ExitCodes.USAGE, all.toString(), "--delimiter and --chunk exclude each other");
    }

    /** keygen --force without --out: nothing is written, so there is nothing to overwrite; it printed keys and exited 0. */
    @Test
    void shouldRefuseForceWithoutOut() {
        Result r = run("keygen", "--force");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd keygen: --force needs --out FILE", "(see 'zmq-zstd keygen --help')");
    }

    /**
     * train --lines cuts sample FILEs into lines; standard input is read as lines with or without
     * it, so with no FILE, or '-' only, it asks for what happens anyway: accepted, and the samples
     * are the lines (a whole-input sample would be one, too few to train).
     */
    @Test
    void shouldTrainFromStandardInputByLinesWithOrWithoutLines(@TempDir Path dir) {
        String out = dir.resolve("x.dict").toString();
        for (String[] args : new String[][] {{"train", "--out", out, "--size", "1K", "--lines"},
                {"train", "--out", out, "--size", "1K", "--lines", "-"}, {"train", "--out", out, "--size", "1K"}}) {
            Result r = train(sampleLines("\n"), args);
            assertEquals(ExitCodes.OK, r.code(), () -> String.join(" ", args) + " -> " + r);
            assertTrue(r.err().contains("samples=2000"), () -> String.join(" ", args) + " -> " + r);
        }
        assertTrue(Files.exists(dir.resolve("x.dict")));
    }

    private static String[] concat(String... framing) {
        String[] args = {"send", "--connect", "tcp://127.0.0.1:1", "--timeout", "1s"};
        String[] all = Arrays.copyOf(args, args.length + framing.length);
        System.arraycopy(framing, 0, all, args.length, framing.length);
        return all;
    }

    /**
     * train --delimiter cuts standard input and, with --lines, sample FILEs. Without --lines each
     * FILE is one sample, whole, so with FILEs only it was ignored (here: one sample, and training
     * failed on that). Refused; where it cuts samples it still does.
     */
    @Test
    void shouldRefuseATrainDelimiterThatCutsNoSample(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("samples.txt"), sampleLines(";"));
        String out = dir.resolve("x.dict").toString();
        Result r = train(new byte[0], "train", "--out", out, "--size", "1K", "--delimiter", ";", file.toString());
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd train: --delimiter needs --lines or standard input",
                "(see 'zmq-zstd train --help')");

        String[][] cutting = {{"--lines", file.toString()}, {}, {"-"}, {file.toString(), "-"}};
        String[] samples = {"samples=2000,", "samples=2000,", "samples=2000,", "samples=2001,"};
        for (int i = 0; i < cutting.length; i++) {
            List<String> args = new java.util.ArrayList<>(List.of("train", "--out", out, "--size", "1K", "--delimiter", ";"));
            args.addAll(List.of(cutting[i]));
            r = train(cutting[i].length > 0 && cutting[i][0].equals("--lines") ? new byte[0] : sampleLines(";"),
                    args.toArray(String[]::new));
            assertOneLine(r, ExitCodes.OK, args + " -> " + r, "zmq-zstd train: wrote dictionary: id=", samples[i]);
        }
    }

    /**
     * --no-dict-id has no ID to leave out without --dict; --dict-for-no-id beside a raw-content --dict
     * would give frames without an ID two dictionaries: both usage errors, one line, exit 2.
     */
    @Test
    void shouldRefuseNoDictionaryIdOptionsThatCannotApply(@TempDir Path dir) throws Exception {
        Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), "send", "--connect", "tcp://127.0.0.1:1", "--no-dict-id",
                "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd send: --no-dict-id needs --dict FILE");
        Path raw = Files.writeString(dir.resolve("raw.txt"), "raw content\n".repeat(50));
        Path trained = dir.resolve("trained.dict");
        try (ZstdDictionary d = ZstdDictionary.train(java.util.stream.IntStream.range(0, 2000)
                .mapToObj(i -> ("{\"host\":\"web-" + i % 17 + "\",\"cpu\":" + i * 7 % 100 + "}").getBytes(StandardCharsets.US_ASCII))
                .toList(), 1024)) {
            d.save(trained);
        }
        r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict", raw.toString(), "--raw-dict", "--dict-for-no-id", trained.toString(),
                "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd recv: --dict-for-no-id " + trained + " and --dict " + raw
                + " (dictionary ID 0: raw content) would both decode frames without a dictionary ID: keep one");
        // a file that is not a zstd dictionary is refused as for --dict, but --raw-dict, which reads
        // --dict files only, is no way out here (it was offered, and refused the same file again)
        r = run("recv", "--bind", "tcp://127.0.0.1:*", "--dict-for-no-id", raw.toString(), "--timeout", "200ms");
        assertOneLine(r, ExitCodes.FAILURE, r.toString(), "zmq-zstd recv: not a zstd dictionary: file=" + raw);
        assertTrue(r.err().contains("give the file as --dict FILE --raw-dict instead of --dict-for-no-id")
                && !r.err().contains("or pass --raw-dict"), r.toString());
    }

    /**
     * recv with only --dict-for-no-id FILE, sent a frame that carries FILE's ID: one bad-frame line,
     * DICTIONARY_MISSING, that names FILE's ID as the one for frames without an ID (it said
     * "known=[0]") and ends with the flag that fixes it, --dict; the next frame, without the ID,
     * is delivered.
     */
    @Test
    void shouldNameDictFlagForAFrameWithTheIdOfTheNoIdDictionary(@TempDir Path dir) throws Exception {
        Path trained = dir.resolve("trained.dict");
        try (ZstdDictionary d = trainOn("host", trained);
             ZmqContext ctx = new ZmqContext(); ZmqSocket push = ctx.socket(SocketType.PUSH);
             io.zmqzstd.codec.ZstdCompressor withId = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(d).build();
             io.zmqzstd.codec.ZstdCompressor noId = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(d)
                     .dictionaryIdInFrame(false).build()) {
            push.bind("tcp://127.0.0.1:*");
            push.sendTimeoutMs(30_000);
            String endpoint = push.lastEndpoint();
            java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
            java.util.concurrent.CompletableFuture<Result> recv = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                            "recv", "--connect", endpoint, "--dict-for-no-id", trained.toString(), "--count", "1",
                            "--timeout", "30s"));
            // blocks until recv has connected
            assertTrue(push.send(withId.compress("{\"with\":1}".getBytes(StandardCharsets.US_ASCII)), 0), () -> recv.join().toString());
            assertTrue(push.send(noId.compress("{\"without\":1}".getBytes(StandardCharsets.US_ASCII)), 0));
            Result r = recv.get(30, java.util.concurrent.TimeUnit.SECONDS);
            String id = Integer.toUnsignedString(d.id());
            assertOneLine(r, ExitCodes.OK, r.toString(), "zmq-zstd recv: bad frame: part=0, reason=DICTIONARY_MISSING,"
                    + " frame needs a dictionary this decompressor lacks: dictionaryId=" + id + ", known=[], forFramesWithoutId="
                    + id + "; that dictionary is set for frames without an ID only: add it with dictionary(d) too for frames"
                    + " that name its ID (zmq-zstd recv --dict FILE)");
            assertEquals("{\"without\":1}\n", stdout.toString(StandardCharsets.US_ASCII), "the next frame delivered");
        }
    }

    /**
     * recv --dict-for-no-id B, sent a frame made with another dictionary A and no ID: the bad-frame
     * line (CHECKSUM or CORRUPT) said nothing of the dictionary it was decoded with; now it names
     * the file and its ID and says that a frame of another dictionary fails this way. The next
     * frame is delivered. With a --dict beside it the line said nothing until 2026-11-29 ("recv
     * cannot tell which dictionary decoded a failed frame"): the frame's header names its ID, 0 here.
     */
    @Test
    void shouldSayAFrameWithoutIdThatFailedWasDecodedWithTheDictForNoIdFile(@TempDir Path dir) throws Exception {
        Path fileA = dir.resolve("a.dict");
        Path fileB = dir.resolve("b.dict");
        try (ZstdDictionary a = trainOn("host", fileA); ZstdDictionary b = trainOn("zone", fileB);
             ZmqContext ctx = new ZmqContext();
             io.zmqzstd.codec.ZstdCompressor withA = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(a)
                     .dictionaryIdInFrame(false).checksum(true).build()) {
            String hint = "; the frame declares no dictionary ID and was decoded with --dict-for-no-id " + fileB + " (id="
                    + Integer.toUnsignedString(b.id()) + "): a frame made with another dictionary fails this way, as a damaged one does";
            for (boolean alsoDict : new boolean[] {false, true}) {
                String line = alsoDict ? badFrameLine(ctx, withA.compress(EVENT), "--dict-for-no-id", fileB.toString(), "--dict", fileA.toString())
                        : badFrameLine(ctx, withA.compress(EVENT), "--dict-for-no-id", fileB.toString());
                assertTrue(line.matches("zmq-zstd recv: bad frame: part=0, reason=(CHECKSUM|CORRUPT), .*"), line);
                assertTrue(line.endsWith(hint), "--dict too: " + alsoDict + ": " + line);
            }
        }
    }

    /**
     * A frame decoded with a --dict of the ID it names, or with a raw-content --dict, that fails: the
     * line said nothing of the dictionary, though one of the same ID (trained again under it) or other
     * raw content fails exactly so. Now it names the file and that another dictionary fails this way;
     * where no dictionary of recv decoded the frame (one without an ID on a recv with a trained --dict:
     * the codec says it was decoded without one; a damaged frame on a recv without any) it adds nothing.
     */
    @Test
    void shouldSayWhichDictDecodedAFrameThatFailed(@TempDir Path dir) throws Exception {
        Path fileA = dir.resolve("a.dict");
        Path sameId = dir.resolve("b-with-a-id.dict");
        Path rawX = Files.write(dir.resolve("x.raw"), "{\"host\":\"web-3\",\"cpu\":21,\"disk\":\"sda\",\"mem\":77}".repeat(20)
                .getBytes(StandardCharsets.US_ASCII));
        Path rawY = Files.write(dir.resolve("y.raw"), "[\"zone\",\"eu-1\",\"load\",0.93,\"up\",true,\"ver\",5]".repeat(20)
                .getBytes(StandardCharsets.US_ASCII));
        try (ZstdDictionary a = trainOn("host", fileA); ZstdDictionary b = trainOn("zone", dir.resolve("b.dict"));
             ZstdDictionary x = ZstdDictionary.of(Files.readAllBytes(rawX));
             ZmqContext ctx = new ZmqContext();
             io.zmqzstd.codec.ZstdCompressor withA = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(a).checksum(true).build();
             io.zmqzstd.codec.ZstdCompressor withX = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(x).build();
             io.zmqzstd.codec.ZstdCompressor withoutId = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(b)
                     .dictionaryIdInFrame(false).checksum(true).build();
             io.zmqzstd.codec.ZstdCompressor plain = io.zmqzstd.codec.ZstdCompressor.builder().checksum(true).build()) {
            // b's content under a's ID: a dictionary trained again under the same ID
            byte[] bytes = Files.readAllBytes(dir.resolve("b.dict"));
            java.nio.ByteBuffer.wrap(bytes, 4, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(a.id());
            Files.write(sameId, bytes);
            String id = Integer.toUnsignedString(a.id());

            String line = badFrameLine(ctx, withA.compress(EVENT), "--dict", sameId.toString());
            assertTrue(line.matches("zmq-zstd recv: bad frame: part=0, reason=(CHECKSUM|CORRUPT), .*"), line);
            assertTrue(line.endsWith("; the frame names dictionary ID " + id + " and was decoded with --dict " + sameId
                    + ": a frame made with another dictionary of that ID fails this way, as a damaged one does"), line);

            line = badFrameLine(ctx, withX.compress(EVENT), "--dict", rawY.toString(), "--raw-dict", "--dict", fileA.toString());
            assertTrue(line.matches("zmq-zstd recv: bad frame: part=0, reason=(CHECKSUM|CORRUPT), .*"), line);
            assertTrue(line.endsWith("; the frame declares no dictionary ID and was decoded with --dict " + rawY
                    + " (raw content): a frame made with another dictionary fails this way, as a damaged one does"), line);

            line = badFrameLine(ctx, withoutId.compress(EVENT), "--dict", fileA.toString());
            assertTrue(line.contains("the frame declares no dictionary ID and was decoded without a dictionary"), line);
            assertFalse(line.contains("was decoded with --dict"), line);

            byte[] damaged = plain.compress(EVENT);
            damaged[damaged.length - 1] ^= 0x55; // the checksum's last byte
            line = badFrameLine(ctx, damaged);
            assertTrue(line.matches("zmq-zstd recv: bad frame: part=0, reason=CHECKSUM, .*"), line);
            assertFalse(line.contains("was decoded with"), line);
        }
    }

    private static final byte[] EVENT = "{\"host\":\"web-3\",\"cpu\":21,\"host\":\"web-4\",\"cpu\":28}".getBytes(StandardCharsets.US_ASCII);

    /**
     * Runs {@code recv --connect} to a PUSH of its own in {@code ctx} (bound, with a send timeout)
     * with {@code --count 1} and {@code args}, sends it {@code bad}, then a frame every recv
     * decodes; checks that the second is delivered and exit 0, and returns the one line on standard
     * error. A PUSH per recv: one shared by several recv runs in turn could still hold the pipe of
     * the last one, gone, and load-balance a frame into it (a recv then waited its 30 s timeout).
     */
    private static String badFrameLine(ZmqContext ctx, byte[] bad, String... args) throws Exception {
        try (ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            push.bind("tcp://127.0.0.1:*");
            push.sendTimeoutMs(30_000);
            return badFrameLine(push, bad, args);
        }
    }

    /** {@link #badFrameLine(ZmqContext, byte[], String...)} over {@code push}, used by one recv only. */
    private static String badFrameLine(ZmqSocket push, byte[] bad, String... args) throws Exception {
        java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        List<String> all = new java.util.ArrayList<>(List.of("recv", "--connect", push.lastEndpoint(), "--count", "1", "--timeout", "30s"));
        all.addAll(List.of(args));
        java.util.concurrent.CompletableFuture<Result> recv = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> execute(cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                        all.toArray(String[]::new)));
        // blocks until recv has connected
        assertTrue(push.send(bad, 0), () -> recv.join().toString());
        try (io.zmqzstd.codec.ZstdCompressor good = io.zmqzstd.codec.ZstdCompressor.builder().build()) {
            assertTrue(push.send(good.compress(EVENT), 0));
        }
        Result r = recv.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, r.code(), r.toString());
        assertEquals(1, r.err().lines().count(), r.toString());
        assertEquals(new String(EVENT, StandardCharsets.US_ASCII) + "\n", stdout.toString(StandardCharsets.US_ASCII),
                "the next frame delivered: " + r);
        return r.err().strip();
    }

    /** A dictionary trained on telemetry lines with {@code key}, saved to {@code file}. */
    private static ZstdDictionary trainOn(String key, Path file) throws IOException {
        ZstdDictionary d = ZstdDictionary.train(java.util.stream.IntStream.range(0, 2000)
                .mapToObj(i -> ("{\"" + key + "\":\"web-" + i % 17 + "\",\"cpu\":" + i * 7 % 100 + "}").getBytes(StandardCharsets.US_ASCII))
                .toList(), 1024);
        try {
            d.save(file);
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
        return d;
    }

    /** --raw-dict says how to read a --dict FILE; without one it was ignored (send and recv ran on): refused. */
    @Test
    void shouldRefuseRawDictWithoutADictionary() {
        for (String[] args : new String[][] {{"send", "--connect", "tcp://127.0.0.1:1", "--raw-dict", "--timeout", "200ms"},
                {"recv", "--bind", "tcp://127.0.0.1:*", "--raw-dict", "--timeout", "200ms"}}) {
            Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), args);
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r,
                    "zmq-zstd " + args[0] + ": --raw-dict needs --dict FILE", "(see 'zmq-zstd " + args[0] + " --help')");
        }
    }

    /**
     * PUB never waits for a peer (libzmq drops what no subscriber takes), so send's --timeout
     * could not fire: with no subscriber it exited 0. Only the wait of --wait-subscribers can time
     * out, so --timeout with --type pub needs it; without --timeout PUB sends as before.
     */
    @Test
    void shouldRefuseATimeoutThatPubCannotReach() {
        byte[] input = "x\n".getBytes(StandardCharsets.US_ASCII);
        Result r = run(input, "send", "--type", "pub", "--bind", "tcp://127.0.0.1:*", "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd send: --timeout with --type pub needs --wait-subscribers N",
                "(see 'zmq-zstd send --help')");

        r = run(input, "send", "--type", "pub", "--bind", "tcp://127.0.0.1:*", "--wait-subscribers", "1", "--timeout", "200ms");
        assertOneLine(r, ExitCodes.TIMEOUT, r.toString(), "zmq-zstd send: timeout: subscriptions=0 of 1 within 200ms");
        r = run(input, "send", "--type", "pub", "--bind", "tcp://127.0.0.1:*");
        assertEquals(ExitCodes.OK, r.code(), r::toString);
    }

    /**
     * {@code --wait-subscribers 0 --timeout 1ms} with {@code --type pub} was told it "needs
     * --wait-subscribers N", as if the option given had been overlooked: the line now says that 0 waits for
     * nothing. Still a usage error.
     */
    @Test
    void shouldSayThatWaitSubscribersZeroWaitsForNothing() {
        Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), "send", "--type", "pub", "--bind", "tcp://127.0.0.1:*",
                "--wait-subscribers", "0", "--timeout", "1ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd send: --timeout with --type pub needs --wait-subscribers N of 1"
                + " or more (--wait-subscribers 0 waits for nothing)", "(see 'zmq-zstd send --help')");
    }

    /**
     * --timeout bounds the whole wait for --wait-subscribers ("not met within DURATION"): it was a
     * receive timeout, started again by every subscription, so subscriptions that kept coming, one
     * now and then, held send far past its --timeout (here a new topic every 300 ms for up to 12 s,
     * with --timeout 1s: exit 3 only about 1 s after the last one). The bound, 6 s, leaves a loaded
     * machine 5 s over the timeout and still fails that by as much; the feeder stops once send has
     * returned, so a passing run takes about 1 s.
     */
    @Test
    void shouldEndTheWaitForSubscribersWithinTheTimeoutWhileSubscriptionsTrickleIn() throws Exception {
        try (ZmqContext context = ZmqContext.builder().build(); ZmqSocket sub = context.socket(SocketType.SUB)) {
            // a port below the ephemeral range: sub's reconnects cannot take it as their source port
            String endpoint = "tcp://127.0.0.1:" + io.zmqzstd.testkit.Ports.unused();
            sub.connect(endpoint); // retried until send has bound
            Thread feeder = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i < 40; i++) { // one more subscription every 300 ms, for up to 12 s
                    sub.subscribe("topic-" + i);
                    try {
                        Thread.sleep(300); // the trickle itself, not a wait for a condition
                    } catch (InterruptedException e) {
                        return; // send has returned
                    }
                }
            });
            long start = System.nanoTime();
            Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), "send", "--type", "pub", "--bind", endpoint,
                    "--wait-subscribers", "100", "--timeout", "1s");
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            feeder.interrupt();
            feeder.join();
            assertOneLine(r, ExitCodes.TIMEOUT, r.toString(), "zmq-zstd send: timeout: subscriptions=", "of 100 within 1s");
            assertTrue(elapsedMs < 6000, () -> "--timeout 1s ended the wait after " + elapsedMs + " ms: " + r);
        }
    }

    /** --wait-subscribers is for PUB only, at any N: an explicit 0 with another type was taken without a word. */
    @Test
    void shouldRefuseWaitSubscribersWithoutPubEvenForZero() {
        Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), "send", "--connect", "tcp://127.0.0.1:1",
                "--wait-subscribers", "0", "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd send: --wait-subscribers needs --type pub: type=push");
    }

    /**
     * recv --count -1, the value that stands for "not given", was taken as no count at all (recv
     * ran on), though -2 is refused as "must be positive".
     */
    @Test
    void shouldRefuseACountOfMinusOne() {
        Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--count", "-1", "--timeout", "200ms");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd recv: --count must be positive: N=-1");
    }

    /** send publishes one topic per run: a second --topic is a usage error naming it, not the last one silently taken. */
    @Test
    void shouldRefuseASecondTopic() {
        Result r = run("x\n".getBytes(StandardCharsets.US_ASCII), "send", "--type", "pub", "--connect", "tcp://127.0.0.1:1",
                "--topic", "alpha", "--topic", "beta");
        assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd send: option '--topic' (T) should be specified only once");
    }

    /** recv's --timeout 0 is refused as send's is: libzmq would not wait at all. */
    @Test
    void shouldRefuseAZeroRecvTimeout() {
        for (String zero : List.of("0", "0ms", "0.4ms")) {
            Result r = run("recv", "--bind", "tcp://127.0.0.1:*", "--timeout", zero);
            assertOneLine(r, ExitCodes.USAGE, zero + " -> " + r, "zmq-zstd recv: --timeout must be positive (or 'forever'): timeout=0");
        }
    }

    /** --print-topic is for sub only: on another type (no topic part) it is a usage error naming the type. */
    @Test
    void shouldRefusePrintTopicWithoutSub() {
        for (String type : List.of("pull", "dealer", "pair")) {
            Result r = run("recv", "--type", type, "--bind", "tcp://127.0.0.1:*", "--print-topic", "--timeout", "1s");
            assertOneLine(r, ExitCodes.USAGE, r.toString(), "zmq-zstd recv: --print-topic needs --type sub: type=" + type);
        }
    }

    /** The two usage errors of the README's "Exit codes" example, word for word. */
    @Test
    void shouldPrintTheExitCodesExampleLinesAsTheReadmeShowsThem() {
        Result connect = run("send", "--connect", "tcp://localhost");
        assertEquals(ExitCodes.USAGE, connect.code(), connect::toString);
        assertEquals("zmq-zstd send: Invalid value for option '--connect' (ENDPOINT): malformed tcp endpoint 'tcp://localhost':"
                + " expected tcp://host:port (see 'zmq-zstd send --help')\n", connect.err(), connect::toString);
        Result timeout = run("recv", "--bind", "tcp://127.0.0.1:5555", "--timeout", "soon");
        assertEquals(ExitCodes.USAGE, timeout.code(), timeout::toString);
        assertEquals("zmq-zstd recv: Invalid value for option '--timeout': 'soon' is not a duration: expected e.g. 500ms, 10s, 2m,"
                + " 1h or forever (see 'zmq-zstd recv --help')\n", timeout.err(), timeout::toString);
    }

    /** 2000 small JSON samples, each followed by {@code delimiter}: enough for a 1 KiB dictionary. */
    private static byte[] sampleLines(String delimiter) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            text.append("{\"host\":\"web-").append(i % 17).append("\",\"cpu\":").append(i * 7 % 100).append('}').append(delimiter);
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The command ended with {@code code} and one line on standard error containing every one of {@code parts}. */
    /**
     * A peer that connects and stops reading: accepts one connection on {@code listener}, answers
     * like a server (so libzmq takes it for a legacy ZMTP peer) and never reads; the caller closes
     * the connection.
     */
    private static java.util.concurrent.CompletableFuture<java.net.Socket> acceptAndNeverRead(java.net.ServerSocket listener) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                java.net.Socket c = listener.accept();
                c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n".getBytes(StandardCharsets.US_ASCII));
                return c;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** Standard input whose every read fails with {@code error}. */
    private static java.io.InputStream failing(String error) {
        return new java.io.InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException(error);
            }
        };
    }

    /**
     * Each of {@code cases} (a command line, with a line of standard input for send) is a usage error
     * in one line starting {@code zmq-zstd COMMAND: } and the matching {@code expected}. Bounded: a
     * command (a proxy) that took its endpoints runs until stopped.
     */
    private static void assertEachAUsageError(String[][] cases, String[] expected) {
        for (int i = 0; i < cases.length; i++) {
            String[] args = cases[i];
            Result r = assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> run("x\n".getBytes(StandardCharsets.UTF_8), args), String.join(" ", args));
            assertOneLine(r, ExitCodes.USAGE, String.join(" ", args) + " -> " + r, "zmq-zstd " + args[0] + ": " + expected[i]);
        }
    }

    private static void assertOneLine(Result r, int code, String what, String... parts) {
        assertEquals(code, r.code(), what);
        assertEquals(1, r.err().lines().count(), what);
        for (String part : parts) {
            assertTrue(r.err().contains(part), what);
        }
    }
}

package io.zmqzstd.reliability;

import static io.zmqzstd.reliability.LogShippingJourneySupport.asFile;
import static io.zmqzstd.reliability.LogShippingJourneySupport.cli;
import static io.zmqzstd.reliability.LogShippingJourneySupport.logLines;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdInputStream;
import io.zmqzstd.codec.ZstdOutputStream;
import io.zmqzstd.codec.ZstdStreamException;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.Dictionaries;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.pipeline.UndeliveredMessageException;
import io.zmqzstd.reliability.LogShippingJourneySupport.Cli;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user shipping application logs between Java services and the command-line tool, built from the
 * READMEs alone: a dictionary trained by {@code zmq-zstd train}, a {@link CompressingSender} to
 * {@code zmq-zstd recv} writing a file, {@code zmq-zstd send} reading a file to a
 * {@link DecompressingReceiver} that decompresses into the user's own memory, and a
 * {@link ZstdOutputStream} archive read back by {@code zstd -d} and {@link ZstdInputStream}. At
 * each step a bad input (a frame or archive made with another dictionary, a truncated archive, a
 * line too long for the user's buffer) gets an error that names it, and the stream goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogShippingJourneyTest {

    private static final int SAMPLES = 3000;
    private static final int LINES = 2000;
    /** Where the stream holds one line longer than the user's 4 KiB receive buffer (a stack trace). */
    private static final int LONG_LINE = 1234;
    private static final int DST_BYTES = 4096;

    @TempDir
    static Path dir;

    private static List<String> lines;
    private static Path streamFile;
    private static Path dictFile;
    private static String printedId;
    private static String trainErr;
    private static int trainExit;
    /** What a service trained for another application: frames made with it are the "wrong dictionary". */
    private static ZstdDictionary otherDict;

    @BeforeAll
    static void trainWithTheCli() throws Exception {
        LogShippingJourneySupport.assumeCliJar();
        Path samples = dir.resolve("samples.log");
        Files.write(samples, asFile(logLines(1, SAMPLES)));
        lines = new ArrayList<>(logLines(2, LINES));
        StringBuilder trace = new StringBuilder("2026-11-29T10:00:00.000Z ERROR [http-nio-8080-exec-7] "
                + "c.a.orders.OrderService - unhandled java.lang.IllegalStateException: order in a bad state");
        for (int i = 0; trace.length() < 6000; i++) {
            trace.append(" \tat c.a.orders.OrderService.step").append(i).append("(OrderService.java:").append(100 + i).append(')');
        }
        lines.set(LONG_LINE, trace.toString());
        streamFile = dir.resolve("stream.log");
        Files.write(streamFile, asFile(lines));
        dictFile = dir.resolve("app.dict");

        // cli/README.md, "Training and using a dictionary":
        // "zmq-zstd train --out dpkg.dict --size 16K < samples.log" prints the ID, a summary on stderr
        Cli train = cli(dir, "train", samples, "train", "--out", dictFile.toString(), "--size", "16K");
        trainExit = train.awaitExit(30);
        printedId = train.out().strip();
        trainErr = train.err();

        otherDict = Dictionaries.train(logLines(3, SAMPLES).stream()
                .map(l -> ("audit " + l.toUpperCase()).getBytes(UTF_8)).toList());
    }

    @Test
    void shouldTrainWithTheCliADictionaryJavaLoadsUnderThePrintedId() throws Exception {
        // cli/README.md "train": "Writes the standard zstd dictionary format … and prints its ID on
        // standard output (a summary goes to stderr)"
        assertEquals(0, trainExit, trainErr);
        assertTrue(trainErr.contains("wrote dictionary: id=" + printedId + ", bytes=16384, samples=" + SAMPLES),
                trainErr);
        try (ZstdDictionary dict = Dictionaries.load(dictFile)) {
            assertTrue(dict.isStructured(), "a trained dictionary is a zstd dictionary, not raw content");
            assertEquals(printedId, Integer.toUnsignedString(dict.id()), "the ID train printed");
            assertNotEquals(dict.id(), otherDict.id());
        }
    }

    @Test
    void shouldShipFromACompressingSenderToCliRecvWritingTheFileByteForByte() throws Exception {
        int port = Ports.unused();
        // cli/README.md "Training and using a dictionary": recv --bind … --dict dpkg.dict --count 2000 --stats > received.log
        Path received = dir.resolve("received.log");
        Cli recv = cli(dir, "recv", null, "recv", "--bind", "tcp://127.0.0.1:" + port,
                "--dict", dictFile.toString(), "--count", Integer.toString(LINES), "--stats");
        Files.deleteIfExists(received);
        PipelineStats sent;
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile);
             ZstdCompressor wrong = ZstdCompressor.builder().level(3).dictionary(otherDict).build();
             Arena arena = Arena.ofConfined()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(30_000); // a recv that never comes fails the send, not the test's timeout
            push.connect("tcp://127.0.0.1:" + port);
            try (CompressingSender sender = CompressingSender.builder(push).level(3).dictionary(dict).build()) {
                MemorySegment line = arena.allocate(8192);
                for (int i = 0; i < LINES; i++) {
                    byte[] bytes = lines.get(i).getBytes(UTF_8);
                    MemorySegment.copy(bytes, 0, line, ValueLayout.JAVA_BYTE, 0, bytes.length);
                    // root README "Usage": sender.send(event, 0, length, 0)
                    assertTrue(sender.send(line, 0, bytes.length, 0), "send timed out at line " + i);
                    if (i == LINES / 2) {
                        // another application's frame on the same stream: its dictionary is not recv's
                        assertTrue(push.send(wrong.compress("from another app".getBytes(UTF_8)), 0));
                    }
                }
                sent = sender.stats();
            }
            // root README "Usage": the context's close() closes every socket after its linger, 2 s by
            // default: time enough for the queued frames to leave on loopback
        }
        // cli/README.md "recv": "--count N: exit 0 after N delivered messages"
        assertEquals(0, recv.awaitExit(30), recv.err());
        Files.copy(recv.stdout(), received);
        // cli/README.md "recv": "writes each message's payload followed by a newline to standard output"
        assertArrayEquals(asFile(lines), Files.readAllBytes(received), "the file recv wrote");
        String err = recv.err();
        // cli/README.md "recv": a bad frame "is one line on standard error naming the reason, e.g.
        // `zmq-zstd recv: bad frame: part=0, reason=DICTIONARY_MISSING, …`; the message is skipped, the
        // stream goes on, and it does not count towards --count"
        assertTrue(err.contains("zmq-zstd recv: bad frame: part=0, reason=DICTIONARY_MISSING, "
                + "frame needs a dictionary this decompressor lacks: dictionaryId="
                + Integer.toUnsignedString(otherDict.id()) + ", known=[" + printedId + "]"), err);
        assertEquals(1, err.lines().filter(l -> l.contains("bad frame")).count(), err);
        // cli/README.md "Statistics"/"Training and using a dictionary": summary: messages=2000 … errors=0
        assertTrue(err.contains("summary: messages=" + LINES + " "), err);
        assertTrue(err.contains(" errors=1 "), err);
        assertEquals(LINES, sent.messages());
        assertTrue(sent.ratio() > 1.5, "a trained dictionary shrinks small lines: ratio=" + sent.ratio());
    }

    @Test
    void shouldShipAFileFromCliSendIntoTheUsersOwnMemory() throws Exception {
        int port = Ports.unused();
        byte[][] expected = lines.stream().map(l -> l.getBytes(UTF_8)).toArray(byte[][]::new);
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile);
             ZstdCompressor wrong = ZstdCompressor.builder().level(3).dictionary(otherDict).build();
             Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(20_000); // WOULD_BLOCK after 20 s of silence: the test fails, not hangs
            pull.bind("tcp://127.0.0.1:" + port);
            ZmqSocket stranger = ctx.socket(SocketType.PUSH);
            stranger.connect("tcp://127.0.0.1:" + port);
            assertTrue(stranger.send(wrong.compress("from another app".getBytes(UTF_8)), 0));

            // cli/README.md "Training and using a dictionary": send --connect … --dict dpkg.dict < stream.log
            Cli send = cli(dir, "send", streamFile, "send", "--connect", "tcp://127.0.0.1:" + port,
                    "--dict", dictFile.toString(), "--stats");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).dictionary(dict).build()) {
                MemorySegment dst = arena.allocate(DST_BYTES); // the user's own memory
                int next = 0;
                int bad = 0;
                UndeliveredMessageException handedBack = null;
                while (next < LINES || bad < 1) {
                    int result;
                    try {
                        result = receiver.receiveInto(dst, 0);
                    } catch (UndeliveredMessageException e) {
                        // root README "Usage": "a message with a part that does not fit is not lost: it
                        // is handed back whole in an UndeliveredMessageException, reason DESTINATION_TOO_SMALL"
                        assertEquals(LONG_LINE, next, "only the long line exceeds the buffer");
                        handedBack = e;
                        next++;
                        continue;
                    }
                    if (result == DecompressingReceiver.BAD_FRAME) {
                        // root README: "A bad frame (… unknown dictionary …) is one BAD_FRAME result that
                        // names the reason; the receiver goes on with the next message."
                        bad++;
                        assertEquals(BadFrameReason.DICTIONARY_MISSING, receiver.lastErrorReason());
                        assertEquals(Integer.toUnsignedLong(otherDict.id()), receiver.lastErrorDictionaryId());
                        assertTrue(receiver.lastErrorMessage().contains(
                                "dictionaryId=" + Integer.toUnsignedString(otherDict.id())), receiver.lastErrorMessage());
                        continue;
                    }
                    if (result != DecompressingReceiver.RECEIVED) {
                        fail("nothing for 20 s after line " + next + ", bad=" + bad + "; send's stderr:\n" + send.err());
                    }
                    ReceivedMessage m = receiver.message();
                    assertEquals(1, m.parts());
                    // pipeline/README.md "Receiving into your own memory": "a message of one payload
                    // part is dst[0, partSize(0))"
                    assertEquals(dst, m.segment(0));
                    assertEquals(0, m.partOffset(0));
                    byte[] want = expected[next];
                    assertEquals(want.length, m.partSize(0), "length of line " + next);
                    assertEquals(-1, MemorySegment.mismatch(dst, 0, want.length, MemorySegment.ofArray(want), 0,
                            want.length), "line " + next);
                    next++;
                }
                assertTrue(handedBack != null, "the long line was handed back");
                assertEquals(UndeliveredMessageException.Reason.DESTINATION_TOO_SMALL, handedBack.reason());
                assertEquals(1, handedBack.parts());
                assertArrayEquals(expected[LONG_LINE], handedBack.part(0), "the long line, whole");
                // pipeline/README.md: "destination too small: part=1, offset=600, dstBytes=1000, partBytes=401 (…)"
                assertTrue(handedBack.getMessage().startsWith("destination too small: part=0, offset=0, dstBytes="
                        + DST_BYTES + ", partBytes=" + expected[LONG_LINE].length), handedBack.getMessage());

                PipelineStats stats = receiver.stats();
                // pipeline/README.md: "counted in undeliveredMessages, not in messages, the part and
                // byte counters or errors"
                assertEquals(LINES - 1, stats.messages());
                assertEquals(1, stats.undeliveredMessages());
                assertEquals(1, stats.errors());
                assertEquals(1, stats.errors(BadFrameReason.DICTIONARY_MISSING));
            }
            // cli/README.md "send": "At the end of input it waits until libzmq has handed every queued
            // message to the network (socket linger), then exits 0"
            assertEquals(0, send.awaitExit(30), send.err());
            assertTrue(send.err().contains("summary: messages=" + LINES + " "), send.err());
            assertTrue(send.err().contains(" errors=0 "), send.err());
        }
    }

    @Test
    void shouldArchiveLinesThatZstdInputStreamReadsBackAndRefusesCutOrWithAnotherDictionary() throws Exception {
        byte[] content = asFile(lines);
        try (ZstdDictionary dict = Dictionaries.load(dictFile);
             ZstdDecompressor reader = ZstdDecompressor.builder().dictionary(dict).build();
             ZstdDecompressor wrongReader = ZstdDecompressor.builder().dictionary(otherDict).build()) {
            byte[] archive = archive(dict, content);
            // codec/README.md API table: ZstdOutputStream / ZstdInputStream, "java.io streaming over a
            // (borrowed or owned) compressor/decompressor"
            assertArrayEquals(content, readAll(archive, reader));

            // codec/README.md "Errors": "A ZstdInputStream … says where its input ended instead
            // ("frame truncated: input ended inside a frame, decompressed=…")"
            byte[] cut = Arrays.copyOf(archive, archive.length / 2);
            ZstdStreamException truncated = assertThrows(ZstdStreamException.class, () -> readAll(cut, reader));
            assertEquals(ZstdException.Reason.TRUNCATED, truncated.reason());
            assertTrue(truncated.getMessage().contains("input ended inside a frame"), truncated.getMessage());
            assertTrue(truncated.getMessage().contains("in the stream: frame=1, inputOffset=0"), truncated.getMessage());

            // codec/README.md "Errors": DICTIONARY_MISSING "names the ID and the known IDs"
            ZstdStreamException wrong = assertThrows(ZstdStreamException.class, () -> readAll(archive, wrongReader));
            assertEquals(ZstdException.Reason.DICTIONARY_MISSING, wrong.reason());
            assertTrue(wrong.getMessage().contains("dictionaryId=" + printedId + ", known=["
                    + Integer.toUnsignedString(otherDict.id()) + "]"), wrong.getMessage());

            // ZstdInputStream's javadoc: after an error "the decompressor is left ready for other frames"
            assertArrayEquals(content, readAll(archive, reader));
            assertArrayEquals(content, readAll(archive, reader));
        }
    }

    @Test
    void shouldArchiveLinesThatTheZstdCommandReadsBackAndRefusesCut() throws Exception {
        // root README "Prerequisites": "The zstd command-line tool (package zstd) is used by the
        // interoperability tests"
        Path zstd = onPath("zstd");
        MachineRequirement.require(zstd != null, "zstd is not on PATH (apt-get install zstd)",
                DecompressionBombTest.REQUIRE_CLI_PROPERTY);
        byte[] content = asFile(lines);
        Path archive = dir.resolve("app.log.zst");
        try (ZstdDictionary dict = Dictionaries.load(dictFile)) {
            Files.write(archive, archive(dict, content));
        }
        // cli/README.md "Training and using a dictionary": "the dictionary is a standard one":
        // zstd -q -d -D dpkg.dict one.txt.zst -o one.back
        Path back = dir.resolve("app.log.back");
        assertEquals(0, zstd(zstd, "-q", "-f", "-d", "-D", dictFile.toString(), archive.toString(), "-o", back.toString()));
        assertArrayEquals(content, Files.readAllBytes(back));

        Path cut = dir.resolve("cut.log.zst");
        byte[] whole = Files.readAllBytes(archive);
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        Path cutBack = dir.resolve("cut.log.back");
        assertNotEquals(0, zstd(zstd, "-q", "-f", "-d", "-D", dictFile.toString(), cut.toString(), "-o", cutBack.toString()),
                "zstd -d of a cut archive");
        Path noDict = dir.resolve("nodict.log.back");
        assertNotEquals(0, zstd(zstd, "-q", "-f", "-d", archive.toString(), "-o", noDict.toString()),
                "zstd -d without the dictionary");
    }

    private static byte[] archive(ZstdDictionary dict, byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZstdCompressor compressor = ZstdCompressor.builder().level(3).dictionary(dict).build();
             OutputStream out = new ZstdOutputStream(bytes, compressor)) {
            // a logger writes line by line
            for (String line : lines) {
                out.write((line + "\n").getBytes(UTF_8));
            }
        }
        assertTrue(bytes.size() < content.length / 2, "archive of " + content.length + " B is " + bytes.size() + " B");
        return bytes.toByteArray();
    }

    private static byte[] readAll(byte[] archive, ZstdDecompressor decompressor) throws IOException {
        try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(archive), decompressor)) {
            return in.readAllBytes();
        }
    }

    private static Path onPath(String command) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(entry, command);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static int zstd(Path zstd, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(zstd.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("zstd.out").toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("zstd did not end: " + command);
        }
        return p.exitValue();
    }
}

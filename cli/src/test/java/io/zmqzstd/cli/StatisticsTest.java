package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code --stats} summary of send and recv as cli/README.md states it ("Statistics", and the
 * line mode paragraph of send), in-process over tcp loopback.
 */
class StatisticsTest {

    private static final Pattern SEND_SUMMARY = Pattern.compile("zmq-zstd send: summary: messages=(\\d+) bytesIn=(\\d+)"
            + " bytesOut=(\\d+) ratio=(\\S+) errors=0 wouldBlock=0 elapsed=(\\S+)s active=(\\S+)s rate=(\\S+)msg/s"
            + " throughput=(\\S+)MB/s");

    private static Result send(byte[] stdin, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "send";
        System.arraycopy(args, 0, all, 1, args.length);
        return InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = new ByteArrayInputStream(stdin), all);
    }

    /** send's one summary line, matched against the documented fields. */
    private static Matcher summary(Result r) {
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        Matcher m = SEND_SUMMARY.matcher(r.err().strip());
        assertTrue(m.matches(), r::toString);
        return m;
    }

    /**
     * Line mode cuts at the one byte {@code \n} and keeps every other byte: the README's {@code printf
     * 'a\r\nb\0c\r\n\nlast'} is 4 messages of 10 bytes in all ({@code a\r}, {@code b\0c\r}, an empty one,
     * {@code last}), and {@code recv --delimiter '|'} writes {@code a\r|b\0c\r||last|}.
     */
    @Test
    void shouldKeepEveryByteButTheNewlineInLineMode() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        CompletableFuture<Result> recv = CompletableFuture.supplyAsync(() -> InProcess.execute(
                cl -> ((RecvCommand) cl.getSubcommands().get("recv").getCommand()).stdout = stdout,
                "recv", "--bind", endpoint, "--delimiter", "|", "--count", "4", "--timeout", "30s"),
                task -> Thread.ofPlatform().daemon().start(task));
        Matcher m = summary(send("a\r\nb\0c\r\n\nlast".getBytes(StandardCharsets.ISO_8859_1),
                "--connect", endpoint, "--stats", "--timeout", "30s")); // blocks until recv is there (ZMQ_IMMEDIATE)
        assertEquals("4", m.group(1));
        assertEquals("10", m.group(2));
        Result r = recv.get(60, TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals("a\r|b\0c\r||last|", stdout.toString(StandardCharsets.ISO_8859_1));
    }

    /**
     * send's {@code bytesIn} is the messages without their delimiters ({@code printf 'first\nsecond\n'}
     * gives 11, not 13), {@code bytesOut} the frames sent, as a plain PULL socket receives them, and
     * {@code ratio} the one over the other.
     */
    @Test
    void shouldCountTheMessagesWithoutDelimitersAndTheFramesSent() {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.bind("tcp://127.0.0.1:*");
            pull.receiveTimeoutMs(30_000);
            Matcher m = summary(send("first\nsecond\n".getBytes(StandardCharsets.US_ASCII),
                    "--connect", pull.lastEndpoint(), "--stats", "--timeout", "30s"));
            byte[] first = pull.receiveBytes(0);
            byte[] second = pull.receiveBytes(0);
            int frames = first.length + second.length;
            assertEquals("2", m.group(1));
            assertEquals("11", m.group(2));
            assertEquals(String.valueOf(frames), m.group(3));
            assertEquals(String.format(Locale.ROOT, "%.3f", 11.0 / frames), m.group(4));
            try (io.zmqzstd.codec.ZstdDecompressor zstd = new io.zmqzstd.codec.ZstdDecompressor()) {
                assertArrayEquals("first".getBytes(StandardCharsets.US_ASCII), zstd.decompress(first));
            }
        }
    }

    /**
     * A run whose {@code active} is under 1 ms (one message, or none) has {@code rate} and
     * {@code throughput} over {@code elapsed}: one message of 1,000,000 bytes gives about 1/elapsed
     * messages and MB a second (over an active 0.000 s they would be Infinity), none gives 0 (not NaN).
     */
    @Test
    void shouldRateARunOfOneMessageOrNoneOverItsElapsedTime() {
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket pull = ctx.socket(SocketType.PULL)) {
            pull.bind("tcp://127.0.0.1:*");
            pull.receiveTimeoutMs(30_000);
            Matcher one = summary(send(new byte[1_000_000], "--connect", pull.lastEndpoint(), "--whole", "--stats", "--timeout", "30s"));
            assertEquals("1", one.group(1));
            assertEquals("0.000", one.group(6));
            double elapsed = Double.parseDouble(one.group(5));
            double rate = Double.parseDouble(one.group(7));
            double throughput = Double.parseDouble(one.group(8));
            assertTrue(Math.abs(rate - 1 / elapsed) <= 1, () -> "rate " + rate + " over elapsed " + elapsed);
            assertTrue(Math.abs(throughput - 1 / elapsed) <= 0.02 / elapsed + 0.01,
                    () -> "throughput " + throughput + " over elapsed " + elapsed);
            assertTrue(pull.receiveBytes(0).length > 0, "the message was sent");

            Matcher none = summary(send(new byte[0], "--connect", pull.lastEndpoint(), "--stats", "--timeout", "30s"));
            assertEquals("0", none.group(1));
            assertEquals("0", none.group(7));
            assertEquals("0.00", none.group(8));
        }
    }
}

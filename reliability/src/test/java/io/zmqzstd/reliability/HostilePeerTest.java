package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Remote peers that speak ZMTP badly or not at all, written byte by byte on a
 * {@link java.net.Socket}, against a {@link DecompressingReceiver} on PULL, SUB and ROUTER, a
 * CURVE server, and a {@link ZmqProxy} (pubsub and pipeline). Each victim runs in a child JVM,
 * the {@link #main} below, so that a crash (an abort in libzmq, a SIGSEGV) fails the test rather
 * than ending the test run. After every hostile peer a good one, a real ZeroMQ socket, connects
 * and must be served. The hostile peers come twice; at the end the child's file descriptors are
 * back to their count before the first, and its RSS has grown by less than
 * {@value #RSS_GROWTH_LIMIT_KB} KB since the end of the first.
 */
class HostilePeerTest {

    /** What RSS may grow by after the first round of hostile peers (the heap is committed and touched up front). */
    static final long RSS_GROWTH_LIMIT_KB = 32 << 10;
    /** Connections opened and dropped, half with FIN and half with RST. */
    static final int CHURN_CONNECTIONS = 500;
    /** Connections held open while sending nothing. */
    static final int SILENT_CONNECTIONS = 200;
    private static final List<String> CHILD_JVM = List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch");
    /** Rounds of hostile peers; more with {@code -Dzmqzstd.hostileRounds=N} in the child, to watch RSS. */
    private static final int ROUNDS = Integer.getInteger("zmqzstd.hostileRounds", 2);
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * How long a hostile peer waits to see whether the victim drops it (what it did is printed, not
     * asserted): a drop over loopback takes well under a millisecond.
     */
    static final int SETTLE_MS = 200;
    private static final byte[] GOOD_TOPIC = "good".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RAW_PEERS_PAYLOAD = "from a raw peer".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PULL", "SUB", "ROUTER", "CURVE"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void shouldServeAGoodPeerAfterEveryHostileOneAtAReceiver(String victim) throws Exception {
        String out = ForkedJvm.run(HostilePeerTest.class, CHILD_JVM, "receiver", victim);
        assertSurvived(out);
        if (victim.equals("ROUTER")) {
            // libzmq's ROUTER takes a routing id of any length a READY carries; the receiver delivers
            // one above the 255 bytes of libzmq's own option and refuses one above maxEnvelopeSize.
            assertTrue(out.contains("received the raw peer's message, envelope of 256 bytes"), out);
            assertTrue(out.contains("BAD_FRAME TOO_LARGE bad frame: part=0, reason=TOO_LARGE, envelope larger than limit:"
                    + " total>=1048576, maxEnvelopeSize=" + DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE), out);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pubsub", "pipeline"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void shouldForwardForAGoodPeerAfterEveryHostileOneAtAProxy(String kind) throws Exception {
        assertSurvived(ForkedJvm.run(HostilePeerTest.class, CHILD_JVM, "proxy", kind));
    }

    /**
     * Frames from the wire that would need what the receiver does not allow or hold, sent by a
     * PUSH to a receiver with its default limits: a size-less frame whose window is 2^31 (zstd's
     * largest), one that declares 5 bytes of content but a window of 2^31, and one that names a
     * dictionary the receiver lacks. Each is refused from its header: the reason and message say
     * what was wrong, the receiving thread allocates less than 1 MiB of heap for it (the first
     * refusal's exception and classes about 300 KB), the process's peak address space grows by
     * less than 256 MiB (libzstd's window buffer for 2^31 would be 2 GiB), and the next good
     * message arrives.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldRefuseFramesNeedingAHugeWindowOrAMissingDictionaryFromTheirHeader() throws Exception {
        String out = ForkedJvm.run(HostilePeerTest.class, CHILD_JVM, "codec");
        long limit = DecompressingReceiver.DEFAULT_MAX_DECOMPRESSED_SIZE;
        String window = "TOO_LARGE bad frame: part=0, reason=TOO_LARGE, frame window larger than limit: window=2147483648, limit="
                + limit + " (from maxDecompressedSize=" + limit + ")";
        assertTrue(out.contains("size-less, window 2^31: " + window), out);
        assertTrue(out.contains("declares 5 bytes, window 2^31: " + window), out);
        assertTrue(out.contains("dictionary 305419896: DICTIONARY_MISSING bad frame: part=0, reason=DICTIONARY_MISSING, frame needs"
                + " a dictionary this decompressor lacks: dictionaryId=305419896, known=[]"), out);
        Matcher allocated = Pattern.compile("allocatedBytes=(\\d+)").matcher(out);
        int refused = 0;
        while (allocated.find()) {
            refused++;
            assertTrue(Long.parseLong(allocated.group(1)) < 1 << 20, "heap allocated on refusing a frame under a limit of "
                    + limit + ": " + out);
        }
        assertEquals(3, refused, out);
        Matcher peak = Pattern.compile("vmPeakKB before=(\\d+) after=(\\d+)").matcher(out);
        assertTrue(peak.find(), out);
        long peakGrownKb = Long.parseLong(peak.group(2)) - Long.parseLong(peak.group(1));
        assertTrue(peakGrownKb < 256 << 10, "address space grew by " + peakGrownKb + " KB (a 2^31 window is 2 GiB): " + out);
        assertEquals(3, out.lines().filter(l -> l.startsWith("next good message arrived")).count(), out);
    }

    private static void assertSurvived(String out) {
        assertTrue(out.contains("all hostile peers done"), "the child did not get through the hostile peers: " + out);
        assertTrue(!out.contains("NOT SERVED"), "a good peer was not served after a hostile one: " + out);
        Matcher fds = Pattern.compile("fds before=(\\d+) after=(\\d+)").matcher(out);
        assertTrue(fds.find(), out);
        assertTrue(Long.parseLong(fds.group(2)) <= Long.parseLong(fds.group(1)), "file descriptors leaked: " + out);
        Matcher rss = Pattern.compile("rssKB start=\\d+ first=(\\d+) last=(\\d+)").matcher(out);
        assertTrue(rss.find(), out);
        long grown = Long.parseLong(rss.group(2)) - Long.parseLong(rss.group(1));
        assertTrue(grown < RSS_GROWTH_LIMIT_KB, "RSS grew by " + grown + " KB after the first round: " + out);
    }

    // ------------------------------------------------------------------ the child

    /** A victim's listening socket: the endpoint a raw peer attacks and the socket type a peer of it names. */
    private record Target(String name, int port, String peerType) {
    }

    /**
     * The child: {@code receiver PULL|SUB|ROUTER|CURVE} or {@code proxy pubsub|pipeline}. Prints a
     * line per hostile peer, {@code served after …} or {@code NOT SERVED after …}, then the
     * descriptor and RSS counts.
     */
    public static void main(String[] args) throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqContext peers = new ZmqContext()) {
            if (args[0].equals("codec")) {
                hostileFrames(ctx);
            } else if (args[0].equals("receiver")) {
                receiver(ctx, peers, args[1]);
            } else {
                proxy(ctx, peers, args[1]);
            }
        }
        System.out.println("child done");
    }

    /** The child, {@code codec}: each hostile frame, then a good one, over tcp to a receiver with default limits. */
    private static void hostileFrames(ZmqContext ctx) {
        byte[] magic = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};
        byte window2p31 = (byte) ((31 - 10) << 3); // window descriptor: exponent over 2^10, no mantissa
        byte[] rawBlock = {0x29, 0, 0, 'h', 'e', 'l', 'l', 'o'}; // last, raw, 5 bytes
        var frames = new java.util.LinkedHashMap<String, byte[]>();
        // descriptor 0x00: no content size, not single-segment, no checksum, no dictionary ID
        frames.put("size-less, window 2^31", Frames.concat(magic, new byte[] {0x00, window2p31}, rawBlock));
        // 0x80: a 4-byte content size
        frames.put("declares 5 bytes, window 2^31", Frames.concat(magic, new byte[] {(byte) 0x80, window2p31, 5, 0, 0, 0},
                rawBlock));
        // 0x23: single segment (1-byte content size), a 4-byte dictionary ID, little-endian
        frames.put("dictionary 305419896", Frames.concat(magic, new byte[] {0x23, 0x78, 0x56, 0x34, 0x12, 5}, rawBlock));
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        pull.receiveTimeoutMs((int) WAIT.toMillis());
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        pull.bind(endpoint);
        push.connect(endpoint);
        byte[] good = "good".getBytes(StandardCharsets.US_ASCII);
        try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
                CompressingSender sender = CompressingSender.builder(push).build()) {
            sender.send(good, 0);
            receiveGood(receiver, good, 0, (int) WAIT.toMillis()); // warms the receiving path up
            long vmPeakBefore = statusKb("VmPeak");
            for (Map.Entry<String, byte[]> e : frames.entrySet()) {
                push.send(e.getValue(), 0);
                sender.send(good, 0);
                long before = threads.getCurrentThreadAllocatedBytes();
                int status = receiver.receive(0);
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                System.out.println(e.getKey() + ": " + (status == DecompressingReceiver.BAD_FRAME
                        ? receiver.lastErrorReason() + " " + receiver.lastErrorMessage() : "status " + status)
                        + "; allocatedBytes=" + allocated);
                if (receiveGood(receiver, good, 0, (int) WAIT.toMillis())) {
                    System.out.println("next good message arrived");
                }
            }
            System.out.println("vmPeakKB before=" + vmPeakBefore + " after=" + statusKb("VmPeak"));
        }
        push.close();
        pull.close();
    }

    private static void receiver(ZmqContext ctx, ZmqContext peers, String victim) throws Exception {
        SocketType type = switch (victim) {
            case "SUB" -> SocketType.SUB;
            case "ROUTER" -> SocketType.ROUTER;
            default -> SocketType.PULL;
        };
        boolean curve = victim.equals("CURVE");
        Curve.KeyPair server = Curve.keypair();
        int port = Ports.unused();
        String endpoint = "tcp://127.0.0.1:" + port;
        ZmqSocket socket = ctx.socket(type);
        socket.lingerMs(0);
        if (curve) {
            socket.curveServer(true);
            socket.curveSecretKey(server.secretKey());
        }
        if (type == SocketType.SUB) {
            socket.subscribe(new byte[0]);
        }
        socket.bind(endpoint);
        int envelopeParts = type == SocketType.ROUTER ? 2 : 1;
        try (DecompressingReceiver receiver = DecompressingReceiver.builder(socket).envelopeParts(envelopeParts).build()) {
            String peerType = switch (type) {
                case SUB -> "PUB";
                case ROUTER -> "DEALER";
                default -> "PUSH";
            };
            SocketType goodType = SocketType.valueOf(peerType);
            Consumer<String> served = after -> {
                ZmqSocket good = peers.socket(goodType);
                good.lingerMs(0);
                if (curve) {
                    Curve.KeyPair client = Curve.keypair();
                    good.curveServerKey(server.publicKey());
                    good.curvePublicKey(client.publicKey());
                    good.curveSecretKey(client.secretKey());
                }
                good.connect(endpoint);
                try (CompressingSender sender = CompressingSender.builder(good).build()) {
                    byte[] payload = ("payload after " + after).getBytes(StandardCharsets.UTF_8);
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    boolean got = false;
                    while (!got && System.nanoTime() - deadline < 0) {
                        // a PUB drops until it has the SUB's subscription; the others queue
                        if (sender.sendEnvelope(GOOD_TOPIC, ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT)) {
                            sender.send(payload, ZmqSocket.DONTWAIT);
                        }
                        got = receiveGood(receiver, payload, envelopeParts, 100);
                    }
                    System.out.println((got ? "served after " : "NOT SERVED after ") + after);
                }
                good.close();
                while (receiveGood(receiver, null, envelopeParts, 0)) {
                    // the copies a PUSH or PUB queued before the first arrived
                }
            };
            attack(List.of(new Target(victim, port, peerType)), served, curve);
        }
        socket.close();
    }

    /** Receives one message within {@code timeoutMs}; true when it is the good peer's {@code payload} (any good one when null). */
    private static boolean receiveGood(DecompressingReceiver receiver, byte[] payload, int envelopeParts, int timeoutMs) {
        receiver.socket().receiveTimeoutMs(timeoutMs);
        int status = receiver.receive(timeoutMs == 0 ? ZmqSocket.DONTWAIT : 0);
        if (status == DecompressingReceiver.BAD_FRAME) {
            System.out.println("BAD_FRAME " + receiver.lastErrorReason() + " " + receiver.lastErrorMessage());
            return false;
        }
        if (status != DecompressingReceiver.RECEIVED) {
            return false;
        }
        byte[] body = receiver.message().partBytes(envelopeParts);
        if (Arrays.equals(RAW_PEERS_PAYLOAD, body)) {
            System.out.println("received the raw peer's message, envelope of " + receiver.message().partSize(0) + " bytes");
        }
        return payload == null || Arrays.equals(payload, body);
    }

    private static void proxy(ZmqContext ctx, ZmqContext peers, String kind) throws Exception {
        boolean pubsub = kind.equals("pubsub");
        ZmqSocket frontend = ctx.socket(pubsub ? SocketType.XSUB : SocketType.PULL);
        ZmqSocket backend = ctx.socket(pubsub ? SocketType.XPUB : SocketType.PUSH);
        int frontPort = Ports.unused();
        frontend.bind("tcp://127.0.0.1:" + frontPort);
        int backPort = Ports.unused();
        backend.bind("tcp://127.0.0.1:" + backPort);
        try (ZmqProxy proxy = new ZmqProxy(frontend, backend, null)) {
            Thread forwarder = Thread.ofPlatform().name("proxy").start(proxy::run);
            Consumer<String> served = after -> {
                ZmqSocket in = peers.socket(pubsub ? SocketType.PUB : SocketType.PUSH);
                ZmqSocket out = peers.socket(pubsub ? SocketType.SUB : SocketType.PULL);
                in.lingerMs(0);
                out.lingerMs(0);
                if (pubsub) {
                    out.subscribe(GOOD_TOPIC);
                }
                out.connect("tcp://127.0.0.1:" + backPort);
                in.connect("tcp://127.0.0.1:" + frontPort);
                out.receiveTimeoutMs(100);
                byte[] probe = ("good after " + after).getBytes(StandardCharsets.UTF_8);
                long deadline = System.nanoTime() + WAIT.toNanos();
                boolean got = false;
                while (!got && System.nanoTime() - deadline < 0) {
                    in.send(probe, ZmqSocket.DONTWAIT);
                    got = Arrays.equals(probe, out.receiveBytes(0));
                }
                System.out.println((got ? "served after " : "NOT SERVED after ") + after);
                in.close();
                out.close();
            };
            attack(List.of(new Target("frontend", frontPort, pubsub ? "PUB" : "PUSH"),
                    new Target("backend", backPort, pubsub ? "SUB" : "PULL")), served, false);
            proxy.terminate();
            forwarder.join();
        }
        frontend.close();
        backend.close();
    }

    // ------------------------------------------------------------------ the hostile peers

    /**
     * Every hostile peer at every target in turn, each followed by {@code served}, in
     * {@link #ROUNDS} rounds; the descriptor count before the first round and after the last (once
     * libzmq has closed what it dropped), and RSS at the start and after each round: the first
     * round grows malloc's arenas, the later ones must find them mostly warm.
     */
    private static void attack(List<Target> targets, Consumer<String> served, boolean curve) throws Exception {
        served.accept("start");
        long fdsBefore = openDescriptors();
        long rssStart = rssKb();
        round(targets, served, curve);
        long rssFirst = rssKb();
        for (int i = 1; i < ROUNDS; i++) {
            round(targets, served, curve);
            System.out.println("rssKB after round " + (i + 1) + "=" + rssKb());
        }
        System.out.println("all hostile peers done");
        Await.until("file descriptors back to " + fdsBefore, WAIT, () -> openDescriptors() <= fdsBefore);
        System.out.println("fds before=" + fdsBefore + " after=" + openDescriptors());
        System.out.println("rssKB start=" + rssStart + " first=" + rssFirst + " last=" + rssKb());
    }

    private static void round(List<Target> targets, Consumer<String> served, boolean curve) throws Exception {
        for (Target t : targets) {
            for (Map.Entry<String, Hostile> e : hostilePeers(t.peerType(), curve).entrySet()) {
                String name = t.name() + " " + e.getKey();
                System.out.println(name + ": " + sendAndClose(t.port(), e.getValue()));
                served.accept(name);
            }
            churn(t.port());
            served.accept(t.name() + " churn of " + CHURN_CONNECTIONS);
            List<Socket> silent = new ArrayList<>();
            for (int i = 0; i < SILENT_CONNECTIONS; i++) {
                silent.add(new Socket("127.0.0.1", t.port()));
            }
            served.accept(t.name() + " " + SILENT_CONNECTIONS + " silent connections held");
            for (Socket s : silent) {
                s.setSoLinger(true, 0);
                s.close();
            }
            served.accept(t.name() + " " + SILENT_CONNECTIONS + " silent connections reset");
        }
    }

    /** What each hostile peer writes, by name, to a victim whose peers name {@code peerType}. */
    private static Map<String, Hostile> hostilePeers(String peerType, boolean curve) {
        byte[] garbage = new byte[4096];
        new Random(1).nextBytes(garbage);
        byte[] greeting = Zmtp.greeting(curve ? "CURVE" : "NULL");
        byte[] ready = Frames.concat(greeting, Zmtp.ready(peerType, new byte[0]));
        byte[] manyProperties = Zmtp.properties(Stream.iterate(0, i -> i + 1).limit(20_000)
                .flatMap(i -> Stream.of(Zmtp.ascii("X-P" + i), new byte[8])).toArray(byte[][]::new));
        var peers = new java.util.LinkedHashMap<String, Hostile>();
        peers.put("garbage greeting", opening(garbage));
        peers.put("greeting of a future ZMTP 9.0", opening(Frames.concat(Arrays.copyOf(greeting, 10), new byte[] {9, 0},
                Arrays.copyOfRange(greeting, 12, 64))));
        peers.put("mechanism nobody knows", opening(Zmtp.greeting("BOGUS")));
        // libzmq 4.0 aborted on text typed by telnet (zeromq/libzmq#769): a first byte other than
        // FF reads as a ZMTP 1.0 peer's identity frame, and the text came a few bytes at a time
        peers.put("text typed a byte at a time", new Hostile(Zmtp.ascii("asdfasdf\r\nGET / HTTP/1.0\r\n\r\n"), null, true));
        peers.put("ZMTP 1.0 frame declaring 2^63 bytes", opening(Frames.concat(new byte[] {1, 0, (byte) 0xFF},
                Zmtp.longHeader(0, Long.MIN_VALUE), new byte[100])));
        peers.put("ZMTP 2.0 greeting of garbage", opening(Frames.concat(Arrays.copyOf(greeting, 10),
                new byte[] {1, 99, 0, 0, (byte) 0xFF}, garbage)));
        peers.put("command declaring 2^63 bytes", opening(Frames.concat(greeting,
                Zmtp.longHeader(Zmtp.COMMAND, Long.MIN_VALUE), new byte[100])));
        peers.put("command declaring 2^34 bytes", opening(Frames.concat(greeting,
                Zmtp.longHeader(Zmtp.COMMAND, 1L << 34), new byte[100])));
        if (curve) {
            peers.put("HELLO of garbage", opening(Frames.concat(greeting, Zmtp.command("HELLO", Arrays.copyOf(garbage, 194)))));
            peers.put("HELLO too short", opening(Frames.concat(greeting, Zmtp.command("HELLO", new byte[10]))));
            peers.put("HELLO of 64 KiB", opening(Frames.concat(greeting, Zmtp.command("HELLO", new byte[65536]))));
            peers.put("READY before HELLO", opening(Frames.concat(greeting, Zmtp.ready(peerType, new byte[0]))));
            peers.put("INITIATE before HELLO", opening(Frames.concat(greeting, Zmtp.command("INITIATE", garbage))));
            return peers;
        }
        peers.put("READY of the wrong socket type", opening(Frames.concat(greeting, Zmtp.ready("REP", new byte[0]))));
        peers.put("READY with a 1 MiB property", opening(Frames.concat(greeting, Zmtp.ready(peerType,
                Zmtp.properties(Zmtp.ascii("X-Big"), new byte[1 << 20])))));
        peers.put("READY with 20,000 properties", opening(Frames.concat(greeting, Zmtp.ready(peerType, manyProperties))));
        peers.put("READY with a property overrunning it", opening(Frames.concat(greeting, Zmtp.command("READY",
                Frames.concat(Zmtp.properties(Zmtp.ascii("Socket-Type"), Zmtp.ascii(peerType)),
                        new byte[] {5}, Zmtp.ascii("X-Cut"), new byte[] {0x7F, -1, -1, -1}, new byte[4])))));
        for (int idBytes : new int[] {255, 256, 1 << 20}) {
            peers.put(idBytes + "-byte routing id", new Hostile(Frames.concat(greeting, Zmtp.ready(peerType,
                    Zmtp.properties(Zmtp.ascii("Identity"), filled(idBytes, 'r')))), rawPeersMessage()));
        }
        peers.put("routing id starting with 0", new Hostile(Frames.concat(greeting, Zmtp.ready(peerType,
                Zmtp.properties(Zmtp.ascii("Identity"), new byte[] {0, 1, 2}))), rawPeersMessage()));
        peers.put("message frame declaring 2^63 bytes", new Hostile(ready,
                Frames.concat(Zmtp.longHeader(0, Long.MIN_VALUE), new byte[100])));
        peers.put("message frame declaring 2^64-1 bytes", new Hostile(ready, Frames.concat(Zmtp.longHeader(0, -1L),
                new byte[100])));
        peers.put("message frame declaring 16 GiB", new Hostile(ready, Frames.concat(Zmtp.longHeader(Zmtp.MORE, 1L << 34),
                new byte[100])));
        peers.put("message frame of garbage flags", new Hostile(ready, new byte[] {(byte) 0xF8, 3, 1, 2, 3}));
        peers.put("PING with the longest TTL and context", new Hostile(ready, Zmtp.command("PING",
                Frames.concat(new byte[] {-1, -1}, new byte[200]))));
        peers.put("PONG unasked", new Hostile(ready, Zmtp.command("PONG", new byte[0])));
        peers.put("SUBSCRIBE command of 64 KiB", new Hostile(ready, Zmtp.command("SUBSCRIBE", new byte[65536])));
        peers.put("subscription message of 64 KiB", new Hostile(ready, Zmtp.part(Frames.concat(new byte[] {1},
                new byte[65536]), false)));
        peers.put("unsubscriptions never subscribed", new Hostile(ready, Frames.concat(Zmtp.part(Zmtp.ascii("\u0001a"), false),
                Zmtp.part(Zmtp.ascii("\u0001a"), false), Zmtp.part(Zmtp.ascii("\u0000a"), false),
                Zmtp.part(Zmtp.ascii("\u0000a"), false), Zmtp.part(Zmtp.ascii("\u0000a"), false),
                Zmtp.part(Zmtp.ascii("\u0000zzz"), false), Zmtp.part(new byte[0], false))));
        peers.put("ERROR command", new Hostile(ready, Zmtp.command("ERROR", Frames.concat(new byte[] {(byte) 255},
                new byte[255]))));
        return peers;
    }

    /**
     * A hostile peer's bytes: {@code opening} at once, and when {@code afterHandshake} is not null,
     * that once the victim's greeting and READY have been read (libzmq drops a peer whose message
     * arrives before its own READY has gone out); {@code byteAtATime} writes the opening in
     * one-byte segments.
     */
    private record Hostile(byte[] opening, byte[] afterHandshake, boolean byteAtATime) {
        Hostile(byte[] opening, byte[] afterHandshake) {
            this(opening, afterHandshake, false);
        }
    }

    private static Hostile opening(byte[] bytes) {
        return new Hostile(bytes, null);
    }

    /** A message the receivers take, the good peer's envelope and a frame of {@link #RAW_PEERS_PAYLOAD}. */
    private static byte[] rawPeersMessage() {
        return Frames.concat(Zmtp.part(GOOD_TOPIC, true), Zmtp.part(Frames.sized(RAW_PEERS_PAYLOAD, 3), false));
    }

    private static byte[] filled(int length, char c) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) c);
        return b;
    }

    /**
     * Connects, writes the hostile peer's bytes, and waits up to {@value #SETTLE_MS} ms for the victim to close the connection;
     * then closes it with RST. Returns what the victim did.
     */
    private static String sendAndClose(int port, Hostile hostile) throws IOException {
        try (Socket raw = new Socket("127.0.0.1", port)) {
            raw.setSoTimeout(SETTLE_MS);
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            try {
                if (hostile.byteAtATime()) {
                    raw.setTcpNoDelay(true);
                    for (byte b : hostile.opening()) {
                        out.write(b);
                        out.flush();
                    }
                } else {
                    out.write(hostile.opening());
                    out.flush();
                }
                if (hostile.afterHandshake() != null) {
                    Zmtp.readGreetingAndReady(new DataInputStream(in));
                    out.write(hostile.afterHandshake());
                    out.flush();
                }
            } catch (IOException e) {
                return "dropped while written (" + e.getMessage() + ")";
            }
            long read = 0;
            try {
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) >= 0; ) {
                    read += n;
                }
                return "dropped by the victim after it wrote " + read + " bytes";
            } catch (SocketTimeoutException e) {
                return "still open after " + SETTLE_MS + " ms (victim wrote " + read + " bytes)";
            } catch (IOException e) {
                return "reset (" + e.getMessage() + ")";
            } finally {
                raw.setSoLinger(true, 0);
            }
        }
    }

    /** {@value #CHURN_CONNECTIONS} connections opened and dropped at once, alternately with FIN and RST. */
    private static void churn(int port) throws IOException {
        for (int i = 0; i < CHURN_CONNECTIONS; i++) {
            try (Socket raw = new Socket("127.0.0.1", port)) {
                if (i % 2 == 1) {
                    raw.setSoLinger(true, 0);
                }
            }
        }
    }

    private static long openDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long rssKb() {
        return statusKb("VmRSS");
    }

    /** A line of /proc/self/status in KB: VmRSS, VmPeak (the most address space the process has held). */
    private static long statusKb(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no " + field + " in /proc/self/status");
    }
}

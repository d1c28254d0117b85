package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.Dictionaries;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqPoller;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * What a new user builds from the READMEs alone: a telemetry publisher and two subscribers through
 * the pipeline, with a dictionary trained from sample events and shared as a file, CURVE, a topic
 * part, one poller waiting on both receivers, a bad frame from a raw peer in the middle of the
 * stream, a clean shutdown, and the "no garbage" claim checked the way transport/README.md's
 * "Allocation-free paths" checks it ({@code ThreadMXBean#getCurrentThreadAllocatedBytes} on the
 * sending and receiving threads).
 */
class UserJourneyTest {

    private static final int PER_TOPIC = 500;
    private static final byte[] CPU = "cpu".getBytes(StandardCharsets.UTF_8);
    private static final byte[] MEM = "mem".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    /** A telemetry event as a service would emit it: small JSON, about 120 bytes. */
    private static byte[] event(String metric, int seq) {
        return ("{\"host\":\"web-" + (seq % 17) + "\",\"region\":\"eu-west-1\",\"metric\":\"" + metric
                + "\",\"seq\":" + seq + ",\"ts\":" + (1_764_000_000_000L + seq * 250L) + ",\"value\":"
                + (seq * 37 % 1000) / 10.0 + ",\"unit\":\"" + (metric.equals("cpu") ? "percent" : "bytes") + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private Path trainedDictionaryFile() {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            samples.add(event(i % 2 == 0 ? "cpu" : "mem", 100_000 + i));
        }
        Path file = dir.resolve("telemetry.dict");
        try (ZstdDictionary trained = Dictionaries.train(samples)) {
            Dictionaries.save(trained, file);
        }
        return file;
    }

    /** The subscription message an XPUB receives: byte 1, then the prefix (transport README, "Subscriptions"). */
    private static void awaitSubscriptions(ZmqSocket xpub, byte[]... topics) {
        xpub.receiveTimeoutMs(10_000);
        Set<String> wanted = new HashSet<>();
        for (byte[] t : topics) {
            wanted.add(new String(t, StandardCharsets.UTF_8));
        }
        while (!wanted.isEmpty()) {
            byte[] sub = xpub.receiveBytes(0);
            assertTrue(sub != null && sub.length > 0 && sub[0] == 1, "a subscription reaches the XPUB");
            wanted.remove(new String(sub, 1, sub.length - 1, StandardCharsets.UTF_8));
        }
    }

    private static ZmqSocket curveSubscriber(ZmqContext ctx, Curve.KeyPair server, byte[] topic) {
        Curve.KeyPair me = Curve.keypair();
        ZmqSocket sub = ctx.socket(SocketType.SUB);
        sub.curveServerKey(server.publicKey());
        sub.curvePublicKey(me.publicKey());
        sub.curveSecretKey(me.secretKey());
        me.destroy();
        sub.receiveHwm(0);
        sub.subscribe(topic);
        return sub;
    }

    private static ZmqSocket curvePublisher(ZmqContext ctx, Curve.KeyPair server, String endpoint) {
        ZmqSocket pub = ctx.socket(SocketType.XPUB);
        pub.curveServer(true);
        pub.curveSecretKey(server.secretKey());
        pub.sendHwm(0);
        pub.bind(endpoint);
        return pub;
    }

    /** What one subscriber saw, in order. */
    private static final class Seen {
        final List<byte[]> payloads = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
    }

    /** Waits on both receivers with one poller and drains whichever is readable, until each has {@code want} good messages. */
    private static void drain(ZmqPoller poller, int ia, int ib, DecompressingReceiver ra, DecompressingReceiver rb,
                              byte[] topicA, byte[] topicB, Seen a, Seen b, int want) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (a.payloads.size() < want || b.payloads.size() < want) {
            assertTrue(System.nanoTime() < deadline, "timed out: a=" + a.payloads.size() + ", b=" + b.payloads.size());
            if (poller.poll(1000) == 0) {
                continue;
            }
            if (poller.isReadable(ia)) {
                take(ra, topicA, a);
            }
            if (poller.isReadable(ib)) {
                take(rb, topicB, b);
            }
        }
    }

    private static void take(DecompressingReceiver r, byte[] topic, Seen seen) {
        while (true) {
            int result = r.receive(ZmqSocket.DONTWAIT);
            if (result == DecompressingReceiver.WOULD_BLOCK) {
                return;
            }
            if (result == DecompressingReceiver.BAD_FRAME) {
                seen.errors.add(r.lastErrorReason() + " " + r.lastErrorMessage());
                continue;
            }
            ReceivedMessage m = r.message();
            assertEquals(2, m.parts(), "topic and payload");
            assertArrayEquals(topic, m.partBytes(0), "the topic arrives as it was published");
            assertEquals(false, m.isCompressed(0), "the topic travels uncompressed");
            assertEquals(true, m.isCompressed(1), "the payload travels as a zstd frame");
            seen.payloads.add(m.partBytes(1));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp://127.0.0.1:*", "ipc://*"})
    void shouldStreamTelemetryOverCurveWithADictionaryAndGoOnPastABadFrameFromARawPeer(String endpoint) {
        Path dictFile = trainedDictionaryFile();
        Curve.KeyPair server = Curve.keypair();
        ZmqContext ctx = new ZmqContext();
        ZstdDictionary pubDict = Dictionaries.load(dictFile);
        ZstdDictionary subDict = Dictionaries.load(dictFile);
        ZmqSocket pub = curvePublisher(ctx, server, endpoint);
        ZmqSocket raw = curvePublisher(ctx, server, endpoint); // a peer of another language, say, sending what it likes
        ZmqSocket subA = curveSubscriber(ctx, server, CPU);
        ZmqSocket subB = curveSubscriber(ctx, server, MEM);
        server.destroy();
        for (ZmqSocket sub : List.of(subA, subB)) {
            sub.connect(pub.lastEndpoint());
            sub.connect(raw.lastEndpoint());
        }
        CompressingSender sender = CompressingSender.builder(pub).level(3).dictionary(pubDict).build();
        DecompressingReceiver ra = DecompressingReceiver.builder(subA).maxDecompressedSize(1 << 20).dictionary(subDict).build();
        DecompressingReceiver rb = DecompressingReceiver.builder(subB).maxDecompressedSize(1 << 20).dictionary(subDict).build();
        pubDict.close(); // "may be closed once build() returns" (root README, on the receiver's dictionary)
        subDict.close();
        ZmqPoller poller = new ZmqPoller(2);
        int ia = poller.register(subA, ZmqPoller.POLLIN);
        int ib = poller.register(subB, ZmqPoller.POLLIN);

        awaitSubscriptions(pub, CPU, MEM); // no message is lost to the slow joiner
        awaitSubscriptions(raw, CPU, MEM);

        Seen a = new Seen();
        Seen b = new Seen();
        for (int i = 0; i < PER_TOPIC; i++) {
            assertTrue(sender.publish(CPU, event("cpu", i), 0));
            assertTrue(sender.publish(MEM, event("mem", i), 0));
        }
        drain(poller, ia, ib, ra, rb, CPU, MEM, a, b, PER_TOPIC);

        // in the middle of the stream a raw peer publishes an uncompressed event under a subscribed topic
        assertTrue(raw.send(CPU, ZmqSocket.SNDMORE));
        assertTrue(raw.send(event("cpu", -1), 0));

        for (int i = PER_TOPIC; i < 2 * PER_TOPIC; i++) {
            assertTrue(sender.publish(CPU, event("cpu", i), 0));
            assertTrue(sender.publish(MEM, event("mem", i), 0));
        }
        drain(poller, ia, ib, ra, rb, CPU, MEM, a, b, 2 * PER_TOPIC);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (a.errors.isEmpty() && System.nanoTime() < deadline) {
            if (poller.poll(100) > 0 && poller.isReadable(ia)) {
                take(ra, CPU, a);
            }
        }

        for (int i = 0; i < 2 * PER_TOPIC; i++) {
            assertArrayEquals(event("cpu", i), a.payloads.get(i), "cpu event " + i);
            assertArrayEquals(event("mem", i), b.payloads.get(i), "mem event " + i);
        }
        assertEquals(1, a.errors.size(), "one bad frame reported: " + a.errors);
        String error = a.errors.getFirst();
        assertTrue(error.startsWith("NOT_ZSTD bad frame: part=1, reason=NOT_ZSTD"), error);
        assertEquals(List.of(), b.errors, "the other subscriber never saw the bad frame");

        PipelineStats sa = ra.stats();
        assertEquals(2 * PER_TOPIC, sa.messages());
        assertEquals(1, sa.errors(BadFrameReason.NOT_ZSTD));
        assertEquals(1, sa.errors());
        assertEquals(2 * PER_TOPIC, sa.envelopeParts(), "one topic part per message");
        assertTrue(sender.stats().ratio() > 1.5, "a trained dictionary shrinks ~130-byte events: ratio=" + sender.stats().ratio());

        // clean shutdown, in the order the READMEs give: the owners, then the sockets' context
        poller.close();
        sender.close();
        ra.close();
        rb.close();
        ctx.close();
        assertTrue(sender.isClosed() && ra.isClosed() && rb.isClosed() && ctx.isClosed());
        assertEquals(0, ctx.bufferPool().outstanding(), "every pooled buffer back");
    }

    /**
     * Root README, "No garbage": 0 bytes per message on the sending and receiving threads, checked as
     * transport/README.md "Allocation-free paths" does: rounds after warm-up, until each thread has
     * had one under 1 B per message.
     */
    @Test
    void shouldAllocateNothingPerMessageOnTheSendingAndReceivingThreads() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Path dictFile = trainedDictionaryFile();
        Curve.KeyPair server = Curve.keypair();
        int perRound = 20_000;
        int rounds = 20;
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile);
             Arena arena = Arena.ofShared()) {
            ZmqSocket pub = curvePublisher(ctx, server, "tcp://127.0.0.1:*");
            ZmqSocket sub = curveSubscriber(ctx, server, CPU);
            sub.connect(pub.lastEndpoint());
            awaitSubscriptions(pub, CPU);
            MemorySegment topic = arena.allocate(CPU.length);
            MemorySegment.copy(CPU, 0, topic, ValueLayout.JAVA_BYTE, 0, CPU.length);
            byte[] e = event("cpu", 7);
            MemorySegment payload = arena.allocate(e.length);
            MemorySegment.copy(e, 0, payload, ValueLayout.JAVA_BYTE, 0, e.length);

            AtomicLong received = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] receiverBytesPerRound = new long[rounds];
            Arrays.fill(receiverBytesPerRound, -1);
            Thread receiving = Thread.ofPlatform().name("user-receiver").start(() -> {
                try (DecompressingReceiver r = DecompressingReceiver.builder(sub).dictionary(dict).build();
                     ZmqPoller poller = new ZmqPoller(1)) {
                    int i = poller.register(sub, ZmqPoller.POLLIN);
                    long start = threads.getCurrentThreadAllocatedBytes();
                    long n = 0;
                    while (n < (long) perRound * rounds) {
                        if (poller.poll(5000) == 0 || !poller.isReadable(i)) {
                            throw new AssertionError("no message within 5 s after " + n);
                        }
                        int result;
                        while ((result = r.receive(ZmqSocket.DONTWAIT)) == DecompressingReceiver.RECEIVED) {
                            ReceivedMessage m = r.message();
                            if (m.partSize(1) != e.length
                                    || m.segment(1).get(ValueLayout.JAVA_BYTE, m.partOffset(1)) != '{') {
                                throw new AssertionError("payload changed at message " + n);
                            }
                            n++;
                            if (n % perRound == 0) {
                                long now = threads.getCurrentThreadAllocatedBytes();
                                receiverBytesPerRound[(int) (n / perRound) - 1] = now - start;
                                start = threads.getCurrentThreadAllocatedBytes();
                            }
                        }
                        if (result == DecompressingReceiver.BAD_FRAME) {
                            throw new AssertionError(r.lastErrorMessage());
                        }
                        received.lazySet(n);
                    }
                    received.set(n);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });

            try (CompressingSender sender = CompressingSender.builder(pub).dictionary(dict).build()) {
                long[] senderBytesPerRound = new long[rounds];
                for (int round = 0; round < rounds; round++) {
                    long start = threads.getCurrentThreadAllocatedBytes();
                    for (int k = 0; k < perRound; k++) {
                        sender.publish(topic, payload, 0);
                    }
                    senderBytesPerRound[round] = threads.getCurrentThreadAllocatedBytes() - start;
                    long want = (long) perRound * (round + 1);
                    Await.until("round " + round + " received", java.time.Duration.ofSeconds(20),
                            () -> received.get() >= want || failure.get() != null);
                    if (failure.get() != null) {
                        throw new AssertionError("receiver failed", failure.get());
                    }
                }
                receiving.join(10_000);
                if (failure.get() != null) {
                    throw new AssertionError("receiver failed", failure.get());
                }
                String report = "sender bytes per round " + Arrays.toString(senderBytesPerRound)
                        + ", receiver " + Arrays.toString(receiverBytesPerRound) + ", " + perRound + " messages a round";
                System.out.println("UserJourneyTest allocation: " + report);
                assertTrue(Arrays.stream(senderBytesPerRound).anyMatch(x -> x < perRound), report);
                assertTrue(Arrays.stream(receiverBytesPerRound).anyMatch(x -> x >= 0 && x < perRound), report);
                assertNotEquals(-1, receiverBytesPerRound[rounds - 1], report);
            }
        }
    }
}

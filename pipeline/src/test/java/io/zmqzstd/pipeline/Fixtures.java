package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.function.Executable;

/** Shared test data and socket plumbing. */
final class Fixtures {

    static final int RECEIVE_TIMEOUT_MS = 20_000;
    private static ZstdDictionary dictionary;

    private Fixtures() {
    }

    /** Telemetry-like JSON, compressible but not trivially, exactly {@code size} bytes. */
    static byte[] payload(int size, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder s = new StringBuilder(size + 200);
        while (s.length() < size) {
            s.append("{\"host\":\"node-").append(r.nextInt(40)).append("\",\"cpu\":").append(r.nextInt(1000) / 10.0)
                    .append(",\"mem\":").append(r.nextInt(1 << 20)).append(",\"seq\":").append(r.nextLong(1L << 40))
                    .append(",\"ok\":").append(r.nextBoolean()).append("}\n");
        }
        byte[] out = new byte[size];
        System.arraycopy(s.toString().getBytes(StandardCharsets.US_ASCII), 0, out, 0, size);
        return out;
    }

    /** Bytes that do not compress. */
    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** A dictionary trained on {@link #payload}-like records; trained once per JVM. */
    static synchronized ZstdDictionary dictionary() {
        if (dictionary == null) {
            List<byte[]> samples = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                samples.add(payload(100 + i % 200, 1000 + i));
            }
            dictionary = ZstdDictionary.train(samples, 8 * 1024);
        }
        return dictionary;
    }

    /** {@code data} as one zstd frame that does not declare its size (zstd-jni's stream writer). */
    static byte[] streamed(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (com.github.luben.zstd.ZstdOutputStream z = new com.github.luben.zstd.ZstdOutputStream(out)) {
            z.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] f = out.toByteArray();
        if (ZstdFrames.contentSize(MemorySegment.ofArray(f)) != ZstdFrames.CONTENT_SIZE_UNKNOWN) {
            throw new AssertionError("a streamed frame must not declare its size");
        }
        return f;
    }

    /**
     * Log lines starting with {@code kind}, exactly {@code size} bytes: a record shape other than
     * {@link #payload}, so that a dictionary trained on it differs.
     */
    static byte[] logLines(String kind, int size, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder s = new StringBuilder(size + 200);
        while (s.length() < size) {
            s.append(kind).append(" ts=2026-11-").append(10 + r.nextInt(20)).append("T1").append(r.nextInt(10))
                    .append(":0").append(r.nextInt(10)).append(" level=").append(r.nextBoolean() ? "INFO" : "WARN")
                    .append(" user=u").append(r.nextInt(500)).append(" took=").append(r.nextInt(900)).append("ms\n");
        }
        byte[] out = new byte[size];
        System.arraycopy(s.toString().getBytes(StandardCharsets.US_ASCII), 0, out, 0, size);
        return out;
    }

    /** A dictionary trained on {@link #logLines} of {@code kind} (trains each call: keep it). */
    static ZstdDictionary logDictionary(String kind) {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            samples.add(logLines(kind, 100 + i % 200, 5000 + i));
        }
        return ZstdDictionary.train(samples, 8 * 1024);
    }

    /** A bind address for {@code transport} (tcp, ipc, inproc); tcp picks a free port. */
    static String bindAddress(String transport) {
        String id = UUID.randomUUID().toString().substring(0, 8);
        return switch (transport) {
            case "tcp" -> "tcp://127.0.0.1:*";
            case "ipc" -> "ipc:///tmp/zmqzstd-pipeline-" + id;
            case "inproc" -> "inproc://pipeline-" + id;
            default -> throw new IllegalArgumentException(transport);
        };
    }

    /** Binds {@code server}, connects {@code client} to it; both get a receive timeout. */
    static void link(ZmqSocket server, ZmqSocket client, String transport) {
        server.bind(bindAddress(transport));
        client.connect(server.lastEndpoint());
        server.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
        client.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
    }

    /** Two linked sockets: {@code server} bound, {@code client} connected to it. */
    record Link(ZmqSocket server, ZmqSocket client) {
    }

    /** A {@code serverType} socket bound and a {@code clientType} socket connected to it over {@code transport}. */
    static Link link(ZmqContext ctx, SocketType serverType, SocketType clientType, String transport) {
        Link l = new Link(ctx.socket(serverType), ctx.socket(clientType));
        link(l.server(), l.client(), transport);
        return l;
    }

    /** A {@code type} socket bound over {@code transport}, with no peer yet. */
    static ZmqSocket bound(ZmqContext ctx, SocketType type, String transport) {
        ZmqSocket s = ctx.socket(type);
        s.bind(bindAddress(transport));
        return s;
    }

    static ZmqSocket socket(ZmqContext ctx, SocketType type) {
        return ctx.socket(type);
    }

    /** How long {@link #awaitSubscription} waits for one probe before it publishes the next. */
    static final int PROBE_WAIT_MS = 10;

    /**
     * Slow joiner: a PUB drops what it publishes until the subscription has reached it. Runs
     * {@code publishProbe}, waits up to {@link #PROBE_WAIT_MS} for a message to arrive at
     * {@code receiver}, and repeats, for up to 10 s; fails the test if none arrives. Probes are
     * paced, never published in a tight loop: a PUB also drops at its high-water mark (1,000 by
     * default), and probes published back to back, one every microsecond or two, while the
     * subscription travelled or an I/O thread waited for a core, could fill the pipe, so that the
     * message the test published next was dropped. That is the likely cause of a CI failure on
     * 2026-11-27, where the first message after such a loop never arrived (the receive timed out).
     * Probes still in flight when this returns arrive before anything published after it.
     */
    static void awaitSubscription(Runnable publishProbe, DecompressingReceiver receiver) {
        Assertions.assertTrue(await(() -> {
            publishProbe.run();
            return await(() -> receiver.receive(ZmqSocket.DONTWAIT) == DecompressingReceiver.RECEIVED, PROBE_WAIT_MS);
        }, 10_000), "the subscription never reached the publisher: no probe arrived in 10 s");
    }

    /**
     * True while {@code t} is inside a {@link ZmqSocket} method whose name starts with {@code method}
     * and, under it, in the socket's libzmq call ({@code socketCall}), which a thread reaches only
     * past the socket's guard. A thread seen in the method's first lines, before the guard, was
     * taken for blocked: a context closed then marks the socket closed before the thread enters,
     * and its call throws "socket is closed" instead of ending with ETERM (a rare failure of
     * shouldEndBlockedReceiveAndSendWhenTheContextCloses on a loaded machine, where the sampled
     * thread may wait milliseconds for a core right there).
     */
    static boolean insideSocketCall(Thread t, String method) {
        boolean inMethod = false;
        boolean inLibzmq = false;
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals(ZmqSocket.class.getName())) {
                inMethod |= frame.getMethodName().startsWith(method);
                inLibzmq |= frame.getMethodName().equals("socketCall");
            }
        }
        return inMethod && inLibzmq;
    }

    /** Polls {@code condition} until true or the deadline; true when it became true. */
    static boolean await(BooleanSupplier condition, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return condition.getAsBoolean();
    }

    /** Asserts that {@code call} throws IllegalArgumentException whose message contains {@code named}. */
    static void assertRefusedNaming(String named, Executable call) {
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class, call);
        Assertions.assertTrue(e.getMessage().contains(named), () -> "not named " + named + ": " + e.getMessage());
    }

    /** Asserts that {@code call} throws NullPointerException whose message contains {@code name}. */
    static void assertNullNamed(String name, Executable call) {
        NullPointerException e = Assertions.assertThrows(NullPointerException.class, call);
        Assertions.assertTrue(e.getMessage() != null && e.getMessage().contains(name), () -> "not named " + name + ": " + e);
    }
}

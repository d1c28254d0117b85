package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * README, DEALER/ROUTER, replies compressed on several cores: a ROUTER in front, a DEALER behind it
 * through {@link ZmqProxy}, and one thread per core with a socket of its own connected to the DEALER,
 * answering with its own {@link CompressingSender#reply}. Over tcp, two DEALER and two REQ clients
 * ask at once, two workers answer; every reply reaches the client that asked, intact, once.
 */
class ProxiedWorkersTest {

    private static final int WORKERS = 2;
    private static final int REQUESTS_PER_CLIENT = 150;
    /** How long a worker's receive waits before it looks whether the test is over. */
    private static final int WORKER_POLL_MS = 50;

    /** The worker's socket and how its receiver is built, as the README says for each. */
    enum Worker {
        /** A DEALER: the frontend's routing id arrives in front of each request, so envelopeParts(1). */
        DEALER(SocketType.DEALER, 1),
        /** A REP: libzmq takes the envelope off the request and puts it back on the reply. */
        REP(SocketType.REP, 0);

        final SocketType type;
        final int envelopeParts;

        Worker(SocketType type, int envelopeParts) {
            this.type = type;
            this.envelopeParts = envelopeParts;
        }
    }

    /** Request {@code seq} of client {@code client}: a header naming both, then 40 B to 40 KB of telemetry or random bytes. */
    private static byte[] request(int client, int seq) {
        byte[] head = ("client-" + client + " seq-" + seq + " ").getBytes(StandardCharsets.US_ASCII);
        int size = 40 + (seq * 7919 + client * 104_729) % 40_000;
        byte[] body = seq % 3 == 0 ? Fixtures.random(size, seq * 31L + client) : Fixtures.payload(size, seq * 31L + client);
        byte[] out = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    /** The answer to {@code request}: "re:" and the request, so that a reply names what it answers. */
    private static byte[] answer(byte[] request) {
        byte[] out = new byte[request.length + 3];
        out[0] = 'r';
        out[1] = 'e';
        out[2] = ':';
        System.arraycopy(request, 0, out, 3, request.length);
        return out;
    }

    /** The sequence number a reply answers, read from the header of its request. */
    private static int seqOf(byte[] reply, int client) {
        String text = new String(reply, 0, Math.min(reply.length, 64), StandardCharsets.US_ASCII);
        String prefix = "re:client-" + client + " seq-";
        assertTrue(text.startsWith(prefix), () -> "reply for another client reached client-" + client + ": " + text);
        return Integer.parseInt(text.substring(prefix.length(), text.indexOf(' ', prefix.length())));
    }

    /**
     * Two DEALER clients (pipelining all their requests, then reading the replies) and two REQ
     * clients (one request at a time) ask at once through ROUTER, proxy and DEALER; two workers,
     * each on its own thread and socket, answer every request. Each client gets exactly one intact
     * reply per request and none of another client's; both workers answered; no errors anywhere;
     * everything closes and the pool's buffers (zero-copy replies from 8 KiB) are all back.
     */
    @ParameterizedTest(name = "{0} workers")
    @EnumSource(Worker.class)
    void shouldAnswerEveryClientThroughTheProxyFromTwoWorkers(Worker kind) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket frontend = Fixtures.bound(ctx, SocketType.ROUTER, "tcp");
            ZmqSocket backend = Fixtures.bound(ctx, SocketType.DEALER, "tcp");
            // read here: once the proxy runs, it is in a call on both sockets
            String front = frontend.lastEndpoint();
            String back = backend.lastEndpoint();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicBoolean over = new AtomicBoolean();
            long[] answered = new long[WORKERS];
            List<Thread> workers = new ArrayList<>();
            // Both workers connected before the first request: the DEALER deals requests in turn
            // among the peers it has, so a worker that joined late would see none.
            try (SocketMonitor joined = backend.monitor(Set.of(MonitorEvent.Type.HANDSHAKE_SUCCEEDED))) {
                for (int w = 0; w < WORKERS; w++) {
                    int id = w;
                    workers.add(thread("worker-" + w, failures,
                            () -> answered[id] = work(ctx, kind, back, over)));
                }
                for (int w = 0; w < WORKERS; w++) {
                    assertNotNull(joined.receive(Duration.ofSeconds(10)), "worker " + w + " did not connect");
                }
            }
            ZmqProxy proxy = new ZmqProxy(frontend, backend, null);
            Thread forwarding = thread("proxy", failures, proxy::run);
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int id = c;
                SocketType type = c < 2 ? SocketType.DEALER : SocketType.REQ;
                clients.add(thread("client-" + c, failures, () -> ask(ctx, type, id, front, kind)));
            }
            for (Thread t : clients) {
                t.join(30_000);
                assertTrue(!t.isAlive(), () -> t.getName() + " did not finish: " + failures);
            }
            over.set(true);
            for (Thread t : workers) {
                t.join(10_000);
                assertTrue(!t.isAlive(), () -> t.getName() + " did not stop: " + failures);
            }
            proxy.close();
            forwarding.join(10_000);
            assertTrue(failures.isEmpty(), () -> "failed: " + failures);
            assertEquals(4L * REQUESTS_PER_CLIENT, answered[0] + answered[1], "requests answered by the workers together");
            for (int w = 0; w < WORKERS; w++) {
                assertTrue(answered[w] > 0, "worker " + w + " answered nothing: " + Arrays.toString(answered));
            }
            frontend.close();
            backend.close();
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    /** A worker: its own socket, receiver and sender; answers until the test is over; returns how many it answered. */
    private static long work(ZmqContext ctx, Worker kind, String backend, AtomicBoolean over) {
        try (ZmqSocket socket = ctx.socket(kind.type)) {
            socket.receiveTimeoutMs(WORKER_POLL_MS);
            socket.connect(backend);
            try (DecompressingReceiver requests = DecompressingReceiver.builder(socket).envelopeParts(kind.envelopeParts).build();
                 CompressingSender replies = CompressingSender.builder(socket).build()) {
                while (!over.get()) {
                    int r = requests.receive(0);
                    if (r == DecompressingReceiver.WOULD_BLOCK) {
                        continue;
                    }
                    assertEquals(DecompressingReceiver.RECEIVED, r, requests::lastErrorMessage);
                    ReceivedMessage m = requests.message();
                    assertTrue(replies.reply(m, answer(m.partBytes(m.parts() - 1)), 0));
                }
                assertEquals(0, requests.stats().errors(), () -> requests.stats().toString());
                assertEquals(requests.stats().messages(), replies.stats().messages());
                return replies.stats().messages();
            }
        }
    }

    /**
     * A client: a DEALER sends all its requests, then reads every reply (in any order); a REQ asks
     * one at a time. Each reply must be the answer to one of its own requests, each answered once.
     * A DEALER in front of REP workers sends the empty delimiter a REP needs, as a REQ does.
     */
    private static void ask(ZmqContext ctx, SocketType type, int client, String frontend, Worker kind) {
        try (ZmqSocket socket = ctx.socket(type)) {
            socket.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            socket.connect(frontend);
            boolean delimiter = type == SocketType.DEALER && kind == Worker.REP;
            boolean[] got = new boolean[REQUESTS_PER_CLIENT];
            try (CompressingSender asking = CompressingSender.builder(socket).build();
                 DecompressingReceiver answers = DecompressingReceiver.builder(socket).build()) {
                if (type == SocketType.DEALER) {
                    for (int seq = 0; seq < REQUESTS_PER_CLIENT; seq++) {
                        send(asking, request(client, seq), delimiter);
                    }
                    for (int k = 0; k < REQUESTS_PER_CLIENT; k++) {
                        check(answers, client, got, delimiter);
                    }
                } else {
                    for (int seq = 0; seq < REQUESTS_PER_CLIENT; seq++) {
                        send(asking, request(client, seq), false);
                        assertEquals(seq, check(answers, client, got, false), "a REQ's reply answers its last request");
                    }
                }
                assertEquals(0, answers.stats().errors(), () -> answers.stats().toString());
            }
        }
    }

    private static void send(CompressingSender asking, byte[] request, boolean delimiter) {
        if (delimiter) {
            assertTrue(asking.sendEnvelope(new byte[0], ZmqSocket.SNDMORE));
        }
        assertTrue(asking.send(request, 0));
    }

    /** Receives one reply, checks it whole against the request it names, and marks that request answered. */
    private static int check(DecompressingReceiver answers, int client, boolean[] got, boolean delimiter) {
        assertEquals(DecompressingReceiver.RECEIVED, answers.receive(0), answers::lastErrorMessage);
        ReceivedMessage m = answers.message();
        assertEquals(delimiter ? 2 : 1, m.parts(), "parts of a reply");
        byte[] reply = m.partBytes(m.parts() - 1);
        int seq = seqOf(reply, client);
        assertTrue(!got[seq], () -> "client-" + client + " got the reply to seq-" + seq + " twice");
        got[seq] = true;
        assertArrayEquals(answer(request(client, seq)), reply, () -> "reply to client-" + client + " seq-" + seq);
        return seq;
    }

    private static Thread thread(String name, ConcurrentLinkedQueue<Throwable> failures, Runnable body) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failures.add(t);
            }
        });
    }
}

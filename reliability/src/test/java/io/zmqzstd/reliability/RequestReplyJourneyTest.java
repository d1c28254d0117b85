package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.Dictionaries;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.reliability.RequestReplyJourneySupport.DealerClient;
import io.zmqzstd.reliability.RequestReplyJourneySupport.ReqClient;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user builds from the READMEs alone: a request/reply microservice with compressed
 * requests and a trained dictionary, REQ and DEALER clients, a ROUTER server in its own process
 * that is killed and started again, a poison request, and the counters.
 */
@Timeout(60)
class RequestReplyJourneyTest {

    private static final int REQUESTS = 150;
    private static final int TIMEOUT_MS = 3_000;

    @TempDir
    static Path dir;
    static Path dictFile;

    @BeforeAll
    static void trainDictionary() {
        // Root README, Usage: "Small messages gain from a dictionary: train one from samples with
        // Dictionaries.train(...) ..., and give it to both sides".
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            samples.add(request("sample", i).getBytes(StandardCharsets.UTF_8));
        }
        dictFile = dir.resolve("requests.dict");
        try (ZstdDictionary d = Dictionaries.train(samples)) {
            Dictionaries.save(d, dictFile);
        }
    }

    static String request(String client, int seq) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return client + "|" + seq + "|{\"op\":\"" + (r.nextBoolean() ? "quote" : "order") + "\",\"account\":\"acct-"
                + r.nextInt(1000) + "\",\"instrument\":\"" + (r.nextBoolean() ? "EURUSD" : "USDJPY")
                + "\",\"qty\":" + r.nextInt(1, 10_000) + ",\"side\":\"" + (r.nextBoolean() ? "buy" : "sell") + "\"}";
    }

    private static ChildProcess server(String endpoint, int gen) {
        ChildProcess p = ChildProcess.start(List.of(ChildProcess.java(), "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                RequestReplyJourneySupport.class.getName(), endpoint, dictFile.toString(), Integer.toString(gen)));
        p.awaitReady();
        return p;
    }

    /** One client's run: every request until it is answered, resending after a timeout. */
    private record Outcome(int answered, int timeouts, int gen1, int gen2, String problem) {
    }

    @Test
    void shouldServeReqAndDealerClientsAcrossAServerKillAndCountEveryRequest() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        ChildProcess first = server(endpoint, 1);
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile)) {
            AtomicInteger reqProgress = new AtomicInteger();
            AtomicInteger dealerProgress = new AtomicInteger();
            AtomicReference<Outcome> reqOutcome = new AtomicReference<>();
            AtomicReference<Outcome> dealerOutcome = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            // transport README, "Outcomes and errors": after a lost reply "receive it before sending
            // the next request, or set reqRelaxed(true) with reqCorrelate(true)"; ZmqSocket.reqRelaxed javadoc: "a late reply
            // to an earlier request is then dropped only with reqCorrelate(boolean) on too".
            Thread reqThread = Thread.ofPlatform().name("req-client").start(() -> {
                try (ReqClient c = new ReqClient(ctx, endpoint, dict, true, true, TIMEOUT_MS)) {
                    reqOutcome.set(run(seq -> c.call(request("req", seq)), reqProgress));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            Thread dealerThread = Thread.ofPlatform().name("dealer-client").start(() -> {
                try (DealerClient c = new DealerClient(ctx, endpoint, dict)) {
                    dealerOutcome.set(run(seq -> c.call(seq, request("dealer", seq), TIMEOUT_MS), dealerProgress));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            Await.until("a third of the requests answered by server 1", Duration.ofSeconds(30),
                    () -> failure.get() != null || (reqProgress.get() >= REQUESTS / 3 && dealerProgress.get() >= REQUESTS / 3));
            first.kill(); // SIGKILL mid-traffic
            killed.countDown();
            ChildProcess second = server(endpoint, 2);
            try {
                reqThread.join(Duration.ofSeconds(40));
                dealerThread.join(Duration.ofSeconds(40));
                if (failure.get() != null) {
                    throw new AssertionError("client failed", failure.get());
                }
                for (Outcome o : List.of(reqOutcome.get(), dealerOutcome.get())) {
                    System.out.println("client outcome: " + o);
                    assertNull(o.problem(), o.problem());
                    // every request answered with its own echo, in order, none twice: checked in run()
                    assertEquals(REQUESTS, o.answered());
                    assertTrue(o.gen1() > 0 && o.gen2() > 0, "both servers answered: " + o);
                }
                countersAfterTheRestart(ctx, dict, endpoint, second);
            } finally {
                second.close();
            }
        } finally {
            first.close();
        }
    }

    interface Call {
        String call(int seq);
    }

    /**
     * Counted down once the first server is killed: a client that reaches half its requests waits for it, so
     * that a fast run cannot finish every request on the first server before the kill (seen once in CI:
     * gen1=150, gen2=0).
     */
    private static final java.util.concurrent.CountDownLatch killed = new java.util.concurrent.CountDownLatch(1);

    private static Outcome run(Call call, AtomicInteger progress) {
        int timeouts = 0;
        int gen1 = 0;
        int gen2 = 0;
        for (int seq = 1; seq <= REQUESTS; seq++) {
            if (seq == REQUESTS / 2) {
                try {
                    killed.await(60, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new Outcome(seq - 1, timeouts, gen1, gen2, "interrupted waiting for the kill");
                }
            }
            String reply;
            while ((reply = call.call(seq)) == null) {
                timeouts++; // lost with the killed server: ask again, as the docs advise
                if (timeouts > 20) {
                    return new Outcome(seq - 1, timeouts, gen1, gen2, "no reply to seq=" + seq + " after 20 timeouts");
                }
            }
            String[] f = reply.split("\\|", 4);
            if (f.length < 4 || !f[2].equals(Integer.toString(seq))) {
                return new Outcome(seq - 1, timeouts, gen1, gen2, "reply to seq=" + seq + " was " + reply);
            }
            if (f[0].equals("gen=1")) {
                gen1++;
            } else {
                gen2++;
            }
            progress.set(seq);
        }
        return new Outcome(REQUESTS, timeouts, gen1, gen2, null);
    }

    private static void countersAfterTheRestart(ZmqContext ctx, ZstdDictionary dict, String endpoint, ChildProcess server) {
        final int k = 20;
        try (ReqClient req = new ReqClient(ctx, endpoint, dict, true, true, TIMEOUT_MS);
             DealerClient dealer = new DealerClient(ctx, endpoint, dict)) {
            ZmqSocket raw = ctx.socket(SocketType.DEALER);
            raw.lingerMs(0);
            raw.connect(endpoint);
            Map<String, Long> before = RequestReplyJourneySupport.counters(dealer.call(1_000, "stats|", TIMEOUT_MS));
            PipelineStats reqTx0 = req.tx.stats();
            PipelineStats dealerTx0 = dealer.tx.stats();
            for (int i = 0; i < k; i++) {
                String r1 = request("req", i);
                assertEquals("gen=2|" + r1, req.call(r1));
                String r2 = request("dealer", i);
                assertEquals("gen=2|" + r2, dealer.call(i, r2, TIMEOUT_MS));
            }

            // A poison request: a frame that is not zstd. Root README: "A bad frame ... is one
            // BAD_FRAME result that names the reason; the receiver goes on with the next message."
            raw.send(new byte[] {0, 0, 0, 7}, ZmqSocket.SNDMORE);
            raw.send("this is not zstd".getBytes(StandardCharsets.UTF_8), 0);
            String bad = server.await("BAD line", Duration.ofSeconds(20), l -> l.startsWith("BAD "));
            assertTrue(bad.startsWith("BAD NOT_ZSTD part=2 "), bad);
            // Finding: a ROUTER cannot answer it. The view of a BAD_FRAME receive holds no message
            // (pipeline README, "DEALER/ROUTER": "a view whose last receive did not return RECEIVED
            // ... throws IllegalStateException"), so the routing id of the bad request is unknown.
            assertTrue(bad.contains("NOVIEW"), bad);
            raw.receiveTimeoutMs(300);
            assertNull(raw.receiveBytes(0), "no answer can come to the poison request on a ROUTER");
            raw.close();

            // A reply that comes late (the server holds it until the next request): the REQ times
            // out, sends the next one (reqRelaxed) and gets that one's reply, the late one dropped
            // (reqCorrelate).
            req.socket.receiveTimeoutMs(500);
            assertNull(req.call("hold|" + request("req", 99)));
            req.socket.receiveTimeoutMs(TIMEOUT_MS);
            String next = request("req", 100);
            assertEquals("gen=2|" + next, req.call(next));

            Map<String, Long> after = RequestReplyJourneySupport.counters(dealer.call(1_001, "stats|", TIMEOUT_MS));
            PipelineStats reqTx = req.tx.stats();
            PipelineStats dealerTx = dealer.tx.stats();
            System.out.println("server counters before " + before + " after " + after + "; client req " + reqTx
                    + ", dealer " + dealerTx);
            // pipeline README, "Counters": every message a receive takes counts once, in messages,
            // undeliveredMessages or errors(). Requests since the first stats: 2k, hold, next, stats.
            assertEquals(2L * k + 3, after.get("rxMessages") - before.get("rxMessages"));
            assertEquals(1L, after.get("rxErrors") - before.get("rxErrors"));
            assertEquals(1L, after.get("rxNotZstd") - before.get("rxNotZstd"));
            // replies: the first stats, 2k, the late one, next
            assertEquals(2L * k + 3, after.get("txMessages") - before.get("txMessages"));
            assertEquals(0L, after.get("txAbandoned"));
            long clientBytes = reqTx.uncompressedBytes() - reqTx0.uncompressedBytes()
                    + dealerTx.uncompressedBytes() - dealerTx0.uncompressedBytes();
            assertEquals(clientBytes, after.get("rxUncompressed") - before.get("rxUncompressed"),
                    "the payload bytes the clients sent are the bytes the server decompressed");
            // Root README: "A trained dictionary turns a 64-byte JSON event from ratio 0.88 into 1.75".
            assertTrue(dealerTx.ratio() > 1.2, "ratio with the dictionary: " + dealerTx.ratio());
            assertTrue(server.isAlive(), "the server goes on");
        }
    }

    @Test
    void shouldAnswerAPoisonRequestOnRepAndShowWhatATimedOutReqMustDo() {
        String endpoint = "inproc://reqrep-journey";
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile)) {
            ZmqSocket rep = ctx.socket(SocketType.REP);
            rep.bind(endpoint);
            rep.receiveTimeoutMs(TIMEOUT_MS);
            try (DecompressingReceiver srx = DecompressingReceiver.builder(rep).dictionary(dict).build();
                 CompressingSender stx = CompressingSender.builder(rep).level(3).dictionary(dict).build()) {
                int good = 0;
                int replies = 0;
                // A plain REQ (no relaxed, no correlate).
                try (ReqClient c = new ReqClient(ctx, endpoint, dict, false, false, 500)) {
                    c.tx.send(bytes("hello"), 0);
                    answer(srx, stx);
                    good++;
                    replies++;
                    assertEquals("reply:hello", c.receive());

                    // Poison: a frame that is not zstd.
                    c.socket.send(bytes("this is not zstd"), 0);
                    assertEquals(DecompressingReceiver.BAD_FRAME, srx.receive(0));
                    assertEquals(BadFrameReason.NOT_ZSTD, srx.lastErrorReason());
                    assertEquals(0, srx.lastErrorPart());
                    // pipeline README, "REQ/REP": "A REP receiver that returns BAD_FRAME has still
                    // taken the request: libzmq refuses the next receive (ZmqException, EFSM) until a
                    // reply (an error reply, say) has been sent."
                    ZmqException efsm = assertThrows(ZmqException.class, () -> srx.receive(ZmqSocket.DONTWAIT));
                    assertTrue(efsm.getMessage().contains("EFSM"), efsm.getMessage());
                    stx.send(bytes("error:" + srx.lastErrorReason() + ":" + srx.lastErrorMessage()), 0);
                    replies++;
                    String error = c.receive();
                    assertTrue(error.startsWith("error:NOT_ZSTD:") && error.contains("part=0"), error);
                    // and the server goes on
                    c.tx.send(bytes("again"), 0);
                    answer(srx, stx);
                    good++;
                    replies++;
                    assertEquals("reply:again", c.receive());

                    // A lost reply: the REP takes "slow" and answers it only later.
                    long sentBefore = c.tx.stats().messages();
                    c.tx.send(bytes("slow"), 0);
                    assertEquals(DecompressingReceiver.RECEIVED, srx.receive(0));
                    good++;
                    assertNull(c.receive(), "the receive timeout expires: WOULD_BLOCK");
                    // transport README, "Outcomes and errors": the EFSM hint says what to do.
                    ZmqException out = assertThrows(ZmqException.class, () -> c.tx.send(bytes("next"), 0));
                    assertTrue(out.getMessage().contains("this REQ has sent a request and not yet received its whole reply")
                            && out.getMessage().contains("reqRelaxed(true)"), out.getMessage());
                    // pipeline README, "REQ/REP": "Then nothing goes out, is counted or is left open"
                    assertEquals(sentBefore + 1, c.tx.stats().messages());
                    // The hint's advice alone: reqRelaxed "applies at once".
                    c.socket.reqRelaxed(true);
                    assertTrue(c.tx.send(bytes("next"), 0));
                    stx.send(bytes("reply:slow"), 0); // the late reply
                    replies++;
                    answer(srx, stx);
                    good++;
                    replies++;
                    // ZmqSocket.reqRelaxed javadoc: "a late reply to an earlier request is then
                    // dropped only with reqCorrelate(boolean) on too": without it "next" is answered
                    // with "slow"'s reply, as if it were its own.
                    assertEquals("reply:slow", c.receive());
                    c.tx.send(bytes("third"), 0);
                    answer(srx, stx);
                    good++;
                    replies++;
                    // Observed on libzmq 4.3.4 (no document says it): "next"'s own reply, queued
                    // before "third" was sent, is dropped, and "third" gets its own. So the one
                    // request answered wrongly is the one sent after the timeout, with no sign.
                    assertEquals("reply:third", c.receive());
                }
                // The same with reqRelaxed and reqCorrelate: the late reply is dropped.
                try (ReqClient c = new ReqClient(ctx, endpoint, dict, true, true, 500)) {
                    c.tx.send(bytes("slow"), 0);
                    assertEquals(DecompressingReceiver.RECEIVED, srx.receive(0));
                    good++;
                    assertNull(c.receive());
                    c.tx.send(bytes("next"), 0);
                    stx.send(bytes("reply:slow"), 0);
                    replies++;
                    answer(srx, stx);
                    good++;
                    replies++;
                    c.socket.receiveTimeoutMs(TIMEOUT_MS);
                    assertEquals("reply:next", c.receive());
                }
                // pipeline README, "Counters"
                PipelineStats in = srx.stats();
                PipelineStats sent = stx.stats();
                assertEquals(good, in.messages());
                assertEquals(1, in.errors());
                assertEquals(1, in.errors(BadFrameReason.NOT_ZSTD));
                assertEquals(replies, sent.messages());
                assertEquals(0, sent.abandonedMessages());
            }
        }
    }

    /** The REP's answer to a good request: "reply:" and the request. */
    private static void answer(DecompressingReceiver srx, CompressingSender stx) {
        assertEquals(DecompressingReceiver.RECEIVED, srx.receive(0));
        stx.send(bytes("reply:" + text(srx)), 0);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(DecompressingReceiver rx) {
        return new String(rx.message().partBytes(rx.message().parts() - 1), StandardCharsets.UTF_8);
    }
}

package io.zmqzstd.reliability;

import static io.zmqzstd.reliability.MarketDataJourneySupport.FX_PREFIX;
import static io.zmqzstd.reliability.MarketDataJourneySupport.INSTRUMENTS;
import static io.zmqzstd.reliability.MarketDataJourneySupport.QUOTE_BYTES;
import static io.zmqzstd.reliability.MarketDataJourneySupport.SNAPSHOT_BYTES;
import static io.zmqzstd.reliability.MarketDataJourneySupport.apply;
import static io.zmqzstd.reliability.MarketDataJourneySupport.globalSeq;
import static io.zmqzstd.reliability.MarketDataJourneySupport.instrument;
import static io.zmqzstd.reliability.MarketDataJourneySupport.instrumentSeq;
import static io.zmqzstd.reliability.MarketDataJourneySupport.intact;
import static io.zmqzstd.reliability.MarketDataJourneySupport.isFx;
import static io.zmqzstd.reliability.MarketDataJourneySupport.snapshotState;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.ProxyStatistics;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a market-data user builds from the READMEs alone: a {@link ParallelCompressingSender} publishing
 * quotes (topic = instrument) on an XPUB, through a {@link ZmqProxy} (XSUB/XPUB) to three SUB receivers (one
 * on a prefix, one on everything that closes and reconnects mid-stream and resumes from a snapshot, one
 * taking the latest value only), and a ROUTER snapshot service answering with {@code CompressingSender.reply}. Each assertion
 * quotes the README place that promises it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MarketDataJourneyTest {

    private static final int MIN_QUOTES = 30_000;
    private static final int MAX_QUOTES = 400_000;
    private static final int RECONNECT_AFTER = 5_000;
    private static final int WINDOW = 4_000;
    private static final Duration DEADLINE = Duration.ofSeconds(45);

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong aProgress = new AtomicLong();
    private final AtomicLong bProgress = new AtomicLong();
    private final AtomicBoolean bResumed = new AtomicBoolean();
    private final AtomicLong finalSeq = new AtomicLong(-1);
    private final AtomicLong lastFxSeq = new AtomicLong(-1);
    private final MarketDataJourneySupport.AllocationRounds publisherAllocation =
        new MarketDataJourneySupport.AllocationRounds(10_000, 1);
    private final MarketDataJourneySupport.AllocationRounds receiverAllocation =
        new MarketDataJourneySupport.AllocationRounds(5_000, 1);
    private volatile long[] finalState;
    private volatile long fxQuotes;
    private volatile long snapshotsServed;

    private void fail(String what) {
        throw new AssertionError(what);
    }

    private Thread start(String name, Runnable body) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
    }

    private boolean overdue(long startNs) {
        return failure.get() != null || System.nanoTime() - startNs > DEADLINE.toNanos();
    }

    @Test
    void shouldFanQuotesOutThroughAProxyAndResumeAReconnectedSubscriberFromASnapshot() throws Exception {
        // pipeline README, "Zero allocation and the pool": "Zero allocation needs the pool's leak detection
        // disabled"; transport README, "Pool and zero-copy": "A pool you pass to the builder is yours: close it
        // after the context."
        NativeBufferPool pool = NativeBufferPool.builder()
            .leakDetection(NativeBufferPool.LeakDetection.DISABLED).build();
        long startNs = System.nanoTime();
        PublisherSide publisher;
        Subscribers subscribers = new Subscribers();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
             Arena arena = Arena.ofShared()) {
            // transport README, "Proxy": XSUB where publishers connect, XPUB where subscribers connect.
            ZmqSocket xsub = ctx.socket(SocketType.XSUB);
            xsub.receiveHwm(0);
            xsub.bind("tcp://127.0.0.1:*");
            ZmqSocket xpub = ctx.socket(SocketType.XPUB);
            xpub.sendHwm(0);
            // Not in the READMEs: without verbose, the proxy passes on only the first subscription to a prefix, so
            // the publisher cannot wait for the second subscriber of "" (see the report).
            xpub.xpubVerbose(true);
            xpub.bind("tcp://127.0.0.1:*");
            // transport README, "Proxy": run() counts as a call on its sockets, so their endpoints are read first.
            String frontend = xsub.lastEndpoint();
            String backend = xpub.lastEndpoint();
            ZmqProxy proxy = new ZmqProxy(xsub, xpub, null);
            Thread forwarder = start("proxy", proxy::run);

            ZmqSocket pub = ctx.socket(SocketType.XPUB);
            pub.sendHwm(0);
            pub.xpubVerbose(true);
            pub.connect(frontend);
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.bind("tcp://127.0.0.1:*");
            router.receiveTimeoutMs(1);
            String snapshotEndpoint = router.lastEndpoint();

            subscribers.open(ctx, backend);
            // pipeline README, "PUB/SUB": "publish on an XPUB, which receives each subscription as a message
            // (byte 1, then the prefix) that the application can wait for before its first publish".
            pub.receiveTimeoutMs(10_000);
            for (int i = 0; i < 3; i++) {
                byte[] subscription = pub.receiveBytes(0);
                assertNotNull(subscription, "subscription " + i + " of 3 did not reach the publisher in 10 s");
                assertEquals(1, subscription[0], "a subscription starts with byte 1");
            }
            publisher = new PublisherSide(pub, router, arena);
            Thread server = start("quote-server", () -> publisher.run(startNs));
            Thread a = start("sub-fx", () -> subscribers.runA(startNs));
            Thread b = start("sub-all-reconnecting", () -> subscribers.runB(ctx, backend,
                snapshotEndpoint, startNs));
            Thread c = start("sub-conflating", () -> subscribers.runC(startNs));
            for (Thread t : new Thread[] {server, a, b, c}) {
                t.join(DEADLINE.toMillis() + 10_000);
            }
            if (failure.get() != null) {
                throw new AssertionError("a thread of the journey failed", failure.get());
            }
            long last = finalSeq.get();
            assertTrue(last >= MIN_QUOTES, "quotes published: " + last);

            // pipeline README, "The ring and flush": "flush() waits until every message taken is in libzmq";
            // "Failures": every message taken is in libzmq or counted in droppedMessages.
            PipelineStats sent = publisher.sender.stats();
            assertEquals(last, sent.messages(), "publisher messages: " + sent);
            assertEquals(0, sent.droppedMessages(), "publisher dropped: " + sent);

            // transport README, "Proxy", "Statistics": "What the frontend receives the backend sends, so the
            // counters come in equal pairs"; a multipart message counts as one.
            Await.until("the proxy to forward every quote", Duration.ofSeconds(20), () ->
                proxy.statistics(Duration.ofSeconds(5)).orElseThrow().frontendMessagesReceived() == last);
            ProxyStatistics ps = proxy.statistics(Duration.ofSeconds(5)).orElseThrow();
            assertEquals(last, ps.backendMessagesSent(), "proxy: " + ps);

            // Subscriber A: every FX quote, in order, intact, nothing else (its prefix).
            assertEquals(fxQuotes, subscribers.aCount, "FX quotes received by the prefix subscriber");
            assertEquals(fxQuotes, subscribers.aStats.messages(), "A's stats: " + subscribers.aStats);
            assertEquals(0, subscribers.aStats.errors(), "A's stats: " + subscribers.aStats);

            // Subscriber B: pipeline README, "PUB/SUB": "A SUB receives nothing published before its
            // subscription reached the publisher": quotes between its close and its new subscription are
            // missed, nothing after them; the snapshot plus what came after it is the publisher's last state.
            assertTrue(subscribers.bFirstAfter > subscribers.bLastBefore,
                "no quote twice across the reconnect: last before " + subscribers.bLastBefore
                    + ", first after " + subscribers.bFirstAfter);
            assertTrue(subscribers.bSnapshotSeq >= subscribers.bFirstAfter,
                "snapshot taken after the first resumed quote: " + subscribers.bSnapshotSeq);
            assertArrayEquals(finalState, subscribers.bState, "B's book after snapshot + updates");
            assertEquals(0, subscribers.bErrors, "B's receivers refused no frame");

            // Subscriber C, latest value only: its last is the last published.
            assertEquals(last, subscribers.cLast, "the conflating subscriber's latest quote");
            assertTrue(subscribers.cCount <= last && subscribers.cCount >= 1, "latest values handed on: " + subscribers.cCount);
            assertEquals(0, subscribers.cErrors, "the conflating subscriber refused: " + subscribers.cLastError);

            // pipeline README, "PUB/SUB" and "DEALER/ROUTER": publish with a native topic and payload, and reply
            // with a native payload, allocate nothing; README: "0 bytes per message on the sending and
            // receiving threads"; transport README, "Allocation-free paths": ThreadMXBean, rounds until one is
            // under 1 B per message.
            assertTrue(publisherAllocation.measured() > 0 && publisherAllocation.best() < 1.0,
                "publishing thread, best round: " + publisherAllocation.best() + " B/quote over "
                    + publisherAllocation.measured() + " rounds");
            assertTrue(receiverAllocation.measured() > 0 && receiverAllocation.best() < 1.0,
                "receiving thread, best round: " + receiverAllocation.best() + " B/quote over "
                    + receiverAllocation.measured() + " rounds");
            assertTrue(snapshotsServed >= 1, "snapshots served: " + snapshotsServed);
            System.out.printf("market data: quotes=%d fx=%d missedAcrossReconnect=%d (last before %d, first after %d,"
                    + " snapshot at %d) latestValues=%d publisherBest=%.3f B/quote receiverBest=%.3f B/quote%n",
                last, fxQuotes, subscribers.bFirstAfter - subscribers.bLastBefore - 1, subscribers.bLastBefore,
                subscribers.bFirstAfter, subscribers.bSnapshotSeq, subscribers.cCount, publisherAllocation.best(),
                receiverAllocation.best());

            // pipeline README, "Closing": "close them first, then the socket (or context)".
            publisher.close();
            proxy.close();
            forwarder.join(10_000);
            assertTrue(!forwarder.isAlive(), "the proxy's run returned");
        }
        // transport README, "Pool and zero-copy": a context-owned or given pool holds nothing once zmq_ctx_term
        // has returned; outstanding() is never 0 while a buffer is out.
        assertEquals(0, pool.outstanding(), "pool outstanding after the context closed: " + pool.stats());
        assertEquals(0, pool.stats().inFlight(), "pool in flight: " + pool.stats());
        pool.close();
    }

    /** The quote server: publishes, and answers snapshot requests between quotes, on one thread. */
    private final class PublisherSide {
        final ParallelCompressingSender sender;
        final CompressingSender replier;
        final DecompressingReceiver requests;
        final MemorySegment[] topics = new MemorySegment[INSTRUMENTS.length];
        final MemorySegment quote;
        final MemorySegment snapshot;

        PublisherSide(ZmqSocket pub, ZmqSocket router, Arena arena) {
            // README, "Usage": ParallelCompressingSender.builder(socket).build(); pipeline README: XPUB takes a sender.
            sender = ParallelCompressingSender.builder(pub).level(3).workers(2).build();
            replier = CompressingSender.builder(router).build();
            requests = DecompressingReceiver.builder(router).build();
            for (int i = 0; i < topics.length; i++) {
                byte[] name = INSTRUMENTS[i].getBytes(StandardCharsets.US_ASCII);
                topics[i] = arena.allocate(name.length);
                MemorySegment.copy(name, 0, topics[i], ValueLayout.JAVA_BYTE, 0, name.length);
            }
            quote = arena.allocate(QUOTE_BYTES);
            MarketDataJourneySupport.prepareQuote(quote);
            snapshot = arena.allocate(SNAPSHOT_BYTES);
        }

        private void serve(int flags) {
            int r;
            while ((r = requests.receive(flags)) != DecompressingReceiver.WOULD_BLOCK) {
                if (r == DecompressingReceiver.BAD_FRAME) {
                    fail("snapshot request refused: " + requests.lastErrorMessage());
                }
                // pipeline README, "DEALER/ROUTER": reply sends the request's envelope back, then the reply
                // compressed; allocation-free with a native payload.
                if (!replier.reply(requests.message(), snapshot, 0)) {
                    fail("snapshot reply not sent");
                }
                snapshotsServed++;
                flags = ZmqSocket.DONTWAIT;
            }
        }

        private long slowest() {
            return Math.min(aProgress.get(), bProgress.get());
        }

        void run(long startNs) {
            long g = 0;
            long fx = 0;
            long lastFx = 0;
            long[] instrumentSeq = new long[INSTRUMENTS.length];
            while (!overdue(startNs)) {
                boolean measured = publisherAllocation.best() < 1.0 && receiverAllocation.best() < 1.0;
                if (g >= MAX_QUOTES || g >= MIN_QUOTES && bResumed.get() && measured) {
                    break;
                }
                while (g - slowest() > WINDOW && !overdue(startNs)) {
                    serve(0); // waits up to the ROUTER's 1 ms receive timeout, answering requests meanwhile
                }
                int i = (int) ((g * 3) % INSTRUMENTS.length);
                g++;
                instrumentSeq[i]++;
                MarketDataJourneySupport.writeQuote(quote, g, instrumentSeq[i], i);
                sender.publish(topics[i], quote, 0);
                MarketDataJourneySupport.recordInSnapshot(snapshot, g, instrumentSeq[i], i);
                if (isFx(i)) {
                    fx++;
                    lastFx = g;
                }
                serve(ZmqSocket.DONTWAIT);
                publisherAllocation.event();
            }
            sender.flush();
            fxQuotes = fx;
            finalState = snapshotState(snapshot, 0);
            lastFxSeq.set(lastFx);
            finalSeq.set(g);
        }

        void close() {
            requests.close();
            replier.close();
            sender.close();
        }
    }

    /** The three subscribers; each runs on a thread of its own. */
    private final class Subscribers {
        ZmqSocket subA;
        ZmqSocket subB;
        ZmqSocket subC;
        long aCount;
        PipelineStats aStats;
        long bLastBefore;
        long bFirstAfter;
        long bSnapshotSeq;
        long[] bState;
        long bErrors;
        long cLast;
        long cCount;
        long cErrors;
        String cLastError;

        void open(ZmqContext ctx, String endpoint) {
            subA = subscriber(ctx, endpoint, FX_PREFIX);
            subB = subscriber(ctx, endpoint, new byte[0]);
            // Latest value only is taken by draining, not by conflate(true): the pipeline README's conflating SUB
            // ("Builders", envelopeParts(0)) aborts the process in libzmq 4.3.4 under a stream of publish()es,
            // "Assertion failed: !_more (src/fq.cpp:112)" (see the report).
            subC = subscriber(ctx, endpoint, new byte[0]);
        }

        private ZmqSocket subscriber(ZmqContext ctx, String endpoint, byte[] prefix) {
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.receiveHwm(0);
            sub.receiveTimeoutMs(100);
            sub.subscribe(prefix);
            sub.connect(endpoint);
            return sub;
        }

        private boolean topicIs(ReceivedMessage m, MemorySegment topic) {
            long off = m.partOffset(0);
            return MemorySegment.mismatch(m.segment(0), off, off + m.partSize(0), topic, 0, topic.byteSize()) == -1;
        }

        void runA(long startNs) {
            MemorySegment[] topics = new MemorySegment[INSTRUMENTS.length];
            try (Arena arena = Arena.ofConfined();
                 DecompressingReceiver rx = DecompressingReceiver.builder(subA).build()) {
                for (int i = 0; i < topics.length; i++) {
                    topics[i] = arena.allocateFrom(INSTRUMENTS[i], StandardCharsets.US_ASCII)
                        .asSlice(0, INSTRUMENTS[i].length());
                }
                long[] lastInstrument = new long[INSTRUMENTS.length];
                long last = 0;
                while (!overdue(startNs)) {
                    long lastFx = lastFxSeq.get();
                    if (lastFx >= 0 && last >= lastFx) {
                        break;
                    }
                    int r = rx.receive(0);
                    if (r == DecompressingReceiver.WOULD_BLOCK) {
                        continue;
                    }
                    if (r == DecompressingReceiver.BAD_FRAME) {
                        fail("A refused a quote: " + rx.lastErrorMessage());
                    }
                    ReceivedMessage m = rx.message();
                    MemorySegment s = m.segment(1);
                    long off = m.partOffset(1);
                    int i = instrument(s, off);
                    long g = globalSeq(s, off);
                    if (m.parts() != 2 || !isFx(i) || !topicIs(m, topics[i]) || !intact(s, off, m.partSize(1))) {
                        fail("A got a quote it should not have, or a damaged one: seq=" + g + ", instrument=" + i);
                    }
                    long is = instrumentSeq(s, off);
                    if (is != lastInstrument[i] + 1 || g <= last) {
                        fail("A: gap or reorder on " + INSTRUMENTS[i] + ": expected " + (lastInstrument[i] + 1)
                            + ", got " + is + " (seq " + g + " after " + last + ")");
                    }
                    lastInstrument[i] = is;
                    last = g;
                    aCount++;
                    aProgress.set(g);
                    receiverAllocation.event();
                }
                aProgress.set(Long.MAX_VALUE);
                aStats = rx.stats();
            }
        }

        /** Receives until {@code until} says stop; every quote must follow the previous one. */
        private long follow(DecompressingReceiver rx, long last, long stopAt, long[] state, long applyAbove,
                            long startNs) {
            while (!overdue(startNs)) {
                long end = finalSeq.get();
                if (last >= stopAt || end >= 0 && last >= end) {
                    return last;
                }
                int r = rx.receive(0);
                if (r == DecompressingReceiver.WOULD_BLOCK) {
                    continue;
                }
                if (r == DecompressingReceiver.BAD_FRAME) {
                    bErrors++;
                    fail("B refused a quote: " + rx.lastErrorMessage());
                }
                ReceivedMessage m = rx.message();
                MemorySegment s = m.segment(1);
                long off = m.partOffset(1);
                long g = globalSeq(s, off);
                if (!intact(s, off, m.partSize(1))) {
                    fail("B: damaged quote " + g);
                }
                if (last != 0 && g != last + 1) {
                    fail("B: expected quote " + (last + 1) + ", got " + g);
                }
                if (state != null && g > applyAbove) {
                    apply(state, g, instrumentSeq(s, off), instrument(s, off));
                }
                last = g;
                bProgress.set(g);
            }
            return last;
        }

        void runB(ZmqContext ctx, String endpoint, String snapshotEndpoint, long startNs) {
            long last;
            try (DecompressingReceiver rx = DecompressingReceiver.builder(subB).build()) {
                // Subscribed before the first quote: 1..RECONNECT_AFTER with no gap.
                last = follow(rx, 0, RECONNECT_AFTER, null, 0, startNs);
                bErrors += rx.stats().errors();
            }
            bLastBefore = last;
            bProgress.set(Long.MAX_VALUE); // away: not holding the publisher back
            subB.close();

            ZmqSocket again = subscriber(ctx, endpoint, new byte[0]);
            try (DecompressingReceiver rx = DecompressingReceiver.builder(again).build()) {
                // The first quote after the new subscription reached the proxy.
                long first = follow(rx, 0, 1, null, 0, startNs);
                bFirstAfter = first;
                bProgress.set(first);
                // Then the snapshot: a DEALER asks the ROUTER; the reply is the book as of quote bSnapshotSeq.
                ZmqSocket dealer = ctx.socket(SocketType.DEALER);
                dealer.receiveTimeoutMs(10_000);
                dealer.connect(snapshotEndpoint);
                try (CompressingSender ask = CompressingSender.builder(dealer).build();
                     DecompressingReceiver answer = DecompressingReceiver.builder(dealer).build()) {
                    ask.send("SNAPSHOT".getBytes(StandardCharsets.US_ASCII), 0);
                    int r = answer.receive(0);
                    if (r != DecompressingReceiver.RECEIVED) {
                        fail("no snapshot: " + r + " " + answer.lastErrorMessage());
                    }
                    ReceivedMessage m = answer.message();
                    if (m.parts() != 1 || m.partSize(0) != SNAPSHOT_BYTES) {
                        fail("snapshot of " + m.parts() + " parts, " + m.partSize(0) + " B");
                    }
                    bSnapshotSeq = globalSeq(m.segment(0), m.partOffset(0));
                    bState = snapshotState(m.segment(0), m.partOffset(0));
                }
                dealer.close();
                bResumed.set(true);
                follow(rx, first, Long.MAX_VALUE, bState, bSnapshotSeq, startNs);
                bErrors += rx.stats().errors();
            }
            bProgress.set(Long.MAX_VALUE);
            again.close();
        }

        void runC(long startNs) {
            // Latest value only: wait for a quote, then drain to WOULD_BLOCK and keep the last (pipeline README,
            // "DecompressingReceiver": "drain ... with receive(ZmqSocket.DONTWAIT) until WOULD_BLOCK").
            try (DecompressingReceiver rx = DecompressingReceiver.builder(subC).build()) {
                long last = 0;
                while (!overdue(startNs)) {
                    long end = finalSeq.get();
                    if (end >= 0 && last >= end) {
                        break;
                    }
                    int flags = 0;
                    long latest = 0;
                    int r;
                    while ((r = rx.receive(flags)) != DecompressingReceiver.WOULD_BLOCK) {
                        if (r == DecompressingReceiver.BAD_FRAME) {
                            cErrors++;
                            cLastError = rx.lastErrorMessage();
                        } else {
                            ReceivedMessage m = rx.message();
                            latest = globalSeq(m.segment(1), m.partOffset(1));
                            if (!intact(m.segment(1), m.partOffset(1), m.partSize(1)) || latest <= last) {
                                fail("C: quote out of order or damaged: " + latest + " after " + last);
                            }
                            last = latest;
                        }
                        flags = ZmqSocket.DONTWAIT;
                    }
                    if (latest != 0) {
                        cCount++; // one latest value handed to the application per wake-up
                    }
                }
                cLast = last;
            }
        }
    }
}

package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ParallelCompressingSenderTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Sizes that take every path: raw frames, copied frames, zero-copy frames, a multi-block frame. */
    private static final int[] SIZES = {0, 17, 100, 1024, 5000, 9000, 65536, 300_000};

    private static byte[] message(long seq) {
        int size = SIZES[(int) (seq % SIZES.length)];
        byte[] b = seq % 3 == 0 ? Fixtures.random(size, seq) : Fixtures.payload(size, seq);
        if (size >= Long.BYTES) {
            ByteBuffer.wrap(b).putLong(0, seq);
        }
        return b;
    }

    private static byte[] received(DecompressingReceiver receiver, int part) {
        ReceivedMessage m = receiver.message();
        return m.segment(part).asSlice(m.partOffset(part), m.partSize(part)).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void receiveOrFail(DecompressingReceiver receiver) {
        int status = receiver.receive(0);
        assertEquals(DecompressingReceiver.RECEIVED, status, receiver::lastErrorMessage);
    }

    @ParameterizedTest(name = "{0}, {1} workers")
    @CsvSource({"tcp,3", "ipc,2", "inproc,4", "tcp,1"})
    void shouldDeliverEveryMessageIntactAndInOrder(String transport, int workers) {
        int count = 2_000;
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).level(1)
                    .workers(workers).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                writeAndRead(sender, receiver, count, ParallelCompressingSenderTest::message, seq -> {
                    byte[] m = message(seq);
                    return switch ((int) (seq % 3)) {
                        case 0 -> sender.send(m, 0);
                        case 1 -> sender.send(ByteBuffer.wrap(m), 0);
                        default -> {
                            try (Arena a = Arena.ofConfined()) {
                                MemorySegment s = a.allocate(Math.max(1, m.length));
                                s.copyFrom(MemorySegment.ofArray(m));
                                // the segment is freed right after: the sender must have copied it
                                yield sender.send(s, 0, m.length, 0);
                            }
                        }
                    };
                });
                PipelineStats stats = sender.stats();
                assertEquals(count, stats.messages(), stats::toString);
                assertTrue(stats.zeroCopySends() > 0 && stats.copiedSends() > 0 && stats.rawFrames() > 0, stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
                assertEquals(0, sender.inFlight());
            }
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000),
                    () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * A worker thread that cannot be started (here the factory's third thread fails in start() as
     * Thread.start does when no native thread is left) fails the build, and the two workers already
     * started stop instead of parking for good; a factory that returns null is named. (A thread
     * the factory started itself is refused before any is started: ErrorPathLeakTest in reliability.)
     */
    @Test
    void shouldStopStartedWorkersWhenAWorkerCannotStart() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            List<Thread> started = new CopyOnWriteArrayList<>();
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                    () -> ParallelCompressingSender.builder(push).workers(3).threadFactory(r -> {
                        if (started.size() == 2) {
                            return new Thread(r) {
                                @Override
                                public void start() {
                                    throw new OutOfMemoryError("unable to create native thread (test)");
                                }
                            };
                        }
                        Thread t = new Thread(r, "compress-" + started.size());
                        t.setDaemon(true);
                        started.add(t);
                        return t;
                    }).build());
            assertEquals(2, started.size(), String.valueOf(e));
            for (Thread t : started) {
                t.join(10_000);
                assertFalse(t.isAlive(), t.getName() + " still running after the build failed");
            }
            IllegalStateException nul = assertThrows(IllegalStateException.class,
                    () -> ParallelCompressingSender.builder(push).threadFactory(r -> null).build());
            assertTrue(nul.getMessage().contains("threadFactory returned null"), nul.getMessage());
            // the socket is still usable by a sender whose workers start
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build()) {
                assertEquals(0, sender.stats().messages());
            }
        }
    }

    /**
     * A factory that returns the same thread for two workers (one it keeps, say) is refused by
     * name before any thread is started. Before 2026-11-29 the first worker's start succeeded and
     * the second threw Thread.start's IllegalThreadStateException, without a message.
     */
    @Test
    void shouldRefuseAFactoryThatReturnsOneThreadForTwoWorkersNamingIt() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            Thread[] kept = new Thread[1];
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ParallelCompressingSender.builder(push).workers(3).threadFactory(r -> {
                        if (kept[0] == null) {
                            kept[0] = new Thread(r, "kept");
                            kept[0].setDaemon(true);
                        }
                        return kept[0];
                    }).build());
            assertTrue(e.getMessage() != null && e.getMessage().contains("threadFactory returned one thread for two workers")
                    && e.getMessage().contains("kept") && e.getMessage().contains("workers 0 and 1"), String.valueOf(e));
            assertEquals(Thread.State.NEW, kept[0].getState(), "no thread started for a refused build");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build()) {
                assertEquals(0, sender.stats().messages());
            }
        }
    }

    @Test
    void shouldPublishTopicsThatSubscriptionsFilter() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.subscribe("wanted.");
            Fixtures.link(pub, sub, "tcp");
            byte[] wanted = "wanted.cpu".getBytes(StandardCharsets.US_ASCII);
            byte[] other = "other.cpu".getBytes(StandardCharsets.US_ASCII);
            byte[] sync = "sync".getBytes(StandardCharsets.US_ASCII);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(pub).workers(3).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(sub).build()) {
                // Slow joiner: publish until one arrives, i.e. the subscription reached the publisher.
                Fixtures.awaitSubscription(() -> {
                    sender.publish(wanted, sync, 0);
                    sender.flush();
                }, receiver);
                for (long seq = 0; seq < 200; seq++) {
                    assertTrue(sender.publish(other, message(seq), 0));
                    assertTrue(sender.publish(wanted, message(seq), 0));
                }
                sender.flush();
                long seq = 0;
                while (seq < 200) {
                    receiveOrFail(receiver);
                    ReceivedMessage m = receiver.message();
                    assertEquals(2, m.parts());
                    assertArrayEquals(wanted, m.partBytes(0), "only the subscribed topic arrives");
                    if (java.util.Arrays.equals(sync, m.partBytes(1))) {
                        continue; // a sync message still in flight
                    }
                    assertArrayEquals(message(seq), m.partBytes(1), "message " + seq);
                    seq++;
                }
                PipelineStats stats = sender.stats();
                assertTrue(stats.envelopeParts() >= 400, stats::toString);
                assertEquals(0, stats.inlineMessages(), "inline sends are off by default: " + stats);
            }
        }
    }

    /**
     * Payloads written into memory claimed with a topic arrive under that topic, intact and in
     * order among published ones, and subscriptions filter them; over every path (raw, copied,
     * zero-copy, inline sends); every claimed buffer is back. A commit shorter than the claim
     * places the topic after what was written, not after the claim.
     */
    @ParameterizedTest(name = "inlineBelowBytes {0}")
    @ValueSource(longs = {0, 4096})
    void shouldPublishClaimedPayloadsUnderTheirTopics(long inlineBelow) {
        int count = 600;
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.sendHwm(0); // PUB drops at the high-water mark: keep every message
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.receiveHwm(0);
            sub.subscribe("wanted.");
            Fixtures.link(pub, sub, "tcp");
            byte[] wanted = "wanted.cpu".getBytes(StandardCharsets.US_ASCII);
            byte[] other = "other.cpu".getBytes(StandardCharsets.US_ASCII);
            byte[] sync = "sync".getBytes(StandardCharsets.US_ASCII);
            byte[] marker = "marker".getBytes(StandardCharsets.US_ASCII);
            PipelineStats stats;
            try (ParallelCompressingSender sender = claimingSender(pub, inlineBelow);
                 DecompressingReceiver receiver = DecompressingReceiver.builder(sub).build()) {
                Fixtures.awaitSubscription(() -> {
                    sender.publish(wanted, sync, 0);
                    sender.flush();
                }, receiver);
                sender.publish(wanted, marker, 0); // every sync message still in flight arrives before it
                do {
                    receiveOrFail(receiver);
                } while (!java.util.Arrays.equals(marker, received(receiver, 1)));
                // The marker can arrive before the thread that sent it has counted it: flush()
                // returns once every message taken is sent and counted
                sender.flush();
                PipelineStats before = sender.stats();
                writeAndRead(sender, receiver, count, ParallelCompressingSenderTest::message, seq -> {
                    byte[] m = message(seq);
                    claimAndCommit(sender, other, Fixtures.random(m.length, ~seq)); // filtered out on the way
                    if (seq % 4 == 3) {
                        return sender.publish(wanted, m, 0);
                    }
                    claimAndCommit(sender, wanted, m);
                    return true;
                }, wanted);
                sender.flush();
                stats = sender.stats();
                assertEquals(2L * count, stats.messages() - before.messages(), stats::toString);
                assertEquals(2L * count, stats.envelopeParts() - before.envelopeParts(), "a topic part per message: " + stats);
                assertEveryRoute(stats, inlineBelow);
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    /** Two workers at level 1; small messages inline whenever the ring is empty if {@code inlineBelow} is set. */
    private static ParallelCompressingSender claimingSender(ZmqSocket socket, long inlineBelow) {
        return ParallelCompressingSender.builder(socket).level(1).workers(2)
                .inlineBelowBytes(inlineBelow).inlineAfterIdleNanos(0).build();
    }

    /** Frames went zero-copy, copied and raw, and inline exactly when inline sends were allowed. */
    private static void assertEveryRoute(PipelineStats stats, long inlineBelow) {
        assertTrue(stats.zeroCopySends() > 0 && stats.copiedSends() > 0 && stats.rawFrames() > 0, stats::toString);
        assertEquals(inlineBelow > 0, stats.inlineMessages() > 0, stats::toString);
    }

    /** Claims 100 bytes more than {@code payload} under {@code topic}, writes the payload, commits it. */
    private static void claimAndCommit(ParallelCompressingSender sender, byte[] topic, byte[] payload) {
        MemorySegment room = sender.claim(topic, payload.length + 100, 0);
        assertTrue(room.byteSize() >= payload.length + 100, "claimed " + room.byteSize() + " B");
        room.asSlice(payload.length, 100).fill((byte) 0x5a); // what a commit shorter than the claim leaves
        MemorySegment.copy(payload, 0, room, ValueLayout.JAVA_BYTE, 0, payload.length);
        sender.commit(payload.length);
    }

    @Test
    void shouldTellWouldBlockWhenTheRingIsFullAndKeepEverythingTaken() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(1);
            String endpoint = Fixtures.bindAddress("inproc");
            push.bind(endpoint); // no peer yet: the first worker send blocks
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(2).inFlight(4)
                    .build()) {
                assertEquals(4, sender.inFlightCapacity());
                long taken = 0;
                while (sender.send(message(taken), ZmqSocket.DONTWAIT)) {
                    taken++;
                    assertTrue(taken < 1_000, "the sender took everything although the socket has no peer");
                }
                assertEquals(4, sender.inFlight(), "a full ring, nothing sent");
                assertEquals(1, sender.stats().wouldBlock());
                assertFalse(sender.flush(50), "flush cannot finish without a peer");

                ZmqSocket pull = ctx.socket(SocketType.PULL);
                pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                pull.connect(endpoint);
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    for (long seq = 0; seq < taken; seq++) {
                        receiveOrFail(receiver);
                        assertArrayEquals(message(seq), received(receiver, 0), "message " + seq);
                    }
                    assertTrue(sender.flush(20_000));
                    assertTrue(sender.send(message(taken), ZmqSocket.DONTWAIT), "room again once the peer reads");
                    receiveOrFail(receiver);
                    assertArrayEquals(message(taken), received(receiver, 0));
                }
            }
        }
    }

    /**
     * flush(timeoutMs) with 0 or less does not wait, down to Long.MIN_VALUE. Before, a timeout
     * whose nanoseconds saturate at Long.MIN_VALUE made the time left overflow to about 292 years,
     * and flush waited as flush() does: here, with no peer, for ever.
     */
    @Test
    void shouldNotWaitInAFlushWithATimeoutOfZeroOrLess() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(20); // never a peer: the message stays in flight, close() drops it
            push.bind(Fixtures.bindAddress("inproc"));
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build()) {
                assertTrue(sender.send(new byte[100], 0));
                for (long timeoutMs : new long[] {0, -1, -9_223_372_036_855L, Long.MIN_VALUE}) {
                    // on a thread of JUnit's, so that a flush that waits fails the test instead of hanging it
                    assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(10), () -> sender.flush(timeoutMs)),
                            "flush(" + timeoutMs + ") with a message in flight");
                }
                assertEquals(1, sender.inFlight());
            }
        }
    }

    @Test
    void shouldBoundTheBytesInFlightButTakeALargeMessageAlone() {
        try (ZmqContext ctx = new ZmqContext()) {
            for (boolean large : new boolean[] {true, false}) {
                ZmqSocket push = ctx.socket(SocketType.PUSH);
                push.sendTimeoutMs(20); // never a peer: close() drops what is left
                push.bind(Fixtures.bindAddress("inproc"));
                ParallelCompressingSender sender = ParallelCompressingSender.builder(push).inFlight(64)
                        .inFlightBytes(10_000).build();
                if (large) {
                    assertTrue(sender.send(Fixtures.payload(50_000, 1), ZmqSocket.DONTWAIT),
                            "alone, a message above the bound is taken");
                    assertFalse(sender.send(new byte[1], ZmqSocket.DONTWAIT), "behind it, nothing more");
                    assertEquals(1, sender.inFlight());
                } else {
                    byte[] small = Fixtures.payload(4096, 2);
                    assertTrue(sender.send(small, ZmqSocket.DONTWAIT));
                    assertTrue(sender.send(small, ZmqSocket.DONTWAIT), "8,192 B in flight: within 10,000");
                    assertFalse(sender.send(small, ZmqSocket.DONTWAIT), "12,288 B would pass the bound");
                    assertEquals(2, sender.inFlight());
                }
                sender.close();
                assertEquals(large ? 1 : 2, sender.stats().droppedMessages(), () -> sender.stats().toString());
                push.close();
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * close() with a full ring and no peer drops and counts what is left, and waits about one send
     * timeout, not one per message (64 messages tried in turn behind a 100 ms timeout would take at
     * least 6.4 s).
     */
    @Test
    void shouldDropAndCountWhatTheSendTimeoutRefusesAfterCloseWithinAboutOneTimeout() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(100);
            push.bind(Fixtures.bindAddress("inproc")); // never a peer
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(2).inFlight(64).build();
            for (long seq = 0; seq < 64; seq++) {
                assertTrue(sender.send(message(seq + 1), ZmqSocket.DONTWAIT));
            }
            long start = System.nanoTime();
            sender.close(); // returns: the first refusal after close() began drops what is left
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs < 3_000, "close took " + tookMs + " ms for 64 messages behind a 100 ms timeout");
            PipelineStats stats = sender.stats();
            assertEquals(64, stats.droppedMessages(), stats::toString);
            assertEquals(0, stats.messages(), stats::toString);
            assertTrue(stats.wouldBlock() >= 1, stats::toString);
            assertThrows(IllegalStateException.class, () -> sender.send(new byte[1], 0));
            sender.close(); // idempotent
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * A socket whose send timeout is 0 refuses at once while no peer takes the message: the worker
     * tries again, but pausing between tries, so it does not keep a core busy (it spun before
     * 2026-11-26: about the whole window in CPU time), and the message goes out once a peer is there.
     * So too when the worker is interrupted while it retries: it clears the interrupt and goes on
     * pausing (before 2026-11-27 the flag stayed set, every pause returned at once, and the worker
     * spun until a peer came: 164 ms of CPU in a 311 ms window on a loaded machine, 66,107 refusals counted by its end).
     */
    @ParameterizedTest(name = "interrupted {0}")
    @ValueSource(booleans = {false, true})
    void shouldPauseBetweenRetriesOnASocketWithASendTimeoutOfZeroAndDeliverOnceAPeerComes(boolean interrupted)
            throws Exception {
        List<Thread> workers = new CopyOnWriteArrayList<>();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(0);
            push.bind(Fixtures.bindAddress("tcp")); // no peer yet
            // read now: once the worker is sending, a call on push from this thread would be a second thread on it
            String endpoint = push.lastEndpoint();
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1)
                    .threadFactory(recordingThreads(workers)).build()) {
                assertTrue(sender.send(message(7), 0));
                assertTrue(Fixtures.await(() -> sender.stats().wouldBlock() >= 1, 10_000), () -> sender.stats().toString());
                assertEquals(1, workers.size());
                if (interrupted) {
                    workers.get(0).interrupt();
                    long refusals = sender.stats().wouldBlock();
                    assertTrue(Fixtures.await(() -> sender.stats().wouldBlock() > refusals, 10_000),
                            "the worker retried no more after the interrupt: " + sender.stats());
                }
                long worker = workers.get(0).threadId();
                long refusalsBefore = sender.stats().wouldBlock();
                long cpuBefore = THREADS.getThreadCpuTime(worker);
                long wallBefore = System.nanoTime();
                Thread.sleep(300); // a window to measure, not a synchronisation
                long cpuMs = (THREADS.getThreadCpuTime(worker) - cpuBefore) / 1_000_000;
                long wallMs = (System.nanoTime() - wallBefore) / 1_000_000;
                // A fifth of the window (60 ms of 300): on a loaded machine the sleep can last far
                // longer than asked, and the pausing worker's CPU time grows with it (a fixed 60 ms
                // could then fail); a spinning worker uses about all of it
                assertTrue(cpuMs * 5 < wallMs, "the retrying worker used " + cpuMs + " ms of CPU in " + wallMs + " ms: "
                        + sender.stats());
                // Pauses of up to 1 ms allow about one try a millisecond once they have doubled up
                // to it (seven tries before); a spinning worker tried about 90 a millisecond
                long refusals = sender.stats().wouldBlock() - refusalsBefore;
                assertTrue(refusals < 2 * wallMs + 20, "the retrying worker tried " + refusals + " times in " + wallMs + " ms");
                assertFalse(workers.get(0).isInterrupted(), "the retrying worker kept the interrupt");
                try (ZmqSocket pull = ctx.socket(SocketType.PULL);
                     DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                    pull.connect(endpoint);
                    receiveOrFail(receiver);
                    assertArrayEquals(message(7), received(receiver, 0));
                    sender.flush();
                    assertEquals(1, sender.stats().messages(), sender.stats()::toString);
                }
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * failOnSendTimeout: a peer that stops reading ends the stream within the timeout; every message
     * taken is either delivered, in order and intact, or counted as dropped, and the caller is told
     * why (a TimeoutException as the cause) on its next call.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldFailTheStreamWhenAPeerTakesNothingWithinTheSendTimeout(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            push.sendHwm(8);
            pull.receiveHwm(8);
            push.sendTimeoutMs(100);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            Fixtures.link(pull, push, transport);
            long taken = 0;
            IllegalStateException failure = null;
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(3).inFlight(16)
                    .failOnSendTimeout(true).build()) {
                // The peer never reads while we send: the pipes fill, a send times out, the stream ends.
                for (long seq = 0; seq < 100_000 && failure == null; seq++) {
                    try {
                        assertTrue(sender.send(message(seq), 0));
                        taken++;
                    } catch (IllegalStateException e) {
                        failure = e;
                    }
                }
                assertInstanceOf(IllegalStateException.class, failure, "the stream never failed");
                assertInstanceOf(java.util.concurrent.TimeoutException.class, failure.getCause(), failure::toString);
                assertTrue(failure.getCause().getMessage().contains("100 ms"), failure.getCause()::getMessage);
                assertThrows(IllegalStateException.class, sender::flush, "flush reports it too");
                PipelineStats stats = sender.stats();
                assertTrue(stats.messages() > 0 && stats.droppedMessages() > 0, stats::toString);
                assertEquals(taken, stats.messages() + stats.droppedMessages(), "every message taken is accounted for: " + stats);
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    for (long seq = 0; seq < stats.messages(); seq++) {
                        receiveOrFail(receiver);
                        assertArrayEquals(message(seq), received(receiver, 0), "message " + seq);
                    }
                    pull.receiveTimeoutMs(200);
                    assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(0), "nothing beyond what was counted sent");
                }
                assertThrows(IllegalStateException.class, sender::close, "close rethrows the failure");
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /** The same outcome whether the failing send was a worker's or the caller's own (inline). */
    @ParameterizedTest(name = "inline {0}")
    @ValueSource(booleans = {false, true})
    void shouldReportAFailedSendToTheCallerAndStayClosable(boolean inline) {
        try (ZmqContext ctx = new ZmqContext()) {
            // A REP that has received no request: libzmq refuses its send (EFSM), a ZmqException.
            ZmqSocket rep = ctx.socket(SocketType.REP);
            rep.bind(Fixtures.bindAddress("inproc"));
            ParallelCompressingSender sender = ParallelCompressingSender.builder(rep)
                    .inlineBelowBytes(inline ? 4096 : 0).build();
            // 17 B with nothing in flight: sent inline when allowed, else by a worker; either way
            // taken, and the failure reaches the next call
            assertTrue(sender.send(message(1), 0));
            IllegalStateException e = assertThrows(IllegalStateException.class, sender::flush);
            assertInstanceOf(ZmqException.class, e.getCause(), e::toString);
            assertThrows(IllegalStateException.class, () -> sender.send(message(3), 0));
            assertEquals(1, sender.stats().droppedMessages());
            assertThrows(IllegalStateException.class, sender::close, "close rethrows the failure");
            sender.close(); // then idempotent
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * A reply whose routing id a ROUTER under ZMQ_ROUTER_MANDATORY refuses (that peer never
     * connected, or is gone: routine for a server whose clients come and go) is that message's
     * outcome alone: dropped and counted, on a worker and inline alike, and the replies to the
     * peer that is there, before and after it, all arrive in order. Before 2026-11-27 the refusal
     * failed the sender: every reply behind it was dropped, and the next publish, flush and close
     * threw EHOSTUNREACH, so one client gone ended the server's stream to all the others.
     */
    @ParameterizedTest(name = "{0}, inline {1}")
    @CsvSource({"tcp,false", "ipc,true", "inproc,false", "inproc,true"})
    void shouldDropAReplyToAPeerThatIsGoneAndGoOnWithTheOthers(String transport, boolean inline) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.routerMandatory(true);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            byte[] known = "client-1".getBytes(StandardCharsets.US_ASCII);
            dealer.routingId(known);
            Fixtures.link(router, dealer, transport);
            assertTrue(dealer.send("hello".getBytes(StandardCharsets.US_ASCII), 0));
            assertArrayEquals(known, router.receiveBytes(0), "the ROUTER knows the peer once it has heard from it");
            router.receiveBytes(0);
            byte[] gone = "client-2".getBytes(StandardCharsets.US_ASCII);
            int replies = 9;
            int goneAt = 4;
            ParallelCompressingSender sender = ParallelCompressingSender.builder(router).workers(2)
                    .inlineBelowBytes(inline ? 4096 : 0).inlineAfterIdleNanos(0).build();
            for (int i = 0; i < replies; i++) {
                byte[] payload = Fixtures.payload(1000 + i, i);
                assertTrue(sender.publish(i == goneAt ? gone : known, payload, 0), "taken: " + i);
                if (inline) {
                    sender.flush(); // nothing in flight: the next one goes inline
                }
            }
            sender.flush();
            PipelineStats stats = sender.stats();
            assertEquals(1, stats.droppedMessages(), stats::toString);
            assertEquals(replies - 1, stats.messages(), stats::toString);
            assertEquals(inline ? replies - 1 : 0, stats.inlineMessages(), "the path taken: " + stats);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(dealer).build()) {
                for (int i = 0; i < replies; i++) {
                    if (i != goneAt) {
                        receiveOrFail(receiver);
                        assertArrayEquals(Fixtures.payload(1000 + i, i), received(receiver, 0), "reply " + i);
                    }
                }
                assertTrue(sender.publish(known, Fixtures.payload(500, 99), 0), "the sender goes on");
                receiveOrFail(receiver);
                assertArrayEquals(Fixtures.payload(500, 99), received(receiver, 0));
            }
            sender.close();
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * README, DEALER/ROUTER: a ROUTER that receives its requests on the producer's thread and
     * replies through a ParallelCompressingSender on the same socket must flush() before each
     * receive, since the workers send on the socket after publish has returned and the transport
     * refuses a receive and a send that overlap (the sender then fails). So used, with requests from
     * two DEALERs queued ahead, each reply goes to the peer that asked, behind the routing id copied
     * at publish; the next receive then reuses the region the id was read from.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldReplyOnTheRouterItReceivesOnWhenFlushedBeforeEachReceive(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = Fixtures.bound(ctx, SocketType.ROUTER, transport);
            router.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            ZmqSocket[] clients = {ctx.socket(SocketType.DEALER), ctx.socket(SocketType.DEALER)};
            int rounds = 50;
            try (DecompressingReceiver requests = DecompressingReceiver.builder(router).build();
                 ParallelCompressingSender replying = ParallelCompressingSender.builder(router).workers(2).build();
                 DecompressingReceiver answered0 = DecompressingReceiver.builder(clients[0]).build();
                 DecompressingReceiver answered1 = DecompressingReceiver.builder(clients[1]).build()) {
                for (int c = 0; c < clients.length; c++) {
                    clients[c].routingId(("client-" + c).getBytes(StandardCharsets.US_ASCII));
                    clients[c].receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                    clients[c].connect(router.lastEndpoint());
                    try (CompressingSender asking = CompressingSender.builder(clients[c]).build()) {
                        for (int i = 0; i < rounds; i++) {
                            assertTrue(asking.send(Fixtures.payload(100 + i, 1000L * c + i), 0));
                        }
                    }
                }
                for (int k = 0; k < 2 * rounds; k++) {
                    receiveOrFail(requests);
                    ReceivedMessage m = requests.message();
                    // the request's own bytes back, so that each reply names its request
                    assertTrue(replying.publish(m.part(0), m.segment(1), m.partOffset(1), m.partSize(1), 0));
                    replying.flush(); // no worker in a call on the socket when it receives again
                }
                DecompressingReceiver[] answered = {answered0, answered1};
                for (int c = 0; c < clients.length; c++) {
                    for (int i = 0; i < rounds; i++) {
                        receiveOrFail(answered[c]);
                        assertArrayEquals(Fixtures.payload(100 + i, 1000L * c + i), received(answered[c], 0),
                                "client-" + c + ", reply " + i);
                    }
                }
                PipelineStats stats = replying.stats();
                assertEquals(2 * rounds, stats.messages(), stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
            }
        }
    }

    @Test
    void shouldCompressWithADictionaryOnEveryWorker() {
        ZstdDictionary dictionary = Fixtures.dictionary();
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(3)
                    .dictionary(dictionary).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(dictionary)
                         .build()) {
                for (int i = 0; i < 60; i++) {
                    assertTrue(sender.send(Fixtures.payload(150 + i, i), 0));
                }
                sender.flush();
                for (int i = 0; i < 60; i++) {
                    receiveOrFail(receiver);
                    assertArrayEquals(Fixtures.payload(150 + i, i), received(receiver, 0), "message " + i);
                }
                assertTrue(sender.stats().ratio() > 2, () -> sender.stats().toString());
            }
        }
    }

    /**
     * Back-to-back small messages: with no idle time required every one goes inline (each finds the
     * one before it in libzmq); with inline sends off none does; with an hour required only the first
     * (nothing came before it), and so with the largest pauses (before, a pause near Long.MAX_VALUE
     * overflowed, and the first message went to a worker).
     */
    @ParameterizedTest(name = "inlineBelowBytes {0}, inlineAfterIdleNanos {1}")
    @CsvSource({"4096, 0, 1000", "0, 0, 0", "4096, 3600000000000, 1",
            "4096, 9223372036854775806, 1", "4096, 9223372036854775807, 1"})
    void shouldSendSmallMessagesOnTheCallersThreadWhenAllowed(long inlineBelow, long idleNanos, long expectedInline) {
        int count = 1_000;
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(3)
                    .inlineBelowBytes(inlineBelow).inlineAfterIdleNanos(idleNanos).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                // 1,000 messages fit in the two ends' default high-water marks (1,000 each): no
                // send waits for the reader, which reads after the burst
                for (int i = 0; i < count; i++) {
                    // 64 B goes raw, 300 B through the compressor
                    assertTrue(sender.send(Fixtures.payload(i % 2 == 0 ? 64 : 300, i), 0));
                }
                sender.flush();
                for (int i = 0; i < count; i++) {
                    receiveOrFail(receiver);
                    assertArrayEquals(Fixtures.payload(i % 2 == 0 ? 64 : 300, i), received(receiver, 0), "message " + i);
                }
                PipelineStats stats = sender.stats();
                assertEquals(count, stats.messages(), stats::toString);
                assertEquals(count / 2, stats.rawFrames(), stats::toString);
                assertEquals(expectedInline, stats.inlineMessages(), stats::toString);
                assertEquals(2 * (count - expectedInline), stats.poolRents(), "two rents per message handed over: " + stats);
            }
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000),
                    () -> ctx.bufferPool().stats().toString());
        }
    }

    /** A small message after a pause goes inline; the pause is what is tested, not a synchronisation. */
    @Test
    void shouldSendASmallMessageInlineAfterAPause() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(2)
                    .inlineBelowBytes(4096).inlineAfterIdleNanos(1_000_000).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                for (int i = 0; i < 5; i++) {
                    long until = System.nanoTime() + 2_000_000;
                    while (System.nanoTime() < until) {
                        LockSupport.parkNanos(until - System.nanoTime());
                    }
                    assertTrue(sender.send(Fixtures.payload(1000, i), 0));
                    receiveOrFail(receiver);
                    assertArrayEquals(Fixtures.payload(1000, i), received(receiver, 0), "message " + i);
                }
                assertEquals(5, sender.stats().inlineMessages(), () -> sender.stats().toString());
            }
        }
    }

    /**
     * Small messages behind large ones in flight wait their turn: order holds across both routes
     * (every small message that finds the ring empty goes inline).
     */
    @Test
    void shouldKeepOrderWhenSmallMessagesFollowLargeOnes() {
        int count = 3_000;
        int[] sizes = {40, 65536, 300, 200_000, 64, 1024};
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).level(1).workers(3)
                    .inlineBelowBytes(4096).inlineAfterIdleNanos(0).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                writeAndRead(sender, receiver, count, seq -> stamped(sizes[(int) (seq % sizes.length)], (int) seq),
                        seq -> sender.send(stamped(sizes[(int) (seq % sizes.length)], (int) seq), 0));
                PipelineStats stats = sender.stats();
                assertEquals(count, stats.messages(), stats::toString);
                // the first message finds an empty ring; the large ones never go inline
                assertTrue(stats.inlineMessages() >= 1 && stats.inlineMessages() <= count / 2, stats::toString);
            }
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000),
                    () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * Sends {@code count} messages on a writer thread ({@code send} of each sequence number must take
     * it), then flushes, while this thread receives them and compares each with {@code expected}.
     */
    private static void writeAndRead(ParallelCompressingSender sender, DecompressingReceiver receiver, int count,
            LongFunction<byte[]> expected, LongPredicate send) {
        writeAndRead(sender, receiver, count, expected, send, null);
    }

    /** As above; with {@code topic} given, each message must arrive as that topic and the expected payload. */
    private static void writeAndRead(ParallelCompressingSender sender, DecompressingReceiver receiver, int count,
            LongFunction<byte[]> expected, LongPredicate send, byte[] topic) {
        Thread reader = Thread.currentThread();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (long seq = 0; seq < count; seq++) {
                    assertTrue(send.test(seq), "blocking send returned false");
                }
                sender.flush();
            } catch (Throwable t) {
                failure.set(t);
                reader.interrupt();
            }
        }, "writer");
        writer.start();
        for (long seq = 0; seq < count; seq++) {
            receiveOrFail(receiver);
            if (topic == null) {
                assertArrayEquals(expected.apply(seq), received(receiver, 0), "message " + seq);
            } else {
                assertEquals(2, receiver.message().parts(), "message " + seq);
                assertArrayEquals(topic, receiver.message().partBytes(0), "topic of message " + seq);
                assertArrayEquals(expected.apply(seq), received(receiver, 1), "message " + seq);
            }
        }
        assertTrue(Fixtures.await(() -> !writer.isAlive(), 20_000));
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    private static byte[] stamped(int size, int seq) {
        byte[] b = Fixtures.payload(size, seq);
        ByteBuffer.wrap(b).putInt(0, seq);
        return b;
    }

    /**
     * Payloads written into claimed memory arrive intact and in order among copied ones, over every
     * path (raw, copied, zero-copy, multi-block frames, inline sends); every claimed buffer is back,
     * and the pool's rents are the sender's count.
     */
    @ParameterizedTest(name = "inlineBelowBytes {0}")
    @ValueSource(longs = {0, 4096})
    void shouldSendClaimedPayloadsIntactAndInOrderAmongCopiedOnes(long inlineBelow) {
        int count = 2_000;
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            long rentedBefore = pool.stats().rented();
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            PipelineStats stats;
            try (ParallelCompressingSender sender = claimingSender(link.client(), inlineBelow);
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                writeAndRead(sender, receiver, count, ParallelCompressingSenderTest::message, seq -> {
                    byte[] m = message(seq);
                    if (seq % 4 == 3) {
                        return sender.send(m, 0);
                    }
                    // claim more than is written (a producer that knows only a bound), write, commit
                    MemorySegment room = sender.claim(m.length + 100, 0);
                    assertTrue(room.byteSize() >= m.length + 100, "claimed " + room.byteSize() + " B");
                    MemorySegment.copy(m, 0, room, ValueLayout.JAVA_BYTE, 0, m.length);
                    sender.commit(m.length);
                    return true;
                });
                stats = sender.stats();
                assertEquals(count, stats.messages(), stats::toString);
                assertEveryRoute(stats, inlineBelow);
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
            assertEquals(pool.stats().rented() - rentedBefore, stats.poolRents(), stats::toString);
        }
    }

    /**
     * A claim takes room as a send does (null under DONTWAIT when there is none, nothing claimed),
     * blocks other sends until committed or aborted, refuses a commit past its length or without a
     * claim (the claim stays open), and an open claim is given back by abort() and by close().
     */
    @Test
    void shouldKeepClaimsConsistentUnderMisuseFullRingsAndClose() {
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(1);
            push.sendTimeoutMs(20); // never a peer: close() drops what is left
            push.bind(Fixtures.bindAddress("inproc"));
            long rentedBefore = pool.stats().rented();
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlight(2).build();
            assertThrows(IllegalArgumentException.class, () -> sender.claim(-1, 0));
            assertThrows(IllegalArgumentException.class, () -> sender.claim(8, ZmqSocket.SNDMORE));
            IllegalStateException noClaim = assertThrows(IllegalStateException.class, () -> sender.commit(0));
            assertTrue(noClaim.getMessage().contains("claim"), noClaim::getMessage);

            MemorySegment room = sender.claim(64, 0);
            room.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
            IllegalStateException open = assertThrows(IllegalStateException.class, () -> sender.send(new byte[1], 0));
            assertTrue(open.getMessage().contains("commit() or abort()"), open::getMessage);
            assertThrows(IllegalStateException.class, () -> sender.claim(1, 0), "one claim at a time");
            IndexOutOfBoundsException past = assertThrows(IndexOutOfBoundsException.class, () -> sender.commit(65));
            assertTrue(past.getMessage().contains("maxLength=64"), past::getMessage);
            assertEquals(1, pool.outstanding(), "the claim is still open after a refused commit");
            sender.abort();
            sender.abort(); // nothing open: does nothing
            assertEquals(0, pool.outstanding(), "abort gives the claimed buffer back");
            assertEquals(0, sender.inFlight(), "an aborted claim sends nothing");

            // fill the ring of 2 (the socket has no peer, so nothing leaves it), then claims find no room
            assertNotNull(sender.claim(8, ZmqSocket.DONTWAIT));
            sender.commit(8);
            assertTrue(sender.send(new byte[8], ZmqSocket.DONTWAIT));
            assertNull(sender.claim(8, ZmqSocket.DONTWAIT), "a full ring: no room claimed");
            assertFalse(sender.send(new byte[0], ZmqSocket.DONTWAIT), "no room, and no claim left open (that would throw)");
            assertEquals(2, sender.inFlight());

            // an open claim at close is dropped and its buffer returned (a socket of its own: a
            // sender's socket is used by that sender only)
            ZmqSocket other = ctx.socket(SocketType.PUSH);
            other.bind(Fixtures.bindAddress("inproc"));
            ParallelCompressingSender second = ParallelCompressingSender.builder(other).workers(1).build();
            assertNotNull(second.claim(1000, 0));
            second.close();
            assertThrows(IllegalStateException.class, () -> second.commit(10), "closed");
            sender.close();
            assertEquals(2, sender.stats().droppedMessages(), () -> sender.stats().toString());
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
            // every rent is counted: 2 per message in the ring, 1 for the aborted and the dropped claim
            assertEquals(pool.stats().rented() - rentedBefore, sender.stats().poolRents() + second.stats().poolRents(),
                    () -> sender.stats() + " / " + second.stats());
        }
    }

    /**
     * A claim past {@link ParallelCompressingSender#MAX_CLAIM_BYTES} (the largest payload whose
     * frame bound fits in a long, checked here against libzstd's) is refused naming its length and
     * the limit, with or without a topic; before, it reached the allocation and an OutOfMemoryError
     * escaped (without a message at Long.MAX_VALUE; here, JUnit took it for fatal and ended the
     * run). A claim within the limit that no memory holds
     * still gets the JVM's OutOfMemoryError. Either way nothing is claimed, no buffer stays
     * rented, and the next claim is sent.
     */
    @Test
    void shouldRefuseAClaimPastTheFrameBoundAndGoOn() {
        long limit = ParallelCompressingSender.MAX_CLAIM_BYTES;
        assertEquals(Long.MAX_VALUE, ZstdCompressor.maxCompressedSize(limit), "the limit's frame bound fits, exactly");
        assertThrows(IllegalArgumentException.class, () -> ZstdCompressor.maxCompressedSize(limit + 1));
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                for (long maxLength : new long[] {limit + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
                    String named = "maxLength=" + maxLength + ", limit=" + limit;
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sender.claim(maxLength, 0));
                    assertTrue(e.getMessage().contains(named), e::getMessage);
                    e = assertThrows(IllegalArgumentException.class,
                            () -> sender.claim(TOPIC, maxLength, ZmqSocket.DONTWAIT));
                    assertTrue(e.getMessage().contains(named), e::getMessage);
                }
                // within the limit and past any machine's memory (1 PiB): the JVM's own error
                assertThrows(OutOfMemoryError.class, () -> sender.claim(1L << 50, 0));
                assertEquals(0, pool.outstanding(), () -> "nothing claimed: " + pool.stats());

                byte[] payload = Fixtures.payload(1000, 7);
                sender.claim(payload.length, 0).copyFrom(MemorySegment.ofArray(payload));
                sender.commit(payload.length);
                sender.flush();
                receiveOrFail(receiver);
                assertArrayEquals(payload, received(receiver, 0), "the sender goes on");
                assertEquals(1, sender.stats().messages(), () -> sender.stats().toString());
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    /**
     * What stays in the pool, and so allocates nothing, is a payload whose frame bound fits the
     * pool's largest class, for both senders; a payload of exactly that class has a larger frame
     * bound, so its frame is an unpooled buffer (a heap allocation per message), where the README
     * said "payloads up to the pool's largest class".
     */
    @Test
    void shouldKeepInThePoolOnlyPayloadsWhoseFrameBoundFitsTheLargestClass() {
        long largest = 1 << 20;
        long fits = largest;
        while (ZstdCompressor.maxCompressedSize(fits) > largest) {
            fits--;
        }
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(largest).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                for (boolean parallel : new boolean[] {false, true}) {
                    for (long size : new long[] {fits, largest}) {
                        byte[] payload = Fixtures.payload((int) size, size);
                        long unpooledBefore = pool.stats().unpooled();
                        if (parallel) {
                            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build()) {
                                assertTrue(sender.send(payload, 0));
                            }
                        } else {
                            try (CompressingSender sender = CompressingSender.builder(link.client()).build()) {
                                assertTrue(sender.send(payload, 0));
                            }
                        }
                        receiveOrFail(receiver);
                        assertArrayEquals(payload, received(receiver, 0));
                        long unpooled = pool.stats().unpooled() - unpooledBefore;
                        String what = (parallel ? "parallel" : "single") + ", payload=" + size + ", largestClass=" + largest;
                        assertEquals(size == fits ? 0 : 1, unpooled, what);
                    }
                }
            }
        } finally {
            pool.close();
        }
    }

    @Test
    void shouldRefuseMisuseWithClearErrors() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            var b = ParallelCompressingSender.builder(push);
            assertThrows(IllegalArgumentException.class, () -> b.workers(0));
            assertThrows(IllegalArgumentException.class, () -> b.inFlight(0));
            assertThrows(IllegalArgumentException.class, () -> b.inlineBelowBytes(-1));
            assertThrows(IllegalArgumentException.class, () -> b.inlineAfterIdleNanos(-1));
            IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                    () -> b.inlineBelowBytes(ParallelCompressingSender.MAX_INLINE_BELOW_BYTES + 1));
            assertTrue(big.getMessage().contains("inlineBelowBytes"), big::getMessage);
            try (ParallelCompressingSender sender = b.workers(1).inFlight(3).build()) {
                assertEquals(4, sender.inFlightCapacity(), "rounded up to a power of two");
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> sender.send(new byte[8], ZmqSocket.SNDMORE));
                assertTrue(e.getMessage().contains("flags"), e::getMessage);
                assertThrows(IndexOutOfBoundsException.class,
                        () -> sender.send(MemorySegment.ofArray(new byte[8]), 4, 8, 0));
            }
        }
    }

    /**
     * The caller's thread and every worker allocate nothing per message after warm-up (the JDK's
     * per-thread counters), and every pooled buffer comes back.
     *
     * <p>A case over the limit runs once more, with new threads and sockets, and must pass then: on
     * a loaded machine (a full parallel build beside it) one run of the 64 KiB case saw the workers
     * allocate 83 KB in the measured window, once, and never again in runs made to reproduce it;
     * code still waiting for its compilation allocates, and a second run starts with it compiled.
     * What allocates per message allocates in both runs.
     */
    @ParameterizedTest(name = "tcp, {0} B, claimed {1}, topic {2}")
    @CsvSource({"256,false,false", "1024,false,false", "65536,false,false", "1024,true,false", "65536,true,false",
        "1024,false,true", "1024,true,true"})
    void shouldAllocateLessThanOneBytePerMessageOnEveryThread(int size, boolean claim, boolean topic) throws Exception {
        String first = allocationOverTheLimit(size, claim, topic);
        if (first != null) {
            System.out.println("over the limit in the first run, running again: " + first);
            String second = allocationOverTheLimit(size, claim, topic);
            assertNull(second, () -> second + " (the first run: " + first + ")");
        }
    }

    /** One run of the case above: null when every thread stayed under 1 B per message, else what did not. */
    private static String allocationOverTheLimit(int size, boolean claim, boolean topic) throws Exception {
        int warmUp = size >= 65536 ? 20_000 : 50_000;
        int measured = size >= 65536 ? 20_000 : 100_000;
        String over;
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED).build();
        if (size >= 65536) {
            // Zero-copy frames stay pooled until libzmq has written them: up to the socket's
            // high-water mark (1000) plus the ring and the workers. Carved ahead, as the pool's
            // docs advise, so that a backlog deeper than the warm-up's (a loaded machine: 700-790
            // new slots, and their heap objects, in 2 of 4 full-suite runs beside other builds)
            // is not counted as per-message allocation.
            pool.reserve(ZstdCompressor.maxCompressedSize(size), 1200);
        }
        List<Thread> workers = new CopyOnWriteArrayList<>();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build(); Arena arena = Arena.ofShared()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            MemorySegment payload = arena.allocate(size);
            payload.copyFrom(MemorySegment.ofArray(Fixtures.payload(size, 9)));
            AtomicLong receiverBytes = new AtomicLong(-1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            // Below 1 KiB every message finding the ring empty goes inline (no pause required), so
            // both routes run: the caller's own compressor and the workers'
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).level(1).workers(2)
                    .inlineBelowBytes(size < 1024 ? 4096 : 0).inlineAfterIdleNanos(0)
                    .threadFactory(recordingThreads(workers)).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server())
                         .envelopeParts(topic ? 1 : 0).build()) {
                int part = topic ? 1 : 0; // with a topic, the payload follows it (PUSH/PULL: no slow joiner)
                Thread reader = new Thread(() -> {
                    try {
                        long start = 0;
                        for (long i = 0; i < warmUp + measured; i++) {
                            if (i == warmUp) {
                                start = THREADS.getCurrentThreadAllocatedBytes();
                            }
                            if (receiver.receive(0) != DecompressingReceiver.RECEIVED) {
                                throw new AssertionError("message " + i + ": " + receiver.lastErrorMessage());
                            }
                            ReceivedMessage m = receiver.message();
                            long seq = m.segment(part).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(part));
                            if (seq != i || m.partSize(part) != size || m.parts() != part + 1
                                    || (topic && m.partSize(0) != TOPIC.length)) {
                                throw new AssertionError("message " + i + ": seq=" + seq + ", size=" + m.partSize(part)
                                        + ", parts=" + m.parts());
                            }
                        }
                        receiverBytes.set(THREADS.getCurrentThreadAllocatedBytes() - start);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "receiver");
                reader.start();
                for (long seq = 0; seq < warmUp; seq++) {
                    sendStamped(sender, payload, seq, claim, topic ? TOPIC : null);
                }
                sender.flush();
                long[] workerStart = new long[workers.size()];
                for (int w = 0; w < workerStart.length; w++) {
                    workerStart[w] = THREADS.getThreadAllocatedBytes(workers.get(w).threadId());
                }
                long callerStart = THREADS.getCurrentThreadAllocatedBytes();
                for (long seq = warmUp; seq < warmUp + measured; seq++) {
                    sendStamped(sender, payload, seq, claim, topic ? TOPIC : null);
                }
                long callerBytes = THREADS.getCurrentThreadAllocatedBytes() - callerStart;
                sender.flush();
                long workerBytes = 0;
                for (int w = 0; w < workerStart.length; w++) {
                    workerBytes += THREADS.getThreadAllocatedBytes(workers.get(w).threadId()) - workerStart[w];
                }
                reader.join(120_000);
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
                assertFalse(reader.isAlive(), "the reader did not finish within 120 s");
                System.out.printf("parallel tcp %d B%s%s: caller %d B, workers %d B, receiver %d B over %d messages; %s%n",
                        size, claim ? " claimed" : "", topic ? " topic" : "", callerBytes, workerBytes, receiverBytes.get(), measured, sender.stats());
                assertEquals(2, workerStart.length);
                over = callerBytes < measured && workerBytes < measured && receiverBytes.get() < measured ? null
                        : "caller allocated " + callerBytes + " B, workers " + workerBytes + " B, receiver "
                                + receiverBytes.get() + " B over " + measured + " messages";
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        } finally {
            pool.close();
        }
        return over;
    }

    /** Daemon worker threads named compress-N, each added to {@code threads} as it is made. */
    private static ThreadFactory recordingThreads(List<Thread> threads) {
        return r -> {
            Thread t = new Thread(r, "compress-" + threads.size());
            t.setDaemon(true);
            threads.add(t);
            return t;
        };
    }

    private static final byte[] TOPIC = "metrics.cpu".getBytes(StandardCharsets.US_ASCII);
    /** {@link #TOPIC} in native memory. */
    private static final MemorySegment TOPIC_SEGMENT = Arena.global().allocate(TOPIC.length)
            .copyFrom(MemorySegment.ofArray(TOPIC));

    /**
     * Stamps {@code seq} into {@code payload} and sends it, or writes both into claimed memory and
     * commits it; under {@code topic} (publish, or a claim with the topic) unless null, given as the
     * array for even numbers and as a native segment of its bytes ({@link #TOPIC_SEGMENT}, when it
     * is {@link #TOPIC}) for odd ones.
     */
    private static void sendStamped(ParallelCompressingSender sender, MemorySegment payload, long seq, boolean claim,
            byte[] topic) {
        boolean segmentTopic = topic == TOPIC && (seq & 1) == 1;
        if (claim) {
            MemorySegment room = topic == null ? sender.claim(payload.byteSize(), 0)
                    : segmentTopic ? sender.claim(TOPIC_SEGMENT, payload.byteSize(), 0)
                    : sender.claim(topic, payload.byteSize(), 0);
            MemorySegment.copy(payload, 0, room, 0, payload.byteSize());
            room.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
            sender.commit(payload.byteSize());
            return;
        }
        payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        if (!(topic == null ? sender.send(payload, 0)
                : segmentTopic ? sender.publish(TOPIC_SEGMENT, payload, 0) : sender.publish(topic, payload, 0))) {
            throw new AssertionError("blocking send returned false: seq=" + seq);
        }
    }

    /**
     * The pool's rents of messages close() drops are counted. One worker: the first message is
     * compressed (a payload copy and a frame) and refused by the send timeout after close() began;
     * the two behind it are dropped without being compressed (a payload copy each). Before
     * 2026-11-26 each was still compressed, into a frame rented for it, only to be thrown away, so
     * close() waited one compression per message on top of the timeout (seconds for a ring of large
     * messages at a high level).
     */
    @Test
    void shouldCountThePoolRentsOfDroppedMessages() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(50);
            push.bind(Fixtures.bindAddress("inproc")); // no peer: close() drops every message
            NativeBufferPool pool = ctx.bufferPool();
            long rentedBefore = pool.stats().rented();
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            for (int i = 0; i < 3; i++) {
                assertTrue(sender.send(Fixtures.payload(1000, i), 0));
            }
            sender.close();
            long rentedByPool = pool.stats().rented() - rentedBefore;
            PipelineStats stats = sender.stats();
            assertEquals(3, stats.droppedMessages(), stats::toString);
            assertEquals(0, pool.outstanding());
            assertEquals(4, rentedByPool, "a payload copy per message, a frame for the first only");
            assertEquals(rentedByPool, stats.poolRents(), stats::toString);
        }
    }

    /**
     * A payload that cannot be read is the caller's error, thrown at once with nothing taken, and
     * the sender goes on: through the ring (its copy fails) and inline alike (the compressor's read
     * fails), where before an inline send returned true, dropped the message and failed the sender.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldThrowAnUnreadablePayloadToTheCallerAndGoOn(boolean inline) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            MemorySegment gone;
            try (Arena arena = Arena.ofShared()) {
                gone = arena.allocate(100);
            }
            MemorySegment closed = gone;
            ParallelCompressingSender.Builder b = ParallelCompressingSender.builder(link.client()).workers(1);
            if (inline) {
                b.inlineBelowBytes(4096).inlineAfterIdleNanos(0);
            }
            byte[] next = Fixtures.payload(500, 2);
            try (ParallelCompressingSender sender = b.build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertThrows(IllegalStateException.class, () -> sender.send(closed, 0));
                assertTrue(sender.send(next, 0));
                sender.flush();
                assertEquals(0, sender.stats().droppedMessages());
                assertEquals(inline ? 1 : 0, sender.stats().inlineMessages(), "the path taken");
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0));
            }
        }
    }

    /**
     * A payload or topic in a mapping of a file shortened since it was mapped, whose pages past the
     * new end fault, is the caller's error on both paths, as a closed arena is: the send or the
     * commit throws an IllegalStateException naming what could not be read, its size and what
     * became of the message, the JDK's InternalError as its cause, nothing is taken (a claim stays
     * open), and the sender goes on. Until 2026-11-29 the copy's bare InternalError ("a fault
     * occurred in an unsafe memory access operation") reached the caller, naming nothing. Before 2026-11-29, inline, a 1,000-byte payload
     * went to libzstd by address and its SIGBUS ended the JVM; a 64-byte one (a raw frame, copied
     * by Java) and a topic (read by the socket) returned true, dropped the message and failed the
     * sender, the next send throwing.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldThrowAPayloadOrTopicInAShortenedMappingToTheCallerAndGoOn(boolean inline, @TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("shortened");
        Files.write(file, new byte[4096]);
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            channel.truncate(0);
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ParallelCompressingSender.Builder b = ParallelCompressingSender.builder(link.client()).workers(1);
            if (inline) {
                b.inlineBelowBytes(4096).inlineAfterIdleNanos(0);
            }
            byte[] next = Fixtures.payload(500, 2);
            byte[] empty = new byte[0];
            try (ParallelCompressingSender sender = b.build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                List<Executable> calls = List.of(
                        () -> sender.send(mapped, 0, 64, 0), // a raw frame
                        () -> sender.send(mapped, 0, 1000, 0), // compressed
                        () -> sender.publish(mapped.asSlice(0, 8), MemorySegment.ofArray(empty), 0),
                        () -> {
                            assertNotNull(sender.claim(mapped.asSlice(0, 8), 100, 0));
                            try {
                                sender.commit(10);
                            } catch (IllegalStateException e) {
                                assertEquals(1, ctx.bufferPool().outstanding(), "the claim stays open");
                                sender.abort();
                                throw e;
                            }
                        });
                List<String> named = List.of("payload could not be read: ", "payload could not be read: ",
                        "topic could not be read: ", "topic could not be read: ");
                List<String> sizes = List.of("length=64,", "length=1000,", "length=8,", "length=8,");
                List<String> consequences = List.of("(nothing was taken", "(nothing was taken", "(nothing was taken",
                        "(the claim stays open");
                for (int c = 0; c < calls.size(); c++) {
                    int call = c;
                    IllegalStateException e = assertThrows(IllegalStateException.class, calls.get(c), () -> "call " + call);
                    assertInstanceOf(InternalError.class, e.getCause(), () -> "call " + call + ": the JDK's report as the cause");
                    assertTrue(e.getMessage().startsWith(named.get(c)) && e.getMessage().contains(sizes.get(c))
                            && e.getMessage().contains("mapped=true") && e.getMessage().contains(consequences.get(c)),
                            () -> "call " + call + " not named: " + e.getMessage());
                    assertEquals(0, sender.inFlight());
                    assertTrue(sender.send(next, 0), () -> "after call " + call);
                    sender.flush();
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(next, receiver.message().partBytes(0));
                }
                PipelineStats stats = sender.stats();
                assertEquals(calls.size(), stats.messages(), stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
                assertEquals(inline ? calls.size() : 0, stats.inlineMessages(), "the path taken");
            }
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    /**
     * A sender dropped unclosed with a claim open gives the claimed buffer back when it is
     * collected, as close() does. Before 2026-11-26 the cleaner stopped the threads and freed the
     * inline memory but did not know the claim: its pooled buffer stayed out of the pool for ever
     * (and a strict pool reported it as leaked).
     */
    @Test
    void shouldReturnTheOpenClaimOfASenderDroppedUnclosed() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            WeakReference<Object> sender = claimAndDrop(link.client());
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (sender.get() != null || ctx.bufferPool().outstanding() != 0) {
                assertTrue(System.nanoTime() < deadline, () -> "not within 30 s of collections: collected="
                        + (sender.get() == null) + ", " + ctx.bufferPool().stats());
                System.gc();
                Thread.sleep(10); // gives the cleaner's thread its turn; the condition decides
            }
            ctx.bufferPool().assertNoLeaks();
        }
    }

    /** A sender that sent one message, then claimed room for another, dropped with the claim open. */
    private static WeakReference<Object> claimAndDrop(ZmqSocket socket) {
        ParallelCompressingSender sender = ParallelCompressingSender.builder(socket).workers(2).build();
        assertTrue(sender.send(Fixtures.payload(1000, 1), 0));
        sender.flush();
        assertNotNull(sender.claim(TOPIC, 5000, 0));
        return new WeakReference<>(sender);
    }

    /**
     * An interrupt of an idle worker (code that interrupts every thread of the process, say) does not
     * stop it and does not make it spin: it clears the flag, parks again and goes on serving the
     * sender. Before, LockSupport.park returned at once for ever after, so the worker stayed
     * RUNNABLE with its flag set, burning a core.
     */
    @Test
    void shouldParkAgainAndGoOnServingAfterAWorkerIsInterrupted() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            List<Thread> workers = new CopyOnWriteArrayList<>();
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1)
                    .threadFactory(recordingThreads(workers)).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                Thread worker = workers.getFirst();
                assertTrue(Fixtures.await(() -> worker.getState() == Thread.State.WAITING, 10_000),
                        () -> "the idle worker is not parked: " + worker.getState());
                worker.interrupt();
                assertTrue(Fixtures.await(() -> !worker.isInterrupted() && worker.getState() == Thread.State.WAITING, 10_000),
                        () -> "the interrupted worker did not park again: state=" + worker.getState()
                                + ", interrupted=" + worker.isInterrupted() + ", cpuNs=" + THREADS.getThreadCpuTime(worker.threadId()));
                byte[] payload = Fixtures.payload(5000, 7);
                assertTrue(sender.send(payload, 0));
                sender.flush();
                receiveOrFail(receiver);
                assertArrayEquals(payload, receiver.message().partBytes(0));
                assertTrue(worker.isAlive(), "the worker stopped");
            }
        }
    }

    /**
     * A compression that fails (here the compressor of the path taken was closed: no setting a
     * builder accepts makes libzstd refuse a small payload) leaves the sender in the same state
     * whether a worker or the caller's thread compressed: the message taken and dropped, counted,
     * the failure rethrown by the next call, and the payload's pooled buffer (a claim's, too) back
     * in the pool. Before, an inline failure was thrown at once by send, the sender went on as if
     * nothing had happened, and a commit's claim stayed open, its buffer rented.
     */
    @ParameterizedTest(name = "inline {0}, claimed {1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void shouldFailTheSenderTheSameWayWhenCompressionFailsInlineOrOnAWorker(boolean inline, boolean claim) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1)
                    .inlineBelowBytes(inline ? 4096 : 0).inlineAfterIdleNanos(0).build();
            compressorOf(sender, inline).close();
            byte[] payload = Fixtures.payload(1000, 5);
            if (claim) {
                sender.claim(payload.length, 0).copyFrom(MemorySegment.ofArray(payload));
                sender.commit(payload.length);
            } else {
                assertTrue(sender.send(payload, 0));
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, sender::flush);
            assertInstanceOf(IllegalStateException.class, e.getCause(), e::toString);
            assertTrue(e.getCause().getMessage().contains("compressor is closed"), e::toString);
            PipelineStats stats = sender.stats();
            assertEquals(1, stats.droppedMessages(), stats::toString);
            assertEquals(0, stats.messages(), stats::toString);
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
            assertThrows(IllegalStateException.class, () -> sender.send(payload, 0));
            assertThrows(IllegalStateException.class, sender::close, "close rethrows the failure");
            sender.close(); // then idempotent
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /** The compressor the caller's thread (inline) or the only worker compresses with. */
    private static ZstdCompressor compressorOf(ParallelCompressingSender sender, boolean inline) throws Exception {
        if (inline) {
            return (ZstdCompressor) field(ParallelCompressingSender.class, "inlineCompressor").get(sender);
        }
        Object worker = ((Object[]) field(ParallelCompressingSender.class, "workers").get(sender))[0];
        return (ZstdCompressor) field(worker.getClass(), "compressor").get(worker);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field f = type.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}

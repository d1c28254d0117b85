package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The documented contract of {@link ParallelCompressingSender} that the other tests did not pin:
 * the builder's ranges and defaults, calls after close, a flush while a claim is open, a topic
 * read at commit, and the counters a parallel sender keeps at 0.
 */
class ParallelSenderContractTest {

    /** Each setter refuses a value outside its documented range naming it, the range and the value, and takes the bounds. */
    @Test
    void shouldRefuseValuesOutsideTheDocumentedRangesNamingThem() {
        try (ZmqContext ctx = new ZmqContext()) {
            ParallelCompressingSender.Builder b = ParallelCompressingSender.builder(ctx.socket(SocketType.PUSH));
            Fixtures.assertRefusedNaming("workers must be 1 to 256: workers=0", () -> b.workers(0));
            Fixtures.assertRefusedNaming("workers must be 1 to 256: workers=257", () -> b.workers(257));
            Fixtures.assertRefusedNaming("inFlight must be 1 to 1048576: inFlight=0", () -> b.inFlight(0));
            Fixtures.assertRefusedNaming("inFlight must be 1 to 1048576: inFlight=1048577", () -> b.inFlight((1 << 20) + 1));
            Fixtures.assertRefusedNaming("inFlightBytes=0", () -> b.inFlightBytes(0));
            Fixtures.assertRefusedNaming("inlineBelowBytes must be 0 to 65536: inlineBelowBytes=-1", () -> b.inlineBelowBytes(-1));
            Fixtures.assertRefusedNaming("inlineAfterIdleNanos must be 0 or more: inlineAfterIdleNanos=-1", () -> b.inlineAfterIdleNanos(-1));
            Fixtures.assertNullNamed("threadFactory", () -> b.threadFactory(null));
            // the bounds themselves are taken
            b.workers(256).workers(1).inFlight(1 << 20).inFlight(1).inFlightBytes(1)
                    .inlineBelowBytes(ParallelCompressingSender.MAX_INLINE_BELOW_BYTES).inlineBelowBytes(0)
                    .inlineAfterIdleNanos(Long.MAX_VALUE).inlineAfterIdleNanos(0);
            try (ParallelCompressingSender sender = b.build()) {
                assertEquals(1, sender.workers());
                assertEquals(1, sender.inFlightCapacity(), "1 is a power of two");
            }
        }
    }

    /** Default workers: processors + 1, at most 16; default ring: 64; the shared frame defaults. */
    @Test
    void shouldHaveTheDocumentedDefaults() {
        assertEquals(Math.min(Runtime.getRuntime().availableProcessors() + 1, 16), ParallelCompressingSender.DEFAULT_WORKERS);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).build()) {
                assertEquals(ParallelCompressingSender.DEFAULT_WORKERS, sender.workers());
                assertEquals(64, sender.inFlightCapacity());
                assertEquals(0, sender.inFlight());
                assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, sender.rawFrameBelowBytes());
                assertTrue(sender.rawIncompressible());
                assertEquals(8 * 1024, sender.zeroCopyThresholdBytes());
                assertSame(push, sender.socket());
            }
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).checksum(true).build()) {
                assertEquals(0, sender.rawFrameBelowBytes(), "off with a checksum");
                assertTrue(!sender.rawIncompressible(), "off with a checksum");
            }
        }
    }

    /**
     * After close every call that takes or waits throws IllegalStateException saying the sender
     * is closed; abort() has nothing to give back and does nothing; stats() still answers.
     */
    @Test
    void shouldRefuseEveryCallAfterCloseSayingSo() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build();
            byte[] data = Fixtures.payload(100, 1);
            MemorySegment segment = MemorySegment.ofArray(data);
            sender.close();
            Executable[] calls = {() -> sender.send(data, 0), () -> sender.send(segment, 0), () -> sender.send(segment, 0, 10, 0),
                    () -> sender.send(ByteBuffer.wrap(data), ZmqSocket.DONTWAIT), () -> sender.publish(data, data, 0),
                    () -> sender.publish(data, segment, 0), () -> sender.publish(data, segment, 1, 10, 0),
                    () -> sender.publish(segment, segment, 0), () -> sender.publish(segment, segment, 1, 10, 0),
                    () -> sender.publish(segment, data, 0), () -> sender.claim(segment, 10, 0),
                    () -> sender.claim(10, 0), () -> sender.claim(data, 10, ZmqSocket.DONTWAIT), () -> sender.commit(0),
                    sender::flush, () -> sender.flush(0)};
            // closed is said before a flag other than DONTWAIT, as CompressingSender says it
            int bad = ZmqSocket.SNDMORE;
            Executable[] badFlags = {() -> sender.send(data, bad), () -> sender.send(segment, 0, 10, bad),
                    () -> sender.send(ByteBuffer.wrap(data), bad), () -> sender.publish(segment, segment, bad),
                    () -> sender.claim(10, bad), () -> sender.claim(data, 10, bad)};
            for (Executable[] group : new Executable[][] {calls, badFlags}) {
                for (Executable call : group) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, call);
                    assertTrue(e.getMessage().contains("sender is closed"), e::getMessage);
                }
            }
            // what answers after close: abort() (nothing to give back), close(), the counters, the settings
            sender.abort();
            sender.close();
            assertEquals(1, sender.workers());
            assertEquals(0, sender.inFlight());
            assertEquals(0, sender.stats().messages());
            assertEquals(0, sender.stats().poolRents(), "nothing was rented");
            assertEquals(null, link.server().receiveBytes(ZmqSocket.DONTWAIT), "nothing was sent");
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    /**
     * A claim's buffer holds its maxLength and its topic together: it stays in the pool while the
     * two fit the largest class, so a claim with a topic of maxLength equal to the largest class is
     * unpooled (until 2026-11-29 the javadoc said "at most the pool's largest buffer" of maxLength
     * alone, topic or not). Claims of 0 bytes, with and without a topic, are pooled and arrive as
     * empty payloads; every claim, aborted or left open at close, is back in the pool.
     */
    @Test
    void shouldPoolAClaimWhoseMaxLengthAndTopicFitTheLargestClass() {
        int largest = 64 * 1024;
        io.zmqzstd.transport.NativeBufferPool pool = io.zmqzstd.transport.NativeBufferPool.builder()
                .maxBufferBytes(largest).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] topic = {'t', 'o', 'p'};
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                long[][] cases = {{largest, 0, 0}, {largest - topic.length, 1, 0}, {largest, 1, 1}, {largest + 1, 0, 1}};
                for (long[] c : cases) {
                    long unpooledBefore = pool.stats().unpooled();
                    MemorySegment room = c[1] == 0 ? sender.claim(c[0], 0) : sender.claim(topic, c[0], 0);
                    assertTrue(room.byteSize() >= c[0] + (c[1] == 0 ? 0 : topic.length));
                    assertEquals(c[2], pool.stats().unpooled() - unpooledBefore,
                            () -> "maxLength=" + c[0] + ", topic=" + (c[1] != 0) + ", largestClass=" + largest);
                    sender.abort();
                    assertEquals(0, pool.outstanding(), pool.stats()::toString);
                }
                sender.claim(0, 0);
                sender.commit(0);
                sender.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(0, receiver.message().partSize(0), "an empty payload from a claim of 0 bytes");
                sender.claim(topic, largest, 0); // left open: close gives it back
            }
            assertEquals(0, pool.outstanding(), pool.stats()::toString);
        } finally {
            pool.close();
        }
    }

    /**
     * While a claim is open, flush waits for the messages taken before it (and does not throw);
     * the claimed message then follows them. publish's range overload refuses a range past the
     * payload.
     */
    @Test
    void shouldFlushTheMessagesBeforeAnOpenClaim() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(2).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                byte[][] before = {Fixtures.payload(3000, 1), Fixtures.payload(40_000, 2), Fixtures.payload(10, 3)};
                for (byte[] b : before) {
                    assertTrue(sender.send(b, 0));
                }
                MemorySegment room = sender.claim(500, 0);
                sender.flush();
                assertEquals(0, sender.inFlight(), "every message taken before the claim is in libzmq");
                assertTrue(sender.flush(0));
                byte[] claimed = Fixtures.payload(500, 4);
                MemorySegment.copy(claimed, 0, room, ValueLayout.JAVA_BYTE, 0, claimed.length);
                sender.commit(claimed.length);
                sender.flush();
                for (byte[] b : before) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(b, receiver.message().partBytes(0));
                }
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(claimed, receiver.message().partBytes(0));
                assertThrows(IndexOutOfBoundsException.class,
                        () -> sender.publish(new byte[] {'t'}, MemorySegment.ofArray(new byte[8]), 4, 5, 0));
                assertThrows(IndexOutOfBoundsException.class,
                        () -> sender.publish(new byte[] {'t'}, MemorySegment.ofArray(new byte[8]), -1, 2, 0));
                PipelineStats s = sender.stats();
                assertEquals(4, s.messages(), s::toString);
                assertEquals(0, s.abandonedMessages(), "0 for a ParallelCompressingSender");
            }
        }
    }

    /**
     * flush(timeoutMs) waits at most that long: a timeout too long to add to System.nanoTime()
     * waits as flush() does, until the messages are in libzmq (here once a peer connects, which a
     * helper thread does when the flush is seen waiting), and returns true. The deadline itself
     * wraps past Long.MAX_VALUE there; the time left, taken as a difference of clock readings,
     * does not (unlike the Long.MIN_VALUE side, fixed on 2026-11-26: see
     * ParallelCompressingSenderTest.shouldNotWaitInAFlushWithATimeoutOfZeroOrLess).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldWaitInAFlushWhoseTimeoutPassesTheClocksRange() throws Exception {
        for (long timeoutMs : new long[] {Long.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE)}) {
            try (ZmqContext ctx = new ZmqContext()) {
                ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc"); // no peer yet
                String endpoint = push.lastEndpoint();
                ZmqSocket pull = ctx.socket(SocketType.PULL);
                byte[] data = Fixtures.payload(1000, 1);
                try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build()) {
                    assertTrue(sender.send(data, 0));
                    Thread flushing = Thread.currentThread();
                    CompletableFuture<byte[]> peer = CompletableFuture.supplyAsync(() -> {
                        // connects once the flush waits (on the old code: once close() waits)
                        Fixtures.await(() -> Arrays.stream(flushing.getStackTrace())
                                .anyMatch(f -> f.getMethodName().equals("awaitHead")), 20_000);
                        pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                        pull.connect(endpoint);
                        return pull.receiveBytes(0);
                    });
                    assertTrue(sender.flush(timeoutMs), "flush(" + timeoutMs + ") returned before the message went out");
                    assertEquals(0, sender.inFlight());
                    assertTrue(peer.get(20, TimeUnit.SECONDS) != null, "the message arrived");
                }
            }
        }
    }

    /**
     * inFlightBytes counts topics with the payloads: with a bound of 100 bytes, a message of a
     * 60-byte topic and 30 bytes of payload in flight leaves no room for one of 5 + 10 bytes,
     * which payloads alone (40) would have left; nor for a claim of that size with a topic.
     */
    @Test
    void shouldCountTopicsInTheInFlightByteBound() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendTimeoutMs(20); // never a peer: nothing leaves the ring, close() drops it
            push.bind(Fixtures.bindAddress("inproc"));
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlightBytes(100).build()) {
                assertTrue(sender.publish(new byte[60], new byte[30], ZmqSocket.DONTWAIT));
                assertEquals(false, sender.publish(new byte[5], new byte[10], ZmqSocket.DONTWAIT), "90 + 15 > 100");
                assertEquals(null, sender.claim(new byte[5], 10, ZmqSocket.DONTWAIT), "90 + 15 > 100");
                assertTrue(sender.send(new byte[10], ZmqSocket.DONTWAIT), "90 + 10 fits");
                assertEquals(2, sender.inFlight());
                assertEquals(2, sender.stats().wouldBlock(), "a refused publish and a refused claim");
            }
        }
    }

    /**
     * claim(topic, ...) reads the topic array at commit: what it holds then goes out, whichever
     * path (ring or inline) sends it.
     */
    /**
     * README, REQ/REP: on a REQ the parallel sender works request by request when each is flushed
     * and its reply received (on the producer's thread, the workers idle) before the next; a
     * second request before the reply is EFSM on the worker, which fails the sender: that request
     * dropped, the next call throwing with EFSM as the cause.
     */
    @Test
    void shouldSendRequestByRequestOnReqWhenFlushedAndFailOnASecondBeforeTheReply() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.REP, SocketType.REQ, "tcp");
            ParallelCompressingSender client = ParallelCompressingSender.builder(link.client()).workers(2).build();
            try (CompressingSender server = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(link.server()).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(link.client()).build()) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(client.send(Fixtures.payload(2000, i), 0));
                    client.flush();
                    assertEquals(DecompressingReceiver.RECEIVED, atServer.receive(0), atServer::lastErrorMessage);
                    assertArrayEquals(Fixtures.payload(2000, i), atServer.message().partBytes(0));
                    assertTrue(server.send(Fixtures.payload(100, i), 0));
                    assertEquals(DecompressingReceiver.RECEIVED, atClient.receive(0), atClient::lastErrorMessage);
                    assertArrayEquals(Fixtures.payload(100, i), atClient.message().partBytes(0));
                }
                assertTrue(client.send(Fixtures.payload(2000, 3), 0));
                try {
                    client.send(Fixtures.payload(2000, 4), 0); // taken, then dropped
                } catch (IllegalStateException alreadyFailed) {
                    // the worker's EFSM came first
                }
                IllegalStateException failed = assertThrows(IllegalStateException.class, client::flush);
                assertTrue(failed.getCause() instanceof io.zmqzstd.transport.ZmqException z && z.errno() == 156384763,
                        failed::toString); // ZMQ_HAUSNUMERO + 51: EFSM
                PipelineStats stats = client.stats();
                assertEquals(4, stats.messages(), stats::toString);
                assertTrue(stats.droppedMessages() >= 1, stats::toString);
                assertThrows(IllegalStateException.class, client::close, "close rethrows the failure");
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    @Test
    void shouldReadAClaimsTopicAtCommit() {
        for (long inlineBelow : new long[] {0, 4096}) {
            try (ZmqContext ctx = new ZmqContext()) {
                Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
                try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1)
                        .inlineBelowBytes(inlineBelow).inlineAfterIdleNanos(0).build();
                     DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).envelopeParts(1).build()) {
                    byte[] topic = "topic.a".getBytes(StandardCharsets.US_ASCII);
                    MemorySegment room = sender.claim(topic, 100, 0);
                    byte[] payload = Fixtures.payload(100, 5);
                    MemorySegment.copy(payload, 0, room, ValueLayout.JAVA_BYTE, 0, payload.length);
                    topic[6] = 'b'; // changed before commit: the commit reads it
                    sender.commit(payload.length);
                    sender.flush();
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals("topic.b".getBytes(StandardCharsets.US_ASCII), receiver.message().partBytes(0));
                    assertArrayEquals(payload, receiver.message().partBytes(1));
                    assertEquals(inlineBelow > 0 ? 1 : 0, sender.stats().inlineMessages(), "the path taken");
                }
            }
        }
    }

    /**
     * A topic given as a segment goes out as its bytes, read from where the segment starts (a slice
     * inside a larger segment), on the ring and inline, through publish (segment and array
     * payloads, whole and a range) and through a claim, whose topic segment is read at commit.
     */
    @Test
    void shouldSendATopicGivenAsASegment() {
        for (long inlineBelow : new long[] {0, 4096}) {
            try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
                Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
                try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1)
                        .inlineBelowBytes(inlineBelow).inlineAfterIdleNanos(0).build();
                     DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).envelopeParts(1).build()) {
                    byte[] name = "topic.a".getBytes(StandardCharsets.US_ASCII);
                    MemorySegment around = arena.allocate(64).fill((byte) '#');
                    MemorySegment topic = around.asSlice(9, name.length).copyFrom(MemorySegment.ofArray(name));
                    byte[] payload = Fixtures.payload(1000, 6);
                    MemorySegment nativePayload = arena.allocate(payload.length + 10).fill((byte) 1);
                    MemorySegment.copy(payload, 0, nativePayload, ValueLayout.JAVA_BYTE, 10, payload.length);
                    assertTrue(sender.publish(topic, payload, 0));
                    assertTrue(sender.publish(topic, nativePayload.asSlice(10), 0));
                    assertTrue(sender.publish(topic, nativePayload, 10, payload.length, 0));
                    MemorySegment room = sender.claim(topic, payload.length, 0);
                    MemorySegment.copy(payload, 0, room, ValueLayout.JAVA_BYTE, 0, payload.length);
                    topic.set(ValueLayout.JAVA_BYTE, 6, (byte) 'b'); // changed before commit: the commit reads it
                    sender.commit(payload.length);
                    sender.flush();
                    for (String expected : new String[] {"topic.a", "topic.a", "topic.a", "topic.b"}) {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                        assertEquals(2, receiver.message().parts());
                        assertArrayEquals(expected.getBytes(StandardCharsets.US_ASCII), receiver.message().partBytes(0));
                        assertArrayEquals(payload, receiver.message().partBytes(1));
                    }
                    PipelineStats stats = sender.stats();
                    assertEquals(4, stats.messages(), stats::toString);
                    assertEquals(4, stats.envelopeParts(), stats::toString);
                    assertEquals(inlineBelow > 0 ? 4 : 0, stats.inlineMessages(), "the path taken: " + stats);
                }
                assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
            }
        }
    }

    /**
     * A topic segment that cannot be copied into a slot is refused naming the topic, nothing taken
     * and the sender going on: one longer than an array topic can be (whose bytes and the
     * payload's would add up past what a slot counts), one whose arena is closed, one confined to
     * another thread. A claim's topic is checked at claim and again at commit, where the claim
     * stays open. Before publish(MemorySegment, ...) a topic could only be an array.
     */
    @Test
    void shouldRefuseATopicSegmentThatCannotBeCopiedNamingIt() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).envelopeParts(1).build()) {
                byte[] payload = Fixtures.payload(100, 7);
                // never read: refused by its size first
                MemorySegment huge = arena.allocate(8).reinterpret(ParallelCompressingSender.MAX_TOPIC_BYTES + 1);
                Fixtures.assertRefusedNaming("topicBytes=2147483648, limit=2147483647", () -> sender.publish(huge, payload, 0));
                Fixtures.assertRefusedNaming("topicBytes=2147483648", () -> sender.claim(huge, 10, 0));
                Arena gone = Arena.ofConfined();
                MemorySegment closed = gone.allocate(4);
                gone.close();
                IllegalStateException dead = assertThrows(IllegalStateException.class, () -> sender.publish(closed, payload, 0));
                assertTrue(dead.getMessage().contains("topic"), dead::getMessage);
                assertThrows(IllegalStateException.class, () -> sender.claim(closed, 10, 0));
                MemorySegment confined = arena.allocate(4);
                WrongThreadException other = CompletableFuture.supplyAsync(() -> assertThrows(WrongThreadException.class,
                        () -> sender.publish(confined, payload, 0))).get(20, TimeUnit.SECONDS);
                assertTrue(other.getMessage().contains("topic"), other::getMessage);
                assertEquals(0, sender.inFlight());

                Arena closing = Arena.ofConfined();
                MemorySegment topic = closing.allocate(4).fill((byte) 't');
                MemorySegment room = sender.claim(topic, payload.length, 0);
                MemorySegment.copy(payload, 0, room, ValueLayout.JAVA_BYTE, 0, payload.length);
                closing.close();
                IllegalStateException atCommit = assertThrows(IllegalStateException.class, () -> sender.commit(payload.length));
                assertTrue(atCommit.getMessage().contains("topic"), atCommit::getMessage);
                assertThrows(IllegalStateException.class, () -> sender.claim(10, 0), "the claim stays open");
                sender.abort();

                MemorySegment good = arena.allocate(4).fill((byte) 'g');
                assertTrue(sender.publish(good, payload, 0));
                sender.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals("gggg".getBytes(StandardCharsets.US_ASCII), receiver.message().partBytes(0));
                assertArrayEquals(payload, receiver.message().partBytes(1));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing else was sent");
                PipelineStats stats = sender.stats();
                assertEquals(1, stats.messages(), stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * A claim taken before the sender failed, committed after: the commit is refused as a send
     * after the failure is. It throws the failure, saying that the claimed message was not taken,
     * and takes nothing: it is not sent and not counted in droppedMessages (which counts the
     * messages taken and never sent, here the worker's), its buffer is back in the pool and no
     * claim is open; a send then is refused the same way, counting nothing either. Until
     * 2026-11-29 the javadoc said the claimed message was dropped, and the exception only that
     * "messages not yet sent were dropped", though it counted nowhere.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseACommitAfterAFailureAsASendAfterItTakingNothingAndSaySo() throws Exception {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
            ZmqSocket push = peerlessPush(ctx);
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            assertTrue(sender.send(Fixtures.payload(1000, 1), 0));
            assertTrue(Fixtures.await(() -> Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> Fixtures.insideSocketCall(t, "send")), 10_000), "the worker never reached the socket's send");
            MemorySegment room = sender.claim(1000, 0);
            room.copyFrom(MemorySegment.ofArray(Fixtures.payload(1000, 2)));

            CompletableFuture.runAsync(ctx::close).get(20, TimeUnit.SECONDS); // the worker's send ends with ETERM
            assertTrue(Fixtures.await(() -> sender.stats().droppedMessages() == 1, 10_000),
                    () -> "the worker's message never counted as dropped: " + sender.stats());

            IllegalStateException committed = assertThrows(IllegalStateException.class, () -> sender.commit(1000));
            assertTrue(committed.getCause() instanceof ZmqException z && z.isContextTerminated(), committed::toString);
            assertTrue(committed.getMessage().endsWith("(the claimed message was not taken, as a send after a failure"
                    + " takes nothing: not sent, not counted in droppedMessages, its buffer back in the pool)"), committed::getMessage);
            PipelineStats stats = sender.stats();
            assertEquals(1, stats.droppedMessages(), stats::toString);
            assertEquals(0, stats.messages(), stats::toString);
            assertEquals(0, pool.outstanding(), "the claim's buffer is back: " + pool.stats());
            IllegalStateException noClaim = assertThrows(IllegalStateException.class, () -> sender.commit(1000));
            assertTrue(noClaim.getMessage().startsWith("commit() without an open claim()"), noClaim::getMessage);

            IllegalStateException sent = assertThrows(IllegalStateException.class, () -> sender.send(Fixtures.payload(1000, 3), 0));
            assertSame(committed.getCause(), sent.getCause());
            assertEquals(1, sender.stats().droppedMessages(), () -> sender.stats().toString());
            assertThrows(IllegalStateException.class, sender::close, "close rethrows the failure");
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
        }
    }

    /**
     * README, "Flags and arguments" and "Workers and order": a parallel sender takes 0 and DONTWAIT
     * only (single-part messages, no SNDMORE); any other bit is an IllegalArgumentException naming
     * the value, before anything is taken, and the stream goes on.
     */
    @Test
    void shouldRefuseSndmoreAndUnknownFlagBitsNamingThemAndTakeNothing() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] data = Fixtures.payload(1000, 7);
            MemorySegment segment = MemorySegment.ofArray(data);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                Executable[] more = {() -> sender.send(data, ZmqSocket.SNDMORE), () -> sender.send(segment, ZmqSocket.SNDMORE),
                        () -> sender.send(segment, 0, 10, ZmqSocket.SNDMORE), () -> sender.send(ByteBuffer.wrap(data), ZmqSocket.SNDMORE),
                        () -> sender.publish(data, data, ZmqSocket.SNDMORE), () -> sender.publish(segment, segment, ZmqSocket.SNDMORE),
                        () -> sender.claim(8, ZmqSocket.SNDMORE), () -> sender.claim(data, 8, ZmqSocket.SNDMORE)};
                for (Executable call : more) {
                    Fixtures.assertRefusedNaming("flags other than DONTWAIT: flags=2", call);
                }
                Fixtures.assertRefusedNaming("flags=16384", () -> sender.send(data, 0x4000));
                Fixtures.assertRefusedNaming("flags=16385", () -> sender.publish(data, segment, ZmqSocket.DONTWAIT | 0x4000));
                assertEquals(0, sender.inFlight(), "nothing taken");
                assertEquals(0, ctx.bufferPool().outstanding(), "nothing rented");
                assertTrue(sender.send(data, 0), "the stream goes on");
                sender.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(1, receiver.message().parts());
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing else was sent");
                assertEquals(1, sender.stats().messages());
            }
        }
    }

    /**
     * README, "Threading": a parallel sender is used by one thread at a time towards its producer,
     * like a CompressingSender: while the producer waits in send for room in a full ring, a second
     * thread's send, publish, claim and flush are refused with an IllegalStateException naming both
     * threads, and take nothing; the producer's messages then all arrive once a peer comes.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseASecondThreadWhileTheProducerWaitsForRoomNamingBoth() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = peerlessPush(ctx);
            String endpoint = push.lastEndpoint();
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlight(2).build();
            byte[][] sent = new byte[4][];
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < sent.length; i++) {
                        sent[i] = Fixtures.payload(500 + i, i);
                        sender.send(sent[i], 0);
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "waiting-producer");
            producer.start();
            assertTrue(Fixtures.await(() -> Arrays.stream(producer.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("awaitHead")), 10_000), "the producer never waited for room");

            byte[] other = Fixtures.payload(100, 99);
            Executable[] calls = {() -> sender.send(other, ZmqSocket.DONTWAIT), () -> sender.publish(other, other, ZmqSocket.DONTWAIT),
                    () -> sender.claim(8, ZmqSocket.DONTWAIT), sender::flush, () -> sender.flush(0)};
            for (Executable call : calls) {
                IllegalStateException e = assertThrows(IllegalStateException.class, call);
                assertTrue(e.getMessage().contains("waiting-producer") && e.getMessage().contains(Thread.currentThread().getName()),
                        e::getMessage);
            }
            assertTrue(producer.isAlive(), "the refused calls changed nothing");

            try (DecompressingReceiver receiver = lateReceiver(ctx, endpoint)) {
                producer.join(20_000);
                assertFalse(producer.isAlive(), "the producer is still waiting");
                assertEquals(null, thrown.get());
                sender.flush();
                for (byte[] expected : sent) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertArrayEquals(expected, receiver.message().partBytes(0));
                }
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing of the refused calls");
            }
            sender.close();
            assertEquals(sent.length, sender.stats().messages());
        }
    }

    /**
     * README, "Claims": a commit never blocks, the room having been taken by the claim: with the
     * ring full behind the claim (one slot a message the worker cannot send, no peer; the other the
     * claim) commit returns at once, and both messages arrive once a peer comes.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldCommitWithoutWaitingWhenTheRingIsFullBehindTheClaim() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = peerlessPush(ctx);
            String endpoint = push.lastEndpoint(); // read now: once the sender is built its workers use the socket
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlight(2).build()) {
                byte[] first = Fixtures.payload(300, 1);
                byte[] claimed = Fixtures.payload(200, 2);
                assertTrue(sender.send(first, ZmqSocket.DONTWAIT));
                MemorySegment room = sender.claim(claimed.length, ZmqSocket.DONTWAIT);
                assertNotNull(room, "the second slot");
                MemorySegment.copy(claimed, 0, room, ValueLayout.JAVA_BYTE, 0, claimed.length);
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> sender.commit(claimed.length), "commit waited");
                assertEquals(2, sender.inFlight());

                try (DecompressingReceiver receiver = lateReceiver(ctx, endpoint)) {
                    sender.flush();
                    for (byte[] expected : new byte[][] {first, claimed}) {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                        assertArrayEquals(expected, receiver.message().partBytes(0));
                    }
                    assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                }
            }
        }
    }

    /**
     * README, "The ring and flush": the ring holds at most inFlightBytes of payload, 16 MiB by
     * default: with no peer, sixteen 1 MiB messages are taken under DONTWAIT and the seventeenth
     * is refused (false, nothing taken); once a peer comes the sixteen arrive, in order, and no
     * more.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldHoldSixteenMibInFlightByDefault() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = peerlessPush(ctx);
            String endpoint = push.lastEndpoint(); // read now: once the sender is built its workers use the socket
            byte[] payload = Fixtures.payload(1 << 20, 3);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build()) {
                int taken = 0;
                while (taken < 64 && sender.send(numbered(payload, taken), ZmqSocket.DONTWAIT)) {
                    taken++;
                }
                assertEquals(16, taken, "1 MiB messages taken before the default byte bound refused one");
                assertEquals(16, sender.inFlight());
                assertEquals(1, sender.stats().wouldBlock());

                try (DecompressingReceiver receiver = lateReceiver(ctx, endpoint)) {
                    sender.flush();
                    for (int i = 0; i < 16; i++) {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                        assertArrayEquals(numbered(payload, i), receiver.message().partBytes(0), "message " + i);
                    }
                    assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "the refused one was not taken");
                }
            }
        }
    }

    /**
     * A PUSH bound over inproc with no peer, so a worker's send waits; its send timeout lets
     * close() drop what is left should a test fail before a peer comes.
     */
    private static ZmqSocket peerlessPush(ZmqContext ctx) {
        ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
        push.sendTimeoutMs(100);
        return push;
    }

    /** A receiver on a new PULL connected to {@code endpoint}: the peer that comes late. */
    private static DecompressingReceiver lateReceiver(ZmqContext ctx, String endpoint) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
        pull.connect(endpoint);
        return DecompressingReceiver.builder(pull).build();
    }

    /** {@code payload} with its first four bytes set to {@code n} (in place: the sender copies it). */
    private static byte[] numbered(byte[] payload, int n) {
        payload[0] = (byte) (n >>> 24);
        payload[1] = (byte) (n >>> 16);
        payload[2] = (byte) (n >>> 8);
        payload[3] = (byte) n;
        return payload;
    }
}

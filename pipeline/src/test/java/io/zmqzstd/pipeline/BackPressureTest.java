package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackPressureTest {

    private static final int HWM = 5;
    private static final int MESSAGES = 400;

    @ParameterizedTest(name = "payload={0} B")
    @ValueSource(ints = {1024, 64 * 1024})
    void shouldKeepPayloadOnWouldBlockAndLoseNothing(int size) {
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(HWM);
            pull.receiveHwm(HWM);
            Fixtures.link(pull, push, "inproc");
            MemorySegment payload = arena.allocate(size);
            MemorySegment.copy(Fixtures.payload(size, 1), 0, payload, ValueLayout.JAVA_BYTE, 0, size);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                long expected = 0;
                long wouldBlock = 0;
                for (long seq = 0; seq < MESSAGES; seq++) {
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    while (!sender.send(payload, ZmqSocket.DONTWAIT)) {
                        wouldBlock++;
                        assertEquals(seq, payload.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "payload untouched");
                        // drain what has arrived (libzmq tells the writer about room only every few
                        // messages, so the queue may already be empty), then re-send the same payload
                        while (receiver.receive(ZmqSocket.DONTWAIT) == DecompressingReceiver.RECEIVED) {
                            assertEquals(expected++, sequenceOf(receiver.message()));
                        }
                        assertTrue(wouldBlock < 100L * MESSAGES, "no progress");
                    }
                }
                while (expected < MESSAGES) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertEquals(expected++, sequenceOf(receiver.message()));
                }
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertTrue(wouldBlock > 0, "the high-water mark was never reached");
                assertEquals(wouldBlock, sender.stats().wouldBlock());
                assertEquals(MESSAGES, sender.stats().messages());
                // the 64 KiB payloads' frames reach the threshold (zero-copy), the 1 KiB ones' do not
                // (over inproc their payloads still go into pooled buffers: every one came back, below)
                long meanFrame = sender.stats().compressedBytes() / MESSAGES;
                assertEquals(meanFrame >= sender.zeroCopyThresholdBytes() ? MESSAGES : 0, sender.stats().zeroCopySends(),
                        sender.stats()::toString);
                assertEquals(MESSAGES, receiver.stats().messages());
                assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
                pool.assertNoLeaks();
            }
        } finally {
            pool.close();
        }
    }

    /**
     * A DONTWAIT send refused at the high-water mark, tried again while the socket still has no
     * room, is refused again without compressing the payload or renting a buffer for its frame:
     * after a refusal the sender asks the socket for room (ZMQ_EVENTS) first. Before 2026-11-29
     * every retry compressed the 64 KiB payload again and rented a pooled buffer for it (1,000
     * retries, 1,000 rents; found by reliability's RestartJourneyTest, where poolRents was
     * messages + wouldBlock). Once the reader has drained, the next send compresses and goes out,
     * and every message arrives whole and in order.
     */
    @Test
    void shouldNotCompressAgainWhileTheSocketStillHasNoRoom() {
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(1);
            pull.receiveHwm(1);
            Fixtures.link(pull, push, "inproc");
            int size = 64 * 1024;
            MemorySegment payload = arena.allocate(size);
            MemorySegment.copy(Fixtures.random(size, 5), 0, payload, ValueLayout.JAVA_BYTE, 0, size);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                long seq = 0;
                payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                while (sender.send(payload, ZmqSocket.DONTWAIT)) {
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, ++seq);
                    assertTrue(seq < 100, "the high-water mark was never reached");
                }
                long sent = seq;
                long rents = sender.stats().poolRents();
                assertEquals(sent + 1, rents, "one rent per message sent, and one for the refused one");
                for (int i = 0; i < 1000; i++) {
                    assertFalse(sender.send(payload, ZmqSocket.DONTWAIT), "still no room");
                }
                assertEquals(rents, sender.stats().poolRents(), "the retries compressed nothing into a rented buffer");
                assertEquals(1001, sender.stats().wouldBlock());
                long expected = 0;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!sender.send(payload, ZmqSocket.DONTWAIT)) { // the reader drains; room comes back
                    while (receiver.receive(ZmqSocket.DONTWAIT) == DecompressingReceiver.RECEIVED) {
                        assertEquals(expected++, sequenceOf(receiver.message()));
                    }
                    assertTrue(System.nanoTime() < deadline, "no room within 10 s after the reader drained");
                }
                while (expected <= sent) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertEquals(expected++, sequenceOf(receiver.message()));
                }
                assertEquals(sent + 1, sender.stats().messages());
                assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
                pool.assertNoLeaks();
            }
        } finally {
            pool.close();
        }
    }

    /**
     * A blocking send waits at the high-water mark: with the reader held back, the sender gets
     * about the HWMs' worth of messages out (plus what the kernel buffers hold over tcp, bounded
     * here by small socket buffers) and then sits inside send, its count no longer growing; once
     * the reader starts, everything arrives in order. Unbounded queueing would instead let the
     * sender finish all messages with nobody reading.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldBlockAtHighWaterMarkUntilReceiverCatchesUp(String transport) throws Exception {
        // Messages that can be queued with the reader stopped: both HWMs (inproc adds them up),
        // the kernel's socket buffers (64 KiB asked, Linux doubles: 2 x 128 KiB, 4 of these
        // incompressible 64 KiB messages), one in libzmq's encoder and one in its decoder.
        long mostQueued = 2L * HWM + 4 + 2 + 4; // + 4 slack
        NativeBufferPool pool = NativeBufferPool.builder().build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(HWM);
            pull.receiveHwm(HWM);
            push.sndbuf(64 * 1024);
            pull.rcvbuf(64 * 1024);
            Fixtures.link(pull, push, transport);
            AtomicLong accepted = new AtomicLong();
            AtomicBoolean inSend = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
                 CompressingSender sender = CompressingSender.builder(push).build()) {
                byte[] data = Fixtures.random(64 * 1024, 2);
                Thread writer = new Thread(() -> {
                    try {
                        for (long seq = 0; seq < MESSAGES; seq++) {
                            java.nio.ByteBuffer.wrap(data).putLong(0, Long.reverseBytes(seq));
                            inSend.set(true);
                            if (!sender.send(data, 0)) { // blocks at the HWM, never false
                                throw new AssertionError("blocking send returned false: seq=" + seq);
                            }
                            inSend.set(false);
                            accepted.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "writer");
                Thread reader = new Thread(() -> {
                    try {
                        for (long expected = 0; expected < MESSAGES; expected++) {
                            if (receiver.receive(0) != DecompressingReceiver.RECEIVED
                                    || sequenceOf(receiver.message()) != expected) {
                                throw new AssertionError("lost or reordered at " + expected);
                            }
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "reader");
                writer.start();
                long stalledAt = awaitStalled(accepted, inSend, HWM, 30_000);
                System.out.printf("%s: sender blocked after %d messages (HWM %d each side)%n", transport, stalledAt, HWM);
                assertEquals(null, failure.get());
                assertTrue(stalledAt <= mostQueued, "the sender got " + stalledAt
                        + " messages out with nobody reading: not blocked at the HWM (at most " + mostQueued + ")");
                assertTrue(writer.isAlive() && inSend.get(), "the sender should still be inside send");

                reader.start();
                writer.join(60_000);
                reader.join(60_000);
                assertFalse(writer.isAlive() || reader.isAlive(), "sender or reader did not finish");
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
                assertEquals(MESSAGES, accepted.get());
                assertEquals(MESSAGES, receiver.stats().messages());
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        } finally {
            pool.close();
        }
    }

    /**
     * Waits until {@code count} has reached {@code atLeast} and then not moved for a second while
     * {@code inside} says the counting thread is inside the call that would move it.
     *
     * @return the count it stopped at
     */
    private static long awaitStalled(AtomicLong count, AtomicBoolean inside, long atLeast, long timeoutMs) {
        long quietNs = 1_000_000_000L;
        long[] last = {-1, 0};
        boolean stalled = Fixtures.await(() -> {
            long now = System.nanoTime();
            long c = count.get();
            if (c != last[0] || !inside.get() || c < atLeast) {
                last[0] = c;
                last[1] = now;
                return false;
            }
            return now - last[1] >= quietNs;
        }, timeoutMs);
        assertTrue(stalled, "the sender never stopped at the HWM: count=" + count.get() + ", inside=" + inside.get());
        return last[0];
    }

    /**
     * At a send high-water mark of 1, DONTWAIT two-part messages (publish with the topic as an
     * array or as a native segment, or sendEnvelope then send) go out whole or not at all: every
     * message that arrives has exactly its two parts in order (a half-sent one would have the next
     * message's topic glued to it), as many arrive as were accepted, the payload a would-block left
     * with us is unchanged, and a later message arrives whole.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"publish", "publish(segment topic)", "sendEnvelope+send"})
    void shouldSendMultipartMessagesWholeOrNotAtAllAtTheHighWaterMark(String how) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(1);
            pull.receiveHwm(1);
            Fixtures.link(pull, push, "inproc");
            byte[] topic = "topic.".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            MemorySegment payload = arena.allocate(64 * 1024);
            MemorySegment.copy(Fixtures.payload(64 * 1024, 3), 0, payload, ValueLayout.JAVA_BYTE, 0, 64 * 1024);
            MemorySegment original = arena.allocate(payload.byteSize()).copyFrom(payload);
            MemorySegment nativeTopic = arena.allocate(topic.length).copyFrom(MemorySegment.ofArray(topic));
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                long accepted = 0;
                for (long seq = 0; ; seq++) {
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    if (!sendTwoParts(sender, how, topic, nativeTopic, payload, ZmqSocket.DONTWAIT)) {
                        break;
                    }
                    accepted++;
                    assertTrue(accepted < 1000, "the high-water mark was never reached");
                }
                assertEquals(accepted, payload.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "payload kept as it was");
                assertEquals(-1, payload.asSlice(8).mismatch(original.asSlice(8)));
                assertTrue(accepted > 0);
                for (long seq = 0; seq < accepted; seq++) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    ReceivedMessage m = receiver.message();
                    assertEquals(2, m.parts(), "message " + seq + " arrived with other parts glued to it");
                    assertArrayEquals(topic, m.partBytes(0));
                    assertEquals(seq, m.segment(1).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(1)));
                    assertEquals(-1, m.part(1).asSlice(8).mismatch(original.asSlice(8)));
                }
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                // the payload refused at the mark, sent again, arrives whole
                assertTrue(sendTwoParts(sender, how, topic, nativeTopic, payload, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(2, receiver.message().parts());
                assertEquals(accepted, sequenceOf(receiver.message(), 1));
                assertEquals(accepted + 1, sender.stats().messages());
                assertTrue(sender.stats().wouldBlock() > 0, sender.stats()::toString);
            }
        }
    }

    /** Sends {@code topic} (as {@code nativeTopic}, its bytes in native memory, when so asked) and {@code payload}. */
    private static boolean sendTwoParts(CompressingSender sender, String how, byte[] topic, MemorySegment nativeTopic,
            MemorySegment payload, int flags) {
        if (how.equals("publish")) {
            return sender.publish(topic, payload, flags);
        }
        if (how.equals("publish(segment topic)")) {
            return sender.publish(nativeTopic, payload, flags);
        }
        if (!sender.sendEnvelope(topic, ZmqSocket.SNDMORE | flags)) {
            return false;
        }
        // libzmq takes the rest of a message once its first part is in: never would-block here
        assertTrue(sender.send(payload, flags), "second part refused after the first went out");
        return true;
    }

    /**
     * A payload that cannot be compressed (its arena is closed) fails before anything of its
     * message is sent when it comes with its envelope (publish); after a separate sendEnvelope the
     * started message is ended with a 0-byte part, refused by the receiver as EMPTY. Either way
     * the next message arrives whole.
     */
    @org.junit.jupiter.api.Test
    void shouldNotLeaveAHalfSentMessageWhenCompressionFails() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            byte[] topic = "t".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Arena gone = Arena.ofConfined();
            MemorySegment unreadable = gone.allocate(1000);
            gone.close();
            MemorySegment good = arena.allocate(1000);
            good.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                assertThrows(IllegalStateException.class, () -> sender.publish(topic, unreadable, 0));
                MemorySegment nativeTopic = arena.allocate(topic.length).copyFrom(MemorySegment.ofArray(topic));
                assertThrows(IllegalStateException.class, () -> sender.publish(nativeTopic, unreadable, 0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing was sent");

                assertTrue(sender.sendEnvelope(topic, ZmqSocket.SNDMORE));
                assertThrows(IllegalStateException.class, () -> sender.send(unreadable, 0));
                assertEquals(1, sender.stats().abandonedMessages());
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.EMPTY, receiver.lastErrorReason());
                assertEquals(1, receiver.lastErrorPart());

                assertTrue(sender.publish(topic, good, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(2, receiver.message().parts());
                assertEquals(42, sequenceOf(receiver.message(), 1));
            }
        }
    }

    /**
     * A topic segment that cannot be read (its arena closed, confined to another thread) is refused
     * naming the topic before the payload is compressed: nothing sent, nothing counted, no message
     * left open, and the next message arrives whole. publish(MemorySegment topic, ...) is new; the
     * socket alone would refuse such a topic only after the compression, naming it "data".
     */
    @Test
    void shouldRefuseATopicSegmentThatCannotBeReadBeforeCompressing() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            Arena gone = Arena.ofConfined();
            MemorySegment closedTopic = gone.allocate(4);
            gone.close();
            MemorySegment confinedTopic = arena.allocate(4);
            byte[] payload = Fixtures.payload(70_000, 8); // pooled: a rent left out would show
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                IllegalStateException closed = assertThrows(IllegalStateException.class,
                        () -> sender.publish(closedTopic, payload, 0));
                assertTrue(closed.getMessage().startsWith("topic "), closed::getMessage);
                assertThrows(IllegalStateException.class, () -> sender.publish(closedTopic, MemorySegment.ofArray(payload), 0));
                WrongThreadException other = java.util.concurrent.CompletableFuture.supplyAsync(() -> assertThrows(
                        WrongThreadException.class, () -> sender.publish(confinedTopic, payload, 0)))
                        .get(20, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(other.getMessage().startsWith("topic "), other::getMessage);
                PipelineStats stats = sender.stats();
                assertEquals(0, stats.compressedBytes(), "nothing compressed: " + stats);
                assertEquals(0, stats.poolRents() + stats.messages() + stats.abandonedMessages() + stats.envelopeParts(),
                        stats::toString);
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing was sent");

                MemorySegment topic = arena.allocate(4).fill((byte) 'g');
                assertTrue(sender.publish(topic, payload, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(2, receiver.message().parts());
                assertArrayEquals("gggg".getBytes(java.nio.charset.StandardCharsets.US_ASCII), receiver.message().partBytes(0));
                assertArrayEquals(payload, receiver.message().partBytes(1));
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    static long sequenceOf(ReceivedMessage m, int part) {
        return m.segment(part).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(part));
    }

    static long sequenceOf(ReceivedMessage m) {
        return sequenceOf(m, 0);
    }

    @Test
    void shouldEndTheStartedMessageWhenAnEnvelopePartCannotBeRead() {
        // The envelope segment's arena is closed: the part fails before libzmq sees it. The message
        // already begun must be ended (abandoned), not continued by the caller's next message.
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            byte[] a = Fixtures.payload(300, 1);
            byte[] b = Fixtures.payload(400, 2);
            MemorySegment dead;
            try (Arena arena = Arena.ofConfined()) {
                dead = arena.allocate(8);
            }
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertTrue(sender.send(a, ZmqSocket.SNDMORE));
                assertThrows(IllegalStateException.class, () -> sender.sendEnvelope(dead, ZmqSocket.SNDMORE));
                assertTrue(sender.send(b, 0));

                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0),
                        "the broken message ends with the 0-byte part that abandons it");
                assertEquals(1, sender.stats().abandonedMessages());
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts());
                assertArrayEquals(b, receiver.message().partBytes(0));
            }
        }
    }
}

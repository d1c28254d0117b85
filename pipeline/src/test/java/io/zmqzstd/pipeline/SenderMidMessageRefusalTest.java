package io.zmqzstd.pipeline;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link CompressingSender} whose later part libzmq refuses inside a message (PUSH here; DEALER
 * and REQ share libzmq's load balancer): libzmq has rolled the message back, so the send reports
 * the part taken, the message counts as abandoned, not sent, and no part of it reaches another
 * peer on its own. The refusal is provoked as in the transport's MidMessageRefusalTest: PUSH over
 * inproc to peer A (receive high-water mark 1) and peer B (1000), four messages round-robin, the
 * first part of a fifth to A, then the send high-water mark lowered to 1: A's pipe is full and the
 * next part of the message cannot go in, while B's pipe has room. Before the transport stopped
 * repeating such a send (2026-11-27), the part went out to B as a message of its own.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SenderMidMessageRefusalTest {

    /** How the sender is kept from blocking: DONTWAIT on each send, or a send timeout of 0. */
    enum Mode {
        DONTWAIT, ZERO_SEND_TIMEOUT
    }

    /** A message whose part after the first is refused, and the calls that send it. */
    enum Shape {
        /** send(SNDMORE), then send: the last part refused. */
        LAST_PART,
        /** The refused last part compressed in a pooled buffer and handed to libzmq zero-copy. */
        LAST_PART_ZERO_COPY,
        /** The refused last part compressed in a pooled buffer, below the threshold: copied. */
        LAST_PART_POOLED_COPIED,
        /** send(SNDMORE) twice, then send: a middle part refused, libzmq drops the last. */
        MIDDLE_PART,
        /** sendEnvelope(id, SNDMORE), then send: the frame after a routing id refused. */
        FRAME_AFTER_ENVELOPE,
        /** [id][empty][frame] (a reply to REQ): the delimiter refused, libzmq drops the frame. */
        DELIMITER,
        /** sendEnvelope(id, SNDMORE), then publish(topic, payload): the topic refused, libzmq drops the frame. */
        PUBLISH_AFTER_ENVELOPE
    }

    private static final byte[] ID = "id-1".getBytes(StandardCharsets.US_ASCII);

    private ZmqContext ctx;
    private ZmqSocket push;
    private ZmqSocket a;
    private ZmqSocket b;
    private final List<byte[]> toA = new ArrayList<>();
    private final List<byte[]> toB = new ArrayList<>();

    @BeforeEach
    void fan() {
        ctx = new ZmqContext();
        push = ctx.socket(SocketType.PUSH);
        a = ctx.socket(SocketType.PULL);
        b = ctx.socket(SocketType.PULL);
        push.sendHwm(10);
        a.receiveHwm(1);
        b.receiveHwm(1000);
        a.bind(Fixtures.bindAddress("inproc"));
        b.bind(Fixtures.bindAddress("inproc"));
        push.connect(a.lastEndpoint()); // an inproc pipe is attached at connect: A first
        push.connect(b.lastEndpoint());
    }

    @AfterEach
    void closeContext() {
        ctx.close();
        ctx.bufferPool().assertNoLeaks();
    }

    /** Four messages round-robin (two wait at each peer), then the first part of the fifth to A. */
    private void fillAndStart(CompressingSender sender, Shape shape) {
        for (int i = 1; i <= 4; i++) {
            byte[] m = Fixtures.payload(300, i);
            assertTrue(sender.send(m, 0));
            (i % 2 == 1 ? toA : toB).add(m);
        }
        if (shape == Shape.FRAME_AFTER_ENVELOPE || shape == Shape.DELIMITER || shape == Shape.PUBLISH_AFTER_ENVELOPE) {
            assertTrue(sender.sendEnvelope(ID, ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT));
        } else {
            assertTrue(sender.send(Fixtures.payload(200, 10), ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT));
        }
        push.sendHwm(1); // A's pipe now holds its limit of 1 + 1
    }

    /**
     * The next message goes to B whole (A is full), then each peer holds exactly the whole messages
     * sent to it: nothing of the refused message, no part alone.
     */
    private void assertOnlyWholeMessages(CompressingSender sender) {
        byte[] s1 = Fixtures.payload(500, 20);
        byte[] s2 = Fixtures.payload(600, 21);
        assertTrue(sender.send(s1, ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT));
        assertTrue(sender.send(s2, ZmqSocket.DONTWAIT));
        assertReceives(a, toA, null);
        assertReceives(b, toB, new byte[][] {s1, s2});
    }

    /** {@code s} holds the single-part messages {@code whole}, then {@code last} if given, then nothing. */
    private static void assertReceives(ZmqSocket s, List<byte[]> whole, byte[][] last) {
        try (DecompressingReceiver receiver = DecompressingReceiver.builder(s).build()) {
            for (byte[] m : whole) {
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(ZmqSocket.DONTWAIT), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts(), "a stray part glued to a message");
                assertArrayEquals(m, receiver.message().partBytes(0));
            }
            if (last != null) {
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(ZmqSocket.DONTWAIT),
                        () -> "a stray part reached the other peer: " + receiver.lastErrorMessage());
                assertEquals(last.length, receiver.message().parts());
                for (int i = 0; i < last.length; i++) {
                    assertArrayEquals(last[i], receiver.message().partBytes(i));
                }
            }
            assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT),
                    () -> "a stray part: " + receiver.lastErrorReason() + " " + receiver.lastErrorMessage());
        }
    }

    /** The sends that follow the first part; each returns what the sender reported. */
    private static void sendRest(CompressingSender sender, Shape shape, int dontwait) {
        switch (shape) {
            case LAST_PART -> assertTrue(sender.send(Fixtures.payload(300, 11), dontwait), "libzmq dropped the message: taken");
            case LAST_PART_ZERO_COPY -> {
                byte[] p = Fixtures.random(32 * 1024, 11); // a frame above the 8 KiB threshold
                assertTrue(sender.send(p, dontwait));
            }
            case LAST_PART_POOLED_COPIED -> {
                byte[] p = new byte[32 * 1024]; // compresses far below the threshold
                assertTrue(sender.send(p, dontwait));
            }
            case MIDDLE_PART -> {
                assertTrue(sender.send(Fixtures.payload(300, 11), ZmqSocket.SNDMORE | dontwait));
                assertTrue(sender.send(Fixtures.payload(300, 12), dontwait), "libzmq drops the rest, reporting it sent");
            }
            case FRAME_AFTER_ENVELOPE -> assertTrue(sender.send(Fixtures.payload(300, 11), dontwait));
            case DELIMITER -> {
                assertTrue(sender.sendEnvelope(new byte[0], ZmqSocket.SNDMORE | dontwait));
                assertTrue(sender.send(Fixtures.payload(300, 11), dontwait));
            }
            case PUBLISH_AFTER_ENVELOPE -> assertTrue(sender.publish("topic".getBytes(StandardCharsets.US_ASCII),
                    Fixtures.payload(300, 11), dontwait));
        }
    }

    static Stream<Arguments> shapesAndModes() {
        return Arrays.stream(Shape.values()).flatMap(s -> Arrays.stream(Mode.values()).map(m -> Arguments.of(s, m)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("shapesAndModes")
    void shouldTakeAPartRefusedMidMessageAndCountTheMessageAbandoned(Shape shape, Mode mode) {
        if (mode == Mode.ZERO_SEND_TIMEOUT) {
            push.sendTimeoutMs(0);
        }
        try (CompressingSender sender = CompressingSender.builder(push).build()) {
            fillAndStart(sender, shape);
            PipelineStats before = sender.stats();
            sendRest(sender, shape, mode == Mode.DONTWAIT ? ZmqSocket.DONTWAIT : 0);
            PipelineStats after = sender.stats();
            assertEquals(before.abandonedMessages() + 1, after.abandonedMessages(), after::toString);
            assertEquals(before.messages(), after.messages(), () -> "the message was dropped: " + after);
            assertEquals(0, after.wouldBlock(), after::toString);
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());

            assertOnlyWholeMessages(sender);
            assertEquals(after.messages() + 1, sender.stats().messages(), "the next message went out");
        }
    }

    /** Each overload of send meets the refusal of the last part the same way. */
    enum Overload {
        BYTES, SEGMENT, SEGMENT_RANGE, HEAP_SEGMENT, DIRECT_BUFFER, HEAP_BUFFER
    }

    @ParameterizedTest
    @EnumSource(Overload.class)
    void shouldTakeALastPartRefusedThroughEveryOverload(Overload overload) {
        byte[] p = Fixtures.payload(300, 11);
        try (CompressingSender sender = CompressingSender.builder(push).build(); Arena arena = Arena.ofConfined()) {
            fillAndStart(sender, Shape.LAST_PART);
            MemorySegment native_ = arena.allocate(p.length + 8);
            MemorySegment.copy(p, 0, native_, ValueLayout.JAVA_BYTE, 4, p.length);
            boolean taken = switch (overload) {
                case BYTES -> sender.send(p, ZmqSocket.DONTWAIT);
                case SEGMENT -> sender.send(native_.asSlice(4, p.length), ZmqSocket.DONTWAIT);
                case SEGMENT_RANGE -> sender.send(native_, 4, p.length, ZmqSocket.DONTWAIT);
                case HEAP_SEGMENT -> sender.send(MemorySegment.ofArray(p), ZmqSocket.DONTWAIT);
                case DIRECT_BUFFER -> sender.send(ByteBuffer.allocateDirect(p.length).put(p).flip(), ZmqSocket.DONTWAIT);
                case HEAP_BUFFER -> sender.send(ByteBuffer.wrap(p), ZmqSocket.DONTWAIT);
            };
            assertTrue(taken);
            assertEquals(1, sender.stats().abandonedMessages(), sender.stats()::toString);
            assertEquals(4, sender.stats().messages(), sender.stats()::toString);
            assertOnlyWholeMessages(sender);
        }
    }

    /**
     * A later part that fails before reaching the socket (its arena closed) makes the sender end
     * the message with a 0-byte part, sent with DONTWAIT; when libzmq refuses that too, it has
     * dropped the message, and the 0-byte part must not go out alone to the other peer (a receiver
     * there would count an {@code EMPTY} bad frame for a message that never reached it).
     */
    @Test
    void shouldNotSendTheEndOfAnAbandonedMessageAloneWhenLibzmqRefusesIt() {
        MemorySegment dead;
        try (Arena arena = Arena.ofConfined()) {
            dead = arena.allocate(300);
        }
        try (CompressingSender sender = CompressingSender.builder(push).build()) {
            fillAndStart(sender, Shape.LAST_PART);
            assertThrows(IllegalStateException.class, () -> sender.send(dead, ZmqSocket.DONTWAIT));
            assertEquals(1, sender.stats().abandonedMessages(), sender.stats()::toString);
            assertEquals(4, sender.stats().messages(), sender.stats()::toString);
            assertOnlyWholeMessages(sender);
        }
    }

    /** close() ends a message left open the same way, and the same holds. */
    @Test
    void shouldNotSendTheEndOfAMessageLeftOpenAloneWhenLibzmqRefusesItAtClose() {
        CompressingSender first = CompressingSender.builder(push).build();
        fillAndStart(first, Shape.FRAME_AFTER_ENVELOPE);
        first.close();
        assertEquals(1, first.stats().abandonedMessages(), first.stats()::toString);
        try (CompressingSender second = CompressingSender.builder(push).build()) {
            assertOnlyWholeMessages(second);
        }
    }

    /**
     * With a send that may block (no DONTWAIT, no send timeout of 0) libzmq drops the message
     * silently and reports the part sent: the sender cannot tell, and counts the message as sent;
     * still nothing of it reaches the other peer.
     */
    @Test
    void shouldCountAMessageLibzmqDropsSilentlyAsSent() {
        try (CompressingSender sender = CompressingSender.builder(push).build()) {
            fillAndStart(sender, Shape.LAST_PART);
            assertTrue(sender.send(Fixtures.payload(300, 11), 0));
            assertEquals(0, sender.stats().abandonedMessages(), sender.stats()::toString);
            assertEquals(5, sender.stats().messages(), sender.stats()::toString);
            assertOnlyWholeMessages(sender);
        }
    }
}

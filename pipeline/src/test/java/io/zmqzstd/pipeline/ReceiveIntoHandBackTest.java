package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDictCompress;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * receiveInto's hand-back (UndeliveredMessageException, DESTINATION_TOO_SMALL) under input a
 * reviewer would try: bad parts behind the one that did not fit, the message limit counted across
 * dst and the region, envelope parts between payload parts, empty content at the end of dst, the
 * view and the counters around a hand-back, DONTWAIT, dictionaries. ReceiveIntoTest has the
 * hand-back's plain cases.
 */
class ReceiveIntoHandBackTest {

    private static final long MAX_MESSAGE_BYTES = 11_000;

    private static void send(ZmqSocket socket, byte[]... frames) {
        for (int i = 0; i < frames.length; i++) {
            assertTrue(socket.send(frames[i], i < frames.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
    }

    /** {@code frame} with its Frame_Content_Size field rewritten to {@code declared} (same field width). */
    private static byte[] declaring(byte[] frame, long declared) {
        byte[] f = frame.clone();
        int descriptor = f[4] & 0xFF;
        int sizeFlag = descriptor >>> 6;
        boolean singleSegment = (descriptor & 0x20) != 0;
        int at = 5 + (singleSegment ? 0 : 1) + new int[] {0, 1, 2, 4}[descriptor & 3];
        int width = switch (sizeFlag) {
            case 0 -> singleSegment ? 1 : 0;
            case 1 -> 2;
            case 2 -> 4;
            default -> 8;
        };
        long value = sizeFlag == 1 ? declared - 256 : declared;
        for (int i = 0; i < width; i++) {
            f[at + i] = (byte) (value >>> (8 * i));
        }
        return f;
    }

    /**
     * A part that does not fit sends the rest of the message to the region, where each later part
     * meets every check receive() makes: the same status, reason, part and message as receive()
     * on the same bytes, not a hand-back, counted under that reason alone; the payload already in
     * dst counts against maxMessageSize; the region never grows past the limit; the next message
     * arrives whole.
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldRefuseABadPartBehindTheOneThatDidNotFitAsReceiveDoes(String transport) {
        byte[] p600 = Fixtures.payload(600, 1);
        byte[] p2000 = Fixtures.payload(2000, 2);
        byte[] first = Zstd.compress(p600, 3);
        byte[] tooBig = Zstd.compress(p2000, 3);
        byte[] skippable = {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4};
        byte[] unknownDictionary = Zstd.compress(p2000, new ZstdDictCompress(Fixtures.dictionary().bytes(), 3));
        // 600 in dst + 2000 handed back + 8401 = 11,001 > MAX_MESSAGE_BYTES: only dst's 600 tips it over
        byte[] p8401 = Fixtures.payload(8401, 3);
        // under the per-part limit, over the message's with dst's 600: found by the frame's header
        // in dst's path; without a declared size only in the region, which must count dst's 600
        byte[] p10401 = Fixtures.payload(10_401, 6);
        byte[][][] messages = {
            {first, tooBig, Zstd.compress(p8401, 3)},
            {first, Fixtures.streamed(p2000), Fixtures.streamed(p8401)},
            {first, tooBig, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}},
            {first, tooBig, Arrays.copyOf(tooBig, tooBig.length + 3)},
            {first, tooBig, skippable},
            {first, tooBig, unknownDictionary},
            {first, tooBig, Arrays.copyOf(tooBig, 12)},
            {first, tooBig, new byte[0]},
            {first, declaring(tooBig, 1500)},
            {first, declaring(tooBig, 3000)},
            {first, unknownDictionary},
            {first, Zstd.compress(p10401, 3)},
            {first, Fixtures.streamed(p10401)},
        };
        BadFrameReason[] expected = {BadFrameReason.TOO_LARGE, BadFrameReason.TOO_LARGE, BadFrameReason.NOT_ZSTD,
            BadFrameReason.CORRUPT, BadFrameReason.NOT_ZSTD, BadFrameReason.DICTIONARY_MISSING, BadFrameReason.TRUNCATED,
            BadFrameReason.EMPTY, BadFrameReason.CORRUPT, BadFrameReason.CORRUPT, BadFrameReason.DICTIONARY_MISSING,
            BadFrameReason.TOO_LARGE, BadFrameReason.TOO_LARGE};
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link intoLink = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            Fixtures.Link plainLink = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            try (DecompressingReceiver into = DecompressingReceiver.builder(intoLink.server()).maxDecompressedSize(10_500)
                    .maxMessageSize(MAX_MESSAGE_BYTES).build();
                 DecompressingReceiver plain = DecompressingReceiver.builder(plainLink.server()).maxDecompressedSize(10_500)
                    .maxMessageSize(MAX_MESSAGE_BYTES).build()) {
                MemorySegment dst = arena.allocate(1000);
                byte[] next = Fixtures.payload(900, 4);
                for (int i = 0; i < messages.length; i++) {
                    String name = "message " + i;
                    send(plainLink.client(), messages[i]);
                    send(intoLink.client(), messages[i]);
                    send(intoLink.client(), Zstd.compress(next, 3));
                    assertEquals(DecompressingReceiver.BAD_FRAME, plain.receive(0), name);
                    assertEquals(DecompressingReceiver.BAD_FRAME, into.receiveInto(dst, 0), name);
                    assertEquals(expected[i], into.lastErrorReason(), name + ": " + into.lastErrorMessage());
                    assertEquals(plain.lastErrorPart(), into.lastErrorPart(), name);
                    assertEquals(plain.lastErrorMessage(), into.lastErrorMessage(), name);
                    assertEquals(DecompressingReceiver.RECEIVED, into.receiveInto(dst, 0), into::lastErrorMessage);
                    assertEquals(1, into.message().parts(), name + ": the next message alone");
                    assertArrayEquals(next, into.message().partBytes(0), name);
                    assertTrue(into.message().region().byteSize() <= MAX_MESSAGE_BYTES,
                            name + ": region " + into.message().region().byteSize());
                }
                PipelineStats stats = into.stats();
                assertEquals(0, stats.undeliveredMessages(), stats::toString);
                assertEquals(messages.length, stats.messages(), stats::toString);
                for (BadFrameReason reason : BadFrameReason.values()) {
                    assertEquals(plain.stats().errors(reason), stats.errors(reason), reason::toString);
                }

                // at the limit exactly, the same message is handed back whole, the region still within it
                byte[] p8400 = Fixtures.payload(8400, 5);
                send(intoLink.client(), first, Fixtures.streamed(p2000), Zstd.compress(p8400, 3));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class, () -> into.receiveInto(dst, 0));
                assertEquals(3, e.parts());
                assertArrayEquals(p600, e.part(0));
                assertArrayEquals(p2000, e.part(1));
                assertArrayEquals(p8400, e.part(2));
                send(intoLink.client(), Zstd.compress(next, 3));
                assertEquals(DecompressingReceiver.RECEIVED, into.receiveInto(dst, 0), into::lastErrorMessage);
                assertTrue(into.message().region().byteSize() <= MAX_MESSAGE_BYTES);
                assertEquals(1, into.stats().undeliveredMessages());
            }
        }
    }

    /**
     * A ROUTER's message with envelope parts before, between and after its payload parts, several
     * of which do not fit: handed back with every part in the order sent, the envelope parts as
     * they came, the payload decompressed; the same layout then arrives whole into dst.
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldHandBackEnvelopePartsBetweenPayloadPartsInOrder(String transport) {
        byte[] id = "peer-7".getBytes(StandardCharsets.US_ASCII);
        byte[] p600 = Fixtures.payload(600, 1);
        byte[] p2000 = Fixtures.payload(2000, 2);
        byte[] p300 = Fixtures.payload(300, 3);
        byte[] p5000 = Fixtures.payload(5000, 4);
        byte[] empty = new byte[0];
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            dealer.routingId(id);
            Fixtures.link(router, dealer, transport);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(router).build()) {
                MemorySegment dst = arena.allocate(1000);
                send(dealer, empty, Zstd.compress(p600, 3), Zstd.compress(p2000, 3), empty,
                        Zstd.compress(p300, 3), Fixtures.streamed(p5000));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                        () -> receiver.receiveInto(dst, 0));
                assertTrue(e.getMessage().startsWith("destination too small: part=3, offset=600, dstBytes=1000, partBytes=2000 ("),
                        e::getMessage);
                byte[][] parts = {id, empty, p600, p2000, empty, p300, p5000};
                boolean[] payload = {false, false, true, true, false, true, true};
                assertEquals(parts.length, e.parts());
                for (int i = 0; i < parts.length; i++) {
                    assertEquals(payload[i], e.isCompressed(i), "part " + i);
                    assertEquals(parts[i].length, e.partSize(i), "part " + i);
                    assertArrayEquals(parts[i], e.part(i), "part " + i);
                }

                MemorySegment room = arena.allocate(p600.length + p2000.length + p300.length + p5000.length);
                send(dealer, empty, Zstd.compress(p600, 3), Zstd.compress(p2000, 3), empty,
                        Zstd.compress(p300, 3), Fixtures.streamed(p5000));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(room, 0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(parts.length, m.parts());
                long offset = 0;
                for (int i = 0; i < parts.length; i++) {
                    assertArrayEquals(parts[i], m.partBytes(i), "part " + i);
                    if (payload[i]) {
                        assertSame(room, m.segment(i));
                        assertEquals(offset, m.partOffset(i), "part " + i + " right after the payload before it");
                        offset += parts[i].length;
                    } else {
                        assertSame(m.region(), m.segment(i));
                    }
                }
                PipelineStats stats = receiver.stats();
                assertEquals(1, stats.undeliveredMessages(), stats::toString);
                assertEquals(1, stats.messages(), stats::toString);
                assertEquals(4, stats.parts(), "the handed-back message counts no parts: " + stats);
                assertEquals(3, stats.envelopeParts(), stats::toString);
            }
        }
    }

    /**
     * A frame of empty content needs no room: it is taken into a dst of 0 bytes, and at the end of
     * a dst that the part before filled exactly (declared size or not), at offset dst's size; one
     * byte more is handed back naming that offset.
     */
    @Test
    void shouldTakeEmptyContentIntoAnEmptyOrExactlyFullDestination() {
        byte[] p1000 = Fixtures.payload(1000, 1);
        byte[] nothing = new byte[0];
        byte[] emptyDeclared = Zstd.compress(nothing, 3);
        byte[] emptyStreamed = declaringNoSize(emptyDeclared);
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                MemorySegment none = arena.allocate(0);
                send(link.client(), emptyDeclared, emptyStreamed);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(none, 0), receiver::lastErrorMessage);
                for (int i = 0; i < 2; i++) {
                    assertSame(none, receiver.message().segment(i));
                    assertEquals(0, receiver.message().partOffset(i));
                    assertEquals(0, receiver.message().partSize(i));
                }

                MemorySegment full = arena.allocate(p1000.length);
                // a 0-byte delimiter between them goes to the region
                send(link.client(), Zstd.compress(p1000, 3), emptyDeclared, nothing, emptyStreamed);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(full, 0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(4, m.parts());
                assertArrayEquals(p1000, m.partBytes(0));
                assertSame(full, m.segment(1));
                assertEquals(p1000.length, m.partOffset(1));
                assertEquals(0, m.partSize(1));
                assertFalse(m.isCompressed(2));
                assertSame(m.region(), m.segment(2));
                assertSame(full, m.segment(3));
                assertEquals(p1000.length, m.partOffset(3));
                assertEquals(0, m.partSize(3));

                byte[] one = {42};
                send(link.client(), Zstd.compress(one, 3));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class, () -> receiver.receiveInto(none, 0));
                assertTrue(e.getMessage().startsWith("destination too small: part=0, offset=0, dstBytes=0, partBytes=1 ("),
                        e::getMessage);
                assertArrayEquals(one, e.part(0));
                send(link.client(), Zstd.compress(p1000, 3), emptyStreamed, declaringNoSize(Zstd.compress(one, 3)));
                e = assertThrows(UndeliveredMessageException.class, () -> receiver.receiveInto(full, 0));
                assertTrue(e.getMessage().startsWith("destination too small: part=2, offset=1000, dstBytes=1000, partBytes=1"
                        + " (the frame declares no size"), e::getMessage);
                assertArrayEquals(p1000, e.part(0));
                assertArrayEquals(nothing, e.part(1));
                assertArrayEquals(one, e.part(2));
                assertEquals(2, receiver.stats().messages());
                assertEquals(2, receiver.stats().undeliveredMessages());
                assertEquals(0, receiver.stats().errors());
            }
        }
    }

    /**
     * {@code frame} (single segment, declared size) rewritten as a frame that declares no size: the
     * content size flag cleared and a window descriptor for the smallest window in its place. Only
     * for the tiny frames here, whose content size field is one byte.
     */
    private static byte[] declaringNoSize(byte[] frame) {
        int descriptor = frame[4] & 0xFF;
        if ((descriptor & 0xE3) != 0x20) {
            throw new AssertionError("expected a single-segment frame with a 1-byte size field and no dictionary: 0x"
                    + Integer.toHexString(descriptor));
        }
        byte[] f = frame.clone();
        f[4] = 0;       // no content size, not single segment, no checksum, no dictionary
        f[5] = 0;       // window descriptor: 1 KiB, where the content size was
        if (io.zmqzstd.codec.ZstdFrames.contentSize(MemorySegment.ofArray(f)) != io.zmqzstd.codec.ZstdFrames.CONTENT_SIZE_UNKNOWN) {
            throw new AssertionError("the rewritten frame still declares its size");
        }
        return f;
    }

    /**
     * The view and the counters around hand-backs, blocking and DONTWAIT: the view of the message
     * before fails loudly after a hand-back, a part kept from it across a hand-back that grew the
     * region throws, sequence() numbers only delivered messages, and receive() and receiveInto()
     * after a hand-back deliver their message whole.
     */
    @Test
    void shouldKeepTheViewAndTheCountersConsistentAcrossHandBacks() {
        byte[] small = Fixtures.payload(500, 1);
        byte[] large = Fixtures.payload(300_000, 2);
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                MemorySegment dst = arena.allocate(1000);
                ReceivedMessage m = receiver.message();
                send(link.client(), Zstd.compress(small, 3));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, m.sequence());
                MemorySegment kept = m.part(0); // in the region, which the hand-back below must grow

                send(link.client(), Zstd.compress(large, 3));
                assertTrue(Fixtures.await(() -> {
                    try {
                        return receiver.receiveInto(dst, ZmqSocket.DONTWAIT) != DecompressingReceiver.WOULD_BLOCK;
                    } catch (UndeliveredMessageException handedBack) {
                        assertArrayEquals(large, handedBack.part(0));
                        return true;
                    }
                }, 10_000), "the message never arrived");
                assertFalse(m.isValid());
                IllegalStateException stale = assertThrows(IllegalStateException.class, m::sequence);
                assertEquals("no message to read: the last receive did not return RECEIVED", stale.getMessage());
                assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0),
                        "a part kept across a receive that grew the region");

                send(link.client(), Zstd.compress(small, 3));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                assertEquals(2, m.sequence(), "a hand-back takes no number");
                assertSame(dst, m.segment(0));
                assertArrayEquals(small, m.partBytes(0));

                send(link.client(), Zstd.compress(large, 3));
                assertThrows(UndeliveredMessageException.class, () -> receiver.receiveInto(dst, 0));
                send(link.client(), Zstd.compress(large, 3));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(3, m.sequence());
                assertSame(m.region(), m.segment(0));
                assertArrayEquals(large, m.partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receiveInto(dst, ZmqSocket.DONTWAIT));

                PipelineStats stats = receiver.stats();
                assertEquals(3, stats.messages(), stats::toString);
                assertEquals(2, stats.undeliveredMessages(), stats::toString);
                assertEquals(0, stats.errors(), stats::toString);
                assertEquals(2 * small.length + large.length, stats.uncompressedBytes(), "handed-back bytes not counted: " + stats);
                assertTrue(stats.wouldBlock() >= 1, stats::toString);
            }
        }
    }

    /**
     * Frames made with a dictionary, with its ID and without (dictionaryForFramesWithoutId), go to
     * the region with that dictionary when they do not fit: handed back as sent.
     */
    @Test
    void shouldHandBackFramesMadeWithADictionary() {
        byte[] p200 = Fixtures.payload(200, 1);
        byte[] p3000 = Fixtures.payload(3000, 2);
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link withId = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            Fixtures.Link withoutId = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender idSender = CompressingSender.builder(withId.client()).dictionary(Fixtures.dictionary()).build();
                 CompressingSender noIdSender = CompressingSender.builder(withoutId.client()).dictionary(Fixtures.dictionary())
                         .dictionaryIdInFrame(false).build();
                 DecompressingReceiver idReceiver = DecompressingReceiver.builder(withId.server())
                         .dictionary(Fixtures.dictionary()).build();
                 DecompressingReceiver noIdReceiver = DecompressingReceiver.builder(withoutId.server())
                         .dictionaryForFramesWithoutId(Fixtures.dictionary()).build()) {
                MemorySegment dst = arena.allocate(1000);
                for (CompressingSender sender : new CompressingSender[] {idSender, noIdSender}) {
                    DecompressingReceiver receiver = sender == idSender ? idReceiver : noIdReceiver;
                    assertTrue(sender.send(p200, ZmqSocket.SNDMORE));
                    assertTrue(sender.send(p3000, ZmqSocket.SNDMORE));
                    assertTrue(sender.send(p200, 0));
                    UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                            () -> receiver.receiveInto(dst, 0));
                    assertEquals(3, e.parts());
                    assertArrayEquals(p200, e.part(0));
                    assertArrayEquals(p3000, e.part(1));
                    assertArrayEquals(p200, e.part(2));
                    assertTrue(sender.send(p200, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                    assertArrayEquals(p200, receiver.message().partBytes(0));
                    assertEquals(0, receiver.stats().errors());
                }
            }
        }
    }
}

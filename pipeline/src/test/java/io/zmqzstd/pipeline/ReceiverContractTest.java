package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The documented contract of {@link DecompressingReceiver} and {@link ReceivedMessage} that the
 * other tests did not pin: defaults, refusals naming their value, what the error accessors hold
 * before and after, message numbering, the region object, counters, and a REP's state after a
 * bad request.
 */
class ReceiverContractTest {

    private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};

    /** The defaults of the builder's Javadoc and the README's table, and the accessors that show them. */
    @Test
    void shouldHaveTheDocumentedDefaults() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            try (DecompressingReceiver r = DecompressingReceiver.builder(pull).build()) {
                assertEquals(64L << 20, r.maxDecompressedSize());
                assertEquals(DecompressingReceiver.DEFAULT_MAX_DECOMPRESSED_SIZE, r.maxDecompressedSize());
                assertEquals(r.maxDecompressedSize(), r.maxMessageSize(), "maxMessageSize defaults to the per-part limit");
                assertEquals(64 * 1024, r.maxEnvelopeSize());
                assertEquals(4096, r.maxParts());
                assertEquals(0, r.envelopeParts());
                assertSame(pull, r.socket());
                assertFalse(r.isClosed());
            }
            try (DecompressingReceiver r = DecompressingReceiver.builder(pull).maxDecompressedSize(1000).build()) {
                assertEquals(1000, r.maxMessageSize(), "the default follows a per-part limit set");
            }
            for (SocketType type : SocketType.values()) {
                if (type == SocketType.PUSH || type == SocketType.PUB || type == SocketType.STREAM) {
                    continue; // refused by build() (LifecycleTest.shouldRefuseToBuildOnASocketTypeThatCannotDoItsHalf, StreamSocketTest)
                }
                ZmqSocket s = ctx.socket(type);
                try (DecompressingReceiver r = DecompressingReceiver.builder(s).build()) {
                    int expected = type == SocketType.ROUTER || type == SocketType.SUB || type == SocketType.XSUB ? 1 : 0;
                    assertEquals(expected, r.envelopeParts(), type::toString);
                }
                s.close();
            }
        }
    }

    /**
     * A frame without a declared size is decompressed once into all the room the region already
     * has: trying a smaller room costs a decompression that stops at its end, and growing no
     * memory. Until 2026-11-29 the first try was 256 KiB (or four times the frame) whatever the
     * region held, doubled after each refusal: 4 MiB of such content, after an 8 MiB message had
     * grown the region, took 5 decompressions (256 KiB, 512 KiB, 1 MiB, 2 MiB, then 4 MiB). A
     * frame larger than the room is still tried first at what the region has, then in doubled
     * room, and arrives whole.
     */
    @Test
    void shouldDecompressAFrameWithoutADeclaredSizeOnceWhenTheRegionHasRoom() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver r = DecompressingReceiver.builder(link.server()).build()) {
                byte[] large = Fixtures.payload(8 << 20, 1);
                assertTrue(link.client().send(Zstd.compress(large, 1), 0));
                assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                assertTrue(r.message().region().byteSize() >= 8 << 20);
                long regionBytes = r.message().region().byteSize();

                byte[] fits = repeated(Fixtures.payload(1000, 2), 4 << 20); // compresses far more than 4x
                assertTrue(link.client().send(Fixtures.streamed(fits), 0));
                assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                assertArrayEquals(fits, r.message().partBytes(0));
                assertEquals(1, r.unknownSizeTries(), "one decompression into the region's room");
                assertEquals(regionBytes, r.message().region().byteSize(), "the region did not grow");

                byte[] larger = repeated(Fixtures.payload(1000, 3), 20 << 20);
                assertTrue(link.client().send(Fixtures.streamed(larger), 0));
                assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                assertArrayEquals(larger, r.message().partBytes(0));
            }
        }
    }

    /** {@code unit} over and over, {@code size} bytes. */
    private static byte[] repeated(byte[] unit, int size) {
        byte[] out = new byte[size];
        for (int at = 0; at < size; at += unit.length) {
            System.arraycopy(unit, 0, out, at, Math.min(unit.length, size - at));
        }
        return out;
    }

    /** The region starts at 64 KiB, or at the bound when that is smaller (maxMessageSize, no envelope). */
    @Test
    void shouldStartTheRegionAt64KibOrTheBoundIfSmaller() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            for (long limit : new long[] {DecompressingReceiver.DEFAULT_MAX_DECOMPRESSED_SIZE, 1000}) {
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).maxDecompressedSize(limit).build()) {
                    assertTrue(link.client().send(Zstd.compress(new byte[] {1, 2, 3}, 3), 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertEquals(Math.min(64 * 1024, limit), receiver.message().region().byteSize(), "limit " + limit);
                }
            }
        }
    }

    /** Every setter refuses a bad value when it is set, naming it, its range and the value; nulls are named too. */
    @Test
    void shouldRefuseBadBuilderValuesNamingThem() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            DecompressingReceiver.Builder b = DecompressingReceiver.builder(pull);
            Fixtures.assertRefusedNaming("maxDecompressedSize must be 0 or more: maxDecompressedSize=-1", () -> b.maxDecompressedSize(-1));
            Fixtures.assertRefusedNaming("maxMessageSize must be 0 or more: maxMessageSize=-1", () -> b.maxMessageSize(-1));
            Fixtures.assertRefusedNaming("maxEnvelopeSize must be 0 or more: maxEnvelopeSize=-1", () -> b.maxEnvelopeSize(-1));
            Fixtures.assertRefusedNaming("envelopeParts must be 0 or more: envelopeParts=-1", () -> b.envelopeParts(-1));
            Fixtures.assertRefusedNaming("maxParts must be at least 1: maxParts=0", () -> b.maxParts(0));
            Fixtures.assertNullNamed("dictionary", () -> b.dictionary(null));
            Fixtures.assertNullNamed("socket", () -> DecompressingReceiver.builder(null));
            try (DecompressingReceiver r = b.build()) {
                Fixtures.assertNullNamed("dst", () -> r.receiveInto(null, 0));
                // the refused values changed nothing
                assertEquals(DecompressingReceiver.DEFAULT_MAX_DECOMPRESSED_SIZE, r.maxDecompressedSize());
                assertEquals(DecompressingReceiver.DEFAULT_MAX_PARTS, r.maxParts());
            }
        }
    }

    /**
     * lastErrorReason/Message/Part are null, null and -1 before the first BAD_FRAME, and keep the
     * latest one through later RECEIVED and WOULD_BLOCK returns until the next BAD_FRAME.
     */
    @Test
    void shouldReportNoErrorBeforeTheFirstAndKeepTheLatestUntilTheNext() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket push = link.client();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertNull(receiver.lastErrorReason());
                assertNull(receiver.lastErrorMessage());
                assertEquals(-1, receiver.lastErrorPart());

                assertTrue(push.send(Zstd.compress(new byte[] {1}, 3), ZmqSocket.SNDMORE));
                assertTrue(push.send("junk".getBytes(StandardCharsets.US_ASCII), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                String first = receiver.lastErrorMessage();
                assertEquals(BadFrameReason.NOT_ZSTD, receiver.lastErrorReason());
                assertEquals(1, receiver.lastErrorPart());
                assertTrue(first.startsWith("bad frame: part=1, reason=NOT_ZSTD"), first);
                IllegalStateException none = assertThrows(IllegalStateException.class, () -> receiver.message().parts());
                assertTrue(none.getMessage().contains("no message to read"), none::getMessage);

                assertTrue(push.send(Zstd.compress(new byte[] {2}, 3), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertEquals(BadFrameReason.NOT_ZSTD, receiver.lastErrorReason(), "kept until the next BAD_FRAME");
                assertEquals(first, receiver.lastErrorMessage());
                assertEquals(1, receiver.lastErrorPart());

                assertTrue(push.send(new byte[0], 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.EMPTY, receiver.lastErrorReason());
                assertEquals(0, receiver.lastErrorPart());
            }
        }
    }

    /**
     * lastErrorDictionaryId: -1 before the first BAD_FRAME and for a part the decompressor never
     * took (not zstd); for a frame it took and refused, the ID its header names, 0 for none, so a
     * caller can say which dictionary decoded a frame that failed.
     */
    @Test
    void shouldReportTheDictionaryIdThatARefusedFrameNames() {
        ZstdDictionary dict = Fixtures.dictionary();
        try (ZmqContext ctx = new ZmqContext();
             io.zmqzstd.codec.ZstdCompressor withId = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(dict).checksum(true).build();
             io.zmqzstd.codec.ZstdCompressor noId = io.zmqzstd.codec.ZstdCompressor.builder().dictionary(dict)
                     .dictionaryIdInFrame(false).checksum(true).build()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket push = link.client();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(dict)
                    .dictionaryForFramesWithoutId(dict).build()) {
                assertEquals(-1, receiver.lastErrorDictionaryId());
                byte[] payload = Fixtures.payload(300, 7);
                for (io.zmqzstd.codec.ZstdCompressor c : new io.zmqzstd.codec.ZstdCompressor[] {withId, noId}) {
                    byte[] damaged = c.compress(payload);
                    damaged[damaged.length - 1] ^= 0x55; // the checksum's last byte
                    assertTrue(push.send(damaged, 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                    assertEquals(BadFrameReason.CHECKSUM, receiver.lastErrorReason(), receiver::lastErrorMessage);
                    assertEquals(c == withId ? Integer.toUnsignedLong(dict.id()) : 0, receiver.lastErrorDictionaryId());
                }
                assertTrue(push.send("junk".getBytes(StandardCharsets.US_ASCII), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(-1, receiver.lastErrorDictionaryId(), "not a frame: no ID");
            }
        }
    }

    /**
     * sequence() numbers delivered messages 1, 2, 3...: a BAD_FRAME or WOULD_BLOCK between them
     * takes no number. The region is the same segment object from message to message until it
     * grows; a segment kept across the growth throws on access.
     */
    @Test
    void shouldNumberDeliveredMessagesAndKeepTheRegionObjectUntilItGrows() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket push = link.client();
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(Fixtures.payload(100, 1), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                ReceivedMessage m = receiver.message();
                assertEquals(1, m.sequence());
                MemorySegment region = m.region();
                MemorySegment firstPart = m.part(0);

                assertTrue(push.send(new byte[] {9, 9, 9, 9, 9}, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertTrue(sender.send(Fixtures.payload(200, 2), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertSame(m, receiver.message(), "one view, re-pointed");
                assertEquals(2, m.sequence(), "a bad frame or a would-block takes no number");
                assertSame(region, m.region(), "the same region object while it does not grow");

                byte[] large = Fixtures.payload(300_000, 3);
                assertTrue(sender.send(large, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(3, m.sequence());
                assertNotSame(region, m.region(), "grown");
                assertArrayEquals(large, m.partBytes(0));
                assertThrows(IllegalStateException.class, () -> firstPart.get(ValueLayout.JAVA_BYTE, 0),
                        "a segment kept across a growth throws");
                MemorySegment grown = m.region();
                assertTrue(sender.send(Fixtures.payload(10, 4), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertSame(grown, m.region(), "the grown region is kept");
            }
        }
    }

    /** Every accessor taking a part index refuses one outside [0, parts()) naming it and the count. */
    @Test
    void shouldRefuseAPartIndexOutOfRangeOnEveryAccessor() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(Fixtures.payload(50, 1), ZmqSocket.SNDMORE));
                assertTrue(sender.send(Fixtures.payload(60, 2), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                ReceivedMessage m = receiver.message();
                assertEquals(2, m.parts());
                assertEquals(110, m.totalSize());
                java.util.List<IntFunction<Object>> accessors = java.util.List.of(m::part, m::segment, m::partOffset,
                        m::partSize, m::isCompressed, m::partBytes);
                for (IntFunction<Object> accessor : accessors) {
                    for (int i : new int[] {-1, 2, Integer.MAX_VALUE}) {
                        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> accessor.apply(i));
                        assertTrue(e.getMessage().contains("index=" + i + ", parts=2"), e::getMessage);
                    }
                }
                assertEquals(60, m.partSize(1), "the view is still good after the refusals");
            }
        }
    }

    /**
     * A null reason given to {@code errors(reason)} is refused naming the argument, as every null
     * argument of the pipeline is; until 2026-11-29 it was the JDK's helpful message about
     * {@code BadFrameReason.ordinal()}.
     */
    @Test
    void shouldNameANullReasonGivenToErrors() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                PipelineStats stats = receiver.stats();
                NullPointerException e = assertThrows(NullPointerException.class, () -> stats.errors(null));
                assertEquals("reason", e.getMessage());
                assertEquals(0, stats.errors(BadFrameReason.NOT_ZSTD));
            }
        }
    }

    /**
     * The receiver's counters for what it delivered: payload parts and their bytes on the wire and
     * decompressed, envelope parts apart and in no byte total; the view's totalSize counts them.
     */
    @Test
    void shouldCountPayloadAndEnvelopePartsApart() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = Fixtures.bound(ctx, SocketType.ROUTER, "inproc");
            router.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            byte[] id = "dealer-1".getBytes(StandardCharsets.US_ASCII);
            dealer.routingId(id);
            dealer.connect(router.lastEndpoint());
            Fixtures.Link link = new Fixtures.Link(router, dealer);
            byte[] a = Fixtures.payload(3000, 1);
            byte[] b = Fixtures.payload(40, 2);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertEquals(0, receiver.stats().ratio(), "0 before any payload");
                assertTrue(sender.send(a, ZmqSocket.SNDMORE));
                assertTrue(sender.send(b, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertArrayEquals(id, m.partBytes(0));
                assertEquals(id.length + a.length + b.length, m.totalSize(), "envelope parts included");
                PipelineStats sent = sender.stats();
                PipelineStats got = receiver.stats();
                assertEquals(1, got.messages());
                assertEquals(2, got.parts());
                assertEquals(1, got.envelopeParts());
                assertEquals(a.length + b.length, got.uncompressedBytes(), "the routing id is in no byte total");
                assertEquals(sent.compressedBytes(), got.compressedBytes(), "the frames as on the wire");
                assertEquals((double) got.uncompressedBytes() / got.compressedBytes(), got.ratio());
                assertEquals(0, got.errors());
                assertEquals(0, got.zeroCopySends() + got.copiedSends() + got.rawFrames() + got.poolRents(),
                        "sender-only counters are 0 on a receiver");
            }
        }
    }

    /** WOULD_BLOCK when the socket's receive timeout expires too, counted in wouldBlock. */
    @Test
    void shouldCountAReceiveTimeoutAsWouldBlock() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = Fixtures.bound(ctx, SocketType.PULL, "inproc");
            pull.receiveTimeoutMs(5);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(0));
                assertEquals(1, receiver.stats().wouldBlock());
                assertFalse(receiver.message().isValid());
            }
        }
    }

    /** After close the pool-wide figures of a receiver's snapshot are 0; the rest stays. */
    @Test
    void shouldReportZeroPoolWideFiguresAfterClose() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build();
            try (CompressingSender sender = CompressingSender.builder(link.client()).build()) {
                assertTrue(sender.send(Fixtures.random(20_000, 1), 0)); // a pooled, zero-copy frame
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
            }
            PipelineStats open = receiver.stats();
            assertTrue(open.poolWideHits() + open.poolWideMisses() > 0, open::toString);
            receiver.close();
            PipelineStats closed = receiver.stats();
            assertEquals(0, closed.poolWideHits(), closed::toString);
            assertEquals(0, closed.poolWideMisses(), closed::toString);
            assertEquals(1, closed.messages(), "the receiver's own counters stay");
        }
    }

    /** Every call after close says the receiver is closed. */
    @Test
    void shouldSayTheReceiverIsClosedAfterClose() {
        try (ZmqContext ctx = new ZmqContext()) {
            DecompressingReceiver receiver = DecompressingReceiver.builder(ctx.socket(SocketType.PULL)).build();
            receiver.close();
            assertTrue(receiver.isClosed());
            for (Executable call : new Executable[] {() -> receiver.receive(0), () -> receiver.receive(ZmqSocket.DONTWAIT),
                    () -> receiver.receiveInto(MemorySegment.ofArray(new byte[16]), 0)}) {
                IllegalStateException e = assertThrows(IllegalStateException.class, call);
                assertTrue(e.getMessage().contains("receiver is closed"), e::getMessage);
            }
            // what answers after close: the settings, the error accessors, the counters, close()
            assertEquals(DecompressingReceiver.DEFAULT_MAX_PARTS, receiver.maxParts());
            assertEquals(-1, receiver.lastErrorPart());
            assertNull(receiver.lastErrorReason());
            assertEquals(0, receiver.stats().messages());
            assertFalse(receiver.message().isValid());
            receiver.close();
        }
    }

    /**
     * After close every receive says the receiver is closed, whatever its arguments: until
     * 2026-11-29 a read-only destination, or a flag other than DONTWAIT, was refused first with an
     * IllegalArgumentException that did not say so, where the README promises "receiver is
     * closed" of every receive after close, and a CompressingSender says it before a bad flag.
     */
    @Test
    void shouldSayTheReceiverIsClosedBeforeAnyFaultOfTheArguments() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            DecompressingReceiver receiver = DecompressingReceiver.builder(ctx.socket(SocketType.PULL)).build();
            receiver.close();
            MemorySegment readOnly = arena.allocate(16).asReadOnly();
            for (Executable call : new Executable[] {() -> receiver.receiveInto(readOnly, 0),
                    () -> receiver.receiveInto(MemorySegment.ofArray(new byte[16]).asReadOnly(), ZmqSocket.DONTWAIT),
                    () -> receiver.receiveInto(arena.allocate(16), 1 << 20), () -> receiver.receive(1 << 20)}) {
                IllegalStateException e = assertThrows(IllegalStateException.class, call);
                assertTrue(e.getMessage().contains("receiver is closed"), e::getMessage);
            }
        }
    }

    /**
     * A part of 1 to 3 bytes that the magic starts with is TRUNCATED, one of up to 3 bytes that it
     * does not start with NOT_ZSTD (BadFrameReason's Javadoc; BadFrameTest has the 2-byte ones).
     */
    @Test
    void shouldTellACutMagicFromAWrongOne() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                for (int n = 1; n <= 3; n++) {
                    assertTrue(link.client().send(java.util.Arrays.copyOf(ZSTD_MAGIC, n), 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                    assertEquals(BadFrameReason.TRUNCATED, receiver.lastErrorReason(), receiver::lastErrorMessage);
                    byte[] wrong = java.util.Arrays.copyOf(ZSTD_MAGIC, n);
                    wrong[n - 1] ^= 1;
                    assertTrue(link.client().send(wrong, 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                    assertEquals(BadFrameReason.NOT_ZSTD, receiver.lastErrorReason(), receiver::lastErrorMessage);
                }
                assertEquals(3, receiver.stats().errors(BadFrameReason.TRUNCATED));
                assertEquals(3, receiver.stats().errors(BadFrameReason.NOT_ZSTD));
                assertEquals(6, receiver.stats().errors());
            }
        }
    }

    /**
     * A message of envelope parts only is NO_PAYLOAD, reported at its last part (here part 1 of a
     * receiver expecting two envelope parts).
     */
    @Test
    void shouldReportNoPayloadAtTheLastPart() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).envelopeParts(2).build()) {
                assertTrue(link.client().send(new byte[] {'a'}, ZmqSocket.SNDMORE));
                assertTrue(link.client().send(new byte[] {'b'}, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.NO_PAYLOAD, receiver.lastErrorReason());
                assertEquals(1, receiver.lastErrorPart(), receiver::lastErrorMessage);
                assertEquals(1, receiver.stats().errors(BadFrameReason.NO_PAYLOAD));
                assertEquals(0, receiver.stats().envelopeParts(), "a refused message counts no parts");
            }
        }
    }

    /**
     * README, "Errors": a frame a receiveInto destination cannot hold goes to the region, where
     * it is refused for what it is (the limits first), as into room enough; only a good one is
     * handed back. Until 2026-11-29 the first two were DESTINATION_TOO_SMALL, found before their
     * dictionary and the bytes after the frame were looked at.
     */
    @Test
    void shouldRefuseABadFrameForWhatItIsWhetherOrNotTheDestinationHoldsIt() {
        try (ZmqContext ctx = new ZmqContext(); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] plain = Zstd.compress(Fixtures.payload(300, 1), 3);
            byte[] withDictionary = Zstd.compress(Fixtures.payload(300, 2),
                    new com.github.luben.zstd.ZstdDictCompress(Fixtures.dictionary().bytes(), 3));
            byte[] trailing = java.util.Arrays.copyOf(plain, plain.length + 2);
            byte[] over = Zstd.compress(Fixtures.payload(2000, 3), 3);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).maxDecompressedSize(1000).build()) {
                MemorySegment small = arena.allocate(100);
                MemorySegment room = arena.allocate(1000);
                Object[][] cases = {{withDictionary, small, BadFrameReason.DICTIONARY_MISSING},
                    {trailing, small, BadFrameReason.CORRUPT}, {over, small, BadFrameReason.TOO_LARGE},
                    {withDictionary, room, BadFrameReason.DICTIONARY_MISSING}, {trailing, room, BadFrameReason.CORRUPT}};
                for (Object[] c : cases) {
                    assertTrue(link.client().send((byte[]) c[0], 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receiveInto((MemorySegment) c[1], 0));
                    assertEquals(c[2], receiver.lastErrorReason(), receiver::lastErrorMessage);
                }
                assertTrue(link.client().send(plain, 0));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                        () -> receiver.receiveInto(small, 0));
                assertArrayEquals(Fixtures.payload(300, 1), e.part(0));
                assertEquals(5, receiver.stats().errors());
                assertEquals(1, receiver.stats().undeliveredMessages());
            }
        }
    }

    /** DICTIONARY_MISSING names the frame's dictionary ID and the ones the receiver holds. */
    @Test
    void shouldNameTheMissingDictionaryAndTheKnownOnes() {
        ZstdDictionary held = Fixtures.logDictionary("held");
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).dictionary(Fixtures.dictionary()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(held).build()) {
                assertTrue(sender.send(Fixtures.payload(300, 1), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.DICTIONARY_MISSING, receiver.lastErrorReason());
                String why = receiver.lastErrorMessage();
                assertTrue(why.contains(Integer.toUnsignedString(Fixtures.dictionary().id())), why);
                assertTrue(why.contains(Integer.toUnsignedString(held.id())), why);
            }
        }
    }

    /**
     * README: a REP receiver that returns BAD_FRAME has still taken the request, so libzmq refuses
     * the next receive (EFSM) until a reply has gone out; then the next request arrives.
     */
    @Test
    void shouldLeaveARepWaitingToReplyAfterABadRequest() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.REP, SocketType.REQ, "inproc");
            try (CompressingSender client = CompressingSender.builder(link.client()).build();
                 CompressingSender server = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(link.server()).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(link.client()).build()) {
                assertTrue(link.client().send("not a frame".getBytes(StandardCharsets.US_ASCII), 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, atServer.receive(0));
                ZmqException efsm = assertThrows(ZmqException.class, () -> atServer.receive(0));
                assertEquals(156384763, efsm.errno(), efsm::getMessage); // ZMQ_HAUSNUMERO + 51: EFSM
                byte[] error = "bad request".getBytes(StandardCharsets.US_ASCII);
                assertTrue(server.send(error, 0));
                assertEquals(DecompressingReceiver.RECEIVED, atClient.receive(0));
                assertArrayEquals(error, atClient.message().partBytes(0));
                byte[] request = Fixtures.payload(500, 1);
                assertTrue(client.send(request, 0));
                assertEquals(DecompressingReceiver.RECEIVED, atServer.receive(0), atServer::lastErrorMessage);
                assertArrayEquals(request, atServer.message().partBytes(0));
            }
        }
    }

    /**
     * README, "maxParts": it must exceed envelopeParts, since a message needs a payload part after
     * its envelope: build() refuses envelopeParts(4) with maxParts(4), naming both, and takes
     * maxParts(5).
     */
    @Test
    void shouldRefuseAMaxPartsThatLeavesNoRoomForAPayloadPartNamingBoth() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            DecompressingReceiver.Builder b = DecompressingReceiver.builder(pull).envelopeParts(4).maxParts(4);
            Fixtures.assertRefusedNaming("maxParts must leave room for a payload part after the envelope: maxParts=4, envelopeParts=4",
                    b::build);
            try (DecompressingReceiver r = b.maxParts(5).build()) {
                assertEquals(5, r.maxParts());
                assertEquals(4, r.envelopeParts());
            }
        }
    }

    /**
     * README, "Threading": the calls that reach neither the socket, the codec nor the memory are
     * not checked: while another thread is blocked inside receive(0), isClosed(), stats(),
     * lastError…() and the settings' accessors answer on this thread instead of being refused as a
     * second thread inside the receiver; the blocked receive then gets its message whole.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAnswerTheUncheckedCallsWhileAnotherThreadIsBlockedInReceive() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                int[] got = {Integer.MIN_VALUE};
                byte[][] body = new byte[1][];
                Thread receiving = new Thread(() -> {
                    got[0] = receiver.receive(0);
                    body[0] = receiver.message().partBytes(0);
                }, "blocked-receiver");
                receiving.start();
                assertTrue(Fixtures.await(() -> Fixtures.insideSocketCall(receiving, "receive"), 10_000),
                        "the receiving thread never blocked in the socket");

                assertFalse(receiver.isClosed());
                assertEquals(0, receiver.stats().messages());
                assertNull(receiver.lastErrorReason());
                assertNull(receiver.lastErrorMessage());
                assertEquals(-1, receiver.lastErrorPart());
                assertEquals(-1, receiver.lastErrorDictionaryId());
                assertEquals(DecompressingReceiver.DEFAULT_MAX_PARTS, receiver.maxParts());
                assertEquals(0, receiver.envelopeParts());
                assertSame(receiver.message(), receiver.message(), "message() hands out the one view");
                // the checked calls are still refused, naming both threads
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> receiver.receive(ZmqSocket.DONTWAIT));
                assertTrue(e.getMessage().contains("blocked-receiver"), e::getMessage);

                byte[] data = Fixtures.payload(700, 5);
                assertTrue(sender.send(data, 0));
                receiving.join(20_000);
                assertFalse(receiving.isAlive(), "the receive is still blocked");
                assertEquals(DecompressingReceiver.RECEIVED, got[0]);
                assertArrayEquals(data, body[0]);
                assertEquals(1, receiver.stats().messages());
            }
        }
    }

    /**
     * README, "maxMessageSize and maxEnvelopeSize": the default 64 KiB of envelope is room for 250
     * routing ids of libzmq's longest (255 B); a message whose envelope passes it is refused as
     * TOO_LARGE "envelope larger than limit: total>=…, maxEnvelopeSize=65536", and the next message
     * arrives.
     */
    @Test
    void shouldTakeTwoHundredFiftyLongestRoutingIdsWithinTheDefaultEnvelopeLimit() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] id = new byte[255];
            java.util.Arrays.fill(id, (byte) 'r');
            byte[] data = Fixtures.payload(2000, 9);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver fits = DecompressingReceiver.builder(link.server()).envelopeParts(250).build()) {
                assertEquals(64 * 1024, fits.maxEnvelopeSize());
                for (int i = 0; i < 250; i++) {
                    assertTrue(sender.sendEnvelope(id, ZmqSocket.SNDMORE));
                }
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, fits.receive(0), fits::lastErrorMessage);
                ReceivedMessage m = fits.message();
                assertEquals(251, m.parts());
                assertArrayEquals(id, m.partBytes(249));
                assertArrayEquals(data, m.partBytes(250));
            }
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver over = DecompressingReceiver.builder(link.server()).envelopeParts(258).build()) {
                for (int i = 0; i < 258; i++) {
                    assertTrue(sender.sendEnvelope(id, ZmqSocket.SNDMORE));
                }
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, over.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, over.lastErrorReason());
                assertTrue(over.lastErrorMessage().contains("envelope larger than limit: total>=65790, maxEnvelopeSize=65536"),
                        over::lastErrorMessage);
                assertEquals(1, over.stats().errors(BadFrameReason.TOO_LARGE));
                byte[] next = Fixtures.payload(300, 10);
                for (int i = 0; i < 258; i++) {
                    assertTrue(sender.sendEnvelope(new byte[] {(byte) i}, ZmqSocket.SNDMORE));
                }
                assertTrue(sender.send(next, 0));
                assertEquals(DecompressingReceiver.RECEIVED, over.receive(0), over::lastErrorMessage);
                assertArrayEquals(next, over.message().partBytes(258));
            }
        }
    }
}

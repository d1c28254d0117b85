package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every kind of bad part, each followed by a good message that must arrive. */
class BadFrameTest {

    private static final int LIMIT_INT = 100_000;
    private static final long LIMIT = LIMIT_INT;

    private ZmqContext ctx;
    private ZmqSocket push;
    private ZmqSocket pull;
    private DecompressingReceiver receiver;
    private int seq;

    @BeforeEach
    void open() {
        ctx = new ZmqContext();
        pull = ctx.socket(SocketType.PULL);
        push = ctx.socket(SocketType.PUSH);
        Fixtures.link(pull, push, "inproc");
        receiver = DecompressingReceiver.builder(pull).maxDecompressedSize(LIMIT).build();
    }

    @AfterEach
    void close() {
        receiver.close();
        ctx.close();
    }

    /** Sends {@code parts} raw, expects BAD_FRAME with {@code reason}, then a good message that arrives. */
    private void expectRefusedThenRecover(BadFrameReason reason, byte[]... parts) {
        long before = receiver.stats().errors(reason);
        for (int i = 0; i < parts.length; i++) {
            assertTrue(push.send(parts[i], i < parts.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
        assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
        assertEquals(reason, receiver.lastErrorReason(), receiver::lastErrorMessage);
        assertNotNull(receiver.lastErrorMessage());
        assertTrue(receiver.lastErrorMessage().contains("reason=" + reason), receiver::lastErrorMessage);
        assertFalse(receiver.message().isValid());
        assertThrows(IllegalStateException.class, () -> receiver.message().parts());
        assertEquals(before + 1, receiver.stats().errors(reason));

        byte[] good = Fixtures.payload(500, seq++);
        assertTrue(push.send(Zstd.compress(good, 3), 0));
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        assertArrayEquals(good, receiver.message().partBytes(0));
    }

    private static byte[] frame(int size) {
        return Zstd.compress(Fixtures.payload(size, size), 3);
    }

    @Test
    void shouldRejectEmptyPart() {
        expectRefusedThenRecover(BadFrameReason.EMPTY, new byte[0]);
    }

    @Test
    void shouldRejectPartThatIsNotZstd() {
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, "hello, not a frame".getBytes());
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, new byte[] {0x28, (byte) 0xB6});
    }

    @Test
    void shouldRejectCorruptFrame() {
        byte[] f = frame(20_000); // compressible, so the damaged bytes are compressed block data
        for (int i = 12; i < f.length - 4; i++) {
            f[i] = (byte) 0xFF;
        }
        expectRefusedThenRecover(BadFrameReason.CORRUPT, f);
    }

    @Test
    void shouldRejectTruncatedFrame() {
        byte[] f = frame(20_000);
        expectRefusedThenRecover(BadFrameReason.TRUNCATED, Arrays.copyOf(f, f.length / 2));
        expectRefusedThenRecover(BadFrameReason.TRUNCATED, Arrays.copyOf(f, 5)); // header cut short
        expectRefusedThenRecover(BadFrameReason.TRUNCATED, Arrays.copyOf(f, 2)); // magic number cut short
    }

    @Test
    void shouldRejectFrameWithUnknownDictionary() {
        byte[] f = Zstd.compress(Fixtures.payload(300, 3), new ZstdDictCompress(Fixtures.dictionary().bytes(), 3));
        expectRefusedThenRecover(BadFrameReason.DICTIONARY_MISSING, f);
        assertTrue(receiver.lastErrorMessage().contains(Integer.toUnsignedString(Fixtures.dictionary().id())),
                receiver::lastErrorMessage);
    }

    @Test
    void shouldRejectFrameAboveLimitFromItsHeader() {
        expectRefusedThenRecover(BadFrameReason.TOO_LARGE, frame((int) LIMIT + 1));
        assertTrue(receiver.lastErrorMessage().contains("declared=" + (LIMIT + 1)), receiver::lastErrorMessage);
    }

    @Test
    void shouldStopFrameWithoutDeclaredSizeAtLimit() {
        expectRefusedThenRecover(BadFrameReason.TOO_LARGE, Fixtures.streamed(Fixtures.payload((int) LIMIT + 1, 7)));
        assertTrue(receiver.lastErrorMessage().contains("declared=unknown"), receiver::lastErrorMessage);
        // Below the limit a frame without declared size is accepted.
        byte[] data = Fixtures.payload((int) LIMIT - 10, 8);
        assertTrue(push.send(Fixtures.streamed(data), 0));
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        assertArrayEquals(data, receiver.message().partBytes(0));
        // growth by doubling stops at the limit: without an envelope the region never passes it
        assertTrue(receiver.message().region().byteSize() <= LIMIT, () -> "region=" + receiver.message().region().byteSize());
    }

    /**
     * A few bytes of header can declare hundreds of MiB. Before the region grows for a frame, its
     * block headers must be able to hold what it declares, and a frame without a declared size
     * must be whole: the damaged ones are refused with the region as it was. Before, a 16-byte
     * frame declaring 512 MiB had the region grow (and zeroed) to 512 MiB, and a cut streamed frame
     * had it grow to 256 KiB, before libzstd refused them.
     */
    @Test
    void shouldRefuseAFrameItsBlocksCannotHoldBeforeTheRegionGrows() {
        java.nio.ByteBuffer declaring = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        declaring.putInt(ZstdFrames.MAGIC).put((byte) 0xE0).putLong(512L << 20).put(new byte[] {1, 0, 0});
        // No content size, a 1 MiB window, a raw block of 100,000 bytes of which 10 arrive
        byte[] cut = new byte[6 + 3 + 10];
        System.arraycopy(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, 10 << 3}, 0, cut, 0, 6);
        int header = 100_000 << 3 | 1;
        cut[6] = (byte) header;
        cut[7] = (byte) (header >>> 8);
        cut[8] = (byte) (header >>> 16);
        try (DecompressingReceiver large = DecompressingReceiver.builder(pull).maxDecompressedSize(1L << 30).build()) {
            long regionBefore = receiveGood(large).region().byteSize();
            assertTrue(push.send(declaring.array(), 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, large.receive(0));
            assertEquals(BadFrameReason.CORRUPT, large.lastErrorReason(), large::lastErrorMessage);
            assertTrue(large.lastErrorMessage().contains("frame declares more content than its blocks hold: declared="
                    + (512L << 20) + ", most=0"), large::lastErrorMessage);
            assertEquals(regionBefore, receiveGood(large).region().byteSize());

            assertTrue(push.send(cut, 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, large.receive(0));
            assertEquals(BadFrameReason.TRUNCATED, large.lastErrorReason(), large::lastErrorMessage);
            assertEquals(regionBefore, receiveGood(large).region().byteSize());

            // A frame whose blocks do hold what it declares still gets the room: 32 MiB of zeros
            // are RLE blocks, some hundreds of bytes in all
            byte[] zeros = new byte[32 << 20];
            byte[] small = Zstd.compress(zeros, 3);
            assertTrue(small.length < 4096, () -> "frame=" + small.length);
            assertTrue(push.send(small, 0));
            assertEquals(DecompressingReceiver.RECEIVED, large.receive(0), large::lastErrorMessage);
            assertEquals(zeros.length, large.message().part(0).byteSize());
            assertEquals(-1, large.message().part(0).asByteBuffer().mismatch(java.nio.ByteBuffer.wrap(zeros)));
        }
    }

    /**
     * The header checks come before the blocks are walked whether or not the region has to grow
     * for the frame (README, "Checks, in order"): a cut frame naming a dictionary the receiver
     * lacks is {@code DICTIONARY_MISSING}, a cut one whose window passes the allowance
     * {@code TOO_LARGE}, and one naming that dictionary and declaring more than its blocks hold
     * {@code DICTIONARY_MISSING}, on a receiver whose 64 KiB region would have to grow for each as
     * on one whose region grew before, and the region does not grow for them. Before 2026-11-29
     * the fresh receiver said {@code TRUNCATED}, {@code TRUNCATED} and {@code CORRUPT}.
     */
    @Test
    void shouldCheckTheHeaderBeforeTheBlocksWhetherOrNotTheRegionMustGrow() {
        byte[] named = Zstd.compress(Fixtures.payload(200_000, 4), new ZstdDictCompress(Fixtures.dictionary().bytes(), 3));
        byte[] cutNamed = Arrays.copyOf(named, named.length - 10);
        // No content size and a window of 2^27 (a streaming compressor's at level 22), past the
        // allowance of the default 64 MiB limit; a raw block of 100,000 bytes of which 10 arrive
        int block = 100_000 << 3 | 1;
        byte[] cutWide = new byte[6 + 3 + 10];
        System.arraycopy(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, (byte) (17 << 3),
            (byte) block, (byte) (block >>> 8), (byte) (block >>> 16)}, 0, cutWide, 0, 9);
        // Single segment, 4-byte dictionary ID and content size: 200,000 bytes declared, one
        // empty last raw block
        java.nio.ByteBuffer overDeclaring = java.nio.ByteBuffer.allocate(4 + 1 + 4 + 4 + 3)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        overDeclaring.putInt(ZstdFrames.MAGIC).put((byte) 0xA3).putInt(Fixtures.dictionary().id()).putInt(200_000)
                .put(new byte[] {1, 0, 0});
        byte[][] frames = {cutNamed, cutWide, overDeclaring.array()};
        BadFrameReason[] reasons = {BadFrameReason.DICTIONARY_MISSING, BadFrameReason.TOO_LARGE,
            BadFrameReason.DICTIONARY_MISSING};
        try (DecompressingReceiver fresh = DecompressingReceiver.builder(pull).build()) {
            for (boolean grown : new boolean[] {false, true}) {
                if (grown) {
                    byte[] big = Fixtures.payload(1 << 20, 5);
                    assertTrue(push.send(Zstd.compress(big, 3), 0));
                    assertEquals(DecompressingReceiver.RECEIVED, fresh.receive(0), fresh::lastErrorMessage);
                }
                long regionBefore = receiveGood(fresh).region().byteSize();
                assertEquals(grown, regionBefore > 200_000, () -> "region=" + regionBefore);
                for (int i = 0; i < frames.length; i++) {
                    assertTrue(push.send(frames[i], 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, fresh.receive(0));
                    String which = "frame " + i + ", region grown before: " + grown + ": ";
                    assertEquals(reasons[i], fresh.lastErrorReason(), () -> which + fresh.lastErrorMessage());
                }
                assertEquals(regionBefore, receiveGood(fresh).region().byteSize(), "the region did not grow for them");
                PipelineStats s = fresh.stats();
                assertEquals(grown ? 4 : 2, s.errors(BadFrameReason.DICTIONARY_MISSING), s::toString);
                assertEquals(grown ? 2 : 1, s.errors(BadFrameReason.TOO_LARGE), s::toString);
                assertEquals(s.errors(BadFrameReason.DICTIONARY_MISSING) + s.errors(BadFrameReason.TOO_LARGE), s.errors(),
                        s::toString);
            }
        }
    }

    /**
     * The window allowance of {@code maxDecompressedSize} holds a frame that declares its size
     * too, when the frame names a window: one declaring 5 bytes with a 2^27 window is
     * {@code TOO_LARGE} under the default 64 MiB limit (allowance 2^26), through {@code receive} and
     * {@code receiveInto}, and read under a 128 MiB limit; into a destination too small for its
     * declared size it goes to the region, where its window refuses it too (until 2026-11-29
     * {@code DESTINATION_TOO_SMALL}, found before its window). A
     * single-segment frame names no window: its content size is its window, held by the limit
     * alone, here 5 bytes under a 5-byte limit. Until 2026-11-29 the README said a frame with a
     * content size was held to the limit by that size alone (the behaviour is unchanged).
     */
    @Test
    void shouldHoldAFrameThatDeclaresItsSizeToTheWindowItNamesToo() {
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        // 4-byte content size, not single segment, window 2^27, one last raw block of 5 bytes
        byte[] wide = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, (byte) 0x80, (byte) (17 << 3), 5, 0, 0, 0,
            (5 << 3) | 1, 0, 0, 'h', 'e', 'l', 'l', 'o'};
        // 1-byte content size, single segment: no window descriptor
        byte[] single = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 5, (5 << 3) | 1, 0, 0, 'h', 'e', 'l', 'l', 'o'};
        assertArrayEquals(hello, Zstd.decompress(wide, 5), "zstd-jni reads it");
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             DecompressingReceiver defaults = DecompressingReceiver.builder(pull).build()) {
            for (boolean into : new boolean[] {false, true}) {
                assertTrue(push.send(wide, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, into ? defaults.receiveInto(arena.allocate(100), 0) : defaults.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, defaults.lastErrorReason(), defaults::lastErrorMessage);
                assertTrue(defaults.lastErrorMessage().contains("frame window larger than limit: window=134217728, limit=67108864"),
                        defaults::lastErrorMessage);
            }
            assertTrue(push.send(wide, 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, defaults.receiveInto(arena.allocate(4), 0));
            assertEquals(BadFrameReason.TOO_LARGE, defaults.lastErrorReason(), defaults::lastErrorMessage);
            assertEquals(3, defaults.stats().errors(BadFrameReason.TOO_LARGE));
            assertEquals(0, defaults.stats().undeliveredMessages(), "refused, not handed back");
        }
        try (DecompressingReceiver wider = DecompressingReceiver.builder(pull).maxDecompressedSize(128L << 20).build()) {
            assertTrue(push.send(wide, 0));
            assertEquals(DecompressingReceiver.RECEIVED, wider.receive(0), wider::lastErrorMessage);
            assertArrayEquals(hello, wider.message().partBytes(0));
        }
        try (DecompressingReceiver tight = DecompressingReceiver.builder(pull).maxDecompressedSize(5).build()) {
            assertTrue(push.send(single, 0));
            assertEquals(DecompressingReceiver.RECEIVED, tight.receive(0), tight::lastErrorMessage);
            assertArrayEquals(hello, tight.message().partBytes(0));
        }
    }

    /** Sends a good 500-byte message and returns it as {@code r} received it. */
    private ReceivedMessage receiveGood(DecompressingReceiver r) {
        byte[] good = Fixtures.payload(500, seq++);
        assertTrue(push.send(Zstd.compress(good, 3), 0));
        assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
        assertArrayEquals(good, r.message().partBytes(0));
        return r.message();
    }

    /**
     * The payload parts of one message together may reach maxMessageSize and not pass it by one
     * byte, whether the part that reaches it declares its size or not; the message over it is
     * refused at that part, and the next message arrives.
     */
    @Test
    void shouldDeliverAMessageOfExactlyMaxMessageSizeAndRefuseOneByteMore() {
        receiver.close();
        receiver = DecompressingReceiver.builder(pull).maxDecompressedSize(LIMIT).maxMessageSize(LIMIT + 10).build();
        byte[] first = Fixtures.payload(LIMIT_INT, 1);
        for (boolean streamed : new boolean[] {false, true}) {
            byte[] rest = Fixtures.payload(10, 2);
            assertTrue(push.send(Zstd.compress(first, 3), ZmqSocket.SNDMORE));
            assertTrue(push.send(streamed ? Fixtures.streamed(rest) : Zstd.compress(rest, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(first, receiver.message().partBytes(0));
            assertArrayEquals(rest, receiver.message().partBytes(1));

            byte[] over = Fixtures.payload(11, 3);
            expectRefusedThenRecover(BadFrameReason.TOO_LARGE, Zstd.compress(first, 3),
                    streamed ? Fixtures.streamed(over) : Zstd.compress(over, 3));
            assertEquals(1, receiver.lastErrorPart());
            String total = streamed ? "total>" + (LIMIT + 10) : "total=" + (LIMIT + 11);
            assertTrue(receiver.lastErrorMessage().contains(total + ", maxMessageSize=" + (LIMIT + 10)),
                    receiver::lastErrorMessage);
        }
    }

    /** One part is exactly one frame: whatever follows it, and a skippable frame, is refused. */
    @Test
    void shouldRejectBytesAfterTheFrameAndSkippableFrames() {
        byte[] f = frame(2000);
        byte[] raw = Zstd.compress(Fixtures.random(50, 5), 3); // zstd stores it as a raw block
        byte[] skippable = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(0x184D2A50).putInt(4).putInt(7).array();
        expectRefusedThenRecover(BadFrameReason.CORRUPT, concat(f, new byte[] {1, 2, 3}));
        assertTrue(receiver.lastErrorMessage().contains("bytes after the frame: frame=" + f.length),
                receiver::lastErrorMessage);
        expectRefusedThenRecover(BadFrameReason.CORRUPT, concat(f, f));
        expectRefusedThenRecover(BadFrameReason.CORRUPT, concat(raw, raw));
        expectRefusedThenRecover(BadFrameReason.CORRUPT, concat(f, skippable));
        expectRefusedThenRecover(BadFrameReason.CORRUPT, concat(Fixtures.streamed(Fixtures.payload(300, 1)), f));
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, skippable);
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, concat(skippable, f));
    }

    /**
     * A skippable frame where the payload should be (alone, in front of the frame in one part, as a
     * part of its own in front of the payload, behind a payload part) is refused saying what to do
     * in the pipeline's terms: send the frame alone, or what the skippable frame carries as an
     * envelope part with the envelopeParts(N) named; until 2026-11-29 the message was the codec's,
     * which pointed to ZstdInputStream. Over tcp; the advice is then followed and the message
     * arrives.
     */
    @Test
    void shouldSayWhatToDoWithASkippableFrameWhereThePayloadShouldBe() {
        ZmqSocket tcpPull = ctx.socket(SocketType.PULL);
        ZmqSocket tcpPush = ctx.socket(SocketType.PUSH);
        Fixtures.link(tcpPull, tcpPush, "tcp");
        byte[] f = frame(300);
        byte[] skippable = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(0x184D2A5F).putInt(4).putInt(7).array();
        try (DecompressingReceiver plain = DecompressingReceiver.builder(tcpPull).build()) {
            byte[][][] messages = {{skippable}, {concat(skippable, f)}, {skippable, f}, {f, skippable}};
            int[] badPart = {0, 0, 0, 1};
            for (int m = 0; m < messages.length; m++) {
                for (int i = 0; i < messages[m].length; i++) {
                    assertTrue(tcpPush.send(messages[m][i], i < messages[m].length - 1 ? ZmqSocket.SNDMORE : 0));
                }
                assertEquals(DecompressingReceiver.BAD_FRAME, plain.receive(0));
                assertEquals(BadFrameReason.NOT_ZSTD, plain.lastErrorReason(), plain::lastErrorMessage);
                assertEquals(badPart[m], plain.lastErrorPart());
                String message = plain.lastErrorMessage();
                assertEquals("bad frame: part=" + badPart[m] + ", reason=NOT_ZSTD, not a zstd frame: length="
                        + messages[m][badPart[m]].length + ", a skippable frame (magic 0x184D2A5F), which is not a"
                        + " message payload: a payload part is exactly one zstd frame, and the receiver steps over no"
                        + " skippable frame; the sender should send the zstd frame alone in its part, or send what the"
                        + " skippable frame carries as an envelope part in front of the first payload part and build the"
                        + " receiver with envelopeParts(1) (now 0)", message);
                assertFalse(message.contains("ZstdInputStream"), message);
            }
            assertEquals(messages.length, plain.stats().errors(BadFrameReason.NOT_ZSTD));
            byte[] good = Fixtures.payload(500, 1);
            assertTrue(tcpPush.send(Zstd.compress(good, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, plain.receive(0), plain::lastErrorMessage);
            assertArrayEquals(good, plain.message().partBytes(0), "the stream goes on");
        }
        // the advice followed: the skippable frame as an envelope part, envelopeParts(1)
        try (DecompressingReceiver withEnvelope = DecompressingReceiver.builder(tcpPull).envelopeParts(1).build()) {
            byte[] payload = Fixtures.payload(300, 300);
            assertTrue(tcpPush.send(skippable, ZmqSocket.SNDMORE));
            assertTrue(tcpPush.send(f, 0));
            assertEquals(DecompressingReceiver.RECEIVED, withEnvelope.receive(0), withEnvelope::lastErrorMessage);
            assertArrayEquals(skippable, withEnvelope.message().partBytes(0));
            assertArrayEquals(payload, withEnvelope.message().partBytes(1));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void shouldRejectChecksumMismatch() {
        byte[] f;
        try (ZstdCompressCtx c = new ZstdCompressCtx()) {
            c.setLevel(3);
            c.setChecksum(true);
            f = c.compress(Fixtures.payload(3000, 9));
        }
        f[f.length - 1] ^= 0x5A;
        expectRefusedThenRecover(BadFrameReason.CHECKSUM, f);
    }

    @Test
    void shouldDrainRestOfMultipartMessageAfterBadPart() {
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, frame(100), "junk".getBytes(), frame(200), frame(300));
        assertEquals(1, receiver.message().parts());
        assertEquals(1, receiver.lastErrorPart());
    }

    @Test
    void shouldCountErrorsByReason() {
        expectRefusedThenRecover(BadFrameReason.EMPTY, new byte[0]);
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, "x".getBytes());
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, "y".getBytes());
        PipelineStats s = receiver.stats();
        assertEquals(3, s.errors());
        assertEquals(1, s.errors(BadFrameReason.EMPTY));
        assertEquals(2, s.errors(BadFrameReason.NOT_ZSTD));
        assertEquals(3, s.messages());
        assertTrue(s.toString().contains("NOT_ZSTD=2"), s::toString);
    }

    @Test
    void shouldBoundEnvelopePartsApartFromThePayload() {
        byte[] data = Fixtures.payload(LIMIT_INT, 3);
        try (DecompressingReceiver routed = DecompressingReceiver.builder(pull).envelopeParts(2)
                .maxDecompressedSize(LIMIT).maxEnvelopeSize(16).build()) {
            assertTrue(push.send(new byte[10], ZmqSocket.SNDMORE));
            assertTrue(push.send(new byte[7], ZmqSocket.SNDMORE));
            assertTrue(push.send(Zstd.compress(data, 3), 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, routed.receive(0));
            assertEquals(BadFrameReason.TOO_LARGE, routed.lastErrorReason());
            assertEquals(1, routed.lastErrorPart());
            assertTrue(routed.lastErrorMessage().contains("total>=17, maxEnvelopeSize=16"), routed::lastErrorMessage);
            // 16 envelope bytes in front of a part at the per-part limit: both limits are met
            assertTrue(push.send(new byte[10], ZmqSocket.SNDMORE));
            assertTrue(push.send(new byte[6], ZmqSocket.SNDMORE));
            assertTrue(push.send(Zstd.compress(data, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, routed.receive(0), routed::lastErrorMessage);
            assertArrayEquals(data, routed.message().partBytes(2));
            assertTrue(routed.message().region().byteSize() <= LIMIT + 16, () -> "region=" + routed.message().region().byteSize());
        }
    }

    /**
     * 0-byte delimiters count against no size limit, so only the part limit stops a message of
     * many of them from growing the part table; the default refuses one part past it, skips the
     * rest, and the next message arrives.
     */
    @Test
    void shouldRefuseMessageWithMorePartsThanTheDefaultLimit() {
        int parts = DecompressingReceiver.DEFAULT_MAX_PARTS + 100;
        byte[][] message = new byte[parts][];
        Arrays.fill(message, new byte[0]);
        message[parts - 1] = frame(64);
        expectRefusedThenRecover(BadFrameReason.TOO_LARGE, message);
        assertEquals(DecompressingReceiver.DEFAULT_MAX_PARTS, receiver.lastErrorPart());
        assertTrue(receiver.lastErrorMessage().contains("more parts than limit: parts>4096, maxParts=4096"),
                receiver::lastErrorMessage);
    }

    @Test
    void shouldDeliverMessageOfExactlyMaxPartsAndRefuseOneMore() {
        byte[] last = Fixtures.payload(300, 9);
        try (DecompressingReceiver limited = DecompressingReceiver.builder(pull).maxParts(4).build()) {
            assertEquals(4, limited.maxParts());
            for (int extra = 0; extra <= 1; extra++) {
                for (int i = 0; i < 3 + extra; i++) {
                    assertTrue(push.send(new byte[0], ZmqSocket.SNDMORE));
                }
                assertTrue(push.send(Zstd.compress(last, 3), 0));
                if (extra == 0) {
                    assertEquals(DecompressingReceiver.RECEIVED, limited.receive(0), limited::lastErrorMessage);
                    assertEquals(4, limited.message().parts());
                    assertArrayEquals(last, limited.message().partBytes(3));
                } else {
                    assertEquals(DecompressingReceiver.BAD_FRAME, limited.receive(0));
                    assertEquals(BadFrameReason.TOO_LARGE, limited.lastErrorReason());
                    assertEquals(4, limited.lastErrorPart());
                }
            }
            assertTrue(push.send(Zstd.compress(last, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, limited.receive(0), limited::lastErrorMessage);
            assertArrayEquals(last, limited.message().partBytes(0));
        }
    }

    @Test
    void shouldRejectPartLimitWithoutRoomForAPayload() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DecompressingReceiver.builder(pull).envelopeParts(2).maxParts(2).build());
        assertTrue(e.getMessage().contains("maxParts=2, envelopeParts=2"), e::getMessage);
        assertThrows(IllegalArgumentException.class, () -> DecompressingReceiver.builder(pull).maxParts(0));
    }

    /**
     * A failure that is not a bad frame (here: the region cannot grow to what a frame declares,
     * so allocating it throws OutOfMemoryError) reaches the caller, and the receiver still skips
     * the rest of that message: the next receive delivers the next message, not a left-over part.
     */
    @Test
    void shouldEndAtMessageBoundaryWhenAReceiveFails() {
        // A frame that declares 1 TiB, more than this machine's memory and swap, and whose blocks
        // hold it: magic, FHD (8-byte content size, single segment), the size, 2^23 RLE blocks of
        // 128 KiB (32 MiB of frame). libc refuses the allocation unless the kernel overcommits
        // without limit (vm.overcommit_memory=1), where it would succeed and be zeroed page by page.
        org.junit.jupiter.api.Assumptions.assumeFalse(alwaysOvercommits(), "vm.overcommit_memory=1");
        int blocks = 1 << 23;
        java.nio.ByteBuffer huge = java.nio.ByteBuffer.allocate(13 + 4 * blocks).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        huge.putInt(ZstdFrames.MAGIC).put((byte) 0xE0).putLong((long) blocks << 17);
        int rle = 131_072 << 3 | 1 << 1;
        for (int i = 0; i < blocks; i++) {
            int header = i == blocks - 1 ? rle | 1 : rle;
            huge.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16)).put((byte) 7);
        }
        byte[] leftOver = Fixtures.payload(700, 1);
        byte[] next = Fixtures.payload(900, 2);
        try (DecompressingReceiver unbounded = DecompressingReceiver.builder(pull)
                .maxDecompressedSize(Long.MAX_VALUE).maxMessageSize(Long.MAX_VALUE).build()) {
            assertTrue(push.send(huge.array(), ZmqSocket.SNDMORE));
            assertTrue(push.send(Zstd.compress(leftOver, 3), 0));
            assertTrue(push.send(Zstd.compress(next, 3), 0));
            assertThrows(OutOfMemoryError.class, () -> unbounded.receive(0));
            assertFalse(unbounded.message().isValid());
            assertEquals(DecompressingReceiver.RECEIVED, unbounded.receive(0), unbounded::lastErrorMessage);
            assertEquals(1, unbounded.message().parts());
            assertArrayEquals(next, unbounded.message().partBytes(0));
        }
    }

    private static boolean alwaysOvercommits() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/vm/overcommit_memory")).strip().equals("1");
        } catch (java.io.IOException e) {
            return false; // not Linux: no such policy
        }
    }

    /**
     * With both limits at Long.MAX_VALUE, a frame that declares Long.MAX_VALUE bytes behind an
     * envelope part needs a region past Long.MAX_VALUE: maxMessageSize is held to Long.MAX_VALUE
     * less maxEnvelopeSize at build, so the frame is refused as TOO_LARGE and the next message
     * arrives. Before, the region's size (offset plus declared size) overflowed, the region was
     * not grown, and receive threw the codec's IndexOutOfBoundsException.
     */
    @Test
    void shouldRefuseAFrameWhoseRegionWouldPassLongMaxValue() {
        java.nio.ByteBuffer huge = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        huge.putInt(ZstdFrames.MAGIC).put((byte) 0xE0).putLong(Long.MAX_VALUE).put(new byte[] {1, 0, 0});
        byte[] topic = "t".getBytes(StandardCharsets.US_ASCII);
        byte[] next = Fixtures.payload(900, 2);
        long held = Long.MAX_VALUE - DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE;
        try (DecompressingReceiver unbounded = DecompressingReceiver.builder(pull).envelopeParts(1)
                .maxDecompressedSize(Long.MAX_VALUE).maxMessageSize(Long.MAX_VALUE).build()) {
            assertEquals(held, unbounded.maxMessageSize());
            assertTrue(push.send(topic, ZmqSocket.SNDMORE));
            assertTrue(push.send(huge.array(), 0));
            assertTrue(push.send(topic, ZmqSocket.SNDMORE));
            assertTrue(push.send(Zstd.compress(next, 3), 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, unbounded.receive(0));
            assertEquals(BadFrameReason.TOO_LARGE, unbounded.lastErrorReason(), unbounded::lastErrorMessage);
            assertTrue(unbounded.lastErrorMessage().contains("maxMessageSize=" + held), unbounded::lastErrorMessage);
            assertEquals(DecompressingReceiver.RECEIVED, unbounded.receive(0), unbounded::lastErrorMessage);
            assertArrayEquals(next, unbounded.message().partBytes(1));
        }
    }

    /**
     * The two size limits together are held to Long.MAX_VALUE with the larger giving way: a huge
     * envelope limit leaves the payload's as set (it made it 0 before, refusing every payload), and
     * with both at their largest each keeps about half; messages still arrive.
     */
    @ParameterizedTest(name = "maxMessageSize {0}, maxEnvelopeSize {1}")
    @CsvSource({"-1, 9223372036854775807, 67108864, 9223372036787666943",
        "9223372036854775807, 9223372036854775807, 4611686018427387904, 4611686018427387903",
        "9223372036854775807, 65536, 9223372036854710271, 65536",
        "1048576, 65536, 1048576, 65536"})
    void shouldLetTheLargerLimitGiveWayWhenTogetherTheyWouldPassLongMaxValue(long message, long envelope,
            long expectedMessage, long expectedEnvelope) {
        byte[] topic = "t".getBytes(StandardCharsets.US_ASCII);
        byte[] payload = Fixtures.payload(900, 4);
        DecompressingReceiver.Builder b = DecompressingReceiver.builder(pull).envelopeParts(1).maxEnvelopeSize(envelope);
        if (message >= 0) {
            b.maxMessageSize(message);
        }
        try (DecompressingReceiver receiver = b.build()) {
            assertEquals(expectedMessage, receiver.maxMessageSize());
            assertEquals(expectedEnvelope, receiver.maxEnvelopeSize());
            assertTrue(receiver.maxMessageSize() + receiver.maxEnvelopeSize() >= 0, "the sum does not overflow");
            assertTrue(push.send(topic, ZmqSocket.SNDMORE));
            assertTrue(push.send(Zstd.compress(payload, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(payload, receiver.message().partBytes(1));
        }
    }

    /** An XPUB bound and a SUB subscribed to everything connected to it, the subscription at the XPUB. */
    private static Fixtures.Link subscribedToEverything(ZmqContext c, String transport) {
        ZmqSocket xpub = c.socket(SocketType.XPUB);
        ZmqSocket sub = c.socket(SocketType.SUB);
        sub.subscribe("");
        Fixtures.link(xpub, sub, transport);
        try (ZmqMessage subscription = new ZmqMessage()) {
            assertTrue(xpub.receive(subscription, 0), "the subscription reached the publisher");
        }
        return new Fixtures.Link(xpub, sub);
    }

    @Test
    void shouldRejectAMessageThatEndsWithItsEnvelope() {
        // A PUB that sends without a topic: the SUB receiver takes the one part for the topic, and
        // no compressed part follows. Delivered, the caller would get the frame still compressed.
        try (ZmqContext c = new ZmqContext()) {
            Fixtures.Link link = subscribedToEverything(c, "inproc");
            ZmqSocket xpub = link.server();
            ZmqSocket sub = link.client();
            byte[] payload = Fixtures.payload(1000, 7);
            byte[] topic = "t".getBytes(StandardCharsets.US_ASCII);
            try (CompressingSender sender = CompressingSender.builder(xpub).build();
                 DecompressingReceiver subReceiver = DecompressingReceiver.builder(sub).build()) {
                assertTrue(sender.send(payload, 0));
                assertTrue(sender.publish(topic, payload, 0));

                assertEquals(DecompressingReceiver.BAD_FRAME, subReceiver.receive(0));
                assertEquals(BadFrameReason.NO_PAYLOAD, subReceiver.lastErrorReason(), subReceiver::lastErrorMessage);
                assertTrue(subReceiver.lastErrorMessage().contains("parts=1, envelopeParts=1"),
                        subReceiver::lastErrorMessage);
                assertTrue(subReceiver.lastErrorMessage().contains("part 0 starts with the zstd magic: a frame taken for an"
                        + " envelope part, envelopeParts=1 being more than"), subReceiver::lastErrorMessage);
                assertEquals(0, subReceiver.lastErrorPart());
                assertEquals(1, subReceiver.stats().errors(BadFrameReason.NO_PAYLOAD));

                assertEquals(DecompressingReceiver.RECEIVED, subReceiver.receive(0), subReceiver::lastErrorMessage);
                assertArrayEquals(topic, subReceiver.message().partBytes(0));
                assertArrayEquals(payload, subReceiver.message().partBytes(1));
                assertEquals(1, subReceiver.stats().messages());
            }
        }
    }

    /**
     * A part that is not a frame where the payload should begin, with more parts behind it: the
     * message names the envelopeParts that would take it as an envelope part (a DEALER behind a
     * ROUTER's proxy built with its default of 0 refused every request as "magic mismatch" alone).
     * A bad part after a payload part, or a bad last part, is not said to be an envelope part.
     */
    @Test
    void shouldNameTheEnvelopePartsThatWouldTakeANonFrameInFrontOfThePayload() {
        byte[] header = "hdr".getBytes(StandardCharsets.US_ASCII);
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, header, frame(200));
        assertEquals(0, receiver.lastErrorPart());
        assertTrue(receiver.lastErrorMessage().endsWith("not a zstd frame: length=3, magic mismatch; more parts follow it"
                + " and no payload part came before it: if it is one more envelope part (a routing id, a topic, a header),"
                + " build the receiver with envelopeParts(1) (now 0)"), receiver::lastErrorMessage);
        // behind a delimiter, which is an envelope part already: the count that takes it too
        expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, new byte[0], header, frame(200));
        assertTrue(receiver.lastErrorMessage().contains("envelopeParts(2) (now 0)"), receiver::lastErrorMessage);
        for (byte[][] parts : new byte[][][] {{header}, {frame(200), header, frame(200)}}) {
            expectRefusedThenRecover(BadFrameReason.NOT_ZSTD, parts);
            assertFalse(receiver.lastErrorMessage().contains("envelopeParts("), receiver::lastErrorMessage);
        }
    }

    /**
     * envelopeParts above the envelope a message has: a frame taken for the last envelope part is
     * named as such in the NO_PAYLOAD; envelope parts that are no frames are not.
     */
    @Test
    void shouldSayAFrameWasTakenForAnEnvelopePartWhenEnvelopePartsIsAboveTheMessages() {
        ZmqSocket pull2 = ctx.socket(SocketType.PULL);
        ZmqSocket push2 = ctx.socket(SocketType.PUSH);
        Fixtures.link(pull2, push2, "inproc");
        try (DecompressingReceiver two = DecompressingReceiver.builder(pull2).envelopeParts(2).build()) {
            byte[] payload = Fixtures.payload(300, 3);
            byte[] header = "hdr".getBytes(StandardCharsets.US_ASCII);
            assertTrue(push2.send(header, ZmqSocket.SNDMORE));
            assertTrue(push2.send(Zstd.compress(payload, 3), 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, two.receive(0));
            assertEquals(BadFrameReason.NO_PAYLOAD, two.lastErrorReason(), two::lastErrorMessage);
            assertEquals(1, two.lastErrorPart());
            assertTrue(two.lastErrorMessage().contains("parts=2, envelopeParts=2 (a message is [envelope part]* [payload"
                    + " part]+); part 1 starts with the zstd magic: a frame taken for an envelope part, envelopeParts=2"
                    + " being more than the envelope parts this message has"), two::lastErrorMessage);

            assertTrue(push2.send(header, ZmqSocket.SNDMORE));
            assertTrue(push2.send(header, 0));
            assertEquals(DecompressingReceiver.BAD_FRAME, two.receive(0));
            assertEquals(BadFrameReason.NO_PAYLOAD, two.lastErrorReason(), two::lastErrorMessage);
            assertFalse(two.lastErrorMessage().contains("zstd magic"), two::lastErrorMessage);

            assertTrue(push2.send(header, ZmqSocket.SNDMORE));
            assertTrue(push2.send(header, ZmqSocket.SNDMORE));
            assertTrue(push2.send(Zstd.compress(payload, 3), 0));
            assertEquals(DecompressingReceiver.RECEIVED, two.receive(0), two::lastErrorMessage);
            assertArrayEquals(payload, two.message().partBytes(2));
            assertEquals(2, two.stats().errors(BadFrameReason.NO_PAYLOAD));
        }
    }

    /**
     * A frame taken for an envelope part that is larger than maxEnvelopeSize: a PUB publishing
     * 100,000 random bytes without a topic to a SUB receiver (over tcp). The TOO_LARGE names the
     * envelopeParts that would take the frame as the payload, as the NO_PAYLOAD of a smaller frame
     * does; an envelope part over the limit that is no frame (a long topic) is not said to be one,
     * and the next message arrives.
     */
    @Test
    void shouldSayAFrameTakenForAnEnvelopePartWasOneWhenItPassesMaxEnvelopeSize() {
        try (ZmqContext c = new ZmqContext()) {
            Fixtures.Link link = subscribedToEverything(c, "tcp");
            byte[] big = Fixtures.random(100_000, 11);
            byte[] longTopic = new byte[70_000];
            Arrays.fill(longTopic, (byte) 't');
            byte[] topic = "t".getBytes(StandardCharsets.US_ASCII);
            try (CompressingSender sender = CompressingSender.builder(link.server()).build();
                 DecompressingReceiver subReceiver = DecompressingReceiver.builder(link.client()).build()) {
                assertTrue(sender.send(big, 0));
                assertTrue(sender.publish(longTopic, big, 0));
                assertTrue(sender.publish(topic, big, 0));

                assertEquals(DecompressingReceiver.BAD_FRAME, subReceiver.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, subReceiver.lastErrorReason(), subReceiver::lastErrorMessage);
                assertEquals(0, subReceiver.lastErrorPart());
                String message = subReceiver.lastErrorMessage();
                assertTrue(message.contains("envelope larger than limit: total>="), message);
                assertTrue(message.contains(", maxEnvelopeSize=" + DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE
                        + "; part 0 starts with the zstd magic: a frame taken for an envelope part, envelopeParts=1 being"
                        + " more than the envelope parts this message has"), message);
                assertTrue(message.endsWith("build the receiver with envelopeParts(0))"), message);

                assertEquals(DecompressingReceiver.BAD_FRAME, subReceiver.receive(0));
                assertEquals(BadFrameReason.TOO_LARGE, subReceiver.lastErrorReason(), subReceiver::lastErrorMessage);
                assertTrue(subReceiver.lastErrorMessage().endsWith("envelope larger than limit: total>=70000, maxEnvelopeSize="
                        + DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE), subReceiver::lastErrorMessage);

                assertEquals(DecompressingReceiver.RECEIVED, subReceiver.receive(0), subReceiver::lastErrorMessage);
                assertArrayEquals(topic, subReceiver.message().partBytes(0));
                assertArrayEquals(big, subReceiver.message().partBytes(1));
                assertEquals(2, subReceiver.stats().errors(BadFrameReason.TOO_LARGE));
                assertEquals(1, subReceiver.stats().messages());
            }
        }
    }
}

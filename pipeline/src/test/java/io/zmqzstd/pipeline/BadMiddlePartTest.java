package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDictCompress;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A peer's five-part message whose third part is bad, then a good five-part message, over each
 * transport and through both receive forms: the bad one is reported at part 2 with its reason and
 * counted under it alone, none of its parts reaches a counter or the next message, and the next
 * message arrives with its five parts intact.
 */
class BadMiddlePartTest {

    private static final int LIMIT = 100_000;
    private static final int PARTS = 5;
    private static final int BAD = 2;

    @ParameterizedTest(name = "{0} over {1}, receiveInto {2}")
    @CsvSource({
        "TOO_LARGE_DECLARED, tcp, false", "TOO_LARGE_DECLARED, ipc, true", "TOO_LARGE_DECLARED, inproc, false",
        "TOO_LARGE_STREAMED, tcp, true", "TOO_LARGE_STREAMED, inproc, false",
        "UNKNOWN_DICTIONARY, tcp, false", "UNKNOWN_DICTIONARY, ipc, true",
        "NOT_ZSTD, tcp, true", "NOT_ZSTD, inproc, false",
        "EMPTY_LAST, tcp, false", "EMPTY_LAST, inproc, true",
        "CORRUPT, ipc, false", "CORRUPT, inproc, true",
    })
    void shouldReportTheBadPartCountItAndDeliverTheNextMessageWhole(Bad bad, String transport, boolean into) {
        try (ZmqContext ctx = new ZmqContext();
             Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            MemorySegment dst = arena.allocate(PARTS * (long) LIMIT);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server())
                    .maxDecompressedSize(LIMIT).maxMessageSize(PARTS * (long) LIMIT).build()) {
                byte[][] first = goodParts(1);
                byte[][] frames = frames(first);
                // an empty part with more behind it is a delimiter: a bad empty part is the last one
                int badAt = bad == Bad.EMPTY_LAST ? PARTS - 1 : BAD;
                frames[badAt] = bad.frame();
                sendParts(link.client(), frames);
                byte[][] next = goodParts(2);
                byte[][] nextFrames = frames(next);
                sendParts(link.client(), nextFrames);

                assertEquals(DecompressingReceiver.BAD_FRAME, into ? receiver.receiveInto(dst, 0) : receiver.receive(0));
                assertEquals(bad.reason, receiver.lastErrorReason(), receiver::lastErrorMessage);
                assertEquals(badAt, receiver.lastErrorPart(), receiver::lastErrorMessage);
                assertTrue(receiver.lastErrorMessage().startsWith("bad frame: part=" + badAt + ", reason=" + bad.reason),
                        receiver::lastErrorMessage);
                assertFalse(receiver.message().isValid());
                PipelineStats afterBad = receiver.stats();
                assertEquals(1, afterBad.errors(), afterBad::toString);
                assertEquals(1, afterBad.errors(bad.reason), afterBad::toString);
                assertEquals(0, afterBad.messages(), afterBad::toString);
                assertEquals(0, afterBad.parts(), "the good parts of a refused message count nowhere");
                assertEquals(0, afterBad.compressedBytes(), afterBad::toString);
                assertEquals(0, afterBad.uncompressedBytes(), afterBad::toString);

                assertEquals(DecompressingReceiver.RECEIVED, into ? receiver.receiveInto(dst, 0) : receiver.receive(0),
                        receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(PARTS, m.parts(), "the next message alone, none of the bad one's parts in it");
                long at = 0;
                for (int i = 0; i < PARTS; i++) {
                    assertTrue(m.isCompressed(i));
                    assertArrayEquals(next[i], m.partBytes(i), "part " + i);
                    if (into) {
                        assertEquals(at, m.partOffset(i), "payload parts laid out without gaps in dst");
                        at += next[i].length;
                    }
                }
                PipelineStats afterGood = receiver.stats();
                assertEquals(1, afterGood.messages(), afterGood::toString);
                assertEquals(PARTS, afterGood.parts(), afterGood::toString);
                assertEquals(Arrays.stream(nextFrames).mapToLong(f -> f.length).sum(), afterGood.compressedBytes());
                assertEquals(Arrays.stream(next).mapToLong(p -> p.length).sum(), afterGood.uncompressedBytes());
                assertEquals(1, afterGood.errors(), "no error counted for the good message");
                assertEquals(badAt, receiver.lastErrorPart(), "the last error is kept");
            }
        }
    }

    /** Bad third parts a peer can send, with the reason each must be refused for. */
    enum Bad {
        TOO_LARGE_DECLARED(BadFrameReason.TOO_LARGE),
        TOO_LARGE_STREAMED(BadFrameReason.TOO_LARGE),
        UNKNOWN_DICTIONARY(BadFrameReason.DICTIONARY_MISSING),
        NOT_ZSTD(BadFrameReason.NOT_ZSTD),
        EMPTY_LAST(BadFrameReason.EMPTY),
        CORRUPT(BadFrameReason.CORRUPT);

        final BadFrameReason reason;

        Bad(BadFrameReason reason) {
            this.reason = reason;
        }

        byte[] frame() {
            return switch (this) {
                case TOO_LARGE_DECLARED -> Zstd.compress(Fixtures.payload(LIMIT + 1, 9), 3);
                case TOO_LARGE_STREAMED -> Fixtures.streamed(Fixtures.payload(LIMIT + 1, 9));
                case UNKNOWN_DICTIONARY -> Zstd.compress(Fixtures.payload(300, 9),
                        new ZstdDictCompress(Fixtures.dictionary().bytes(), 3));
                case NOT_ZSTD -> "part three is not a frame".getBytes();
                case EMPTY_LAST -> new byte[0];
                case CORRUPT -> {
                    byte[] f = Zstd.compress(Fixtures.payload(20_000, 9), 3);
                    Arrays.fill(f, 12, f.length - 4, (byte) 0xFF);
                    yield f;
                }
            };
        }
    }

    private static byte[][] goodParts(long seed) {
        byte[][] parts = new byte[PARTS][];
        for (int i = 0; i < PARTS; i++) {
            parts[i] = Fixtures.payload(1_000 * (i + 1) + (int) seed, seed * 10 + i);
        }
        return parts;
    }

    private static byte[][] frames(byte[][] parts) {
        byte[][] frames = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            frames[i] = Zstd.compress(parts[i], 3);
        }
        return frames;
    }

    private static void sendParts(ZmqSocket push, byte[][] frames) {
        for (int i = 0; i < frames.length; i++) {
            assertTrue(push.send(frames[i], i < frames.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
    }
}

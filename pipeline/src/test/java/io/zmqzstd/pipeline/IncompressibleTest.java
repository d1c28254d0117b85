package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Payloads that would not gain from compression go out as raw-block frames once a frame failed to
 * gain, and only then: compressible payloads are compressed before and after, every frame is a
 * valid zstd frame that arrives intact, and the option is refused where raw frames are.
 */
class IncompressibleTest {

    private static final int SIZE = 4096;

    private static MemorySegment segment(byte[] b) {
        return MemorySegment.ofArray(b);
    }

    @Test
    void shouldLookOnlyAfterAFrameThatDidNotGain() {
        IncompressibleCheck check = new IncompressibleCheck();
        MemorySegment random = segment(Fixtures.random(SIZE, 1));
        MemorySegment telemetry = segment(Fixtures.payload(SIZE, 1));
        assertFalse(check.looksIncompressible(random, 0, SIZE), "not watching: nothing is looked at");
        check.compressed(SIZE, SIZE / 3);
        assertFalse(check.watching(), "a frame that gained starts no watch");
        check.compressed(SIZE, SIZE - SIZE / 128);
        assertTrue(check.watching(), "a frame that saved less than 1/64 starts the watch");
        assertTrue(check.looksIncompressible(random, 0, SIZE), "random bytes look incompressible");
        assertFalse(check.looksIncompressible(telemetry, 0, SIZE), "JSON lines do not");
        assertTrue(check.looksIncompressible(random, 100, 300), "a slice of random bytes");
        MemorySegment large = segment(Fixtures.random((int) IncompressibleCheck.MAX_PAYLOAD_BYTES + 1, 2));
        assertFalse(check.looksIncompressible(large, 0, large.byteSize()), "above 16 KiB payloads are always compressed");
        assertFalse(check.looksIncompressible(segment(new byte[SIZE]), 0, SIZE), "zeros do not");
        for (int i = 0; i < IncompressibleCheck.WATCH_MESSAGES; i++) {
            assertFalse(check.looksIncompressible(telemetry, 0, SIZE));
        }
        assertFalse(check.watching(), "the watch ends after " + IncompressibleCheck.WATCH_MESSAGES + " compressible payloads");
        assertFalse(check.looksIncompressible(random, 0, SIZE), "and nothing is looked at again");
    }

    /**
     * A stream of random payloads: the first is compressed (and does not gain), the rest go raw,
     * and everything arrives intact; then compressible payloads are compressed again. With the
     * option off every payload is compressed.
     */
    @ParameterizedTest(name = "rawIncompressible {0}")
    @ValueSource(booleans = {true, false})
    void shouldSendRandomPayloadsRawAfterTheFirstAndCompressTheRest(boolean on) {
        int count = 200;
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).rawIncompressible(on).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertEquals(on, sender.rawIncompressible());
                // 16 KiB, the longest payload looked at, and 300 kB, above it: always compressed
                sendAndCheck(sender, receiver, count, seq -> Fixtures.random(seq % 2 == 0 ? SIZE : seq % 4 == 1 ? 16384 : 300_000, seq));
                PipelineStats random = sender.stats();
                assertEquals(on ? count / 4 * 3 - 1 : 0, random.rawFrames(), random::toString);
                sendAndCheck(sender, receiver, count, seq -> Fixtures.payload(SIZE, seq));
                PipelineStats after = sender.stats();
                assertEquals(random.rawFrames(), after.rawFrames(), "JSON lines are compressed: " + after);
                long jsonIn = after.uncompressedBytes() - random.uncompressedBytes();
                long jsonOut = after.compressedBytes() - random.compressedBytes();
                assertTrue(jsonOut * 2 < jsonIn, "compressed: " + jsonIn + " -> " + jsonOut);
            }
        }
    }

    /** Random and JSON payloads mixed: each judged on its own while watching, so JSON stays compressed. */
    @Test
    void shouldCompressTheCompressiblePayloadsOfAMixedStream() {
        int count = 300;
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(2).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.rawIncompressible(), "on by default");
                LongFunction<byte[]> mixed = seq -> seq % 3 == 0 ? Fixtures.payload(SIZE, seq) : Fixtures.random(SIZE, seq);
                for (long seq = 0; seq < count; seq++) {
                    assertTrue(sender.send(mixed.apply(seq), 0));
                }
                sender.flush();
                long out = 0;
                for (long seq = 0; seq < count; seq++) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), () -> receiver.lastErrorMessage());
                    assertArrayEquals(mixed.apply(seq), receiver.message().partBytes(0), "message " + seq);
                }
                PipelineStats stats = sender.stats();
                long randoms = count - count / 3;
                // each worker compresses its first random payload (and whatever a 2 % chance of a
                // lumpy sample sends its way); the JSON lines are never sent raw
                assertTrue(stats.rawFrames() >= randoms - 2 - randoms / 10 && stats.rawFrames() <= randoms, stats::toString);
                long jsonOut = stats.compressedBytes() - (randoms * (SIZE + 16));
                assertTrue(jsonOut < (count / 3) * SIZE / 2, "the JSON lines were compressed: " + stats);
            }
        }
    }

    /** A raw frame written for an incompressible payload is a standard frame: zstd-jni decodes it. */
    @Test
    void shouldWriteRawFramesThatAnyDecoderReads() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build()) {
                for (int seq = 0; seq < 3; seq++) {
                    byte[] payload = Fixtures.random(SIZE, seq);
                    assertTrue(sender.send(payload, 0));
                    byte[] frame = new byte[SIZE + 64];
                    int n = link.server().receive(frame, 0);
                    byte[] decoded = Zstd.decompress(java.util.Arrays.copyOf(frame, n), SIZE);
                    assertArrayEquals(payload, decoded, "frame " + seq);
                }
                assertEquals(2, sender.stats().rawFrames(), () -> sender.stats().toString());
            }
        }
    }

    @Test
    void shouldRefuseTheOptionWhereRawFramesCannotGo() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CompressingSender.builder(push).checksum(true).rawIncompressible(true).build());
            assertTrue(e.getMessage().contains("rawIncompressible") && e.getMessage().contains("checksum"), e::getMessage);
            e = assertThrows(IllegalArgumentException.class,
                    () -> ParallelCompressingSender.builder(push).dictionary(Fixtures.dictionary()).rawIncompressible(true).build());
            assertTrue(e.getMessage().contains("dictionary"), e::getMessage);
            try (CompressingSender withChecksum = CompressingSender.builder(push).checksum(true).build();
                 CompressingSender withDictionary = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build()) {
                assertFalse(withChecksum.rawIncompressible(), "off by default with a checksum");
                assertFalse(withDictionary.rawIncompressible(), "and with a dictionary");
            }
        }
    }

    private static void sendAndCheck(CompressingSender sender, DecompressingReceiver receiver, int count,
            LongFunction<byte[]> payloads) {
        for (long seq = 0; seq < count; seq++) {
            byte[] p = payloads.apply(seq);
            assertTrue(sender.send(p, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(p, receiver.message().partBytes(0), "message " + seq);
        }
    }

    /**
     * Once the check watches (after a frame that did not gain), it reads the payload before
     * compressing: a later part that cannot be read must end the open message as a compression
     * failure does (a closing 0-byte part, counted abandoned), not leave it open for the next
     * message to be glued onto.
     */
    @Test
    void shouldEndTheOpenMessageWhenTheWatchCannotReadAPart() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(Fixtures.random(4096, 1), 0)); // does not gain: the watch begins
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);

                assertTrue(sender.send(Fixtures.payload(1000, 2), ZmqSocket.SNDMORE));
                MemorySegment gone;
                try (Arena arena = Arena.ofShared()) {
                    gone = arena.allocate(4096);
                }
                MemorySegment closed = gone;
                assertThrows(IllegalStateException.class, () -> sender.send(closed, 0));
                byte[] next = Fixtures.payload(700, 3);
                assertTrue(sender.send(next, 0));

                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0),
                        () -> "the broken message arrived whole: abandonedMessages=" + sender.stats().abandonedMessages());
                assertEquals(BadFrameReason.EMPTY, receiver.lastErrorReason());
                assertEquals(1, sender.stats().abandonedMessages());
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts());
                assertArrayEquals(next, receiver.message().partBytes(0));
            }
        }
    }
}

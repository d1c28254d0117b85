package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Senders that leave the dictionary ID out ({@code dictionaryIdInFrame(false)}) and receivers
 * told which dictionary frames without an ID use ({@code dictionaryForFramesWithoutId}).
 */
class NoDictionaryIdTest {

    private static final String NO_ID = "the frame declares no dictionary ID";

    @Test
    void shouldSendFramesFourBytesShorterThatRoundTripOverTcp() {
        ZstdDictionary dict = Fixtures.dictionary();
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            ZmqSocket pull = link.server();
            // a socket of its own: no parallel sender is built on one a CompressingSender uses
            ZmqSocket parallelPush = ctx.socket(SocketType.PUSH);
            parallelPush.connect(pull.lastEndpoint());
            try (CompressingSender withId = CompressingSender.builder(link.client()).dictionary(dict).build();
                 CompressingSender noId = CompressingSender.builder(link.client()).dictionary(dict)
                         .dictionaryIdInFrame(false).build();
                 ParallelCompressingSender parallelNoId = ParallelCompressingSender.builder(parallelPush).workers(2)
                         .dictionary(dict).dictionaryIdInFrame(false).build()) {
                byte[] data = Fixtures.payload(120, 5);
                assertTrue(withId.send(data, 0));
                byte[] a = pull.receiveBytes(0);
                assertTrue(noId.send(data, 0));
                byte[] b = pull.receiveBytes(0);
                assertTrue(parallelNoId.send(data, 0));
                assertTrue(parallelNoId.flush(Fixtures.RECEIVE_TIMEOUT_MS));
                byte[] c = pull.receiveBytes(0);
                assertEquals(dict.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(a)));
                assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(b)));
                assertTrue(Integer.compareUnsigned(dict.id(), 65536) >= 0, "a 4-byte ID field: id=" + dict.id());
                assertEquals(4, a.length - b.length, "exactly the ID field left out");
                assertArrayEquals(b, c, "the parallel sender writes the same frame");

                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull)
                        .dictionary(dict).dictionaryForFramesWithoutId(dict).build()) {
                    for (int i = 0; i < 60; i++) {
                        byte[] msg = Fixtures.payload(64 + 4 * i, 100 + i);
                        switch (i % 3) {
                            case 0 -> assertTrue(withId.send(msg, 0));
                            case 1 -> assertTrue(noId.send(msg, 0));
                            default -> {
                                assertTrue(parallelNoId.send(msg, 0));
                                assertTrue(parallelNoId.flush(Fixtures.RECEIVE_TIMEOUT_MS));
                            }
                        }
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                        assertArrayEquals(msg, receiver.message().partBytes(0), "message " + i);
                    }
                    assertEquals(0, receiver.stats().errors());
                }
            }
        }
    }

    @Test
    void shouldRefuseFramesWithoutIdNamingTheOptionAndGoOn() {
        ZstdDictionary dict = Fixtures.dictionary();
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (CompressingSender noId = CompressingSender.builder(link.client()).dictionary(dict)
                         .dictionaryIdInFrame(false).build();
                 CompressingSender withId = CompressingSender.builder(link.client()).dictionary(dict).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(dict).build()) {
                assertTrue(noId.send(Fixtures.payload(150, 1), 0));
                byte[] next = Fixtures.payload(150, 2);
                assertTrue(withId.send(next, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                String message = receiver.lastErrorMessage();
                assertTrue(message.contains(NO_ID) && message.contains("dictionaryForFramesWithoutId"), message);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0));
            }
        }
    }

    @Test
    void shouldReceiveZstdJniFramesWithoutIdOnlyWithTheOption() {
        ZstdDictionary dict = Fixtures.dictionary();
        byte[] data = Fixtures.payload(200, 9);
        byte[] frame;
        try (ZstdCompressCtx jc = new ZstdCompressCtx()) {
            jc.loadDict(new ZstdDictCompress(dict.bytes(), 3));
            jc.setDictID(false);
            frame = jc.compress(data);
        }
        assertEquals(0, ZstdFrames.dictionaryId(MemorySegment.ofArray(frame)));
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (DecompressingReceiver without = DecompressingReceiver.builder(link.server()).dictionary(dict).build()) {
                assertTrue(link.client().send(frame, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, without.receive(0));
                assertTrue(without.lastErrorMessage().contains(NO_ID), without::lastErrorMessage);
            }
            try (DecompressingReceiver with = DecompressingReceiver.builder(link.server())
                    .dictionaryForFramesWithoutId(dict).build()) {
                assertTrue(link.client().send(frame, 0));
                assertEquals(DecompressingReceiver.RECEIVED, with.receive(0), with::lastErrorMessage);
                assertArrayEquals(data, with.message().partBytes(0));
            }
        }
    }

    @Test
    void shouldRefuseMisuseAtBuild() {
        ZstdDictionary raw = ZstdDictionary.of("raw content used as a dictionary".getBytes(StandardCharsets.US_ASCII));
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            Fixtures.assertRefusedNaming("dictionaryIdInFrame(false) without a dictionary",
                    () -> CompressingSender.builder(push).dictionaryIdInFrame(false).build());
            Fixtures.assertRefusedNaming("dictionaryIdInFrame(false) without a dictionary",
                    () -> ParallelCompressingSender.builder(push).dictionaryIdInFrame(false).build());
            Fixtures.assertRefusedNaming("raw-content dictionary (id=0)",
                    () -> DecompressingReceiver.builder(pull).dictionary(raw)
                            .dictionaryForFramesWithoutId(Fixtures.dictionary()).build());
            // the socket is still usable by a sender built right
            try (CompressingSender s = CompressingSender.builder(push).dictionary(Fixtures.dictionary())
                    .dictionaryIdInFrame(false).build()) {
                assertEquals(0, s.stats().messages());
            }
        }
    }
}

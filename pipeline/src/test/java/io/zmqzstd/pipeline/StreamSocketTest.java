package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A STREAM socket carries TCP bytes cut and joined anywhere, behind a routing id, not messages.
 * A receiver cannot find one zstd frame per part on it and is refused; before 2026-11-27 it was
 * built and refused every message, a valid frame from a plain TCP peer included, as
 * {@code NOT_ZSTD}. A sender is built on one: {@code publish(routingId, payload)} writes the frame
 * to that peer whole.
 */
class StreamSocketTest {

    @Test
    void shouldRefuseAReceiverOnAStreamSocketNamingWhy() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket stream = ctx.socket(SocketType.STREAM);
            stream.bind("tcp://127.0.0.1:*");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> DecompressingReceiver.builder(stream).build());
            assertTrue(e.getMessage().startsWith("socket type carries no messages: type=STREAM ")
                    && e.getMessage().contains("zstd frame") && e.getMessage().contains("a receiver takes [PAIR")
                    && !e.getMessage().contains("STREAM]") && !e.getMessage().contains("STREAM,"), e::getMessage);
            assertEquals(0, ctx.bufferPool().outstanding());
            assertFalse(stream.isClosed(), "the socket stays the caller's");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldWriteACompressedFrameWholeToAPlainTcpPeerThroughAStreamSocket() throws Exception {
        byte[] payload = "telemetry to a peer that speaks plain TCP, not ZMTP; ".repeat(200).getBytes(StandardCharsets.UTF_8);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket stream = ctx.socket(SocketType.STREAM);
            stream.bind("tcp://127.0.0.1:*");
            URI endpoint = URI.create(stream.lastEndpoint());
            ParallelCompressingSender.builder(stream).workers(1).build().close(); // a parallel sender builds too
            try (CompressingSender sender = CompressingSender.builder(stream).build();
                 SocketChannel peer = SocketChannel.open(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()))) {
                byte[] routingId = stream.receiveBytes(0); // the peer's connection: its routing id, then an empty part
                assertTrue(stream.hasMore());
                assertEquals(0, stream.receiveBytes(0).length);
                assertTrue(sender.publish(routingId, payload, 0));
                ByteArrayOutputStream received = new ByteArrayOutputStream();
                ByteBuffer buffer = ByteBuffer.allocate(8192);
                while (!wholeFrame(received.toByteArray())) { // TCP bytes: read until the frame is whole
                    assertTrue(peer.read(buffer.clear()) >= 0, "the connection ended inside the frame");
                    received.write(buffer.array(), 0, buffer.position());
                }
                try (ZstdDecompressor d = ZstdDecompressor.builder().build()) {
                    assertArrayEquals(payload, d.decompress(received.toByteArray()), "one zstd frame, the payload");
                }
                assertEquals(1, sender.stats().messages());
            }
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    /**
     * A frame to a routing id the STREAM does not know (that client never connected, or is gone:
     * routine for a server of plain TCP clients) is that message's outcome alone for a parallel
     * sender, on a worker and inline: dropped and counted, and the frames to the peer that is there,
     * before and after it, all arrive. Before 2026-11-28 only a ROUTER's refusal was so taken: on a
     * STREAM the sender failed, and every frame behind it, to every other client, was dropped.
     */
    @ParameterizedTest(name = "inline {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldDropAFrameToAPlainTcpPeerThatIsNotThereAndGoOnWithTheOthers(boolean inline) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket stream = ctx.socket(SocketType.STREAM);
            stream.bind("tcp://127.0.0.1:*");
            URI endpoint = URI.create(stream.lastEndpoint());
            try (SocketChannel peer = SocketChannel.open(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()))) {
                byte[] known = stream.receiveBytes(0);
                assertEquals(0, stream.receiveBytes(0).length, "the connection's notification: its routing id, then nothing");
                byte[] unknown = known.clone();
                unknown[unknown.length - 1] ^= 0x55; // libzmq's ids of a STREAM: 0 then a 4-byte counter
                int frames = 5;
                int unknownAt = 2;
                ParallelCompressingSender sender = ParallelCompressingSender.builder(stream).workers(2)
                        .inlineBelowBytes(inline ? 1 << 16 : 0).inlineAfterIdleNanos(0).build();
                for (int i = 0; i < frames; i++) {
                    assertTrue(sender.publish(i == unknownAt ? unknown : known, Fixtures.payload(2000 + i, i), 0), "taken: " + i);
                    sender.flush(); // in order on the wire, and nothing in flight: the next one may go inline
                }
                PipelineStats stats = sender.stats();
                assertEquals(1, stats.droppedMessages(), stats::toString);
                assertEquals(frames - 1, stats.messages(), stats::toString);
                assertEquals(inline ? frames - 1 : 0, stats.inlineMessages(), () -> "the path taken: " + stats);
                ByteArrayOutputStream received = new ByteArrayOutputStream();
                ByteBuffer buffer = ByteBuffer.allocate(8192);
                try (ZstdDecompressor d = ZstdDecompressor.builder().build()) {
                    for (int i = 0; i < frames; i++) {
                        if (i == unknownAt) {
                            continue;
                        }
                        byte[] frame = nextFrame(peer, received, buffer);
                        assertArrayEquals(Fixtures.payload(2000 + i, i), d.decompress(frame), "frame " + i);
                    }
                }
                sender.close();
                assertEquals(0, received.size(), "nothing more than the frames to the peer that is there");
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /**
     * The next whole zstd frame off the TCP bytes of {@code peer}: read until {@code pending} holds
     * one, which is taken out; the bytes behind it stay in {@code pending}.
     */
    private static byte[] nextFrame(SocketChannel peer, ByteArrayOutputStream pending, ByteBuffer buffer) throws Exception {
        while (true) {
            byte[] bytes = pending.toByteArray();
            long size = frameSize(bytes);
            if (size > 0) {
                pending.reset();
                pending.write(bytes, (int) size, bytes.length - (int) size);
                return Arrays.copyOf(bytes, (int) size);
            }
            assertTrue(peer.read(buffer.clear()) >= 0, "the connection ended inside a frame");
            pending.write(buffer.array(), 0, buffer.position());
        }
    }

    /** The size of the whole zstd frame at the start of {@code bytes}, or 0 while it is truncated. */
    private static long frameSize(byte[] bytes) {
        try {
            return bytes.length == 0 ? 0 : ZstdFrames.compressedSize(MemorySegment.ofArray(bytes));
        } catch (ZstdException e) {
            return 0; // truncated so far
        }
    }

    /** Whether {@code bytes} are one zstd frame, no more and no less. */
    private static boolean wholeFrame(byte[] bytes) {
        return bytes.length > 0 && frameSize(bytes) == bytes.length;
    }
}

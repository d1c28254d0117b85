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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    /** Whether {@code bytes} are one zstd frame, no more and no less. */
    private static boolean wholeFrame(byte[] bytes) {
        try {
            return bytes.length > 0 && ZstdFrames.compressedSize(MemorySegment.ofArray(bytes)) == bytes.length;
        } catch (ZstdException e) {
            return false; // truncated so far
        }
    }
}

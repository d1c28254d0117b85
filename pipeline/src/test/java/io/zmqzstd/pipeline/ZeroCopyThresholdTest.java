package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One rule: a frame goes out zero-copy when it is at least the sender's zeroCopyThresholdBytes. */
class ZeroCopyThresholdTest {

    @Test
    void shouldRefuseASenderThresholdBelowTheSockets() {
        try (ZmqContext ctx = new ZmqContext()) {
            var push = ctx.socket(SocketType.PUSH);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CompressingSender.builder(push).zeroCopyThresholdBytes(1024).build());
            assertTrue(e.getMessage().contains("zeroCopyThresholdBytes=1024")
                    && e.getMessage().contains("socketZeroCopyThresholdBytes=" + NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES),
                    e.getMessage());
            try (CompressingSender sender = CompressingSender.builder(push).build()) {
                assertEquals(NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, sender.zeroCopyThresholdBytes());
            }
            var inproc = ctx.socket(SocketType.PUSH);
            inproc.bind("inproc://threshold-" + System.nanoTime());
            assertThrows(IllegalArgumentException.class,
                    () -> ParallelCompressingSender.builder(inproc).zeroCopyThresholdBytes(256).build());
            try (CompressingSender sender = CompressingSender.builder(inproc).zeroCopyThresholdBytes(1024).build()) {
                assertEquals(1024, sender.zeroCopyThresholdBytes(), "allowed on an inproc-only socket");
            }
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(inproc).build()) {
                assertEquals(NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, sender.zeroCopyThresholdBytes(),
                        "the pool's 8 KiB by default, on inproc too");
            }
            push.lingerMs(0);
            inproc.lingerMs(0);
        }
    }

    /** A sender's threshold never goes below its socket's, also when an endpoint added later raises it. */
    @Test
    void shouldFollowTheSocketsThresholdWhenAnEndpointOfAnotherTransportJoins() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            var tcpPeer = ctx.socket(SocketType.PULL);
            tcpPeer.bind("tcp://127.0.0.1:*");
            try (CompressingSender lowest = CompressingSender.builder(link.client()).zeroCopyThresholdBytes(512).build();
                 CompressingSender set = CompressingSender.builder(link.client()).zeroCopyThresholdBytes(1024).build()) {
                assertEquals(512, lowest.zeroCopyThresholdBytes());
                assertEquals(1024, set.zeroCopyThresholdBytes());
                link.client().connect(tcpPeer.lastEndpoint());
                assertEquals(8192, lowest.zeroCopyThresholdBytes(), "never below the socket's");
                assertEquals(8192, set.zeroCopyThresholdBytes(), "never below the socket's");
            }
            tcpPeer.lingerMs(0);
            link.client().lingerMs(0);
        }
    }

    @Test
    void shouldSendZeroCopyExactlyTheFramesAtOrAboveTheSendersThreshold() {
        long threshold = 32 * 1024; // above the pool's 8 KiB
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            NativeBufferPool pool = ctx.bufferPool();
            try (CompressingSender sender = CompressingSender.builder(link.client()).zeroCopyThresholdBytes(threshold).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                // random 64 KiB: a frame of 64 KiB, zero-copy
                assertSent(sender, receiver, Fixtures.random(64 * 1024, 1), true);
                // telemetry 64 KiB compresses below 32 KiB: copied, although the pool's own
                // threshold (8 KiB) would have let it through; its pooled buffer is back at once
                assertSent(sender, receiver, Fixtures.payload(64 * 1024, 2), false);
                assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
                // random 16 KiB: below the threshold before compressing, copied from scratch
                assertSent(sender, receiver, Fixtures.random(16 * 1024, 3), false);
                assertEquals(1, sender.stats().zeroCopySends(), sender.stats()::toString);
                assertEquals(2, sender.stats().copiedSends(), sender.stats()::toString);
                assertEquals(2, sender.stats().poolRents(), "the two 64 KiB payloads rent, the 16 KiB one does not");
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    /** The pipeline's default is the pool's 8 KiB over every transport, inproc included. */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldSendFramesFromEightKibZeroCopyWithTheDefaults(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            NativeBufferPool pool = ctx.bufferPool();
            assertEquals(8192, pool.zeroCopyThresholdBytes());
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertSent(sender, receiver, Fixtures.random(16 * 1024, 4), true);  // frame about 16 KiB
                assertSent(sender, receiver, Fixtures.random(8 * 1024, 5), true);   // 8 KiB plus the frame's header
                assertSent(sender, receiver, Fixtures.payload(16 * 1024, 6), false); // compresses below 8 KiB: copied
                assertSent(sender, receiver, Fixtures.random(4 * 1024, 7), false);   // from scratch, no rent
                assertEquals(3, sender.stats().poolRents(), "the three payloads of 8 KiB and more rent, the 4 KiB one does not");
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    /** Over inproc a sender may go as low as the socket's 512 B. */
    @Test
    void shouldSendFramesFromHalfAKibZeroCopyOverInprocWhenSetSo() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            NativeBufferPool pool = ctx.bufferPool();
            try (CompressingSender sender = CompressingSender.builder(link.client()).zeroCopyThresholdBytes(512).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertEquals(512, sender.zeroCopyThresholdBytes());
                assertSent(sender, receiver, Fixtures.random(4 * 1024, 8), true);  // frame about 4 KiB
                assertSent(sender, receiver, Fixtures.random(600, 9), true);       // 600 B plus the header
                assertSent(sender, receiver, Fixtures.payload(1024, 10), false);   // compresses below 512 B: copied
                assertSent(sender, receiver, Fixtures.random(300, 11), false);     // from scratch, no rent
                assertEquals(3, sender.stats().poolRents(), "the three payloads of 512 B and more rent, the 300 B one does not");
            }
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        }
    }

    private static void assertSent(CompressingSender sender, DecompressingReceiver receiver, byte[] data,
                                   boolean zeroCopy) {
        PipelineStats before = sender.stats();
        assertTrue(sender.send(data, 0));
        PipelineStats after = sender.stats();
        long frameBytes = after.compressedBytes() - before.compressedBytes();
        assertEquals(zeroCopy, frameBytes >= sender.zeroCopyThresholdBytes(), () -> "frame=" + frameBytes);
        assertEquals(zeroCopy ? 1 : 0, after.zeroCopySends() - before.zeroCopySends(), () -> "frame=" + frameBytes);
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        assertArrayEquals(data, receiver.message().partBytes(0));
    }
}

package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackPressureTest {

    private static final int HWM = 5;
    private static final int MESSAGES = 400;

    @ParameterizedTest(name = "payload={0} B")
    @ValueSource(ints = {1024, 64 * 1024})
    void shouldKeepPayloadOnWouldBlockAndLoseNothing(int size) {
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(HWM);
            pull.receiveHwm(HWM);
            Fixtures.link(pull, push, "inproc");
            MemorySegment payload = arena.allocate(size);
            MemorySegment.copy(Fixtures.payload(size, 1), 0, payload, ValueLayout.JAVA_BYTE, 0, size);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                long expected = 0;
                long wouldBlock = 0;
                for (long seq = 0; seq < MESSAGES; seq++) {
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    while (!sender.send(payload, ZmqSocket.DONTWAIT)) {
                        wouldBlock++;
                        assertEquals(seq, payload.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "payload untouched");
                        // drain what has arrived (libzmq tells the writer about room only every few
                        // messages, so the queue may already be empty), then re-send the same payload
                        while (receiver.receive(ZmqSocket.DONTWAIT) == DecompressingReceiver.RECEIVED) {
                            assertEquals(expected++, sequenceOf(receiver.message()));
                        }
                        assertTrue(wouldBlock < 100L * MESSAGES, "no progress");
                    }
                }
                while (expected < MESSAGES) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertEquals(expected++, sequenceOf(receiver.message()));
                }
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertTrue(wouldBlock > 0, "the high-water mark was never reached");
                assertEquals(wouldBlock, sender.stats().wouldBlock());
                assertEquals(MESSAGES, sender.stats().messages());
                assertEquals(MESSAGES, receiver.stats().messages());
                assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
                pool.assertNoLeaks();
            }
        } finally {
            pool.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldBlockAtHighWaterMarkUntilReceiverCatchesUp(String transport) throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(HWM);
            pull.receiveHwm(HWM);
            Fixtures.link(pull, push, transport);
            AtomicLong received = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                Thread reader = new Thread(() -> {
                    try {
                        for (long expected = 0; expected < MESSAGES; expected++) {
                            if (receiver.receive(0) != DecompressingReceiver.RECEIVED
                                    || sequenceOf(receiver.message()) != expected) {
                                throw new AssertionError("lost or reordered at " + expected);
                            }
                            received.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "reader");
                try (CompressingSender sender = CompressingSender.builder(push).build()) {
                    byte[] data = Fixtures.payload(64 * 1024, 2);
                    reader.start();
                    for (long seq = 0; seq < MESSAGES; seq++) {
                        java.nio.ByteBuffer.wrap(data).putLong(0, Long.reverseBytes(seq));
                        assertTrue(sender.send(data, 0)); // blocks at the HWM, never false
                    }
                    reader.join(60_000);
                    assertFalse(reader.isAlive());
                }
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(MESSAGES, received.get());
            assertTrue(Fixtures.await(() -> pool.outstanding() == 0, 10_000), () -> pool.stats().toString());
        } finally {
            pool.close();
        }
    }

    static long sequenceOf(ReceivedMessage m) {
        return m.region().get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(0));
    }
}

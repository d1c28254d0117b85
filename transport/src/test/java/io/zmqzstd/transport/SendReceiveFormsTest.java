package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Every send and receive form with the memory and outcomes the class comment and the README
 * promise: segments of every kind, "would block" at the high-water mark with nothing lost, a
 * message left unfinished by a close, a message outliving its context, ETERM for every receive.
 */
class SendReceiveFormsTest extends ContextTestBase {

    private ZmqSocket pull;
    private ZmqSocket push;

    private void connectInproc(int hwm) {
        pull = socket(SocketType.PULL);
        push = socket(SocketType.PUSH);
        pull.receiveHwm(hwm);
        push.sendHwm(hwm);
        push.connect(Endpoints.bindAny(pull, "inproc"));
    }

    @Test
    void shouldSendAndReceiveSegmentsOfEveryKind() {
        connectInproc(1000);
        MemorySegment ints = MemorySegment.ofArray(new int[] {0x01020304, 0x05060708, 0x090a0b0c});
        assertTrue(push.send(ints, 3, 7, 0), "a heap segment of an int[], odd offset and length");
        assertArrayEquals(ints.asSlice(3, 7).toArray(ValueLayout.JAVA_BYTE), pull.receiveBytes(0));
        MemorySegment longs = MemorySegment.ofArray(new long[] {-1L, 0x1122334455667788L}).asReadOnly();
        assertTrue(push.send(longs, 5, 9, 0), "a read-only heap segment of a long[]");
        assertArrayEquals(longs.asSlice(5, 9).toArray(ValueLayout.JAVA_BYTE), pull.receiveBytes(0));
        MemorySegment global = Arena.global().allocate(5);
        global.fill((byte) 3);
        assertTrue(push.send(global.asReadOnly(), 1, 3, 0), "a read-only slice of Arena.global()");
        assertArrayEquals(new byte[] {3, 3, 3}, pull.receiveBytes(0));
        assertTrue(push.send(MemorySegment.NULL, 0, 0, 0), "MemorySegment.NULL: an empty frame");
        assertArrayEquals(new byte[0], pull.receiveBytes(0));
        assertThrows(IndexOutOfBoundsException.class, () -> push.send(MemorySegment.NULL, 0, 1, 0));

        MemorySegment deadConfined;
        try (Arena arena = Arena.ofConfined()) {
            deadConfined = arena.allocate(8);
        }
        Arena shared = Arena.ofShared();
        MemorySegment deadShared = shared.allocate(8);
        shared.close();
        assertThrows(IllegalStateException.class, () -> push.send(deadConfined, 0, 8, 0));
        assertThrows(IllegalStateException.class, () -> push.send(deadShared, 0, 0, 0), "even for no bytes");

        assertTrue(push.send(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0));
        long[] into = new long[2];
        assertEquals(9, pull.receive(MemorySegment.ofArray(into).asSlice(3, 5), 0), "truncated into a long[]'s slice");
        assertArrayEquals(new byte[] {0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0},
                MemorySegment.ofArray(into).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(-1, pull.receive(MemorySegment.NULL, ZmqSocket.DONTWAIT));
        assertTrue(push.send(new byte[] {1, 2}, 0));
        assertTrue(push.send(new byte[] {3}, 0));
        assertThrows(IllegalStateException.class, () -> pull.receive(deadShared, 0));
        assertEquals(2, pull.receive(MemorySegment.NULL, 0), "into no bytes: its size, the frame discarded");
        assertArrayEquals(new byte[] {3}, pull.receiveBytes(0));
    }

    /**
     * At the high-water mark every send form returns false under DONTWAIT, sends nothing and leaves
     * the caller what it had: the message its frame, the pooled buffers (zero-copy and copied)
     * their ownership. Once the receiver drains, each goes through, in order, nothing lost.
     */
    @Test
    void shouldRefuseEverySendFormAtTheHighWaterMarkAndLoseNothing() {
        connectInproc(1);
        int queued = 0;
        while (push.send(new byte[] {(byte) queued}, ZmqSocket.DONTWAIT)) {
            queued++;
        }
        assertTrue(queued > 0);
        try (Arena arena = Arena.ofConfined(); ZmqMessage message = new ZmqMessage()) {
            MemorySegment nativeBytes = arena.allocate(3);
            nativeBytes.fill((byte) 5);
            message.set(MemorySegment.ofArray(new byte[] {7, 7}));
            PooledBuffer zeroCopy = ctx.bufferPool().rent(100_000);
            PooledBuffer copied = ctx.bufferPool().rent(10);
            assertTrue(push.zeroCopyThresholdBytes() <= 100_000 && push.zeroCopyThresholdBytes() > 10);

            assertFalse(push.send(new byte[] {4}, ZmqSocket.DONTWAIT));
            assertFalse(push.send(MemorySegment.ofArray(new byte[] {6}), 0, 1, ZmqSocket.DONTWAIT));
            assertFalse(push.send(nativeBytes, 0, 3, ZmqSocket.DONTWAIT));
            assertFalse(push.send(message, ZmqSocket.DONTWAIT));
            assertArrayEquals(new byte[] {7, 7}, message.toByteArray(), "the message keeps its frame");
            assertFalse(push.sendPooled(zeroCopy, 100_000, ZmqSocket.DONTWAIT));
            assertFalse(push.sendPooled(copied, 10, ZmqSocket.DONTWAIT));
            zeroCopy.segment().fill((byte) 8); // still the caller's to write
            copied.segment().fill((byte) 9);

            for (int i = 0; i < queued; i++) {
                assertArrayEquals(new byte[] {(byte) i}, pull.receiveBytes(0));
            }
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT), "none of the refused sends went out");
            assertTrue(push.send(message, 0));
            assertArrayEquals(new byte[] {7, 7}, pull.receiveBytes(0));
            assertTrue(push.sendPooled(zeroCopy, 100_000, 0));
            byte[] expected = new byte[100_000];
            Arrays.fill(expected, (byte) 8);
            assertArrayEquals(expected, pull.receiveBytes(0));
            assertTrue(push.sendPooled(copied, 10, 0));
            assertArrayEquals(new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, pull.receiveBytes(0));
            assertTrue(push.send(nativeBytes, 0, 3, 0));
            assertArrayEquals(new byte[] {5, 5, 5}, pull.receiveBytes(0));
        }
    }

    /** An expired ZMQ_RCVTIMEO is "would block" in every receive form, after the timeout and not long after it. */
    @Test
    void shouldReportAnExpiredReceiveTimeoutAsWouldBlockInEveryForm() {
        connectInproc(1000);
        pull.receiveTimeoutMs(30);
        try (ZmqMessage message = new ZmqMessage(); Arena arena = Arena.ofConfined()) {
            message.set(MemorySegment.ofArray(new byte[] {1}));
            long start = System.nanoTime();
            assertFalse(pull.receive(message, 0));
            assertEquals(0, message.size(), "and the message is empty");
            assertEquals(-1, pull.receive(new byte[4], 0));
            assertEquals(-1, pull.receive(arena.allocate(4), 0));
            assertNull(pull.receiveBytes(0));
            assertNull(pull.receiveString(0));
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMs >= 5 * 30 - 5 * 2 && elapsedMs < 5_000, "five timeouts of 30 ms took " + elapsedMs + " ms");
        }
        assertTrue(push.send(b("after"), 0));
        assertEquals("after", pull.receiveString(0), "the socket goes on");
    }

    /** libzmq flushes only whole messages: a close with one unfinished delivers those before it, over its linger. */
    @Test
    void shouldDeliverTheWholeMessagesAndNotTheUnfinishedOneWhenTheSenderCloses() {
        pull = socket(SocketType.PULL);
        String endpoint = Endpoints.bindAny(pull, "tcp");
        push = ctx.socket(SocketType.PUSH);
        push.lingerMs(5000);
        push.connect(endpoint);
        assertTrue(push.send(b("whole"), ZmqSocket.SNDMORE));
        assertTrue(push.send(b("message"), 0));
        assertTrue(push.send(b("unfinished"), ZmqSocket.SNDMORE));
        assertTrue(push.send(b("message"), ZmqSocket.SNDMORE));
        push.close();
        assertEquals("whole", pull.receiveString(0));
        assertTrue(pull.hasMore());
        assertEquals("message", pull.receiveString(0));
        assertFalse(pull.hasMore());
        pull.receiveTimeoutMs(200);
        assertNull(pull.receiveString(0), "no part of the unfinished message");
    }

    /** A frame belongs to no socket or context: received in one, viewed after its context closed, sent in another. */
    @Test
    void shouldKeepAReceivedFrameAcrossAContextCloseAndSendItInAnother() {
        try (ZmqContext other = new ZmqContext(); ZmqMessage message = new ZmqMessage()) {
            connectTcp();
            byte[] big = new byte[100_000];
            Arrays.fill(big, (byte) 5);
            assertTrue(push.send(big, ZmqSocket.SNDMORE));
            assertTrue(push.send(new byte[] {1}, 0));
            assertTrue(pull.receive(message, 0));
            MemorySegment view = message.data();
            ctx.close();
            assertEquals(5, view.get(ValueLayout.JAVA_BYTE, 99_999), "the frame outlives its context");

            ZmqSocket pull2 = timed(other.socket(SocketType.PULL));
            ZmqSocket push2 = timed(other.socket(SocketType.PUSH));
            push2.connect(Endpoints.bindAny(pull2, "inproc"));
            assertTrue(push2.send(message, ZmqSocket.SNDMORE));
            assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0), "a send ends the view");
            assertEquals(0, message.size());
            assertTrue(push2.send(new byte[] {2}, 0));
            assertTrue(pull2.receive(message, 0));
            assertArrayEquals(big, message.toByteArray());
            assertTrue(pull2.hasMore());
            assertArrayEquals(new byte[] {2}, pull2.receiveBytes(0));
        } finally {
            ctx = new ZmqContext(); // for the base class's close
        }
    }

    private void connectTcp() {
        pull = socket(SocketType.PULL);
        push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "tcp"));
    }

    /** Every receive form blocked in libzmq ends with the ETERM ZmqException when another thread shuts the context down. */
    @Test
    void shouldEndEveryBlockedReceiveFormWithEtermOnShutdown() throws Exception {
        for (int form = 0; form < 4; form++) {
            ZmqContext c = new ZmqContext();
            try (ZmqMessage message = new ZmqMessage(); Arena arena = Arena.ofShared()) {
                ZmqSocket s = c.socket(SocketType.PULL);
                s.bind("inproc://eterm");
                MemorySegment dst = arena.allocate(4);
                int f = form;
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread t = BlockedCalls.start("invokeFast", thrown, () -> {
                    switch (f) {
                        case 0 -> s.receive(message, 0);
                        case 1 -> s.receive(new byte[4], 0);
                        case 2 -> s.receive(dst, 0);
                        default -> s.receiveBytes(0);
                    }
                });
                c.shutdown();
                t.join(10_000);
                assertFalse(t.isAlive(), "form " + form + " still blocked");
                assertTrue(thrown.get() instanceof ZmqException z && z.isContextTerminated(), "form " + form + ": " + thrown.get());
                ZmqException after = assertThrows(ZmqException.class, () -> s.receive(dst, ZmqSocket.DONTWAIT));
                assertTrue(after.isContextTerminated(), "and every receive after it: " + after.getMessage());
            } finally {
                c.close();
            }
        }
    }
}

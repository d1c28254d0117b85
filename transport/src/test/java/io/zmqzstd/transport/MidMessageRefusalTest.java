package io.zmqzstd.transport;

import io.zmqzstd.transport.MonitorEvent.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A part that libzmq refuses inside a message on a load-balancing socket (PUSH here): libzmq
 * 4.3.4's lb.cpp rolls the message back and fails the part with EAGAIN under DONTWAIT or a send
 * timeout of 0 (a blocking send drops it silently and succeeds). The socket must report that
 * refusal, and not repeat the part, which libzmq would take as the first part of a new message to
 * another peer: a stray part, and a send reported done.
 *
 * <p>libzmq refuses a part inside a message when the pipe the message is going to stops taking
 * parts: its peer went away ({@link #shouldNotSendStrayPartWhenPeerWentAwayMidMessage}), or its
 * high-water mark was lowered under what it holds, which the other tests use because it is
 * deterministic: a PUSH socket over inproc to peer A (receive high-water mark 1) and peer B
 * (1000), four messages sent round-robin (two wait at each peer, nobody reads), the first part of
 * a fifth to A, then the send high-water mark set to 1: A's pipe now holds its limit of 1 + 1, and
 * the next part of the message cannot go in, while B's pipe has room.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MidMessageRefusalTest extends ContextTestBase {

    /** Each way of sending a part. */
    enum Path {
        BYTES, STRING, NATIVE_SEGMENT, HEAP_SEGMENT, MESSAGE, POOLED_COPY, POOLED_ZERO_COPY
    }

    /** PUSH between peer A, whose pipe the next message fills, and peer B, which has room. */
    private final class Fan {
        final ZmqSocket push = ctx.socket(SocketType.PUSH);
        final ZmqSocket a = socket(SocketType.PULL);
        final ZmqSocket b = socket(SocketType.PULL);

        Fan() {
            push.sendHwm(10);
            a.receiveHwm(1);
            b.receiveHwm(1000);
            push.connect(Endpoints.bindAny(a, "inproc")); // an inproc pipe is attached at connect: A first
            push.connect(Endpoints.bindAny(b, "inproc"));
            for (int i = 1; i <= 4; i++) {
                assertTrue(push.send(b("m" + i), 0));
            }
        }

        /** Sends the first part of message 5 to A through {@code path}, then leaves A's pipe full. */
        void startMessageAndFillItsPipe(Path path) {
            assertTrue(send(push, path, "topic", ZmqSocket.SNDMORE));
            push.sendHwm(1);
        }

        /** A sentinel message goes to B (A is full), and each peer holds only whole messages of its own. */
        void assertNoStrayPart() {
            assertTrue(push.send(b("sentinel"), ZmqSocket.DONTWAIT));
            assertEquals(List.of("m1", "m3"), drain(a));
            assertEquals(List.of("m2", "m4", "sentinel"), drain(b), "a stray part reached the other peer");
        }
    }

    /** Single-part messages waiting at {@code s}, in order; fails on a multipart one. */
    private static List<String> drain(ZmqSocket s) {
        List<String> got = new ArrayList<>();
        String m;
        while ((m = s.receiveString(ZmqSocket.DONTWAIT)) != null) {
            assertFalse(s.hasMore(), "a multipart message after " + got);
            got.add(m);
        }
        return got;
    }

    /**
     * Sends {@code text} through {@code path} (for the pooled zero-copy path, padded with zeros to
     * the socket's threshold); a pooled buffer refused is released here, as its owner would.
     */
    private boolean send(ZmqSocket s, Path path, String text, int flags) {
        byte[] bytes = b(text);
        switch (path) {
            case BYTES -> {
                return s.send(bytes, flags);
            }
            case STRING -> {
                return s.send(text, flags);
            }
            case NATIVE_SEGMENT, HEAP_SEGMENT -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment seg = path == Path.HEAP_SEGMENT ? MemorySegment.ofArray(bytes)
                            : arena.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
                    return s.send(seg, 0, seg.byteSize(), flags);
                }
            }
            case MESSAGE -> {
                try (ZmqMessage msg = new ZmqMessage()) {
                    msg.set(MemorySegment.ofArray(bytes));
                    boolean sent = s.send(msg, flags);
                    assertEquals(sent ? 0 : bytes.length, msg.size(), "a refused message keeps its content");
                    return sent;
                }
            }
            default -> {
                long length = path == Path.POOLED_COPY ? bytes.length : s.zeroCopyThresholdBytes();
                PooledBuffer buffer = ctx.bufferPool().rent(length);
                buffer.segment().fill((byte) 0);
                MemorySegment.copy(bytes, 0, buffer.segment(), ValueLayout.JAVA_BYTE, 0, bytes.length);
                boolean sent;
                try {
                    sent = s.sendPooled(buffer, length, flags);
                } catch (RuntimeException e) {
                    buffer.release();
                    throw e;
                }
                if (!sent) {
                    buffer.release(); // refused: still the caller's (a double release would throw)
                }
                return sent;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void shouldRefuseLastPartWithDontwait(Path path) {
        Fan fan = new Fan();
        fan.startMessageAndFillItsPipe(path);
        assertFalse(send(fan.push, path, "frame", ZmqSocket.DONTWAIT), "libzmq dropped the message: the part was not sent");
        fan.assertNoStrayPart(); // and the context's close finds every pooled buffer back (ContextTestBase)
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void shouldRefuseLastPartWithZeroSendTimeout(Path path) {
        Fan fan = new Fan();
        fan.push.sendTimeoutMs(0);
        fan.startMessageAndFillItsPipe(path);
        assertFalse(send(fan.push, path, "frame", 0), "libzmq dropped the message: the part was not sent");
        fan.assertNoStrayPart();
    }

    @Test
    void shouldRefuseMiddlePartAndLetLibzmqDropTheRest() {
        Fan fan = new Fan();
        fan.startMessageAndFillItsPipe(Path.BYTES);
        assertFalse(fan.push.send(b("frame"), ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE));
        // libzmq now drops every part up to the message's last and reports each one sent
        assertTrue(fan.push.send(b("more"), ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE));
        assertTrue(fan.push.send(b("last"), ZmqSocket.DONTWAIT));
        fan.assertNoStrayPart();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 5000})
    void shouldReportBlockingSendAsSentWhenLibzmqDropsTheMessage(int sendTimeoutMs) {
        // libzmq's choice for a send that may block: the message is dropped silently and the call succeeds
        Fan fan = new Fan();
        fan.push.sendTimeoutMs(sendTimeoutMs);
        fan.startMessageAndFillItsPipe(Path.BYTES);
        assertTrue(fan.push.send(b("frame"), 0));
        fan.assertNoStrayPart();
    }

    @Test
    void shouldBeBetweenMessagesAfterRefusal() {
        // After the refusal a message starts afresh; after a whole message, so does the next
        Fan fan = new Fan();
        fan.startMessageAndFillItsPipe(Path.BYTES);
        assertFalse(fan.push.send(b("frame"), ZmqSocket.DONTWAIT));
        assertTrue(fan.push.send(b("x1"), ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE));
        assertTrue(fan.push.send(b("x2"), ZmqSocket.DONTWAIT));
        assertEquals(List.of("m1", "m3"), drain(fan.a));
        assertEquals("m2", fan.b.receiveString(0));
        assertEquals("m4", fan.b.receiveString(0));
        assertEquals("x1", fan.b.receiveString(0));
        assertTrue(fan.b.hasMore());
        assertEquals("x2", fan.b.receiveString(0));
        assertFalse(fan.b.hasMore());
    }

    /**
     * The case that matters in practice, over tcp: the peer a message is going to closes in the
     * middle of it. PUSH connects with ZMQ_IMMEDIATE, so that libzmq's I/O thread ends the pipe
     * right after it raises DISCONNECTED. What the next part meets is up to libzmq's threads: the
     * pipe refusing it (EAGAIN: false), or, when the socket has already taken the pipe's end, the
     * message in libzmq's dropping mode (the part dropped: true). Repeated until a refusal is
     * seen; every round asserts that no stray part reaches the other peer, which before the fix
     * every refusal sent it.
     */
    @Test
    void shouldNotSendStrayPartWhenPeerWentAwayMidMessage() {
        int refusals = 0;
        for (int round = 0; round < 30 && refusals == 0; round++) {
            try (ZmqSocket push = ctx.socket(SocketType.PUSH)) {
                push.immediate(true);
                try (SocketMonitor monitor = push.monitor(EnumSet.of(Type.HANDSHAKE_SUCCEEDED, Type.DISCONNECTED));
                     ZmqSocket a = socket(SocketType.PULL);
                     ZmqSocket b = socket(SocketType.PULL)) {
                    push.connect(Endpoints.bindAny(a, "tcp"));
                    awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED);
                    push.connect(Endpoints.bindAny(b, "tcp"));
                    awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED);
                    // Round-robin over two peers: the next message goes to the one this one did not reach
                    assertTrue(push.send(b("which"), 0));
                    ZmqSocket reached = null;
                    while (reached == null) {
                        reached = a.receiveBytes(ZmqSocket.DONTWAIT) != null ? a
                                : b.receiveBytes(ZmqSocket.DONTWAIT) != null ? b : null;
                    }
                    ZmqSocket next = reached == a ? b : a;
                    assertTrue(push.send(b("topic"), ZmqSocket.SNDMORE));
                    long sentNs = System.nanoTime();
                    next.close();
                    awaitEvent(monitor, Type.DISCONNECTED);
                    // A send looks at libzmq's commands (the pipe's end among them) at most once per
                    // 3,000,000 TSC ticks (max_command_delay, about 1.3 ms at 2.3 GHz)
                    Endpoints.await("libzmq's command throttle", () -> System.nanoTime() - sentNs > 10_000_000L);
                    if (!push.send(b("frame"), ZmqSocket.DONTWAIT)) {
                        refusals++;
                    }
                    assertTrue(push.send(b("sentinel"), 0));
                    assertEquals("sentinel", reached.receiveString(0), "a stray part reached the other peer");
                    assertFalse(reached.hasMore());
                }
            }
        }
        assertTrue(refusals > 0, "libzmq never refused the part in 30 rounds");
    }

    private static void awaitEvent(SocketMonitor monitor, Type type) {
        MonitorEvent e = monitor.receive(Duration.ofSeconds(10));
        assertNotNull(e, "no " + type);
        assertEquals(type, e.type(), e.toString());
    }
}

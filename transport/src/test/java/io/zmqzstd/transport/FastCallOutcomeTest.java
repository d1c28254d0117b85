package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-message calls go through a non-capturing handle first and repeat a failure through the
 * capturing one (see LibZmq's class comment). These tests pin the outcomes that scheme must keep:
 * would-block stays a return value, a finite timeout is waited once (not once per handle),
 * ETERM and EHOSTUNREACH still come back with their errno, on every send and receive path.
 */
class FastCallOutcomeTest {

    private static final int TIMEOUT_MS = 500;
    private static final int ZERO_COPY_LENGTH = 16384; // above the default threshold: zmq_msg_init_data + zmq_msg_send
    private static final int COPY_LENGTH = 100;        // below it: copied into a message, zmq_msg_send

    @Test
    void shouldReturnWouldBlockOnDontwaitSendAndReceiveOnEveryPath() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://fast-wb");
            ZmqSocket push = ctx.socket(SocketType.PUSH); // no peer: every send would block
            ZmqPoller poller = new ZmqPoller(1);
            int in = poller.register(pull, ZmqPoller.POLLIN);
            // Many rounds, so the fast path is exercised both before and after the JIT compiles it.
            for (int round = 0; round < 2000; round++) {
                assertFalse(pull.receive(msg, ZmqSocket.DONTWAIT));
                assertEquals(-1, pull.receive(new byte[8], ZmqSocket.DONTWAIT));
                assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT));
                assertEquals(0, poller.poll(0));
                assertFalse(poller.isReadable(in));
                assertFalse(push.send(new byte[8], ZmqSocket.DONTWAIT));
                assertFalse(push.send(arena.allocate(8), 0, 8, ZmqSocket.DONTWAIT));
                for (int length : new int[] {COPY_LENGTH, ZERO_COPY_LENGTH}) {
                    PooledBuffer b = ctx.bufferPool().rent(length);
                    assertFalse(push.sendPooled(b, length, ZmqSocket.DONTWAIT));
                    assertTrue(b.segment().byteSize() >= length); // still the caller's: segment() throws once libzmq owns it
                    b.release();
                }
                msg.set(arena.allocate(3));
                assertFalse(push.send(msg, ZmqSocket.DONTWAIT));
                assertEquals(3, msg.size()); // untouched on would-block
            }
            poller.close();
            ctx.bufferPool().assertNoLeaks();

            // And once a peer is there, the same calls succeed.
            push.connect("inproc://fast-wb");
            assertTrue(push.send("x".getBytes(StandardCharsets.UTF_8), ZmqSocket.DONTWAIT));
            Endpoints.await("message to arrive", () -> pull.receive(msg, ZmqSocket.DONTWAIT));
            assertEquals(1, msg.size());
        }
    }

    @Test
    void shouldWaitAFiniteReceiveTimeoutOnceWhetherSetTypedOrByNumber() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket typed = ctx.socket(SocketType.PULL);
            typed.bind("inproc://fast-rcvtimeo-a");
            typed.receiveTimeoutMs(TIMEOUT_MS);
            assertWaitedOnce(() -> assertFalse(typed.receive(msg, 0)));

            ZmqSocket byNumber = ctx.socket(SocketType.PULL);
            byNumber.bind("inproc://fast-rcvtimeo-b");
            byNumber.setIntOption(LibZmq.ZMQ_RCVTIMEO, TIMEOUT_MS);
            assertWaitedOnce(() -> assertEquals(-1, byNumber.receive(new byte[8], 0)));
        }
    }

    @Test
    void shouldWaitAFiniteSendTimeoutOnceOnBothSendCalls() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH); // no peer
            push.setIntOption(LibZmq.ZMQ_SNDTIMEO, TIMEOUT_MS);
            assertWaitedOnce(() -> assertFalse(push.send(new byte[8], 0)));            // zmq_msg_send
            push.sendTimeoutMs(TIMEOUT_MS);
            assertWaitedOnce(() -> assertFalse(push.send(arena.allocate(8), 0, 8, 0))); // zmq_send
        }
    }

    @Test
    void shouldWaitAFinitePollTimeoutOnce() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(1)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://fast-poll");
            poller.register(pull, ZmqPoller.POLLIN);
            assertWaitedOnce(() -> assertEquals(0, poller.poll(TIMEOUT_MS)));
        }
    }

    @Test
    void shouldReportTerminationOnEverySendReceiveAndPollPathAfterShutdown() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://fast-term");
            ZmqSocket timed = ctx.socket(SocketType.PULL);
            timed.receiveTimeoutMs(TIMEOUT_MS);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://fast-term");
            ZmqPoller poller = new ZmqPoller(1);
            poller.register(pull, ZmqPoller.POLLIN);
            ctx.shutdown();
            for (int flags : new int[] {0, ZmqSocket.DONTWAIT}) {
                assertTerminated(() -> pull.receive(msg, flags));
                assertTerminated(() -> pull.receive(new byte[8], flags));
                assertTerminated(() -> timed.receive(msg, flags));
                assertTerminated(() -> push.send(new byte[8], flags));
                assertTerminated(() -> push.send(arena.allocate(8), 0, 8, flags));
                for (int length : new int[] {COPY_LENGTH, ZERO_COPY_LENGTH}) {
                    PooledBuffer b = ctx.bufferPool().rent(length);
                    assertTerminated(() -> push.sendPooled(b, length, flags));
                    b.release(); // an exception leaves it with the caller
                }
            }
            for (long timeout : new long[] {-1, 0, TIMEOUT_MS}) {
                assertTerminated(() -> poller.poll(timeout));
            }
            poller.close();
        }
    }

    @Test
    @Timeout(30)
    void shouldThrowHostUnreachableFromMandatoryRouterOnEverySendPath() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.routerMandatory(true);
            router.bind("inproc://fast-router");
            byte[] nobody = "nobody".getBytes(StandardCharsets.UTF_8);
            MemorySegment nativeNobody = arena.allocate(nobody.length);
            MemorySegment.copy(nobody, 0, nativeNobody, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, nobody.length);
            // {send timeout, flags}: blocking and DONTWAIT without a timeout, then blocking with one
            // (the timed call's path: the hard error is thrown at once, not waited out)
            for (int[] run : new int[][] {{-1, 0}, {-1, ZmqSocket.DONTWAIT}, {TIMEOUT_MS, 0}}) {
                router.sendTimeoutMs(run[0]);
                int f = run[1] | ZmqSocket.SNDMORE;
                long startNs = System.nanoTime();
                assertUnreachable(() -> router.send(nobody, f), NOBODY);                      // zmq_msg_send
                assertUnreachable(() -> router.send(nativeNobody, 0, nobody.length, f), NOBODY); // zmq_send
                for (int length : new int[] {nobody.length, ZERO_COPY_LENGTH}) { // copied, then zero-copy zmq_msg_send
                    PooledBuffer b = ctx.bufferPool().rent(length);
                    b.segment().fill((byte) 0);
                    MemorySegment.copy(nativeNobody, 0, b.segment(), 0, nobody.length);
                    String id = length == nobody.length ? NOBODY
                            : "0x6e6f626f6479" + "00".repeat(58) + "... (" + ZERO_COPY_LENGTH + " bytes)"; // the whole part is the id
                    assertUnreachable(() -> router.sendPooled(b, length, f), id);
                    b.release(); // an exception leaves it with the caller
                }
                long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
                // Timed only where there is a timeout to wait out (without one a wait would never end:
                // the method's @Timeout catches that). The runs before it warm these paths up, so the
                // bound is not spent on the first, cold calls' class loading on a loaded machine.
                if (run[0] >= 0) {
                    assertTrue(elapsedMs < TIMEOUT_MS, "a hard error waited for the timeout: elapsedMs=" + elapsedMs);
                }
            }
            ctx.bufferPool().assertNoLeaks();
        }
    }

    /** The call returns within twice the timeout: waited once, not once per handle. */
    private static void assertWaitedOnce(Runnable call) {
        long start = System.nanoTime();
        call.run();
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(elapsedMs >= TIMEOUT_MS - 50, "returned before the timeout: elapsedMs=" + elapsedMs);
        assertTrue(elapsedMs < 2L * TIMEOUT_MS, "waited the timeout twice: elapsedMs=" + elapsedMs + ", timeoutMs=" + TIMEOUT_MS);
    }

    private static void assertTerminated(Runnable call) {
        ZmqException e = assertThrows(ZmqException.class, call::run);
        assertTrue(e.isContextTerminated(), e.getMessage());
        assertEquals(LibZmq.ETERM, e.errno());
    }

    private static final String NOBODY = "\"nobody\" (0x6e6f626f6479)";

    /** EHOSTUNREACH, the message naming the routing id as {@code id} (until 2026-11-27 it named none). */
    private static void assertUnreachable(Runnable call, String id) {
        ZmqException e = assertThrows(ZmqException.class, call::run);
        assertEquals(LibZmq.EHOSTUNREACH, e.errno(), e.getMessage());
        assertTrue(e.getMessage().endsWith("(no peer of this ROUTER has routingId=" + id + ": it never"
                + " connected or its connection is gone (ZMQ_ROUTER_MANDATORY on))"), e.getMessage());
    }

    /** A routing id that is not text (libzmq makes up ids of this form) is named in hex alone, and an empty one as such. */
    @Test
    void shouldNameABinaryRoutingIdInHex() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.routerMandatory(true);
            ZmqException e = assertThrows(ZmqException.class, () -> router.send(new byte[] {0, 0x41, (byte) 0xff}, ZmqSocket.SNDMORE));
            assertTrue(e.getMessage().contains("has routingId=0x0041ff:"), e.getMessage());
            ZmqException empty = assertThrows(ZmqException.class, () -> router.send(new byte[0], ZmqSocket.SNDMORE));
            assertTrue(empty.getMessage().contains("has routingId=(empty):"), empty.getMessage());
        }
    }

    /**
     * A STREAM refuses a routing id no peer has, always (it has no ZMQ_ROUTER_MANDATORY): named as
     * a ROUTER's is, by both send paths (until 2026-11-28 its message was libzmq's bare "Host
     * unreachable").
     */
    @Test
    void shouldNameTheRoutingIdAStreamDoesNotKnow() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket stream = ctx.socket(SocketType.STREAM);
            stream.bind("tcp://127.0.0.1:*");
            byte[] id = {0, 0, 0, 0x7f, 0x01};
            String expected = "(no peer of this STREAM has routingId=0x0000007f01: it never connected or its connection is gone)";
            ZmqException e = assertThrows(ZmqException.class, () -> stream.send(id, ZmqSocket.SNDMORE));
            assertEquals(LibZmq.EHOSTUNREACH, e.errno(), e.getMessage());
            assertTrue(e.getMessage().endsWith(expected), e.getMessage());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment segment = arena.allocate(id.length);
                MemorySegment.copy(id, 0, segment, ValueLayout.JAVA_BYTE, 0, id.length);
                ZmqException fromSegment = assertThrows(ZmqException.class, () -> stream.send(segment, 0, id.length, ZmqSocket.SNDMORE));
                assertTrue(fromSegment.getMessage().endsWith(expected), fromSegment.getMessage());
            }
        }
    }
}

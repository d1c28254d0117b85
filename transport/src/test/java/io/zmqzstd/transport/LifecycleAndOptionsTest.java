package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LifecycleAndOptionsTest {

    /**
     * A closed pool given to the builder is refused there, and at build() when it was closed in
     * between; before 2026-11-27 the context was built and its first pooled send failed instead.
     */
    @Test
    void shouldRefuseAClosedBufferPool() {
        NativeBufferPool closed = new NativeBufferPool();
        closed.close();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZmqContext.builder().bufferPool(closed));
        assertEquals("the buffer pool given to the context is closed: give an open NativeBufferPool (close it after"
                + " every context that uses it)", e.getMessage());
        NativeBufferPool pool = new NativeBufferPool();
        ZmqContext.Builder b = ZmqContext.builder().bufferPool(pool);
        pool.close();
        assertThrows(IllegalArgumentException.class, b::build, "closed after bufferPool(), before build()");
        NativeBufferPool open = new NativeBufferPool();
        try (ZmqContext ctx = b.bufferPool(open).build()) {
            assertSame(open, ctx.bufferPool());
        }
        open.close();
    }

    @Test
    void shouldReadBackOptions() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            s.sendHwm(123);
            s.receiveHwm(456);
            s.linger(Duration.ofMillis(250));
            s.routingId("me".getBytes(StandardCharsets.UTF_8));
            s.receiveTimeoutMs(77);
            s.sendTimeoutMs(88);
            s.immediate(true);
            s.maxMessageSize(1L << 33);
            s.tcpKeepalive(1);
            s.tcpKeepaliveIdle(30);
            s.tcpKeepaliveIntvl(5);
            s.tcpKeepaliveCnt(3);
            s.sndbuf(65536);
            s.rcvbuf(131072);
            s.reconnectIvlMs(150);
            s.reconnectIvlMaxMs(2000);
            s.heartbeatIvlMs(1000);
            s.connectTimeoutMs(500);
            assertEquals(123, s.sendHwm());
            assertEquals(456, s.receiveHwm());
            assertEquals(250, s.lingerMs());
            assertArrayEquals("me".getBytes(StandardCharsets.UTF_8), s.routingId());
            assertEquals(77, s.receiveTimeoutMs());
            assertEquals(88, s.sendTimeoutMs());
            assertTrue(s.immediate());
            assertEquals(1L << 33, s.maxMessageSize());
            assertEquals(1, s.tcpKeepalive());
            assertEquals(30, s.tcpKeepaliveIdle());
            assertEquals(5, s.tcpKeepaliveIntvl());
            assertEquals(3, s.tcpKeepaliveCnt());
            assertEquals(65536, s.sndbuf());
            assertEquals(131072, s.rcvbuf());
            assertEquals(150, s.reconnectIvlMs());
            assertEquals(2000, s.reconnectIvlMaxMs());
            assertEquals(1000, s.heartbeatIvlMs());
            assertEquals(500, s.connectTimeoutMs());
            assertEquals((int) ZmqContext.DEFAULT_LINGER.toMillis(), ctx.socket(SocketType.PUB).lingerMs());
            ZmqException e = assertThrows(ZmqException.class, () -> s.connect("nonsense://x"));
            assertTrue(e.getMessage().contains("errno="), e.getMessage());
            assertTrue(e.errno() != 0);
        }
    }

    /**
     * The defaults and conversions the option setters' and getters' Javadoc states, read back from
     * libzmq: a new socket answers each default, and ZMQ_HEARTBEAT_TTL keeps whole tenths of a
     * second up to MAX_HEARTBEAT_TTL_MS (65599 ms, read back as 65500).
     */
    @Test
    void shouldAnswerTheDocumentedDefaultsAndConversions() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            assertEquals(1000, s.sendHwm());
            assertEquals(1000, s.receiveHwm());
            assertEquals(0, s.routingId().length, "empty when none was set");
            assertEquals(-1, s.receiveTimeoutMs());
            assertEquals(-1, s.sendTimeoutMs());
            assertEquals(-1, s.maxMessageSize());
            assertEquals(-1, s.tcpKeepalive());
            assertEquals(-1, s.tcpKeepaliveIdle());
            assertEquals(-1, s.tcpKeepaliveIntvl());
            assertEquals(-1, s.tcpKeepaliveCnt());
            assertEquals(-1, s.sndbuf());
            assertEquals(-1, s.rcvbuf());
            assertEquals(100, s.reconnectIvlMs());
            assertEquals(0, s.reconnectIvlMaxMs());
            assertEquals(100, s.backlog());
            assertFalse(s.ipv6());
            assertEquals(30_000, s.handshakeIvlMs());
            assertEquals(0, s.heartbeatIvlMs());
            assertEquals(0, s.heartbeatTtlMs());
            assertEquals(-1, s.heartbeatTimeoutMs());
            assertEquals(0, s.connectTimeoutMs());
            assertEquals(0, s.tos());
            assertFalse(s.curveServer());
            assertFalse(s.immediate());

            s.heartbeatTtlMs(1299);
            assertEquals(1200, s.heartbeatTtlMs(), "rounded down to tenths of a second");
            s.heartbeatTtlMs(ZmqSocket.MAX_HEARTBEAT_TTL_MS);
            assertEquals(65_500, s.heartbeatTtlMs());
            s.heartbeatTtlMs(-99);
            assertEquals(0, s.heartbeatTtlMs(), "-1 to -99 round to 0 in libzmq, the default: no TTL");
            assertEquals(LibZmq.EINVAL, assertThrows(ZmqException.class, () -> s.heartbeatTtlMs(-100)).errno());
            s.backlog(7);
            s.ipv6(true);
            s.handshakeIvlMs(0);
            s.heartbeatTimeoutMs(300);
            s.tos(0x28);
            assertEquals(7, s.backlog());
            assertTrue(s.ipv6());
            assertEquals(0, s.handshakeIvlMs());
            assertEquals(300, s.heartbeatTimeoutMs());
            assertEquals(0x28, s.tos());
        }
    }

    /**
     * A linger longer than ZMQ_LINGER's int of milliseconds counts as the longest, and a negative
     * one as forever, however far out of range: Duration.toMillis() was called before the clamp
     * and threw ArithmeticException above Long.MAX_VALUE milliseconds (ChronoUnit.FOREVER, say).
     */
    @Test
    void shouldClampAHugeLingerInsteadOfOverflowing() {
        Duration forever = ChronoUnit.FOREVER.getDuration();
        try (ZmqContext ctx = ZmqContext.builder().defaultLinger(forever).build()) {
            ZmqSocket s = ctx.socket(SocketType.PAIR);
            assertEquals(Integer.MAX_VALUE, s.lingerMs(), "the context's default");
            s.linger(Duration.ofMillis(1));
            s.linger(Duration.ofSeconds(Long.MAX_VALUE));
            assertEquals(Integer.MAX_VALUE, s.lingerMs());
            s.linger(Duration.ofMillis(Integer.MAX_VALUE + 1L));
            assertEquals(Integer.MAX_VALUE, s.lingerMs());
            s.linger(Duration.ofMillis(Integer.MAX_VALUE).minusNanos(1));
            assertEquals(Integer.MAX_VALUE - 1, s.lingerMs(), "whole milliseconds, rounded down");
            s.linger(Duration.ofSeconds(Long.MIN_VALUE));
            assertEquals(-1, s.lingerMs());
            s.lingerMs(0); // nothing to wait for at close
        }
        try (ZmqContext ctx = ZmqContext.builder().defaultLinger(Duration.ofSeconds(Long.MIN_VALUE)).build()) {
            ZmqSocket s = ctx.socket(SocketType.PAIR);
            assertEquals(-1, s.lingerMs());
            s.lingerMs(0);
        }
    }

    /**
     * An I/O thread count above {@link ZmqContext#MAX_IO_THREADS} is refused at the builder, naming
     * the value and the bound. zmq_ctx_set took any count, and the first socket then aborted the
     * process: Integer.MAX_VALUE with std::length_error (vector::reserve), 100000 with "Too many
     * open files (src/epoll.cpp:65)". The bound itself works (no context here is built above it).
     */
    @Test
    void shouldRefuseMoreIoThreadsThanTheBound() {
        assertEquals(256, ZmqContext.MAX_IO_THREADS);
        for (int n : new int[] {ZmqContext.MAX_IO_THREADS + 1, 100_000, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZmqContext.builder().ioThreads(n));
            assertEquals("ioThreads must be 0 to 256: ioThreads=" + n, e.getMessage());
        }
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> ZmqContext.builder().ioThreads(-1));
        assertEquals("ioThreads must be 0 to 256: ioThreads=-1", negative.getMessage());
        try (ZmqContext ctx = ZmqContext.builder().ioThreads(ZmqContext.MAX_IO_THREADS).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL); // starts the I/O threads
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            assertTrue(push.send(new byte[] {7}, 0));
            byte[] got = new byte[1];
            assertEquals(1, pull.receive(got, 0));
            assertEquals(7, got[0]);
        }
    }

    /**
     * A context holds 1023 sockets (libzmq's ZMQ_MAX_SOCKETS). The next one failed with libzmq's
     * bare EMFILE text, "Too many open files", which points at the process's file descriptors; the
     * message now names the context's count and limit. A closed socket's place is free again.
     */
    @Test
    void shouldNameTheContextsSocketLimitWhenItIsReached() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket first = ctx.socket(SocketType.PAIR);
            for (int i = 1; i < 1023; i++) {
                ctx.socket(SocketType.PAIR);
            }
            ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR));
            assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().startsWith("zmq_socket(PAIR) failed: errno=24, error=Too many open files"
                    + " (sockets open in this context: 1023, its limit ZMQ_MAX_SOCKETS=1023; close sockets"), e.getMessage());
            first.close(); // nothing pending: libzmq frees its place at once
            awaitFreePlace(ctx, "the closed socket's place to be free");
        }
    }

    /** Waits until {@code ctx} makes a socket again: a closed socket's place is freed by libzmq's reaper. */
    static void awaitFreePlace(ZmqContext ctx, String what) {
        Endpoints.await(what, () -> {
            try {
                ctx.socket(SocketType.PAIR);
                return true;
            } catch (ZmqException stillTaken) {
                return false;
            }
        });
    }

    /** ioThreads(0), the builder's lower bound, serves inproc only: a tcp bind is refused by libzmq, loudly. */
    @Test
    void shouldServeOnlyInprocWithoutIoThreads() {
        try (ZmqContext ctx = ZmqContext.builder().ioThreads(0).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            assertTrue(push.send(new byte[] {7}, 0));
            assertEquals(1, pull.receive(new byte[1], 0));
            ZmqException e = assertThrows(ZmqException.class, () -> pull.bind("tcp://127.0.0.1:*"));
            assertEquals(156_384_766, e.errno(), e.getMessage()); // libzmq's EMTHREAD, ZMQ_HAUSNUMERO + 54
            assertTrue(e.getMessage().contains("No thread available"), e.getMessage());
        }
    }

    @Test
    void shouldReportWouldBlockAsReturnValues() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://wb");
            assertFalse(pull.receive(msg, ZmqSocket.DONTWAIT));
            assertEquals(-1, pull.receive(new byte[10], ZmqSocket.DONTWAIT));
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT));
            ZmqSocket push = ctx.socket(SocketType.PUSH); // not connected
            assertFalse(push.send(new byte[10], ZmqSocket.DONTWAIT));
            try (var arena = java.lang.foreign.Arena.ofConfined()) {
                assertFalse(push.send(arena.allocate(10), 0, 10, ZmqSocket.DONTWAIT));
            }
            pull.receiveTimeoutMs(20);
            assertFalse(pull.receive(msg, 0)); // timeout is "would block" too
        }
    }

    @Test
    void shouldReportTruncationLikeZmqRecv() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.bind("inproc://trunc");
            push.connect("inproc://trunc");
            push.send("0123456789".getBytes(StandardCharsets.US_ASCII), 0);
            byte[] small = new byte[4];
            assertEquals(10, pull.receive(small, 0));
            assertArrayEquals("0123".getBytes(StandardCharsets.US_ASCII), small);
        }
    }

    @Test
    void shouldFailLoudlyOnStaleMessageViewAndUseAfterClose() {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        pull.bind("inproc://stale");
        push.connect("inproc://stale");
        ZmqMessage msg = new ZmqMessage();
        push.send("first".getBytes(StandardCharsets.UTF_8), 0);
        push.send("second".getBytes(StandardCharsets.UTF_8), 0);
        assertTrue(pull.receive(msg, 0));
        MemorySegment view = msg.data();
        assertEquals('f', view.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalArgumentException.class, () -> view.set(ValueLayout.JAVA_BYTE, 0, (byte) 0));
        assertTrue(pull.receive(msg, 0));
        assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals("second", new String(msg.toByteArray(), StandardCharsets.UTF_8));
        MemorySegment view2 = msg.data();
        msg.close();
        msg.close();
        assertThrows(IllegalStateException.class, () -> view2.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, msg::size);

        pull.close();
        pull.close();
        assertTrue(pull.isClosed());
        assertThrows(IllegalStateException.class, () -> pull.receiveBytes(0));
        assertThrows(IllegalStateException.class, () -> pull.sendHwm(1));
        ctx.close(); // closes push too
        ctx.close();
        assertTrue(push.isClosed());
        assertThrows(IllegalStateException.class, () -> push.send(new byte[1], 0));
        assertThrows(IllegalStateException.class, () -> ctx.socket(SocketType.PAIR));
    }

    /**
     * What "after close" means on every type (README, "Outcomes and errors"): each call that would
     * reach libzmq or freed native memory throws IllegalStateException, and what was fixed at
     * creation still answers. The socket's Javadoc said every method threw.
     */
    /**
     * README "Outcomes and errors": close() is idempotent on every type. Each owner closed twice on
     * this thread and once more on another throws nothing and stays closed, its calls refused.
     */
    @Test
    void shouldTakeASecondAndThirdCloseOnEveryType() throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
        ZmqSocket frontend = ctx.socket(SocketType.ROUTER);
        ZmqSocket backend = ctx.socket(SocketType.DEALER);
        SocketMonitor monitor = frontend.monitor(MonitorEvent.Type.ALL);
        ZmqPoller poller = new ZmqPoller(1);
        poller.register(frontend, ZmqPoller.POLLIN);
        ZmqMessage msg = new ZmqMessage();
        ZmqProxy proxy = new ZmqProxy(frontend, backend, null);
        for (Runnable close : new Runnable[] {proxy::close, msg::close, poller::close, monitor::close, backend::close,
                frontend::close, ctx::close, pool::close}) {
            close.run();
            close.run();
            BlockedCalls.async(close).get(10, TimeUnit.SECONDS); // a third, on another thread
        }
        assertTrue(monitor.isClosed() && frontend.isClosed() && backend.isClosed() && ctx.isClosed() && pool.isClosed());
        assertThrows(IllegalStateException.class, msg::size);
        assertThrows(IllegalStateException.class, () -> poller.poll(0));
        assertThrows(IllegalStateException.class, () -> proxy.statistics(Duration.ofMillis(10)));
        assertThrows(IllegalStateException.class, frontend::events);
    }

    @Test
    void shouldRefuseCallsAfterCloseButAnswerWhatWasFixedAtCreation() {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
        ZmqSocket s = ctx.socket(SocketType.PULL);
        SocketMonitor monitor = s.monitor(MonitorEvent.Type.ALL);
        ZmqPoller poller = new ZmqPoller(1);
        poller.register(s, ZmqPoller.POLLIN);
        PooledBuffer b = pool.rent(100);
        b.release();
        monitor.close();
        poller.close();
        ctx.close();
        pool.close();

        assertThrows(IllegalStateException.class, s::hasMore);
        assertThrows(IllegalStateException.class, s::handle);
        assertThrows(IllegalStateException.class, s::receiveHwm);
        assertEquals(SocketType.PULL, s.type());
        assertEquals(ctx, s.context());
        assertEquals(NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, s.zeroCopyThresholdBytes());
        assertTrue(s.isClosed());

        assertThrows(IllegalStateException.class, () -> poller.poll(0));
        assertThrows(IllegalStateException.class, () -> poller.isReadable(0));
        assertEquals(s, poller.socket(0));
        assertEquals(1, poller.size());

        assertThrows(IllegalStateException.class, monitor::tryReceive);
        assertEquals(s, monitor.socket());
        assertEquals(MonitorEvent.Type.ALL, monitor.eventMask());
        assertTrue(monitor.endpoint().startsWith("inproc://"), monitor.endpoint());
        assertTrue(monitor.isClosed());

        assertThrows(IllegalStateException.class, () -> pool.rent(1));
        assertThrows(IllegalStateException.class, b::segment);
        assertEquals(256, b.capacity());
        assertEquals(1, pool.stats().rented());
        assertEquals(0, pool.outstanding());
        assertEquals(0, pool.checkLeaks());
        assertTrue(pool.isClosed());

        assertThrows(IllegalStateException.class, () -> ctx.socket(SocketType.PAIR));
        assertThrows(IllegalStateException.class, ctx::handle);
        assertEquals(pool, ctx.bufferPool());
        ctx.shutdown(); // idempotent, nothing to do
        assertTrue(ctx.isClosed());
    }

    @Test
    void shouldWakeBlockedReceiverWithTerminationOnShutdown() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://term");
            AtomicReference<Throwable> seen = new AtomicReference<>();
            AtomicBoolean returned = new AtomicBoolean();
            Thread receiver = Thread.ofPlatform().start(() -> {
                try {
                    pull.receiveBytes(0);
                } catch (Throwable t) {
                    seen.set(t);
                } finally {
                    returned.set(true);
                }
            });
            // Proof that the receive is blocked inside libzmq, not about to start (a shutdown
            // before it would end it with ETERM too): twice in a row, the receiver's innermost Java
            // frame is the method that makes the downcall, and the call has not returned.
            Endpoints.await("receiver blocked inside zmq_msg_recv", () -> insideDowncall(receiver) && insideDowncall(receiver));
            assertFalse(returned.get());
            ctx.shutdown();
            receiver.join(10_000);
            assertFalse(receiver.isAlive());
            ZmqException e = assertInstanceOf(ZmqException.class, seen.get());
            assertTrue(e.isContextTerminated());
            assertEquals(LibZmq.ETERM, e.errno());
        }
    }

    /**
     * True when {@code t} is running native code called from ZmqSocket's downcall wrapper for a
     * blocking receive with no timeout (the fast handle; {@code invokeFast}): the hidden frames of
     * the downcall itself are not in the trace, so that method is the innermost one shown.
     */
    private static boolean insideDowncall(Thread t) {
        StackTraceElement[] stack = t.getStackTrace();
        return t.getState() == Thread.State.RUNNABLE && stack.length > 0
                && stack[0].getClassName().equals(ZmqSocket.class.getName())
                && stack[0].getMethodName().equals("invokeFast");
    }

    /**
     * A context whose pool cannot be made (here: a bad {@code zmqzstd.leakDetection}) fails with
     * the pool's error and leaves no native context behind. Each libzmq context holds an eventfd
     * from zmq_ctx_new on, so a leaked one shows as an open file descriptor; before, one leaked per
     * failed constructor.
     */
    @Test
    void shouldNotLeakTheNativeContextWhenThePoolCannotBeMade() throws Exception {
        String saved = System.getProperty("zmqzstd.leakDetection");
        long before = openFileDescriptors();
        System.setProperty("zmqzstd.leakDetection", "bogus");
        try {
            for (int i = 0; i < 50; i++) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ZmqContext::new);
                assertTrue(e.getMessage().contains("zmqzstd.leakDetection=bogus"), e.getMessage());
            }
        } finally {
            if (saved == null) {
                System.clearProperty("zmqzstd.leakDetection");
            } else {
                System.setProperty("zmqzstd.leakDetection", saved);
            }
        }
        long after = openFileDescriptors();
        assertTrue(after - before < 10, "file descriptors before=" + before + ", after=" + after);
    }

    static long openFileDescriptors() throws java.io.IOException {
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a leaked socket hangs zmq_ctx_term
    void shouldCloseTheNativeSocketWhenItsSetupFails() {
        ZmqContext ctx = new ZmqContext();
        // libzmq takes a linger of -1 or more: zmq_socket succeeds, then zmq_setsockopt fails
        ZmqException e = assertThrows(ZmqException.class, () -> new ZmqSocket(ctx, SocketType.PAIR, -2));
        assertEquals(LibZmq.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("ZMQ_LINGER"), e.getMessage());
        ctx.close(); // returns only if that native socket was closed
        assertTrue(ctx.isClosed());
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // ignoring linger would hang, not fail
    void shouldCloseContextWithPendingMessagesToAbsentPeerWithinLinger() {
        ZmqContext ctx = ZmqContext.builder().defaultLinger(Duration.ofMillis(100)).build();
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.connect("tcp://127.0.0.1:1"); // nobody listens
        for (int i = 0; i < 10; i++) {
            push.send(new byte[100], ZmqSocket.DONTWAIT);
        }
        ctx.close(); // returns after at most the linger
        assertTrue(ctx.isClosed());
    }

    @Test
    void shouldForwardAReceivedMessageWithoutCopyingIt() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket a = ctx.socket(SocketType.PAIR);
            ZmqSocket b = ctx.socket(SocketType.PAIR);
            ZmqSocket c = ctx.socket(SocketType.PAIR);
            ZmqSocket d = ctx.socket(SocketType.PAIR);
            a.bind("inproc://fa");
            b.connect("inproc://fa");
            c.bind("inproc://fc");
            d.connect("inproc://fc");
            a.send("relay".getBytes(StandardCharsets.UTF_8), 0);
            assertTrue(b.receive(msg, 0));
            assertTrue(c.send(msg, 0));
            assertEquals(0, msg.size()); // emptied by a successful send
            assertEquals("relay", d.receiveString(0));
            try (var arena = java.lang.foreign.Arena.ofConfined()) {
                msg.set(arena.allocateFrom("set", StandardCharsets.UTF_8));
            }
            assertTrue(c.send(msg, 0));
            assertEquals("set\0", d.receiveString(0));
        }
    }
}

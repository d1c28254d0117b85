package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The argument checks and edge answers the Javadoc of the poller, the pool, messages, monitors, the
 * proxy and Curve states, which no other test pinned (contract audit of 2026-11-27).
 */
class DocumentedArgumentChecksTest extends ContextTestBase {

    @Test
    void shouldCheckThePollersArguments() {
        assertThrows(IllegalArgumentException.class, () -> new ZmqPoller(0));
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        try (ZmqPoller poller = new ZmqPoller(1)) {
            int i = poller.register(dealer, ZmqPoller.POLLIN);
            assertEquals("poller is full: capacity=1", assertThrows(IllegalStateException.class, () -> poller.register(dealer, 0)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> poller.events(1, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> poller.revents(1));
            assertThrows(IndexOutOfBoundsException.class, () -> poller.socket(-1));
            assertEquals(0, poller.revents(i), "nothing reported before a poll");
            poller.events(i, ZmqPoller.POLLIN | ZmqPoller.POLLOUT);
            assertEquals(0, poller.poll(0), "0 returns at once; a DEALER without a peer can do neither");
            assertFalse(poller.hasError(i));
        }
    }

    @Test
    void shouldCheckTheBoundsOfEverySendAndKeepTheBufferOnRefusal() {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        assertThrows(IndexOutOfBoundsException.class, () -> push.send(new byte[4], 2, 3, ZmqSocket.DONTWAIT));
        assertThrows(IndexOutOfBoundsException.class, () -> push.send(new byte[4], -1, 1, ZmqSocket.DONTWAIT));
        assertThrows(IndexOutOfBoundsException.class, () -> push.send(MemorySegment.ofArray(new byte[4]), 2, 3, ZmqSocket.DONTWAIT));
        PooledBuffer b = ctx.bufferPool().rent(10);
        assertThrows(IndexOutOfBoundsException.class, () -> push.sendPooled(b, -1, ZmqSocket.DONTWAIT));
        assertThrows(IndexOutOfBoundsException.class, () -> push.sendPooled(b, b.capacity() + 1, ZmqSocket.DONTWAIT));
        assertTrue(b.isRented(), "still the caller's");
        b.release();
        assertFalse(b.isRented());
        assertThrows(IllegalStateException.class, () -> push.sendPooled(b, 1, ZmqSocket.DONTWAIT));
        assertThrows(IllegalStateException.class, b::address);
        assertThrows(IllegalStateException.class, b::segment);
        // what the class comment says still answers after release
        assertTrue(b.capacity() >= 10, "capacity after release: " + b.capacity());
        assertTrue(b.toString().contains("capacity=" + b.capacity()), b.toString());
        b.release();
        assertEquals(1, ctx.bufferPool().stats().doubleReleases(), "a second release only counts");
    }

    @Test
    void shouldCheckThePoolsArgumentsAndCountItsRents() {
        NativeBufferPool pool = ctx.bufferPool();
        assertThrows(IllegalArgumentException.class, () -> pool.rent(-1));
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(1, -1));
        assertThrows(IllegalArgumentException.class, () -> pool.reserve((4L << 20) + 1, 1), "beyond the largest class");
        assertEquals(2, pool.reserve(300, 2));
        assertEquals(0, pool.reserve(300, 2), "the class already had them");
        assertEquals(1, pool.reserve(300, 3));
        NativeBufferPool.Builder builder = NativeBufferPool.builder();
        assertThrows(IllegalArgumentException.class, () -> builder.minBufferBytes(300));
        assertThrows(IllegalArgumentException.class, () -> builder.maxBufferBytes(0));
        assertThrows(IllegalArgumentException.class, () -> builder.maxBuffersPerClass(0));
        assertThrows(IllegalArgumentException.class, () -> builder.slabBytes(0));
        assertThrows(IllegalArgumentException.class, () -> builder.zeroCopyThresholdBytes(-1));
        assertThrows(IllegalArgumentException.class, () -> builder.inprocZeroCopyThresholdBytes(-1));
        assertThrows(IllegalArgumentException.class, () -> NativeBufferPool.builder().minBufferBytes(1024).maxBufferBytes(512).build());
        try (NativeBufferPool small = NativeBufferPool.builder().minBufferBytes(64).maxBufferBytes(128).maxBuffersPerClass(1).build()) {
            PooledBuffer pooled = small.rent(0);
            assertEquals(64, pooled.capacity(), "the smallest class");
            PooledBuffer exhausted = small.rent(0);
            assertEquals(1, exhausted.capacity(), "unpooled: what was asked for, at least 1");
            PooledBuffer oversize = small.rent(129);
            assertEquals(129, oversize.capacity());
            NativeBufferPool.Stats s = small.stats();
            assertEquals(3, s.rented());
            assertEquals(3, s.misses(), "one slot carved, two unpooled");
            assertEquals(2, s.unpooled());
            pooled.release();
            exhausted.release();
            oversize.release();
            assertEquals(0, small.outstanding());
        }
    }

    /** sampled: one rent in 64 has its site recorded; every leak is still found and counted. */
    @Test
    void shouldRecordOneRentSiteIn64WhenSampled() {
        try (NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.SAMPLED).build()) {
            List<PooledBuffer> held = new ArrayList<>();
            for (int i = 0; i < 128; i++) {
                held.add(pool.rent(10));
            }
            IllegalStateException leaks = assertThrows(IllegalStateException.class, pool::assertNoLeaks);
            assertEquals("pooled buffers leaked: count=128, leakDetection=sampled", leaks.getMessage());
            assertEquals(2, Arrays.stream(leaks.getSuppressed()).filter(t -> t.getMessage().startsWith("buffer rented here")).count());
            assertEquals(128, pool.checkLeaks());
            held.forEach(PooledBuffer::release);
            pool.assertNoLeaks();
        }
    }

    @Test
    void shouldKeepAFrameCopiedOrMovedIntoItsOwnMessage() {
        try (ZmqMessage msg = new ZmqMessage(); ZmqMessage other = new ZmqMessage()) {
            msg.set(MemorySegment.ofArray(new byte[] {1, 2, 3}));
            MemorySegment view = msg.data();
            msg.copyFrom(msg);
            msg.moveFrom(msg);
            assertEquals(3, msg.size(), "into itself: nothing happens");
            other.copyFrom(msg);
            assertEquals(2, view.get(ValueLayout.JAVA_BYTE, 1), "the source's views stay valid");
            assertThrows(IndexOutOfBoundsException.class, () -> msg.copyTo(MemorySegment.ofArray(new byte[2]), 0));
            assertThrows(IndexOutOfBoundsException.class, () -> msg.copyTo(MemorySegment.ofArray(new byte[4]), 2));
        }
    }

    @Test
    void shouldEmptyASentMessageAndRefuseAClosedOne() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        ZmqMessage closed = new ZmqMessage();
        closed.close();
        try (ZmqMessage msg = new ZmqMessage()) {
            msg.set(MemorySegment.ofArray(new byte[100]));
            assertTrue(push.send(msg, 0));
            assertEquals(0, msg.size(), "left empty, ready for reuse");
        }
        assertThrows(IllegalStateException.class, () -> push.send(closed, 0));
        assertThrows(IllegalStateException.class, () -> pull.receive(closed, 0));
        assertEquals(100, pull.receiveBytes(0).length);
    }

    @Test
    void shouldCheckTypesEventsAndTheirRecords() {
        for (SocketType t : SocketType.values()) {
            assertSame(t, SocketType.fromCode(t.code()));
        }
        assertEquals("unknown socket type: code=12", assertThrows(IllegalArgumentException.class, () -> SocketType.fromCode(12)).getMessage());
        assertThrows(NullPointerException.class, () -> new MonitorEvent(null, 1, 0, ""));
        assertThrows(NullPointerException.class, () -> new MonitorEvent(MonitorEvent.Type.CONNECTED, 1, 0, null));
        assertThrows(IllegalArgumentException.class, () -> new MonitorEvent(MonitorEvent.Type.CONNECTED, 1, -1, ""));
        assertThrows(IllegalArgumentException.class, () -> new MonitorEvent(MonitorEvent.Type.CONNECTED, 1, 1L << 32, ""));
        assertThrows(IllegalArgumentException.class, () -> new MonitorEvent(MonitorEvent.Type.CONNECTED, 2, 0, ""));
        assertEquals(MonitorEvent.Type.UNKNOWN, MonitorEvent.Type.fromId(0));
    }

    /** inproc has no connections and so no events; a timeout rounds up to whole ms, and FOREVER is taken. */
    @Test
    void shouldReportNoInprocEventsAndTakeAnyPositiveTimeout() {
        ZmqSocket pull = socket(SocketType.PULL);
        try (SocketMonitor events = pull.monitor(MonitorEvent.Type.ALL)) {
            pull.bind("inproc://no-events");
            ZmqSocket push = socket(SocketType.PUSH);
            push.connect("inproc://no-events");
            push.send(b("x"), 0);
            assertEquals("x", pull.receiveString(0));
            assertNull(events.tryReceive());
            assertNull(events.receive(Duration.ofNanos(1)), "1 ns waits 1 ms");
            pull.bind("tcp://127.0.0.1:*");
            MonitorEvent listening = events.receive(ChronoUnit.FOREVER.getDuration());
            assertEquals(MonitorEvent.Type.LISTENING, listening.type());
            assertEquals(pull.lastEndpoint(), listening.endpoint());
        }
    }

    @Test
    void shouldRefuseToRunAProxyTwiceOrClosedAndEchoWhenBothSidesAreOneSocket() throws Exception {
        ZmqSocket a = ctx.socket(SocketType.PAIR);
        ZmqSocket b = ctx.socket(SocketType.PAIR);
        ZmqProxy closed = new ZmqProxy(a, b, null);
        closed.close();
        assertEquals("proxy is closed", assertThrows(IllegalStateException.class, closed::run).getMessage());
        assertThrows(IllegalStateException.class, closed::pause);
        closed.terminate(); // nothing to do
        try (ZmqProxy ran = new ZmqProxy(a, b, null)) {
            ran.terminate();
            ran.run(); // returns at once
            assertThrows(IllegalStateException.class, ran::run, "a proxy runs once");
            assertThrows(IllegalStateException.class, () -> ran.statistics(Duration.ZERO));
        }
        assertFalse(a.isClosed(), "the sockets stay the caller's");

        ZmqSocket echo = ctx.socket(SocketType.PAIR);
        echo.bind("inproc://echo");
        ZmqSocket peer = socket(SocketType.PAIR);
        peer.connect("inproc://echo");
        try (ZmqProxy proxy = new ZmqProxy(echo, echo, null)) {
            Thread forwarder = Thread.ofPlatform().start(proxy::run);
            peer.send(b("hello"), 0);
            assertEquals("hello", peer.receiveString(0), "sent back on the same socket");
            proxy.terminate();
            forwarder.join(10_000);
            assertFalse(forwarder.isAlive());
        }
    }

    @Test
    void shouldHideTheSecretKeyAndEncodeNoBytes() {
        Curve.KeyPair pair = Curve.keypair();
        assertFalse(pair.toString().contains(pair.secretKey()));
        assertEquals("", Curve.z85Encode(new byte[0]));
        assertEquals("a CURVE secret key must be a 40-character Z85 key: length=3",
                assertThrows(IllegalArgumentException.class, () -> Curve.publicKey("abc")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Encode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Decode("abcd"));
    }

    /** A pool given to the builder is the caller's: the context's close leaves it open. */
    @Test
    void shouldLeaveAGivenPoolOpen() {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            ZmqContext own = ZmqContext.builder().bufferPool(pool).build();
            assertSame(pool, own.bufferPool());
            own.close();
            assertFalse(pool.isClosed());
        }
    }
}

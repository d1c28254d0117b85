package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZeroCopyTest {

    private static void fill(MemorySegment seg, long n, int seed) {
        for (long i = 0; i < n; i += 8) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp", "ipc"})
    void shouldReturnEveryBufferAfterTraffic(String transport) {
        NativeBufferPool pool;
        try (ZmqContext ctx = new ZmqContext()) {
            pool = ctx.bufferPool();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, transport));
            int n = 2000;
            long size = 64 * 1024;
            try (ZmqMessage msg = new ZmqMessage()) {
                for (int i = 0; i < n; i++) {
                    PooledBuffer b = pool.rent(size);
                    fill(b.segment(), size, i);
                    b.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    assertTrue(push.sendPooled(b, size, 0));
                    assertFalse(b.isRented());
                    assertTrue(pull.receive(msg, 0));
                    assertEquals(size, msg.size());
                    assertEquals(i, msg.data().get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                }
            }
            Buffers.awaitAllBack(pool);
            NativeBufferPool.Stats st = pool.stats();
            assertEquals(n, st.rented());
            assertEquals(n, st.returned());
            assertEquals(0, st.doubleReleases());
            assertTrue(st.hits() > n / 2, "pool was reused: " + st);
            pool.assertNoLeaks();
        }
        assertTrue(pool.isClosed());
    }

    /**
     * Pooled frames of 0 to {@link ZmqSocket#SMALL_SEND_BYTES} + 1 bytes (copied through the socket's
     * own memory up to that length, read by libzmq from the buffer above it), all queued before
     * the first is received, each buffer released and rented again by the next send: every frame
     * arrives with its own length and bytes, none overwritten by a later one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldDeliverEverySmallPooledFrameAsItWasWhenSent(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, transport));
            int n = (int) ZmqSocket.SMALL_SEND_BYTES + 2;
            for (int len = 0; len < n; len++) {
                PooledBuffer b = pool.rent(len);
                for (int i = 0; i < len; i++) {
                    b.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (len * 31 + i));
                }
                assertTrue(push.sendPooled(b, len, 0));
                assertFalse(b.isRented(), "a sent buffer is no longer the caller's: length=" + len);
            }
            for (int len = 0; len < n; len++) {
                byte[] got = pull.receiveBytes(0);
                assertEquals(len, got.length, "frame length");
                for (int i = 0; i < len; i++) {
                    assertEquals((byte) (len * 31 + i), got[i], "frame of length " + len + ", byte " + i);
                }
            }
            Buffers.awaitAllBack(pool);
            assertEquals(0, pool.stats().inFlight());
        }
    }

    /**
     * An empty frame handed over zero-copy (a threshold of 0 makes every pooled send one): libzmq
     * takes a buffer of length 0 with its free callback like any other, the peer receives an empty
     * frame, and the buffer comes back once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldSendAnEmptyFrameZeroCopyAndGetItsBufferBack(String transport) {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, transport));
            PooledBuffer b = pool.rent(0);
            assertTrue(push.sendPooled(b, 0, 0));
            assertFalse(b.isRented(), "libzmq took it");
            assertEquals(0, pull.receiveBytes(0).length);
            Buffers.awaitAllBack(pool);
        }
        NativeBufferPool.Stats st = pool.stats();
        assertEquals(1, st.returned(), st::toString);
        assertEquals(0, st.strayCallbacks(), st::toString);
        pool.close();
    }

    /**
     * A zero-copy sender keeps its socket open while its peer's context closes with messages
     * queued and in flight. What libzmq does with that queue depends on who bound: a bound
     * sender drops the connection's pipe once its socket processes the disconnection (which it
     * does inside any call on the socket), so every buffer comes back while the socket stays
     * open; a connecting sender keeps the queue for a reconnect (a new peer on the endpoint
     * receives from it), and its buffers come back when its socket closes.
     */
    @ParameterizedTest(name = "senderBinds={0}")
    @ValueSource(booleans = {true, false})
    void shouldReturnBuffersQueuedForAPeerWhoseContextClosed(boolean senderBinds) {
        int size = 64 * 1024;
        int count = 200;
        NativeBufferPool pool = new NativeBufferPool();
        try (ZmqContext senderCtx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket push = senderCtx.socket(SocketType.PUSH);
            push.sendHwm(10_000);
            push.sendTimeoutMs(5000);
            ZmqContext receiverCtx = new ZmqContext();
            ZmqSocket pull = receiverCtx.socket(SocketType.PULL);
            pull.receiveHwm(1); // the receiver takes little: most messages stay queued on the sender
            pull.rcvbuf(4096);
            pull.receiveTimeoutMs(5000);
            String endpoint = senderBinds ? Endpoints.bindAny(push, "tcp") : Endpoints.bindAny(pull, "tcp");
            (senderBinds ? pull : push).connect(endpoint);
            for (int i = 0; i < count; i++) {
                PooledBuffer b = pool.rent(size);
                assertTrue(push.sendPooled(b, size, 0), "queued within the high-water mark");
            }
            try (ZmqMessage msg = new ZmqMessage()) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(pull.receive(msg, 0));
                }
            }
            pull.lingerMs(0);
            receiverCtx.close(); // the peer disappears with the rest queued or in flight
            assertTrue(pool.outstanding() > 0, () -> "messages were still queued: " + pool.stats());

            if (senderBinds) {
                Endpoints.await("every buffer back while the sender's socket is open", () -> {
                    push.events(); // lets the socket process the disconnection
                    return pool.outstanding() == 0;
                });
            } else {
                // The queue is still there: a new peer on the same endpoint receives from it.
                try (ZmqContext againCtx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
                    ZmqSocket again = againCtx.socket(SocketType.PULL);
                    again.receiveTimeoutMs(5000);
                    again.bind(endpoint);
                    assertTrue(again.receive(msg, 0), "a connecting sender keeps its queue for a reconnect");
                    assertEquals(size, msg.size());
                    again.lingerMs(0);
                }
                push.lingerMs(0);
                push.close();
                Endpoints.await("every buffer back once the sender's socket closed", () -> pool.outstanding() == 0);
            }
            Buffers.assertAllBack(pool);
        }
        pool.close();
    }

    @Test
    void shouldTakeTheInprocThresholdOnlyWhileEveryEndpointIsInproc() {
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            assertEquals(NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, pool.zeroCopyThresholdBytes());
            assertEquals(NativeBufferPool.DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES, pool.inprocZeroCopyThresholdBytes());
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            assertEquals(8192, push.zeroCopyThresholdBytes(), "no endpoint yet");
            String inproc = Endpoints.bindAny(pull, "inproc");
            assertEquals(512, pull.zeroCopyThresholdBytes(), "bound to inproc only");
            push.connect(inproc);
            assertEquals(512, push.zeroCopyThresholdBytes(), "connected to inproc only");
            ZmqSocket other = ctx.socket(SocketType.PULL);
            String tcp = Endpoints.bindAny(other, "tcp");
            assertEquals(8192, other.zeroCopyThresholdBytes(), "bound to tcp");
            push.connect(tcp);
            assertEquals(8192, push.zeroCopyThresholdBytes(), "inproc and tcp");
            push.disconnect(tcp);
            assertEquals(8192, push.zeroCopyThresholdBytes(), "the tcp endpoint was there: stays");
            ZmqSocket failed = ctx.socket(SocketType.PUSH);
            assertThrows(ZmqException.class, () -> failed.connect("bogus://nowhere"));
            assertEquals(8192, failed.zeroCopyThresholdBytes(), "a refused endpoint changes nothing");
            failed.connect(inproc);
            assertEquals(512, failed.zeroCopyThresholdBytes());
            for (ZmqSocket s : new ZmqSocket[] {pull, push, other, failed}) {
                s.lingerMs(0);
            }
        }
    }

    /**
     * The socket's threshold decides: a pooled send of 1 KiB over inproc is handed over (libzmq
     * holds the buffer until the receiver has it), the same send over tcp, and one of 256 B over
     * inproc, are copied (the buffer is back at once).
     */
    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void shouldSendZeroCopyFromTheInprocThresholdOnlyOverInproc(String transport) {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, transport));
            boolean inproc = transport.equals("inproc");
            for (long size : new long[] {256, 511, 512, 1024, 4096}) {
                PooledBuffer b = pool.rent(size);
                fill(b.segment(), size, (int) size);
                long before = pool.stats().returned();
                assertTrue(push.sendPooled(b, size, 0));
                boolean handedOver = pool.stats().returned() == before; // a copy releases at once
                assertEquals(inproc && size >= 512, handedOver, () -> transport + " " + size + " B: " + pool.stats());
                assertTrue(pull.receive(msg, 0));
                assertEquals(size, msg.size());
                for (long i = 0; i < size; i += 8) {
                    assertEquals((byte) (size + i), msg.data().get(ValueLayout.JAVA_BYTE, i));
                }
            }
            msg.clear();
            Buffers.awaitAllBack(pool);
            pull.lingerMs(0);
            push.lingerMs(0);
        }
    }

    @Test
    void shouldLetTheInprocThresholdFollowTheOtherUnlessSet() {
        try (NativeBufferPool follows = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
             NativeBufferPool own = NativeBufferPool.builder().zeroCopyThresholdBytes(65536).inprocZeroCopyThresholdBytes(2048).build();
             NativeBufferPool inprocOnly = NativeBufferPool.builder().inprocZeroCopyThresholdBytes(1L << 40).build()) {
            assertEquals(0, follows.inprocZeroCopyThresholdBytes());
            assertEquals(65536, own.zeroCopyThresholdBytes());
            assertEquals(2048, own.inprocZeroCopyThresholdBytes());
            assertEquals(8192, inprocOnly.zeroCopyThresholdBytes());
            assertEquals(1L << 40, inprocOnly.inprocZeroCopyThresholdBytes());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NativeBufferPool.builder().inprocZeroCopyThresholdBytes(-1));
        assertTrue(e.getMessage().contains("inprocZeroCopyThresholdBytes=-1"), e.getMessage());
    }

    @Test
    void shouldReturnBuffersWhenContextClosesWithMessagesInFlightOverInproc() {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            for (int i = 0; i < 50; i++) {
                assertTrue(push.sendPooled(pool.rent(1000), 1000, 0));
            }
            assertEquals(50, pool.outstanding()); // queued in the inproc pipe, nobody received them
            pull.lingerMs(0);
            push.lingerMs(0);
        }
        Buffers.assertAllBack(pool);
        pool.close();
    }

    @Test
    void shouldReturnReceivedBufferWhenMessageIsCleared() {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
             ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            PooledBuffer b = pool.rent(4096);
            b.segment().fill((byte) 3);
            assertTrue(push.sendPooled(b, 4096, 0));
            assertTrue(pull.receive(msg, 0));
            MemorySegment view = msg.data();
            assertEquals(4096, msg.size());
            assertEquals(1, pool.outstanding()); // inproc: the received frame is the pooled buffer itself
            msg.clear();
            assertEquals(0, pool.outstanding());
            assertEquals(0, msg.size());
            assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0));
            assertTrue(push.send(new byte[] {9}, 0)); // still usable after clear
            assertTrue(pull.receive(msg, 0));
            assertEquals(1, msg.size());
        }
        pool.close();
    }

    @Test
    void shouldGiveBufferBackToCallerWhenSendWouldBlock() {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH); // no peer: would block
            push.lingerMs(0);
            PooledBuffer big = pool.rent(10_000);
            assertFalse(push.sendPooled(big, 10_000, ZmqSocket.DONTWAIT));
            assertTrue(big.isRented());
            assertEquals(0, pool.stats().inFlight());
            big.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 1); // still usable
            PooledBuffer small = NativeBufferPool.builder().build().rent(10);
            small.release();
            big.release();
            assertEquals(0, pool.stats().doubleReleases());
            big.release(); // harmless, but counted
            assertEquals(1, pool.stats().doubleReleases());
            assertThrows(IllegalStateException.class, big::segment);
        }
        assertEquals(0, pool.outstanding());
        pool.close();
    }

    @Test
    void shouldCopySmallMessagesAndReleaseAtOnce() {
        try (ZmqContext ctx = new ZmqContext()) {
            NativeBufferPool pool = ctx.bufferPool();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            PooledBuffer b = pool.rent(100);
            b.segment().fill((byte) 7);
            assertTrue(push.sendPooled(b, 100, 0));
            assertEquals(0, pool.outstanding()); // below the threshold: copied, released synchronously
            byte[] got = pull.receiveBytes(0);
            byte[] want = new byte[100];
            Arrays.fill(want, (byte) 7);
            assertEquals(Arrays.toString(want), Arrays.toString(got));
        }
    }

    @Test
    void shouldReportLeakedBufferWithItsRentSite() {
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build();
        PooledBuffer leaked = pool.rent(1000);
        IllegalStateException e = assertThrows(IllegalStateException.class, pool::assertNoLeaks);
        assertTrue(e.getMessage().contains("count=1"), e.getMessage());
        assertEquals(1, e.getSuppressed().length);
        assertTrue(Arrays.stream(e.getSuppressed()[0].getStackTrace())
                .anyMatch(f -> f.getMethodName().equals("shouldReportLeakedBufferWithItsRentSite")));
        assertEquals(1, pool.checkLeaks());
        leaked.release();
        pool.assertNoLeaks();
        pool.close();
        assertThrows(IllegalStateException.class, () -> pool.rent(1));
    }

    @Test
    void shouldServeOversizeAndExhaustedClassesUnpooled() {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1024).maxBuffersPerClass(2).build();
        PooledBuffer a = pool.rent(1000);
        PooledBuffer b = pool.rent(1000);
        PooledBuffer c = pool.rent(1000); // class full
        PooledBuffer d = pool.rent(1 << 20); // larger than the largest class
        assertTrue(c.capacity() >= 1000);
        assertEquals(1 << 20, d.segment().byteSize());
        assertEquals(2, pool.stats().unpooled());
        for (PooledBuffer x : new PooledBuffer[] {a, b, c, d}) {
            x.release();
        }
        assertEquals(0, pool.outstanding());
        PooledBuffer again = pool.rent(1000);
        assertTrue(again == a || again == b, "freed slot reused");
        again.release();
        pool.close();
    }

    /**
     * A rent too large for any memory says what was asked for. From {@code Long.MAX_VALUE - 62}
     * up, the JDK's allocation with the pool's 64-byte alignment overflowed and threw an
     * OutOfMemoryError without a message; below it the JDK's message named only its own sum.
     */
    @Test
    void shouldNameTheRequestWhenAnUnpooledBufferCannotBeAllocated() {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        for (long n : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 62, 1L << 62}) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> pool.rent(n));
            assertTrue(e.getMessage() != null && e.getMessage().contains("minCapacityBytes=" + n), e.getMessage());
        }
        assertEquals(0, pool.stats().rented());
        pool.close();
    }

    /**
     * A rent whose memory cannot be had throws and counts nothing: here the first slab of a
     * 2 EiB size class and an unpooled buffer beyond it, both over the JVM's limit. Counted as a
     * miss before the allocation, each failed rent stayed outstanding for ever, and
     * {@link NativeBufferPool#assertNoLeaks()} could not pass again.
     */
    @Test
    void shouldCountNoRentWhoseMemoryCouldNotBeAllocated() {
        long huge = 1L << 61;
        NativeBufferPool pool = NativeBufferPool.builder().minBufferBytes(1024).maxBufferBytes(huge).maxBuffersPerClass(1).build();
        assertThrows(OutOfMemoryError.class, () -> pool.rent(huge), "a slab of the largest class");
        assertThrows(OutOfMemoryError.class, () -> pool.rent(huge + 1), "an unpooled buffer");
        NativeBufferPool.Stats s = pool.stats();
        assertEquals(0, s.rented(), s::toString);
        assertEquals(0, s.misses(), s::toString);
        assertEquals(0, s.unpooled(), s::toString);
        assertEquals(0, s.slabBytes(), s::toString);
        assertEquals(0, pool.outstanding(), s::toString);
        PooledBuffer b = pool.rent(1000); // the pool still serves
        assertEquals(1, pool.outstanding());
        b.release();
        pool.assertNoLeaks();
        pool.close();
    }

    /**
     * A size class whose slab no memory can hold (2^62 bytes, beyond any address space): until
     * 2026-11-29 its rent and reserve threw the JDK's "Unable to allocate 4611686018427387952
     * bytes", which named neither the class nor the setting behind it; now the message names the
     * class, the slab and what to change, on a pool of one class per slab and one of two.
     */
    @Test
    void shouldNameTheSizeClassAndSlabWhenASlabCannotBeAllocated() {
        long huge = 1L << 62;
        NativeBufferPool one = NativeBufferPool.builder().minBufferBytes(huge).maxBufferBytes(huge).build();
        OutOfMemoryError rent = assertThrows(OutOfMemoryError.class, () -> one.rent(1000));
        assertTrue(rent.getMessage().startsWith("cannot allocate a slab of the pool's size class: bufferBytes=" + huge
                + ", slabBytes=" + huge + ", buffersPerSlab=1 (free native memory, or lower the builder's maxBufferBytes,"
                + " above which rents are unpooled) (Unable to allocate"), rent.getMessage());
        OutOfMemoryError reserve = assertThrows(OutOfMemoryError.class, () -> one.reserve(huge, 1));
        assertTrue(reserve.getMessage().startsWith("cannot allocate a slab of the pool's size class: bufferBytes=" + huge),
                reserve.getMessage());
        assertEquals(0, one.stats().rented());
        one.close();

        NativeBufferPool two = NativeBufferPool.builder().minBufferBytes(huge / 2).maxBufferBytes(huge / 2).slabBytes(huge).build();
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> two.rent(1000));
        assertTrue(e.getMessage().startsWith("cannot allocate a slab of the pool's size class: bufferBytes=" + huge / 2
                + ", slabBytes=" + huge + ", buffersPerSlab=2 (free native memory, or lower the builder's maxBufferBytes,"
                + " above which rents are unpooled, or its slabBytes)"), e.getMessage());
        two.close();
    }

    @Test
    void shouldServeReservedBuffersAsHits() {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1 << 16).maxBuffersPerClass(300).build();
        assertEquals(100, pool.reserve(40_000, 100)); // the 64 KiB class
        assertEquals(0, pool.reserve(40_000, 100)); // already there
        assertEquals(200, pool.reserve(1 << 16, 1_000)); // same class, capped at the class bound
        NativeBufferPool.Stats before = pool.stats();
        assertEquals(0, before.rented());
        assertTrue(before.slabBytes() >= 300L * (1 << 16), before::toString);
        PooledBuffer[] held = new PooledBuffer[100];
        for (int i = 0; i < held.length; i++) {
            held[i] = pool.rent(33_000 + i);
            held[i].segment().fill((byte) i); // writable, distinct memory
        }
        assertEquals(100, pool.stats().hits());
        assertEquals(0, pool.stats().misses());
        for (PooledBuffer b : held) {
            b.release();
        }
        assertEquals(0, pool.outstanding());
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(1 << 17, 1));
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(1024, -1));
        pool.close();
        assertThrows(IllegalStateException.class, () -> pool.reserve(1024, 1));
    }

    /**
     * README "Ownership and view lifetimes": a successful sendPooled takes the buffer, and its
     * segment() and address() then throw IllegalStateException, on the zero-copy path (libzmq holds
     * the buffer) and on the copied one (released at once) alike; the frame arrives whole.
     */
    @Test
    void shouldRefuseTheMemoryOfABufferASuccessfulSendTook() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            for (int size : new int[] {100, 4096}) { // below and above the inproc threshold, 512 B
                PooledBuffer b = ctx.bufferPool().rent(size);
                b.segment().fill((byte) 3);
                assertTrue(push.sendPooled(b, size, 0));
                assertThrows(IllegalStateException.class, b::segment, "size=" + size);
                assertThrows(IllegalStateException.class, b::address, "size=" + size);
                byte[] got = pull.receiveBytes(0);
                assertEquals(size, got.length);
                assertEquals(3, got[size - 1]);
            }
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }
}

package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Closing a pool and sending its buffers, in either order or at once, never lets libzmq read freed memory. */
class PoolCloseTest {

    private static final long BUFFER_BYTES = 1000;

    /** 0: every send is zero-copy; Long.MAX_VALUE: every send copies into a libzmq message. */
    @ParameterizedTest(name = "zeroCopyThresholdBytes={0}")
    @ValueSource(longs = {0, Long.MAX_VALUE})
    void shouldRefuseToSendABufferRentedBeforeItsPoolClosed(long threshold) {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(threshold).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            PooledBuffer b = pool.rent(BUFFER_BYTES);
            pool.close(); // frees the slabs: nothing is in flight
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> push.sendPooled(b, BUFFER_BYTES, ZmqSocket.DONTWAIT));
            assertTrue(e.getMessage().contains("pool is closed"), e.getMessage());
            assertTrue(b.isRented(), "a refused send leaves the buffer with the caller");
            assertEquals(0, pool.stats().inFlight());
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT), "nothing was sent");
            b.release();
        }
        Buffers.assertAllBack(pool);
    }

    @Test
    void shouldRefuseToMarkABufferInFlightThatTheCallerDoesNotOwn() {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer b = pool.rent(BUFFER_BYTES);
        b.release();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.markInFlight(b));
        assertTrue(e.getMessage().contains("state=released"), e.getMessage());
        assertEquals(0, pool.stats().inFlight(), "a refused hand-over counts nothing in flight");
        pool.close();
    }

    /**
     * A sender hands buffers to libzmq while another thread closes the pool. Every send either
     * gets in before the close (and then the close keeps the memory, which the receiver reads and
     * checks) or fails with IllegalStateException; none succeeds once close() has returned.
     */
    @ParameterizedTest(name = "zeroCopyThresholdBytes={0}, frameBytes={1}")
    @CsvSource({"0, 1000", "9223372036854775807, 1000", "9223372036854775807, 64", "9223372036854775807, 256"})
    void shouldKeepMemoryForEverySendThatRacedWithClose(long threshold, long frameBytes) throws Exception {
        int rounds = 40;
        int perRound = 200;
        for (int round = 0; round < rounds; round++) {
            NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(threshold).build();
            try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
                ZmqSocket pull = ctx.socket(SocketType.PULL);
                ZmqSocket push = ctx.socket(SocketType.PUSH);
                push.sendHwm(0); // unbounded: a send never blocks, so the race is only with close
                pull.receiveHwm(0);
                push.connect(Endpoints.bindAny(pull, "inproc"));
                List<PooledBuffer> buffers = new ArrayList<>();
                for (int i = 0; i < perRound; i++) {
                    PooledBuffer b = pool.rent(frameBytes);
                    b.segment().fill((byte) i);
                    buffers.add(b);
                }
                CountDownLatch go = new CountDownLatch(1);
                AtomicBoolean closeReturned = new AtomicBoolean();
                AtomicInteger sent = new AtomicInteger();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread sender = Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                        for (PooledBuffer b : buffers) {
                            boolean afterClose = closeReturned.get();
                            try {
                                if (!push.sendPooled(b, frameBytes, 0)) {
                                    throw new AssertionError("unbounded blocking send returned would-block");
                                }
                                if (afterClose) {
                                    throw new AssertionError("a send that began after close() returned succeeded");
                                }
                                sent.incrementAndGet();
                            } catch (IllegalStateException refused) {
                                b.release();
                            }
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                go.countDown();
                pool.close();
                closeReturned.set(true);
                sender.join();
                assertNull(failure.get());
                // Every message that got in reads back intact: its memory was not freed under it.
                try (ZmqMessage msg = new ZmqMessage()) {
                    for (int i = 0; i < sent.get(); i++) {
                        assertTrue(pull.receive(msg, 0));
                        assertEquals(frameBytes, msg.size());
                        byte first = LibZmq.EVERYTHING.get(ValueLayout.JAVA_BYTE, msg.address());
                        byte last = LibZmq.EVERYTHING.get(ValueLayout.JAVA_BYTE, msg.address() + frameBytes - 1);
                        assertEquals(first, last, "message memory changed under libzmq");
                    }
                }
            }
            Buffers.assertAllBack(pool);
        }
    }

    /**
     * One buffer stays rented throughout while other threads rent and return as fast as they can:
     * outstanding() must never read 0. (Reading rented before returned let a rent and a return
     * landing between the two reads cancel the held buffer out.)
     */
    @Test
    void shouldNeverReportZeroOutstandingWhileABufferIsOut() throws Exception {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer held = pool.rent(BUFFER_BYTES);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> churners = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            churners.add(Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    pool.rent(BUFFER_BYTES).release();
                }
            }));
        }
        try {
            for (int i = 0; i < 2_000_000; i++) {
                long n = pool.outstanding();
                if (n < 1) {
                    throw new AssertionError("outstanding read " + n + " while a buffer was rented: read=" + i);
                }
                if ((i & 1023) == 0) {
                    NativeBufferPool.Stats s = pool.stats();
                    assertTrue(s.outstanding() >= 1, s::toString);
                }
            }
        } finally {
            stop.set(true);
            for (Thread t : churners) {
                t.join();
            }
        }
        held.release();
        assertEquals(0, pool.outstanding());
        pool.close();
    }

    /**
     * A segment kept past release (PooledBuffer's Javadoc): a pooled slot's memory is freed when
     * the pool closes, and the stale segment then throws; an unpooled buffer's memory is freed at
     * its release, and its stale segment throws from then on. Until 2026-11-29 the unpooled
     * buffer's memory belonged to an automatic arena, and its stale segment stayed readable until
     * the garbage collector freed it (UnpooledBufferFreeTest).
     */
    @Test
    void shouldFreeAPooledSlotAtCloseAndAnUnpooledBufferAtItsRelease() {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1024).build();
        PooledBuffer pooled = pool.rent(100);
        PooledBuffer unpooled = pool.rent(NativeBufferPool.FREED_ON_RETURN_BYTES); // freed at release from this size on
        assertEquals(1, pool.stats().unpooled());
        var pooledView = pooled.segment();
        var unpooledView = unpooled.segment();
        unpooledView.set(ValueLayout.JAVA_BYTE, 4095, (byte) 5);
        pooled.release();
        unpooled.release();
        assertThrows(IllegalStateException.class, () -> unpooledView.get(ValueLayout.JAVA_BYTE, 4095));
        assertDoesNotThrow(() -> pooledView.get(ValueLayout.JAVA_BYTE, 0), "a slot stays mapped while its pool is open");
        pool.close();
        assertThrows(IllegalStateException.class, () -> pooledView.get(ValueLayout.JAVA_BYTE, 0));
    }

    /**
     * A buffer still rented when its pool closes (a leak, which the close logs) keeps its handle but
     * not its memory: segment() and address() refuse it, naming the closed pool, as they refuse a
     * released buffer. address() used to return the freed memory's address, and a write through it
     * killed the JVM (glibc's "munmap_chunk(): invalid pointer" abort at 100 B, SIGSEGV at 4 MB);
     * segment() returned a dead segment whose first access threw the JDK's bare "Already closed".
     * An unpooled buffer's memory is its own, freed at its release, and stays usable until then.
     */
    @Test
    void shouldRefuseTheMemoryOfABufferStillRentedWhenItsPoolClosed() {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1024).build();
        PooledBuffer pooled = pool.rent(100);
        PooledBuffer unpooled = pool.rent(4096);
        pool.close(); // logs both as leaks
        for (Runnable call : List.<Runnable>of(pooled::segment, pooled::address)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
            assertTrue(e.getMessage().startsWith("buffer's pool is closed and its memory freed: capacity=256"), e.getMessage());
        }
        assertTrue(pooled.isRented(), "the handle is still the caller's");
        assertEquals(256, pooled.capacity());
        unpooled.segment().set(ValueLayout.JAVA_BYTE, 4095, (byte) 5);
        assertEquals(5, MemorySegment.ofAddress(unpooled.address()).reinterpret(4096).get(ValueLayout.JAVA_BYTE, 4095));
        pooled.release();
        unpooled.release();
        assertEquals(0, pool.outstanding());
        assertEquals(0, pool.stats().doubleReleases());
    }

    /**
     * A rent or reserve that passed the closed check and then carved a slab after the pool closed
     * threw the JDK's "Already closed", which names neither the pool nor the buffer (58 of 300
     * rents and reserves racing a close did). The carving thread is held on its size class's
     * lock, which carving takes, until the close is done.
     */
    @ParameterizedTest(name = "reserve={0}")
    @ValueSource(booleans = {false, true})
    void shouldSayThePoolIsClosedWhenItClosesWhileACallCarvesASlab(boolean reserve) throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        var classesField = NativeBufferPool.class.getDeclaredField("classes");
        classesField.setAccessible(true);
        Object sizeClass = ((Object[]) classesField.get(pool))[2]; // 1 KiB, the class of BUFFER_BYTES
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread carver = new Thread(() -> {
            try {
                if (reserve) {
                    pool.reserve(BUFFER_BYTES, 1);
                } else {
                    pool.rent(BUFFER_BYTES).release();
                }
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        synchronized (sizeClass) {
            carver.start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (carver.getState() != Thread.State.BLOCKED) {
                assertTrue(System.nanoTime() < deadline, "the carving thread never reached the size class's lock");
                Thread.onSpinWait();
            }
            pool.close();
        }
        carver.join();
        Throwable t = thrown.get();
        assertTrue(t instanceof IllegalStateException && t.getMessage().startsWith("pool is closed (it closed while this"
                + " call was carving a slab: slabBytes="), String.valueOf(t));
        NativeBufferPool.Stats stats = pool.stats();
        assertEquals(0, stats.rented(), stats.toString());
        assertEquals(0, stats.outstanding(), stats.toString());
        assertEquals(0, stats.slabBytes(), stats.toString());
    }

    /** A buffer rented before the pool closed and released on another thread after it: counted back, no leak. */
    @Test
    void shouldTakeBackABufferReleasedOnAnotherThreadAfterTheClose() throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().build();
        PooledBuffer b = pool.rent(BUFFER_BYTES);
        pool.close();
        assertEquals(1, pool.outstanding());
        Thread releaser = new Thread(b::release);
        releaser.start();
        releaser.join();
        assertEquals(0, pool.outstanding());
        pool.assertNoLeaks();
        assertThrows(IllegalStateException.class, b::segment);
        b.release();
        NativeBufferPool.Stats stats = pool.stats();
        assertEquals(1, stats.doubleReleases(), stats.toString());
        assertEquals(stats.rented() - stats.returned(), stats.outstanding(), stats.toString());
    }
}

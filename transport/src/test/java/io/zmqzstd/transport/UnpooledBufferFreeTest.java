package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.internal.LibZmq;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An unpooled buffer (a rent above the pool's largest class, 4 MiB by default) has its memory freed
 * when it comes back: by its release, or by libzmq's free callback after a zero-copy send. Until
 * 2026-11-29 that memory came from {@code Arena.ofAuto()} and was freed only by a later garbage
 * collection: a sender of 256 MiB messages that made little heap garbage grew by 263-267 MB of RSS
 * per message (reliability's BulkTransferJourneyTest probe), and a segment kept past the return
 * stayed readable. Every path ends with nothing outstanding and no leak (LeakCheckExtension).
 */
class UnpooledBufferFreeTest {

    /** Above the default largest class (4 MiB): unpooled. */
    private static final int BYTES = 8 << 20;
    private static final Pattern GROWTH = Pattern.compile("transport=(\\w+) growthKb=(-?\\d+) gcs=(\\d+)");

    /**
     * Five 64 MiB unpooled zero-copy sends over tcp and over inproc, each written whole by the
     * sender, leave the child's anonymous RSS within 16 MiB of where it was, with no collection in
     * between. On the code before, it grew by about five buffers (see the README's "Fixed defects").
     */
    @Test
    void shouldNotGrowResidentMemoryByABufferPerUnpooledZeroCopySend() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), UnpooledBufferFreeTest.class,
                // The limit of direct memory, which the JDK's arenas counted unpooled buffers against,
                // is the heap's size by default, and reaching it makes the JDK collect: as high here as
                // for a service with a heap of gigabytes, so that no collection hides what is not freed.
                List.of("-Xms256m", "-Xmx256m", "-XX:MaxDirectMemorySize=4g", "-XX:+UseSerialGC"), "rss");
        Matcher m = GROWTH.matcher(out);
        int seen = 0;
        while (m.find()) {
            seen++;
            System.out.println(m.group());
            long growthKb = Long.parseLong(m.group(2));
            assertEquals(0, Long.parseLong(m.group(3)), () -> "a collection ran during the sends: " + out);
            assertTrue(growthKb < 16 * 1024, () -> "RssAnon grew by a buffer per message, " + m.group() + ": " + out);
        }
        assertEquals(2, seen, () -> "no result line for tcp and inproc in: " + out);
    }

    /** A rent released without a send: its memory is freed at once, and a segment kept past it throws. */
    @Test
    void shouldFreeAtReleaseAndRefuseAStaleSegment() {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer b = pool.rent(BYTES);
        MemorySegment stale = b.segment();
        stale.set(ValueLayout.JAVA_BYTE, BYTES - 1, (byte) 3);
        b.release();
        assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, BYTES - 1),
                "a stale segment of a released unpooled buffer read its memory");
        NativeBufferPool.Stats s = pool.stats();
        assertEquals(List.of(1L, 1L, 0L, 0L, 1L, 1L, 0L, 0L), List.of(s.rented(), s.returned(), s.outstanding(), s.hits(),
                s.misses(), s.unpooled(), s.inFlight(), s.doubleReleases()), s::toString);
        pool.close();
    }

    /**
     * A zero-copy send: the memory stays while libzmq holds the frame (over inproc the receiver's
     * message reads the sender's buffer itself) and is freed by the free callback, on libzmq's I/O
     * thread over tcp, on the receiving thread over inproc once its message lets go.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldFreeInTheFreeCallbackOnceLibzmqLetsGo(String transport) {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ContextTestBase.timed(ctx.socket(SocketType.PULL));
            ZmqSocket push = ContextTestBase.timed(ctx.socket(SocketType.PUSH));
            push.connect(Endpoints.bindAny(pull, transport));
            NativeBufferPool pool = ctx.bufferPool();
            PooledBuffer b = pool.rent(BYTES);
            MemorySegment stale = b.segment();
            stale.fill((byte) 7);
            assertTrue(push.sendPooled(b, BYTES, 0));
            assertTrue(pull.receive(msg, 0));
            assertEquals(BYTES, msg.size());
            assertEquals(7, msg.data().get(ValueLayout.JAVA_BYTE, BYTES - 1));
            if (transport.equals("inproc")) {
                assertTrue(stale.scope().isAlive(), "freed while the receiver's message still reads it");
                assertEquals(1, pool.stats().inFlight());
            }
            msg.clear(); // inproc: the callback runs here
            Endpoints.await("the buffer back from libzmq", () -> pool.outstanding() == 0);
            assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 0));
            NativeBufferPool.Stats s = pool.stats();
            assertEquals(0, s.inFlight(), s::toString);
            assertEquals(1, s.unpooled(), s::toString);
        }
    }

    /**
     * A send that would block, and one libzmq refuses (a REQ's second request, EFSM), leave the
     * buffer and its memory with the caller: the free callback of the refused message hands it back
     * instead of freeing it. The release afterwards frees it.
     */
    @Test
    void shouldLeaveTheMemoryWithTheCallerWhenASendWouldBlockOrFails() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket lonely = ctx.socket(SocketType.PUSH); // no peer: would block
            ZmqSocket rep = ctx.socket(SocketType.REP);
            ZmqSocket req = ContextTestBase.timed(ctx.socket(SocketType.REQ));
            req.connect(Endpoints.bindAny(rep, "inproc"));
            assertTrue(req.send(new byte[] {1}, 0));
            NativeBufferPool pool = ctx.bufferPool();
            PooledBuffer b = pool.rent(BYTES);
            MemorySegment segment = b.segment();
            segment.fill((byte) 5);
            assertFalse(lonely.sendPooled(b, BYTES, ZmqSocket.DONTWAIT));
            assertTrue(b.isRented());
            assertEquals(5, segment.get(ValueLayout.JAVA_BYTE, BYTES - 1));
            ZmqException refused = assertThrows(ZmqException.class, () -> req.sendPooled(b, BYTES, 0));
            assertEquals(LibZmq.EFSM, refused.errno(), refused::getMessage);
            assertTrue(b.isRented());
            assertEquals(5, b.segment().get(ValueLayout.JAVA_BYTE, BYTES - 1));
            assertEquals(0, pool.stats().inFlight());
            b.release();
            assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(0, pool.outstanding());
        }
    }

    /**
     * A copying send of an unpooled buffer (below the threshold, above 256 B) has it in flight for
     * the call: a release on another thread meanwhile, the owner's bug, counts a double release and
     * frees nothing while zmq_send may read the memory; the send's own release frees it once sent.
     * Without the mark, that release freed the memory under the call (checked by removing it).
     */
    @Test
    void shouldNotFreeUnderACopyingSendWhenAnotherThreadReleases() throws Exception {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1024).build();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            String endpoint = Endpoints.bindAny(push, "tcp"); // no peer yet: the send blocks; tcp: copied below 8 KiB
            PooledBuffer b = pool.rent(NativeBufferPool.FREED_ON_RETURN_BYTES); // 4,096 B of it sent, copied
            MemorySegment memory = b.segment();
            memory.fill((byte) 6);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> sent = new AtomicReference<>();
            Thread sender = BlockedCalls.start("invokeFast", thrown, () -> sent.set(push.sendPooled(b, 4096, 0)));
            b.release();
            assertEquals(1, pool.stats().doubleReleases());
            assertTrue(memory.scope().isAlive(), "freed under a send in progress");
            ZmqSocket pull = ContextTestBase.timed(ctx.socket(SocketType.PULL));
            pull.connect(endpoint);
            assertTrue(pull.receive(msg, 0));
            sender.join();
            assertEquals(null, thrown.get());
            assertTrue(sent.get());
            assertEquals(6, msg.data().get(ValueLayout.JAVA_BYTE, 4095));
            assertThrows(IllegalStateException.class, () -> memory.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(0, pool.outstanding());
        }
        pool.close();
    }

    /**
     * Below {@link NativeBufferPool#FREED_ON_RETURN_BYTES} (1 MiB) an unpooled buffer (a small
     * class that ran dry in a burst) is left to the garbage collector, as before: freeing closes a
     * shared arena, a handshake with every Java thread, which would be a cost per message there.
     * Its stale segment stays readable; every count is as for the large ones.
     */
    @Test
    void shouldLeaveASmallUnpooledBufferToTheCollector() {
        NativeBufferPool pool = NativeBufferPool.builder().maxBufferBytes(1024).build();
        PooledBuffer b = pool.rent(NativeBufferPool.FREED_ON_RETURN_BYTES - 1);
        MemorySegment stale = b.segment();
        stale.set(ValueLayout.JAVA_BYTE, 0, (byte) 9);
        b.release();
        assertEquals(9, stale.get(ValueLayout.JAVA_BYTE, 0), "left to the collector");
        assertEquals(1, pool.stats().unpooled());
        assertEquals(0, pool.outstanding());
        PooledBuffer large = pool.rent(NativeBufferPool.FREED_ON_RETURN_BYTES);
        MemorySegment freed = large.segment();
        large.release();
        assertThrows(IllegalStateException.class, () -> freed.get(ValueLayout.JAVA_BYTE, 0), "freed at its release");
        pool.close();
    }

    /** A second release counts a double release and frees nothing twice. */
    @Test
    void shouldFreeOnceWhenReleasedTwice() {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer b = pool.rent(BYTES);
        MemorySegment stale = b.segment();
        b.release();
        b.release();
        assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(1, pool.stats().doubleReleases());
        assertEquals(0, pool.outstanding());
        pool.close();
    }

    /**
     * A pool closed while libzmq holds one of its unpooled buffers (queued on a PUSH connected to a
     * port nobody listens on) keeps that memory; the context's close makes libzmq return it, and
     * the callback frees it.
     */
    @Test
    void shouldFreeABufferLibzmqHeldWhenItsPoolClosedOnceTheContextReturnsIt() {
        NativeBufferPool pool = new NativeBufferPool();
        MemorySegment stale;
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket push = ContextTestBase.timed(ctx.socket(SocketType.PUSH));
            push.connect("tcp://127.0.0.1:" + Ports.unused());
            PooledBuffer b = pool.rent(BYTES);
            stale = b.segment();
            stale.fill((byte) 9);
            assertTrue(push.sendPooled(b, BYTES, 0));
            pool.close(); // logs that libzmq still holds a buffer, and keeps it
            assertEquals(1, pool.stats().inFlight());
            assertEquals(9, stale.get(ValueLayout.JAVA_BYTE, BYTES - 1), "freed while libzmq holds it");
        }
        assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(0, pool.outstanding());
        assertEquals(0, pool.stats().inFlight());
    }

    /** The context's own pool: its close returns the queued buffer, and the callback frees it. */
    @Test
    void shouldFreeABufferLibzmqHeldWhenTheContextCloses() {
        ZmqContext ctx = new ZmqContext();
        NativeBufferPool pool = ctx.bufferPool();
        ZmqSocket push = ContextTestBase.timed(ctx.socket(SocketType.PUSH));
        push.connect("tcp://127.0.0.1:" + Ports.unused());
        PooledBuffer b = pool.rent(BYTES);
        MemorySegment stale = b.segment();
        assertTrue(push.sendPooled(b, BYTES, 0));
        assertTrue(stale.scope().isAlive());
        ctx.close();
        assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(0, pool.outstanding());
        assertTrue(pool.isClosed());
    }

    /** Leak detection still reports an unpooled buffer never released, with its rent site. */
    @Test
    void shouldStillReportANeverReleasedUnpooledBufferAsALeak() {
        NativeBufferPool pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.STRICT).build();
        PooledBuffer b = pool.rent(BYTES);
        assertEquals(1, pool.checkLeaks());
        IllegalStateException e = assertThrows(IllegalStateException.class, pool::assertNoLeaks);
        assertEquals(1, e.getSuppressed().length);
        assertEquals("buffer rented here: capacity=" + BYTES, e.getSuppressed()[0].getMessage());
        b.release();
        pool.assertNoLeaks();
        pool.close();
    }

    /**
     * In a child JVM, for what frees memory under a running access if it goes wrong: a release while
     * a channel read on another thread writes into the buffer keeps the memory (the read completes
     * into it), and the memory is freed once nothing reaches it; so is a buffer never released whose
     * pool closed. Both read through RssAnon after collections.
     */
    @Test
    void shouldKeepTheMemoryUnderAChannelReadAndFreeWhatIsNeverReturnedOnceUnreachable() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), UnpooledBufferFreeTest.class,
                List.of("-Xmx128m", "-XX:+UseSerialGC"), "unreachable");
        assertTrue(out.contains("read kept its memory, freed once unreachable"), out);
        assertTrue(out.contains("leaked buffer freed once unreachable"), out);
    }

    /** The child JVM's side of the tests above. */
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "rss" -> {
                for (String transport : List.of("tcp", "inproc")) {
                    rssOverSends(transport);
                }
            }
            case "unreachable" -> {
                // Each leaves its buffer unreachable once it has returned, its locals gone with its frame.
                awaitFreed(readAfterRelease(), "read kept its memory, freed once unreachable");
                awaitFreed(leak(), "leaked buffer freed once unreachable");
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static final int BIG = 64 << 20;

    private static void rssOverSends(String transport) throws IOException {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ContextTestBase.timed(ctx.socket(SocketType.PULL));
            ZmqSocket push = ContextTestBase.timed(ctx.socket(SocketType.PUSH));
            push.connect(Endpoints.bindAny(pull, transport));
            NativeBufferPool pool = ctx.bufferPool();
            sendOne(push, pull, msg, 0); // connections, threads, the receiver's first frame
            msg.clear();
            Endpoints.await("the first buffer back", () -> pool.outstanding() == 0);
            long gcs = collections();
            long before = rssAnonKb();
            for (int i = 1; i <= 5; i++) {
                sendOne(push, pull, msg, i);
            }
            msg.clear();
            Endpoints.await("every buffer back", () -> pool.outstanding() == 0);
            System.out.println("transport=" + transport + " growthKb=" + (rssAnonKb() - before) + " gcs="
                    + (collections() - gcs) + " unpooled=" + pool.stats().unpooled());
        }
    }

    /** A 64 MiB unpooled buffer, written whole, sent zero-copy and received. */
    private static void sendOne(ZmqSocket push, ZmqSocket pull, ZmqMessage msg, int i) {
        PooledBuffer b = push.context().bufferPool().rent(BIG);
        b.segment().fill((byte) i);
        if (!push.sendPooled(b, BIG, 0) || !pull.receive(msg, 0) || msg.size() != BIG
                || msg.data().get(ValueLayout.JAVA_BYTE, BIG - 1) != (byte) i) {
            throw new AssertionError("message " + i + " not received whole");
        }
    }

    /** Returns RssAnon with the buffer's 64 MiB resident. */
    private static long readAfterRelease() throws Exception {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer b = pool.rent(BIG);
        MemorySegment memory = b.segment();
        memory.fill((byte) 1);
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread reader = BlockedCalls.start("read0", thrown, () -> source.read(memory.asByteBuffer()));
            b.release(); // the read holds the memory: logged, not freed
            check(memory.scope().isAlive(), "memory freed under a running channel read");
            check(pool.outstanding() == 0, "the release was not counted");
            sink.write(ByteBuffer.wrap(new byte[] {42}));
            reader.join();
            check(thrown.get() == null, "the read failed: " + thrown.get());
            check(memory.get(ValueLayout.JAVA_BYTE, 0) == 42, "the read did not land in the buffer");
        }
        pool.close();
        return rssAnonKb();
    }

    /** Returns RssAnon with the leaked buffer's 64 MiB resident. */
    private static long leak() {
        NativeBufferPool pool = new NativeBufferPool();
        pool.rent(BIG).segment().fill((byte) 2); // never released
        pool.close(); // logs the leak; the buffer's memory stays the caller's
        return rssAnonKb();
    }

    /** Collects until RssAnon is 48 MiB below {@code heldKb} (a 64 MiB buffer freed), or fails after 10 s. */
    private static void awaitFreed(long heldKb, String done) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (heldKb - rssAnonKb() < 48 * 1024) {
            check(System.nanoTime() < deadline, "never freed: RssAnon " + (heldKb - rssAnonKb()) + " KB below held");
            System.gc();
            Thread.onSpinWait();
        }
        System.out.println(done);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += gc.getCollectionCount();
        }
        return n;
    }

    /** Anonymous resident memory from /proc/self/status, in KB. */
    static long rssAnonKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("RssAnon:")) {
                    return Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot read /proc/self/status", e);
        }
        throw new AssertionError("no RssAnon in /proc/self/status");
    }
}

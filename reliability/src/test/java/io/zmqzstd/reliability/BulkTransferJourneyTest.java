package io.zmqzstd.reliability;

import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.pipeline.UndeliveredMessageException;
import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.zmqzstd.reliability.BulkTransferJourneySupport.MIB;
import static io.zmqzstd.reliability.BulkTransferJourneySupport.mapNewForWriting;
import static io.zmqzstd.reliability.BulkTransferJourneySupport.mapReadOnly;
import static io.zmqzstd.reliability.BulkTransferJourneySupport.rssAnonKb;
import static io.zmqzstd.reliability.BulkTransferJourneySupport.writeFile;
import static io.zmqzstd.reliability.BulkTransferJourneySupport.writeRandomFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user who moves files builds from the READMEs alone: files of 8 to 256 MiB sent through the
 * pipeline as whole messages over tcp and received with {@code receiveInto} straight into a mapped
 * output file; the same as a stream of 1 MiB chunks behind a sequence part; each documented limit
 * hit on purpose; memory bounded; a file shortened while mapped (in a child JVM).
 */
class BulkTransferJourneyTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    private NativeBufferPool pool;
    private ZmqContext ctx;

    @BeforeEach
    void openContext() {
        // pipeline README, "Zero allocation and the pool": "Zero allocation needs the pool's leak
        // detection `disabled`"; transport README, "Lifetime": "A pool you pass to the builder is
        // yours: close it after the context."
        pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED).build();
        ctx = ZmqContext.builder().bufferPool(pool).build();
    }

    @AfterEach
    void closeContext() {
        ctx.close();
        pool.close();
    }

    private ZmqSocket[] pushPull(long pullMaxMessageSize) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.receiveTimeoutMs(30_000); // a generous bound, so a lost message fails instead of hanging
        if (pullMaxMessageSize >= 0) {
            pull.maxMessageSize(pullMaxMessageSize); // "Applies to later bind/connect calls only" (javadoc)
        }
        pull.bind("tcp://127.0.0.1:*");
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.connect(pull.lastEndpoint());
        return new ZmqSocket[] {push, pull};
    }

    @Test
    void shouldCarryWholeFilesOf8To256MibIntoAMappedOutputFileIntactWithMemoryBounded() throws Exception {
        ZmqSocket[] s = pushPull(-1);
        long[] sizes = {8 * MIB, 64 * MIB + 3, 256 * MIB};
        try (CompressingSender sender = CompressingSender.builder(s[0]).build();
             DecompressingReceiver receiver = DecompressingReceiver.builder(s[1])
                     .maxDecompressedSize(256 * MIB) // pipeline README: 64 MiB per part by default
                     .build()) {
            long thread = Thread.currentThread().threadId();
            for (int i = 0; i < sizes.length; i++) {
                long n = sizes[i];
                Path src = writeFile(dir.resolve("src" + i), n, i + 1);
                Path out = dir.resolve("out" + i);
                long rssBefore = rssAnonKb();
                long heapBefore = THREADS.getThreadAllocatedBytes(thread);
                long unpooledBefore = pool.stats().unpooled();
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment in = mapReadOnly(src, arena);
                    MemorySegment dst = mapNewForWriting(out, n, arena);
                    assertTrue(sender.send(in, 0), "a blocking send returns true once libzmq took it");
                    // root README: "`receiver.receiveInto(segment, flags)` decompresses straight into
                    // native memory you own"
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                    ReceivedMessage m = receiver.message();
                    // pipeline README, "Receiving into your own memory": "a message of one payload
                    // part is `dst[0, partSize(0))`"
                    assertEquals(1, m.parts());
                    assertEquals(0, m.partOffset(0));
                    assertEquals(n, m.partSize(0));
                    assertEquals(-1, MemorySegment.mismatch(in, 0, n, dst, 0, n), "the output file equals the input");
                    // "The output region ... grows on demand to the largest message seen": payload
                    // parts go to dst, so it stays at its 64 KiB start
                    assertTrue(m.region().byteSize() <= 64 * 1024, "region " + m.region().byteSize());
                    dst.force();
                }
                long heap = THREADS.getThreadAllocatedBytes(thread) - heapBefore;
                long rssGrowthKb = rssAnonKb() - rssBefore;
                // pipeline README, "Zero allocation": "The frame of a larger payload is an unpooled
                // buffer, which allocates"; transport README: unpooled() "counts the rents a class
                // could not serve"
                long unpooled = pool.stats().unpooled() - unpooledBefore;
                System.out.printf("whole file %,d B: heap on the thread %,d B, RssAnon %+,d KB, unpooled %d, out %,d B%n",
                        n, heap, rssGrowthKb, unpooled, Files.size(out));
                assertEquals(n, Files.size(out));
                assertEquals(1, unpooled, "a frame above the pool's largest class (4 MiB) is unpooled");
                // codec README, "Ownership and lifetimes": a mapping is copied "256 KiB at a time, so
                // no payload is ever held twice"; the heap is not where it goes
                assertTrue(heap < 2 * MIB, "heap allocated on the sending and receiving thread: " + heap);
                // Anonymous memory: the frame's unpooled buffer is as large as the payload's frame
                // bound and stays until a collection frees it (257 MiB of RssAnon for a 256 MiB file,
                // see the report); bounded here at twice the file so that a second copy would fail
                assertTrue(rssGrowthKb * 1024 < 2 * n, "RssAnon grew " + rssGrowthKb + " KB for " + n + " B");
                Files.delete(src); // keep the disk modest: at most one pair of files at a time
                Files.delete(out);
            }
            PipelineStats sent = sender.stats();
            PipelineStats got = receiver.stats();
            assertEquals(sizes.length, sent.messages());
            assertEquals(sizes.length, got.messages());
            assertEquals(8 * MIB + 64 * MIB + 3 + 256 * MIB, got.uncompressedBytes());
            assertEquals(sent.compressedBytes(), got.compressedBytes());
            assertEquals(0, got.errors());
        }
        // transport README: "`outstanding()` ... never 0 while a buffer is out"; libzmq's I/O thread
        // returns the last frame's buffer after the send, so wait for it
        Await.until("pool outstanding back to 0", Duration.ofSeconds(20), () -> pool.outstanding() == 0);
    }

    @Test
    void shouldStreamAFileIn1MibChunksBehindASequencePartIntoTheirPlaceInTheMappedOutput() throws Exception {
        ZmqSocket[] s = pushPull(-1);
        long n = 48 * MIB + 12_345; // the last chunk short
        int chunks = (int) ((n + MIB - 1) / MIB);
        Path src = writeFile(dir.resolve("src"), n, 9);
        try (Arena arena = Arena.ofShared();
             CompressingSender sender = CompressingSender.builder(s[0]).build();
             DecompressingReceiver receiver = DecompressingReceiver.builder(s[1])
                     .envelopeParts(1) // the sequence part: pipeline README, `envelopeParts` "leading uncompressed parts"
                     .build()) {
            MemorySegment in = mapReadOnly(src, arena);
            // pipeline README, "Zero allocation and the pool": reserveBuffers carves the frames'
            // buffers up front so that the first burst does not miss
            sender.reserveBuffers(MIB, 64);
            int rounds = 3;
            AtomicLong senderHeap = new AtomicLong(Long.MAX_VALUE);
            AtomicReference<Throwable> senderFailure = new AtomicReference<>();
            Thread producer = Thread.ofPlatform().name("bulk-sender").start(() -> {
                try {
                    MemorySegment seq = arena.allocate(8);
                    for (int r = 0; r < rounds; r++) {
                        long before = THREADS.getCurrentThreadAllocatedBytes();
                        for (int c = 0; c < chunks; c++) {
                            long off = c * MIB;
                            seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, (long) r * chunks + c);
                            sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                            sender.send(in, off, Math.min(MIB, n - off), 0);
                        }
                        senderHeap.accumulateAndGet(THREADS.getCurrentThreadAllocatedBytes() - before, Math::min);
                    }
                } catch (Throwable t) {
                    senderFailure.set(t);
                }
            });
            // receiveInto has no offset argument: the slice for each chunk is made before the
            // measured loop so the loop itself allocates nothing of ours
            long best = Long.MAX_VALUE;
            for (int r = 0; r < rounds; r++) {
                Path out = dir.resolve("out" + r);
                MemorySegment dst = mapNewForWriting(out, n, arena);
                MemorySegment[] places = new MemorySegment[chunks];
                for (int c = 0; c < chunks; c++) {
                    places[c] = dst.asSlice(c * MIB, Math.min(MIB, n - c * MIB));
                }
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int c = 0; c < chunks; c++) {
                    // PUSH/PULL over one connection keeps order, so the next chunk's place is known
                    // before its sequence part is read; the sequence then confirms it
                    int result = receiver.receiveInto(places[c], 0);
                    if (result != DecompressingReceiver.RECEIVED) {
                        throw new AssertionError("chunk " + c + ": " + result + " " + receiver.lastErrorMessage());
                    }
                    ReceivedMessage m = receiver.message();
                    long seq = m.segment(0).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(0));
                    if (seq != (long) r * chunks + c || m.partOffset(1) != 0 || m.partSize(1) != places[c].byteSize()) {
                        throw new AssertionError("chunk " + c + " round " + r + ": seq=" + seq + " size=" + m.partSize(1));
                    }
                }
                best = Math.min(best, THREADS.getCurrentThreadAllocatedBytes() - before);
                assertEquals(-1, MemorySegment.mismatch(in, 0, n, dst, 0, n), "round " + r + ": the output equals the input");
            }
            producer.join(30_000);
            assertNull(senderFailure.get(), () -> "sender failed: " + senderFailure.get());
            System.out.printf("chunk stream of %d x 1 MiB: best round heap receiving %,d B (%.2f B/chunk), sending %,d B (%.2f B/chunk); %s; pool %s%n",
                    chunks, best, (double) best / chunks, senderHeap.get(), (double) senderHeap.get() / chunks,
                    receiver.stats(), pool.stats());
            // pipeline README, "Receiving into your own memory": "Zero allocation with a native `dst`",
            // in steady state: 147 chunks of 1 MiB are still the JIT's warm-up (a probe of 200-message
            // rounds over inproc read 3.5-4.5 KB a message in its first round and 0 from the fifth), so
            // this holds the heap to far below one chunk: no payload ever passes through it
            assertTrue(best < 8L * chunks * 1024, "receiving thread allocated " + best + " B over " + chunks + " chunks");
            assertTrue(senderHeap.get() < 8L * chunks * 1024, "sending thread allocated " + senderHeap.get() + " B");
            PipelineStats got = receiver.stats();
            assertEquals((long) rounds * chunks, got.messages());
            assertEquals((long) rounds * chunks, got.envelopeParts());
            assertEquals(rounds * n, got.uncompressedBytes());
            assertEquals((long) rounds * chunks, sender.stats().messages());
            // pipeline README, "zeroCopyThresholdBytes": "payload and frame both at least 8 KiB"; the
            // last, short chunk of each round compresses below it and is copied
            assertEquals((long) rounds * (chunks - 1), sender.stats().zeroCopySends(), "1 MiB frames go zero-copy from the pool");
            assertEquals(rounds, sender.stats().copiedSends());
        }
    }

    @Test
    void shouldRefuseEachDocumentedLimitClearlyAndGoOn() throws Exception {
        ZmqSocket[] s = pushPull(-1);
        try (Arena arena = Arena.ofConfined();
             CompressingSender sender = CompressingSender.builder(s[0]).build()) {
            MemorySegment big = mapReadOnly(writeFile(dir.resolve("big"), 9 * MIB, 3), arena);
            MemorySegment dst = mapNewForWriting(dir.resolve("out"), 9 * MIB, arena);

            // maxDecompressedSize: pipeline README, "Checks, in order", 4: "`TOO_LARGE`: declared
            // content size above `maxDecompressedSize`", message "frame larger than limit: declared=…, limit=…"
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(s[1]).maxDecompressedSize(8 * MIB).build()) {
                sender.send(big, 0, 8 * MIB + 1, 0);
                sender.send(big, 0, 8 * MIB, 0);
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receiveInto(dst, 0));
                assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
                assertTrue(receiver.lastErrorMessage().contains("declared=8388609")
                        && receiver.lastErrorMessage().contains("limit=8388608"), receiver.lastErrorMessage());
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                assertEquals(-1, MemorySegment.mismatch(big, 0, 8 * MIB, dst, 0, 8 * MIB));
                assertEquals(1, receiver.stats().errors(BadFrameReason.TOO_LARGE));
                assertEquals(1, receiver.stats().messages());
                System.out.println("maxDecompressedSize: " + receiver.lastErrorMessage());
            }

            // maxMessageSize: a file sent as one message of 1 MiB parts; pipeline README,
            // "maxMessageSize and maxEnvelopeSize": "A message over it is refused as `TOO_LARGE`
            // ("message larger than limit: total=…, maxMessageSize=…")"
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(s[1])
                    .maxDecompressedSize(MIB).maxMessageSize(8 * MIB).build()) {
                for (int parts : new int[] {9, 8, 8}) {
                    for (int p = 0; p < parts; p++) {
                        sender.send(big, p * MIB, MIB, p < parts - 1 ? ZmqSocket.SNDMORE : 0);
                    }
                }
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receiveInto(dst, 0));
                assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
                String why = receiver.lastErrorMessage();
                assertTrue(why.contains("message larger than limit") && why.contains("maxMessageSize=8388608"), why);
                System.out.println("maxMessageSize: " + why + " (part " + receiver.lastErrorPart() + ")");
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(8, m.parts());
                for (int p = 0; p < 8; p++) {
                    // "one after another from offset 0 with no gap"
                    assertEquals(p * MIB, m.partOffset(p));
                }
                assertEquals(-1, MemorySegment.mismatch(big, 0, 8 * MIB, dst, 0, 8 * MIB));
                // dst too small: "handed back whole in an `UndeliveredMessageException`, reason
                // `DESTINATION_TOO_SMALL`" (root README)
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                        () -> receiver.receiveInto(dst.asSlice(0, 4 * MIB), 0));
                assertEquals(UndeliveredMessageException.Reason.DESTINATION_TOO_SMALL, e.reason());
                assertEquals(8, e.parts());
                for (int p = 0; p < 8; p++) {
                    assertEquals(-1, MemorySegment.ofArray(e.part(p)).mismatch(big.asSlice(p * MIB, MIB)), "part " + p);
                }
                assertTrue(e.getMessage().contains("part=4") && e.getMessage().contains("dstBytes=4194304"), e.getMessage());
                System.out.println("destination: " + e.getMessage());
                PipelineStats st = receiver.stats();
                assertEquals(1, st.messages());
                assertEquals(1, st.undeliveredMessages());
                assertEquals(1, st.errors());
            }

            // The pool's largest class: pipeline README, "Zero allocation and the pool": "a payload
            // whose largest frame passes the pool's largest buffer, is refused naming `payloadBytes`"
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> sender.reserveBuffers(8 * MIB, 2));
            assertTrue(refused.getMessage().contains("payloadBytes=8388608"), refused.getMessage());
            System.out.println("largest class: " + refused.getMessage());
            long unpooledBefore = pool.stats().unpooled();
            long zeroCopyBefore = sender.stats().zeroCopySends();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(s[1]).build()) {
                sender.send(big, 0, 8 * MIB, 0);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                assertEquals(-1, MemorySegment.mismatch(big, 0, 8 * MIB, dst, 0, 8 * MIB));
            }
            assertEquals(1, pool.stats().unpooled() - unpooledBefore, "one unpooled frame: " + pool.stats());
            assertEquals(1, sender.stats().zeroCopySends() - zeroCopyBefore);
        }
    }

    @Test
    void shouldDropAConnectionWhoseFramePassesTheSocketsMaxMessageSizeAndGoOn() throws Exception {
        // reliability README, "Bounded resources: outcomes": "a peer that sends a larger part has its
        // connection dropped by libzmq; the application never sees the part and the pipeline counts
        // no error. A connecting PUSH reconnects by itself"
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.receiveTimeoutMs(30_000);
        pull.maxMessageSize(2 * MIB); // "Applies to later bind/connect calls only" (javadoc)
        pull.bind("tcp://127.0.0.1:*");
        // the monitor before the peer connects, so that its first ACCEPTED is not missed
        try (Arena arena = Arena.ofConfined();
             SocketMonitor monitor = pull.monitor(EnumSet.of(MonitorEvent.Type.ACCEPTED, MonitorEvent.Type.DISCONNECTED))) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(pull.lastEndpoint());
            journeyOverMaxMessageSize(arena, monitor, push, pull);
        }
    }

    private void journeyOverMaxMessageSize(Arena arena, SocketMonitor monitor, ZmqSocket push, ZmqSocket pull)
            throws Exception {
        try (CompressingSender sender = CompressingSender.builder(push).build();
             DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
            MemorySegment random = mapReadOnly(writeRandomFile(dir.resolve("random"), (int) (4 * MIB), 11), arena);
            MemorySegment text = mapReadOnly(writeFile(dir.resolve("text"), MIB, 12), arena);
            MemorySegment dst = arena.allocate(4 * MIB);
            awaitEvent(monitor, MonitorEvent.Type.ACCEPTED);
            assertTrue(sender.send(random, 0), "libzmq takes it: the sender is not told");
            awaitEvent(monitor, MonitorEvent.Type.DISCONNECTED);
            assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receiveInto(dst, ZmqSocket.DONTWAIT));
            awaitEvent(monitor, MonitorEvent.Type.ACCEPTED); // the PUSH reconnects by itself
            assertTrue(sender.send(text, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
            assertEquals(-1, MemorySegment.mismatch(text, 0, MIB, dst, 0, MIB));
            assertEquals(1, receiver.stats().messages());
            assertEquals(0, receiver.stats().errors(), "the pipeline counts no error");
            assertEquals(2, sender.stats().messages(), "the dropped one counts as sent");
        }
    }

    private static void awaitEvent(SocketMonitor monitor, MonitorEvent.Type type) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            MonitorEvent e = monitor.receive(Duration.ofSeconds(1));
            if (e != null && e.type() == type) {
                return;
            }
        }
        throw new AssertionError("no " + type + " within 20 s");
    }

    @Test
    void shouldThrowAFileShortenedWhileMappedToTheCallerAndGoOn() throws Exception {
        // pipeline README, "Failures": "payload could not be read: a fault in its memory (a mapped file
        // shortened since it was mapped?): offset=0, length=1000, mapped=true (nothing of it was sent:
        // the sender goes on)"; "Receiving into your own memory": `DESTINATION_UNWRITABLE`. A child
        // JVM, since a SIGBUS would end this one.
        String out = ForkedJvm.run(Duration.ofSeconds(60), BulkTransferJourneySupport.class, List.of(), dir.toString());
        System.out.println(out);
        assertTrue(out.contains("SHORTENED DONE"), out);
    }
}

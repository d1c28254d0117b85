package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** receiveInto: payload parts decompressed straight into the caller's segment. */
class ReceiveIntoTest {

    private static final int DST_BYTES = 2 << 20;

    private static void assertPart(byte[] expected, MemorySegment segment, long offset, long size) {
        assertEquals(expected.length, size);
        assertArrayEquals(expected, segment.asSlice(offset, size).toArray(ValueLayout.JAVA_BYTE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldDecompressSinglePartAtOffsetZeroOfTheCallersSegmentWithoutGrowingTheRegion(String transport) {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            ZmqSocket pull = link.server();
            ZmqSocket push = link.client();
            MemorySegment dst = arena.allocate(DST_BYTES);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                int n = 0;
                for (int size : RoundTripTest.SIZES) {
                    byte[] data = Fixtures.payload(size, n++);
                    assertTrue(sender.send(data, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                    ReceivedMessage m = receiver.message();
                    assertEquals(1, m.parts());
                    assertSame(dst, m.segment(0));
                    assertEquals(0, m.partOffset(0));
                    assertPart(data, dst, 0, m.partSize(0));
                    assertArrayEquals(data, m.partBytes(0));
                }
                // 1 MiB went to dst, none of it through the region, which stayed at its first size
                assertEquals(64 * 1024, receiver.message().region().byteSize());
                assertEquals(RoundTripTest.SIZES.length, receiver.stats().messages());
            }
        }
    }

    @Test
    void shouldLayPayloadPartsOneAfterAnotherInTheSegmentAndKeepTheEnvelopeInTheRegion() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            ZmqSocket dealer = ctx.socket(SocketType.DEALER);
            byte[] id = "dealer-1".getBytes(StandardCharsets.US_ASCII);
            dealer.routingId(id);
            Fixtures.link(router, dealer, "ipc");
            MemorySegment dst = arena.allocate(DST_BYTES);
            byte[][] parts = {Fixtures.payload(300, 1), Fixtures.payload(0, 2), Fixtures.payload(100_000, 3)};
            try (CompressingSender sender = CompressingSender.builder(dealer).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(router).build()) {
                for (int i = 0; i < parts.length; i++) {
                    assertTrue(sender.send(parts[i], i < parts.length - 1 ? ZmqSocket.SNDMORE : 0));
                }
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(1 + parts.length, m.parts());
                assertSame(m.region(), m.segment(0));
                assertFalse(m.isCompressed(0));
                assertPart(id, m.region(), m.partOffset(0), m.partSize(0));
                long offset = 0;
                for (int i = 0; i < parts.length; i++) {
                    assertSame(dst, m.segment(i + 1));
                    assertEquals(offset, m.partOffset(i + 1), "part " + (i + 1) + " starts right after the one before");
                    assertPart(parts[i], dst, offset, m.partSize(i + 1));
                    offset += parts[i].length;
                }
                // the same receiver still lays everything out in its region on receive()
                assertTrue(sender.send(parts[0], 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertSame(receiver.message().region(), receiver.message().segment(1));
                assertArrayEquals(parts[0], receiver.message().partBytes(1));
            }
        }
    }

    /**
     * A part that does not fit in what is left of dst is the caller's sizing, not a bad frame: the
     * message is handed back whole in UndeliveredMessageException, every part as sent, the one
     * that did not fit decompressed into the region (again, for a frame without a declared size
     * that ran out of dst part-way), and the next message arrives into dst. Until 2026-11-29 each
     * was BAD_FRAME with DESTINATION_TOO_SMALL and the message was lost.
     */
    @Test
    void shouldHandBackAMessageWhosePartDoesNotFitAndReceiveTheNext() {
        long limit = 1 << 20;
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket push = link.client();
            MemorySegment dst = arena.allocate(1000);
            byte[] p600 = Fixtures.payload(600, 2);
            byte[] p401 = Fixtures.payload(401, 3);
            byte[] p5000 = Fixtures.payload(5000, 4);
            byte[] p300 = Fixtures.payload(300, 5);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).maxDecompressedSize(limit).build()) {
                // declared size one byte more than dst
                byte[] p1001 = Fixtures.payload(1001, 1);
                expectHandedBack(receiver, push, dst, "part=0, offset=0, dstBytes=1000, partBytes=1001 (",
                        new byte[][] {p1001}, Zstd.compress(p1001, 3));
                // the first part fits, the second no longer fits behind it, the third goes to the region too
                expectHandedBack(receiver, push, dst, "part=1, offset=600, dstBytes=1000, partBytes=401 (",
                        new byte[][] {p600, p401, p300},
                        Zstd.compress(p600, 3), Zstd.compress(p401, 3), Zstd.compress(p300, 3));
                // a frame without a declared size runs out of dst part-way: handed back whole
                expectHandedBack(receiver, push, dst,
                        "part=0, offset=0, dstBytes=1000, partBytes=5000 (the frame declares no size: dst ran out part-way)",
                        new byte[][] {p5000}, Fixtures.streamed(p5000));
                // the same behind a part that fits, with a part after it
                expectHandedBack(receiver, push, dst,
                        "part=1, offset=600, dstBytes=1000, partBytes=5000 (the frame declares no size",
                        new byte[][] {p600, p5000, p300},
                        Zstd.compress(p600, 3), Fixtures.streamed(p5000), Fixtures.streamed(p300));
                PipelineStats stats = receiver.stats();
                assertEquals(4, stats.undeliveredMessages(), stats::toString);
                assertTrue(stats.toString().contains(", undeliveredMessages=4, errors=0"), stats::toString);
                assertEquals(4, stats.messages(), "only the messages after each hand-back: " + stats);
                assertEquals(0, stats.errors(), stats::toString);

                // the limits come first: over the limit is TOO_LARGE whatever the destination,
                // declared or not, and the message is refused, not handed back
                for (byte[] over : new byte[][] {Zstd.compress(Fixtures.payload((int) limit + 1, 6), 1),
                    Fixtures.streamed(Fixtures.payload((int) limit + 1, 7))}) {
                    assertTrue(push.send(over, 0));
                    assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receiveInto(dst, 0));
                    assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason(), receiver::lastErrorMessage);
                }
                // so is a part the region then finds bad
                byte[] trailing = Zstd.compress(Fixtures.payload(2000, 8), 3);
                trailing = java.util.Arrays.copyOf(trailing, trailing.length + 1);
                assertTrue(push.send(trailing, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receiveInto(dst, 0));
                assertEquals(BadFrameReason.CORRUPT, receiver.lastErrorReason(), receiver::lastErrorMessage);
                assertEquals(4, receiver.stats().undeliveredMessages());

                // exactly full is fine, also for a frame without a declared size
                byte[] fits = Fixtures.payload(1000, 9);
                assertTrue(push.send(Fixtures.streamed(fits), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                assertPart(fits, dst, 0, receiver.message().partSize(0));
            }
        }
    }

    /** A ROUTER's routing id is handed back with the payload, as an envelope part. */
    @Test
    void shouldHandBackTheEnvelopeWithAPayloadThatDoesNotFit() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.ROUTER, SocketType.DEALER, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                byte[] big = Fixtures.payload(50_000, 1);
                assertTrue(sender.send(big, 0));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                        () -> receiver.receiveInto(arena.allocate(10_000), 0));
                assertEquals(2, e.parts());
                assertFalse(e.isCompressed(0));
                assertEquals(5, e.part(0).length, "libzmq's generated routing id");
                assertTrue(e.isCompressed(1));
                assertArrayEquals(big, e.part(1));
                byte[] small = Fixtures.payload(100, 2);
                assertTrue(sender.send(small, 0));
                MemorySegment dst = arena.allocate(10_000);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                assertArrayEquals(e.part(0), receiver.message().partBytes(0), "the same peer");
                assertPart(small, dst, 0, receiver.message().partSize(1));
            }
        }
    }

    /**
     * A handed-back message refuses a part index out of range as the view does, naming the index
     * and the part count; until 2026-11-29 its accessors threw the JDK's bare
     * ArrayIndexOutOfBoundsException ("Index 2 out of bounds for length 2").
     */
    @Test
    void shouldRefuseAPartIndexOutOfRangeOfAHandedBackMessageAsTheViewDoes() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                byte[] first = Fixtures.payload(100, 1);
                byte[] second = Fixtures.payload(5000, 2);
                assertTrue(sender.send(first, ZmqSocket.SNDMORE));
                assertTrue(sender.send(second, 0));
                UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class,
                        () -> receiver.receiveInto(arena.allocate(1000), 0));
                assertEquals(2, e.parts());
                java.util.List<java.util.function.IntFunction<Object>> accessors =
                        java.util.List.of(e::part, e::partSize, e::isCompressed);
                for (java.util.function.IntFunction<Object> accessor : accessors) {
                    for (int i : new int[] {-1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                        IndexOutOfBoundsException refused = assertThrows(IndexOutOfBoundsException.class,
                                () -> accessor.apply(i));
                        assertEquals("part index out of range: index=" + i + ", parts=2", refused.getMessage());
                    }
                }
                assertArrayEquals(second, e.part(1), "the parts are still there after the refusals");
                assertEquals(100, e.partSize(0));
            }
        }
    }

    private static void expectHandedBack(DecompressingReceiver receiver, ZmqSocket push, MemorySegment dst,
                                         String detail, byte[][] sent, byte[]... frames) {
        for (int i = 0; i < frames.length; i++) {
            assertTrue(push.send(frames[i], i < frames.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
        byte[] next = Fixtures.payload(999, frames.length);
        assertTrue(push.send(Zstd.compress(next, 3), 0));
        UndeliveredMessageException e = assertThrows(UndeliveredMessageException.class, () -> receiver.receiveInto(dst, 0));
        assertEquals(UndeliveredMessageException.Reason.DESTINATION_TOO_SMALL, e.reason());
        assertTrue(e.getMessage().startsWith("destination too small: " + detail), e::getMessage);
        assertTrue(e.getMessage().contains("handed back whole in this exception: parts=" + sent.length), e::getMessage);
        assertNull(e.getCause());
        assertEquals(sent.length, e.parts());
        for (int i = 0; i < sent.length; i++) {
            assertTrue(e.isCompressed(i));
            assertEquals(sent[i].length, e.partSize(i));
            assertArrayEquals(sent[i], e.part(i), "part " + i);
        }
        assertThrows(IllegalStateException.class, () -> receiver.message().parts(), "no message to read");
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
        assertEquals(1, receiver.message().parts(), "the next message alone");
        assertPart(next, dst, 0, receiver.message().partSize(0));
    }

    /**
     * A destination whose arena another thread closes while the receive waits for the message:
     * found only once the message is taken, so the message is handed back in the exception, both
     * parts, and the next message arrives alone (until 2026-11-29 it was lost).
     */
    @Test
    void shouldHandBackTheMessageWhenTheDestinationIsClosedByAnotherThreadMidReceive() throws Exception {
        ExecutorService receiving = Executors.newSingleThreadExecutor();
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                Arena arena = Arena.ofShared();
                MemorySegment dst = arena.allocate(DST_BYTES);
                AtomicReference<Thread> receiver0 = new AtomicReference<>();
                Future<Integer> call = receiving.submit(() -> {
                    receiver0.set(Thread.currentThread());
                    return receiver.receiveInto(dst, 0);
                });
                // past its checks of dst: waiting in the socket's libzmq call
                assertTrue(Fixtures.await(() -> receiver0.get() != null && Fixtures.insideSocketCall(receiver0.get(), "receive"),
                        10_000), "the receive never reached the socket");
                arena.close();
                byte[] first = Fixtures.payload(1000, 1);
                byte[] second = Fixtures.payload(50_000, 2);
                byte[] next = Fixtures.payload(500, 3);
                assertTrue(sender.send(first, ZmqSocket.SNDMORE));
                assertTrue(sender.send(second, 0));
                assertTrue(sender.send(next, 0));
                ExecutionException thrown = assertThrows(ExecutionException.class, call::get);
                UndeliveredMessageException e = assertInstanceOf(UndeliveredMessageException.class, thrown.getCause(),
                        "the message handed back, not lost");
                assertTrue(e.getMessage().contains("handed back whole in this exception: parts=2"), e.getMessage());
                assertEquals(2, e.parts());
                assertArrayEquals(first, e.part(0));
                assertArrayEquals(second, e.part(1));
                assertEquals(second.length, e.partSize(1));
                assertEquals(UndeliveredMessageException.Reason.DESTINATION_UNWRITABLE, e.reason());
                assertEquals(1, receiver.stats().undeliveredMessages(), "counted as handed back");
                assertEquals(0, receiver.stats().messages());
                assertThrows(IllegalStateException.class, () -> receiver.message().parts(),
                        "the view after a failed receive: no message to read");

                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts(), "the next message alone, nothing of the last glued to it");
                assertArrayEquals(next, receiver.message().partBytes(0));
                assertEquals(1, receiver.stats().undeliveredMessages());
                assertEquals(1, receiver.stats().messages());
            }
        } finally {
            receiving.shutdown();
        }
    }

    /**
     * A destination whose arena another thread closes between two parts of a message: the parts
     * already in it cannot be read back, so the message cannot be handed back whole and is lost,
     * but it is counted, in undeliveredMessages, so that every message a receive takes counts
     * once in messages, undeliveredMessages or errors. Until 2026-11-29 such a message was counted
     * nowhere. The destination is a file mapping: written in Java through the codec's scratch
     * memory, so the close is safe at any moment (the copy under way fails); a native one is
     * handed to libzstd by address, whose write a close during the call would not stop. The race
     * is run until the close lands between the parts (the first round, most often); a close that
     * comes too early hands the message back, one too late lets it arrive: all three are counted.
     */
    @Test
    void shouldCountAMessageLostWhenTheDestinationIsClosedBetweenItsParts(@TempDir Path dir) throws Exception {
        int parts = 400;
        int partBytes = 1000;
        byte[] part = Fixtures.payload(partBytes, 5);
        ExecutorService closing = Executors.newSingleThreadExecutor();
        try (ZmqContext ctx = new ZmqContext();
             FileChannel file = FileChannel.open(dir.resolve("dst"), StandardOpenOption.CREATE_NEW,
                     StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                int rounds = 0;
                int lost = 0;
                int received = 0;
                int handedBack = 0;
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (lost == 0 && System.nanoTime() < deadline) {
                    rounds++;
                    Arena arena = Arena.ofShared();
                    MemorySegment dst = file.map(FileChannel.MapMode.READ_WRITE, 0, (long) parts * partBytes, arena);
                    dst.fill((byte) 0);
                    for (int i = 0; i < parts; i++) {
                        assertTrue(sender.send(part, i < parts - 1 ? ZmqSocket.SNDMORE : 0));
                    }
                    // closed once the first part's last byte is in dst
                    Future<?> closer = closing.submit(() -> {
                        while (dst.get(ValueLayout.JAVA_BYTE, partBytes - 1) != part[partBytes - 1]) {
                            Thread.onSpinWait();
                        }
                        arena.close();
                    });
                    try {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, 0), receiver::lastErrorMessage);
                        received++;
                    } catch (UndeliveredMessageException e) {
                        handedBack++;
                        assertArrayEquals(part, e.part(parts - 1));
                    } catch (IllegalStateException e) {
                        assertTrue(e.getMessage().contains("could not be read back: the message is lost"), e::toString);
                        assertTrue(e.getMessage().contains("destination") || e.getMessage().contains("segment"),
                                "names what failed first: " + e.getMessage());
                        lost++;
                    }
                    closer.get();
                    PipelineStats stats = receiver.stats();
                    assertEquals(rounds, stats.messages() + stats.undeliveredMessages() + stats.errors(),
                            () -> "every message taken counted once: " + stats);
                    assertEquals(received, stats.messages(), stats::toString);
                    assertEquals(handedBack + lost, stats.undeliveredMessages(), stats::toString);
                }
                assertTrue(lost > 0, "no close between the parts in 5 s: received=" + received + ", handedBack=" + handedBack);

                byte[] next = Fixtures.payload(500, 6);
                assertTrue(sender.send(next, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts(), "the next message alone, nothing of the lost one glued to it");
                assertArrayEquals(next, receiver.message().partBytes(0));
                assertEquals(0, receiver.stats().errors());
            }
        } finally {
            closing.shutdown();
        }
    }

    /**
     * A destination confined to another thread's arena cannot be written from here (zstd is
     * refused it, as any access would be): it is refused before the message is taken, so the
     * message is still there for the next receive. Before, it was refused while decompressing,
     * after libzmq had handed the message over, and the message was lost.
     */
    @Test
    void shouldRefuseDestinationConfinedToAnotherThreadWithoutTakingTheMessage() throws Exception {
        ExecutorService owner = Executors.newSingleThreadExecutor();
        try (ZmqContext ctx = new ZmqContext()) {
            Arena foreignArena = owner.submit(Arena::ofConfined).get();
            MemorySegment foreign = owner.submit(() -> foreignArena.allocate(DST_BYTES)).get();
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build();
                 Arena arena = Arena.ofConfined()) {
                for (int size : new int[] {100, 50_000}) { // a raw frame (copied in Java) and a compressed one
                    byte[] data = Fixtures.payload(size, size);
                    assertTrue(sender.send(data, 0));
                    WrongThreadException e = assertThrows(WrongThreadException.class,
                            () -> receiver.receiveInto(foreign, 0));

                    MemorySegment dst = arena.allocate(DST_BYTES);
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(dst, ZmqSocket.DONTWAIT),
                            "the refused call left the message queued");
                    assertPart(data, dst, 0, receiver.message().partSize(0));
                    assertTrue(e.getMessage().contains("destination"), e.getMessage());
                }
                assertEquals(2, receiver.stats().messages());
                assertEquals(0, receiver.stats().errors());
            } finally {
                owner.submit(foreignArena::close).get();
            }
        } finally {
            owner.shutdown();
        }
    }

    @Test
    void shouldRefuseReadOnlyOrClosedDestinationWithoutTakingTheMessageAndTakeHeapOrPooledOnes() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                byte[] data = Fixtures.payload(50_000, 1);
                assertTrue(sender.send(data, 0));
                Arena closed = Arena.ofConfined();
                MemorySegment gone = closed.allocate(data.length);
                closed.close();
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> receiver.receiveInto(gone, 0));
                assertTrue(e.getMessage().contains("destination"), e.getMessage());
                assertThrows(IllegalArgumentException.class,
                        () -> receiver.receiveInto(MemorySegment.ofArray(new byte[data.length]).asReadOnly(), 0));

                // nothing was taken: the message is still there, here for a pooled buffer that stays ours
                PooledBuffer buffer = ctx.bufferPool().rent(64 * 1024);
                try {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(buffer.segment(), 0));
                    assertPart(data, buffer.segment(), 0, receiver.message().partSize(0));
                    assertTrue(buffer.isRented());
                } finally {
                    buffer.release();
                }
                assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000),
                        () -> ctx.bufferPool().stats().toString());

                byte[] heap = new byte[data.length];
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(MemorySegment.ofArray(heap), 0));
                assertArrayEquals(data, heap);
            }
        }
    }

    /**
     * A destination inside the receiver's own region (the region itself, a part of the last
     * message, a slice of it) is refused before the message is taken, which then arrives whole
     * into memory of the caller's. Before 2026-11-27 the routing id, copied into the region at
     * offset 0, was overwritten by the payload decompressed there and delivered so (RECEIVED),
     * and an envelope that grew the region closed the destination under the call (BAD_FRAME, the
     * message lost).
     */
    @Test
    void shouldRefuseADestinationInsideTheReceiversOwnRegionWithoutTakingTheMessage() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.ROUTER, SocketType.DEALER, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(Fixtures.payload(100, 1), 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                byte[] id = m.partBytes(0); // the ROUTER's name for the DEALER
                byte[] data = Fixtures.payload(1000, 2);
                assertTrue(sender.send(data, 0));
                MemorySegment region = m.region();
                for (MemorySegment inside : new MemorySegment[] {region, m.part(1), region.asSlice(4096, 4096)}) {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> receiver.receiveInto(inside, 0));
                    assertTrue(e.getMessage().startsWith("destination inside the receiver's own region: offset="),
                            e::getMessage);
                }
                MemorySegment own = arena.allocate(data.length);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receiveInto(own, 0), receiver::lastErrorMessage);
                assertArrayEquals(id, receiver.message().partBytes(0));
                assertPart(data, own, 0, receiver.message().partSize(1));
            }
        }
    }
}

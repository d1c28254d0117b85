package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A payload or a {@code receiveInto} destination in a mapping of a file shortened since it was
 * mapped (a page past the new end faults). Until 2026-11-29 the codec handed a mapping to libzstd
 * by address, and libzstd's read or write of such a page raised SIGBUS, which ended the JVM; a
 * {@link CompressingSender}'s raw frame (below 128 B) threw the JDK's bare {@link InternalError}.
 * Now the codec copies a mapping in Java and names the fault: the sender throws
 * {@link IllegalStateException} "payload could not be read: …" with the {@code InternalError} as
 * its cause, as a {@link ParallelCompressingSender} does, nothing of the payload sent; the receiver
 * throws {@link UndeliveredMessageException}, the codec's "dst could not be written: …", holding
 * the message it took, every part (from facde0e9 to its fix the same day that message was lost).
 * Both go on. In a
 * child JVM each, since the old code killed the JVM.
 */
class ShortenedMappingTest {

    private static final int MAPPED_BYTES = 1 << 20;

    @Test
    void shouldThrowACompressingSendersPayloadInAShortenedMappingToTheCallerAndGoOn() throws Exception {
        String out = child("send");
        for (String expected : List.of("compressed, 1000 B: payload could not be read: a fault in its memory",
                "compressed, 1 MiB into a pooled buffer: payload could not be read",
                "raw frame, 64 B: payload could not be read",
                "incompressible check, 1000 B: payload could not be read",
                "publish, 1000 B: payload could not be read",
                "every message after a refused one arrived, nothing dropped, the pool whole")) {
            assertTrue(out.contains(expected), () -> "missing \"" + expected + "\" in: " + out);
        }
    }

    @Test
    void shouldHandBackTheMessageAReceiveIntoAShortenedMappingCouldNotWriteAndReceiveTheNext() throws Exception {
        String out = child("receiveInto");
        assertTrue(out.contains("1000 B: dst could not be written: a fault in its memory"), out);
        assertTrue(out.contains("600000 B: dst could not be written: a fault in its memory"), out);
        assertTrue(out.contains("two parts, the first faulting: dst could not be written"), out);
        assertTrue(out.contains("two parts, the second faulting: dst could not be written"), out);
        assertTrue(out.contains("the next message arrived each time"), out);
    }

    /** Runs {@link #main} with {@code scenario} in a child JVM, which must exit with 0; what it printed. */
    private static String child(String scenario) throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), ShortenedMappingTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"), scenario);
        System.out.println(out);
        return out;
    }

    /**
     * The child: over a mapping of a 1 MiB file truncated to nothing, {@code send}: each refused
     * payload, then a message that arrives whole; {@code receiveInto}: a small and a chunked
     * payload received into it, and two two-part messages, each handed back, then a good receive.
     */
    public static void main(String[] args) throws Exception {
        Path file = Files.createTempFile("shortened-mapping", ".bin");
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Files.write(file, Fixtures.payload(MAPPED_BYTES, 1));
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, MAPPED_BYTES, arena);
            channel.truncate(0);
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                if (args[0].equals("send")) {
                    send(mapped, sender, receiver);
                } else {
                    receiveInto(mapped, sender, receiver);
                }
            }
            assertEquals(0, ctx.bufferPool().outstanding(), "a pooled buffer rented for a refused payload is back");
            System.out.println(args[0].equals("send") ? "every message after a refused one arrived, nothing dropped, the pool whole"
                    : "the next message arrived each time");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void send(MemorySegment mapped, CompressingSender sender, DecompressingReceiver receiver) {
        byte[] next = Fixtures.payload(500, 2);
        byte[] random = new byte[1000];
        new Random(3).nextBytes(random);
        Runnable goesOn = () -> {
            assertTrue(sender.send(next, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(next, receiver.message().partBytes(0), "the next message arrives whole");
        };
        refused("compressed, 1000 B", "length=1000,", () -> sender.send(mapped, 0, 1000, 0), goesOn);
        refused("compressed, 1 MiB into a pooled buffer", "length=1048576,", () -> sender.send(mapped, 0), goesOn);
        refused("raw frame, 64 B", "length=64,", () -> sender.send(mapped, 0, 64, 0), goesOn);
        // A payload that did not compress makes the sender look at the next ones before compressing
        assertTrue(sender.send(random, 0));
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        refused("incompressible check, 1000 B", "length=1000,", () -> sender.send(mapped, 0, 1000, 0), goesOn);
        refused("publish, 1000 B", "length=1000,", () -> sender.publish("topic".getBytes(), mapped.asSlice(0, 1000), 0),
                goesOn);
        PipelineStats stats = sender.stats();
        assertEquals(6, stats.messages(), stats::toString);
        assertEquals(0, stats.droppedMessages(), stats::toString);
    }

    private static void receiveInto(MemorySegment mapped, CompressingSender sender, DecompressingReceiver receiver)
            throws Exception {
        byte[] next = Fixtures.payload(500, 2);
        for (int size : new int[] {1000, 600_000}) {
            byte[] payload = Fixtures.payload(size, size);
            assertTrue(sender.send(payload, 0));
            assertTrue(sender.send(next, 0));
            UndeliveredMessageException e = undelivered(size + " B", () -> receiver.receiveInto(mapped, 0));
            assertEquals(1, e.parts(), "the message's one part");
            assertArrayEquals(payload, e.part(0), "the message, handed back whole");
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(next, receiver.message().partBytes(0), "the next message arrives whole");
        }
        // Two parts, the first one faulting: the second is handed back with it, not glued to the next message
        byte[] first = Fixtures.payload(1000, 7);
        byte[] second = Fixtures.payload(600_000, 8);
        twoParts(first, second, "two parts, the first faulting", mapped, sender, receiver);
        // Two parts, the second faulting: the first, written to the mapping's pages still in the
        // file, is read back from there
        Path file = Files.createTempFile("shortened-mapping-page", ".bin");
        try (Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Files.write(file, new byte[MAPPED_BYTES]);
            MemorySegment onePage = channel.map(FileChannel.MapMode.READ_WRITE, 0, MAPPED_BYTES, arena);
            channel.truncate(4096);
            twoParts(first, second, "two parts, the second faulting", onePage, sender, receiver);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void twoParts(byte[] first, byte[] second, String what, MemorySegment dst, CompressingSender sender,
            DecompressingReceiver receiver) {
        byte[] next = Fixtures.payload(500, 2);
        assertTrue(sender.send(first, ZmqSocket.SNDMORE));
        assertTrue(sender.send(second, 0));
        assertTrue(sender.send(next, 0));
        UndeliveredMessageException e = undelivered(what, () -> receiver.receiveInto(dst, 0));
        assertEquals(2, e.parts(), what);
        assertArrayEquals(first, e.part(0), what);
        assertArrayEquals(second, e.part(1), what);
        assertTrue(e.isCompressed(0) && e.isCompressed(1), what);
        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
        assertEquals(1, receiver.message().parts(), what + ": the next message alone");
        assertArrayEquals(next, receiver.message().partBytes(0), what + ": the next message arrives whole");
    }

    private static UndeliveredMessageException undelivered(String what, Executable call) {
        IllegalStateException thrown = assertThrows(IllegalStateException.class, call, what);
        System.out.println(what + ": " + thrown.getMessage());
        assertTrue(thrown.getMessage().startsWith("dst could not be written: a fault in its memory (a mapped file"),
                thrown.getMessage());
        UndeliveredMessageException e = assertInstanceOf(UndeliveredMessageException.class, thrown,
                what + ": the message handed back, not lost");
        assertInstanceOf(InternalError.class, e.getCause().getCause(), "the JDK's report of the fault under the codec's");
        assertEquals(UndeliveredMessageException.Reason.DESTINATION_UNWRITABLE, e.reason(), what);
        return e;
    }

    private static void refused(String what, String length, Executable call, Runnable next) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call, what);
        System.out.println(what + ": " + e.getMessage());
        assertTrue(e.getMessage().startsWith("payload could not be read: a fault in its memory (a mapped file shortened since")
                && e.getMessage().contains(length) && e.getMessage().contains("mapped=true (nothing of it was sent: the sender goes on)"),
                what + ": " + e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause(), what + ": the JDK's report of the fault as the cause");
        next.run();
    }
}

package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
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
 * A {@link CompressingSender}'s payload in a mapping of a file shortened since it was mapped (a page
 * past the new end faults). Until 2026-11-29 the sender handed it to the codec, which handed it to
 * libzstd by address, and libzstd's SIGBUS ended the JVM; a raw frame's (below 128 B) Java copy
 * threw the JDK's bare {@link InternalError}. Now the codec copies a mapping in Java and names the
 * fault, and the sender throws {@link IllegalStateException} "payload could not be read: …" with the
 * {@code InternalError} as its cause, as a {@link ParallelCompressingSender} does, nothing of the
 * payload sent, and goes on. In a child JVM, since the old code killed the JVM.
 */
class CompressingSenderMappingTest {

    private static final int MAPPED_BYTES = 1 << 20;

    @Test
    void shouldThrowAPayloadInAShortenedMappingToTheCallerAndGoOn() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(90), CompressingSenderMappingTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        System.out.println(out);
        for (String expected : List.of("compressed, 1000 B: payload could not be read: a fault in its memory",
                "compressed, 1 MiB into a pooled buffer: payload could not be read",
                "raw frame, 64 B: payload could not be read",
                "incompressible check, 1000 B: payload could not be read",
                "publish, 1000 B: payload could not be read",
                "every message after a refused one arrived, nothing dropped, the pool whole")) {
            assertTrue(out.contains(expected), () -> "missing \"" + expected + "\" in: " + out);
        }
    }

    /** The child: each refused payload, then a message that arrives whole. */
    public static void main(String[] args) throws Exception {
        Path file = Files.createTempFile("shortened-payload", ".bin");
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Files.write(file, Fixtures.payload(MAPPED_BYTES, 1));
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, MAPPED_BYTES, arena);
            channel.truncate(0);
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] next = Fixtures.payload(500, 2);
            byte[] random = new byte[1000];
            new Random(3).nextBytes(random);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                Runnable goesOn = () -> {
                    assertTrue(sender.send(next, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(next, receiver.message().partBytes(0), "the next message arrives whole");
                };
                refused("compressed, 1000 B", "length=1000,", () -> sender.send(mapped, 0, 1000, 0), goesOn);
                refused("compressed, 1 MiB into a pooled buffer", "length=1048576,", () -> sender.send(mapped, 0),
                        goesOn);
                refused("raw frame, 64 B", "length=64,", () -> sender.send(mapped, 0, 64, 0), goesOn);
                // A payload that did not compress makes the sender look at the next ones before compressing
                assertTrue(sender.send(random, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                refused("incompressible check, 1000 B", "length=1000,", () -> sender.send(mapped, 0, 1000, 0), goesOn);
                refused("publish, 1000 B", "length=1000,", () -> sender.publish("topic".getBytes(),
                        mapped.asSlice(0, 1000), 0), goesOn);
                PipelineStats stats = sender.stats();
                assertEquals(6, stats.messages(), stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
            }
            assertEquals(0, ctx.bufferPool().outstanding(), "a pooled buffer rented for a refused payload is back");
            System.out.println("every message after a refused one arrived, nothing dropped, the pool whole");
        } finally {
            Files.deleteIfExists(file);
        }
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

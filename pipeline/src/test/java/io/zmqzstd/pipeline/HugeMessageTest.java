package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A message past 2 GiB (2^31 bytes, past any {@code byte[]}) through a sender and a receiver,
 * against the real libraries. Heavy: about 6 GiB of native memory at once (the payload, the
 * sender's frame buffer of {@code maxCompressedSize}, the receiver's region) and some seconds.
 */
class HugeMessageTest {

    private static final long SIZE = (1L << 31) + 1000;

    /**
     * partBytes of a part over 2 GiB threw ArithmeticException "integer overflow" from
     * Math.toIntExact, naming neither the part nor its size (and a part of Integer.MAX_VALUE - 7
     * to Integer.MAX_VALUE bytes would have been an OutOfMemoryError, "Requested array size
     * exceeds VM limit"); now it is refused naming both, and the message stays readable.
     */
    @Test
    void heavyShouldCarryAMessagePastTwoGibAndRefuseCopyingItIntoAnArrayNamingItsSize() {
        try (Arena arena = Arena.ofConfined(); ZmqContext ctx = new ZmqContext()) {
            MemorySegment payload = arena.allocate(SIZE);
            fillWithRepeatingPattern(payload);
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).level(1).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server())
                         .maxDecompressedSize(3L << 30).maxMessageSize(3L << 30).build()) {
                assertTrue(sender.send(payload, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                assertEquals(SIZE, m.partSize(0));
                assertEquals(-1, payload.mismatch(m.part(0)), "the content, every byte of it");

                IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.partBytes(0));
                assertTrue(e.getMessage().contains("part too large for a byte[]: part=0, size=" + SIZE), e.getMessage());
                assertEquals(SIZE, m.part(0).byteSize(), "the message is still there to read");

                assertEquals(SIZE, sender.stats().uncompressedBytes(), sender.stats()::toString);
                assertEquals(SIZE, receiver.stats().uncompressedBytes(), receiver.stats()::toString);

                byte[] next = Fixtures.payload(1000, 7);
                assertTrue(sender.send(next, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0), "the stream goes on");
            }
        }
    }

    /** {@code s} filled with 64 KiB of test data over and over: within level 1's window, so it compresses well. */
    private static void fillWithRepeatingPattern(MemorySegment s) {
        byte[] block = Fixtures.payload(64 * 1024, 1);
        for (long at = 0; at < s.byteSize(); at += block.length) {
            MemorySegment.copy(block, 0, s, ValueLayout.JAVA_BYTE, at, (int) Math.min(block.length, s.byteSize() - at));
        }
    }
}

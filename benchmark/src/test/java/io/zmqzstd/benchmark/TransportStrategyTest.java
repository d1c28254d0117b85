package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every transport strategy delivers every message, checked by the receiver (length and sequence). */
class TransportStrategyTest {

    @ParameterizedTest
    @CsvSource({
            "byteArray, tcp", "reusedBuffer, tcp", "message, tcp", "zeroCopyPooled, tcp", "nativeSegment, tcp",
            "nativeSegment, inproc"})
    void shouldDeliverAndCheckEveryMessage(String strategy, String transport) {
        try (TransportRig rig = new TransportRig(strategy, transport, 64, -1)) {
            assertEquals(500L, rig.run(ReceiveMode.blocking, 500));
            assertEquals(1000L, rig.run(ReceiveMode.blocking, 500), "the second run continues the sequence");
        }
    }

    /**
     * With {@code read=all} (and {@code copy}, in place frames copied to the heap first) every strategy's
     * receiver reads and checks every byte, and still gets them all.
     */
    @ParameterizedTest
    @CsvSource({
            "byteArray, inproc, all", "reusedBuffer, tcp, all", "message, inproc, all", "zeroCopyPooled, inproc, all",
            "zeroCopyPooled, tcp, all", "nativeSegment, inproc, all", "zeroCopyPooled, tcp, copy",
            "message, inproc, copy", "byteArray, tcp, copy"})
    void shouldDeliverEveryByteWhenTheReceiverReadsAll(String strategy, String transport, String read) {
        for (int size : new int[] {64, 1027, 65536}) {
            try (TransportRig rig = new TransportRig(strategy, transport, size, -1, read)) {
                assertEquals(300L, rig.run(ReceiveMode.blocking, 300), "size=" + size);
            }
        }
    }

    /** The fold a reading receiver compares: any one flipped bit after the stamp changes it, heap or native alike. */
    @Test
    void shouldChangeTheFoldForAnyFlippedBitAfterTheStampOnly() {
        byte[] m = Payloads.generate(Payloads.BINARY, 77, 3);
        long fold = Stamp.foldAfterStamp(m, m.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(m.length);
            n.copyFrom(MemorySegment.ofArray(m));
            assertEquals(fold, Stamp.foldAfterStampAt(n.address(), m.length), "native and heap agree");
            byte[] copy = new byte[m.length];
            Stamp.copyAt(n.address(), copy, m.length);
            assertEquals(fold, Stamp.foldAfterStamp(copy, m.length), "the heap copy of native memory folds the same");
            for (int at = 0; at < m.length; at++) {
                for (int bit = 0; bit < 8; bit++) {
                    m[at] ^= (byte) (1 << bit);
                    if (at < Stamp.BYTES) {
                        assertEquals(fold, Stamp.foldAfterStamp(m, m.length), "the stamp is not folded: at=" + at);
                    } else {
                        assertNotEquals(fold, Stamp.foldAfterStamp(m, m.length), "at=" + at + ", bit=" + bit);
                    }
                    m[at] ^= (byte) (1 << bit);
                }
            }
        }
    }

    @Test
    void shouldNameAnUnknownRead() {
        try (TransportStrategy s = TransportStrategy.create(TransportStrategy.BYTE_ARRAY, new byte[64])) {
            var e = assertThrows(IllegalArgumentException.class, () -> s.read("some"));
            assertEquals("unknown read: read=some (stamp, all or copy)", e.getMessage());
        }
    }

    @Test
    void shouldNameAnUnknownStrategy() {
        var e = assertThrows(IllegalArgumentException.class, () -> TransportStrategy.create("nosuch", new byte[64]));
        assertEquals("unknown transport strategy: strategy=nosuch", e.getMessage());
    }
}

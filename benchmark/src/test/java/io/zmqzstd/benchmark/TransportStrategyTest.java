package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
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

    @Test
    void shouldNameAnUnknownStrategy() {
        var e = assertThrows(IllegalArgumentException.class, () -> TransportStrategy.create("nosuch", new byte[64]));
        assertEquals("unknown transport strategy: strategy=nosuch", e.getMessage());
    }
}

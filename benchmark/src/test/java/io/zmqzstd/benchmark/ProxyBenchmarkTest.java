package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ProxyBenchmark}'s rig: both loops deliver every message checked over both transports, and leave no proxy thread behind. */
class ProxyBenchmarkTest {

    @Timeout(60)
    @ParameterizedTest
    @CsvSource({"zmqzstd, inproc, 64", "zmqzstd, tcp, 1024", "libzmq, inproc, 1024", "libzmq, tcp, 64"})
    void shouldDeliverEveryBatchThroughEitherLoopAndCloseCleanly(String loop, String transport, int size) {
        try (ProxyBenchmark.Rig rig = new ProxyBenchmark.Rig(loop, transport, size)) {
            for (int batch = 1; batch <= 4; batch++) {
                assertEquals((long) batch * ProxyBenchmark.BATCH, rig.run(ProxyBenchmark.BATCH));
            }
        }
        assertEquals(List.of(), Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.endsWith("-proxy")).toList(), "proxy threads still alive after close");
    }

    @Test
    void shouldRefuseAnUnknownLoopAndASizeWithoutRoomForTheStamp() {
        var loop = assertThrows(IllegalArgumentException.class, () -> new ProxyBenchmark.Rig("jeromq", "inproc", 64));
        assertTrue(loop.getMessage().contains("loop=jeromq"), loop.getMessage());
        var size = assertThrows(IllegalArgumentException.class, () -> new ProxyBenchmark.Rig("zmqzstd", "inproc", 4));
        assertTrue(size.getMessage().contains("size=4"), size.getMessage());
    }
}

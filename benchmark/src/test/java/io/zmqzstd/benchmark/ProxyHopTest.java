package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import io.zmqzstd.transport.NativeBufferPool;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code hop=proxy}: every contestant through a proxy in its own JVM, every message checked, nothing left
 * behind; {@code hop=libzmqProxy} likewise for the contestants on libzmq.
 */
class ProxyHopTest {

    @Timeout(120)
    @ParameterizedTest
    @CsvSource({
        "zmqzstd, tcp, 0, proxy", "zmqzstd, inproc, 0, proxy", "zmqzstd, tcp, 2, proxy", "zmqzstd, inproc, 2, proxy",
        "libzmqBytes, tcp, 0, proxy", "libzmqBytes, inproc, 0, proxy", "libzmqBytesReused, tcp, 0, proxy",
        "libzmqBytesReused, inproc, 0, proxy", "jeromqZstdjni, tcp, 0, proxy", "jeromqZstdjni, inproc, 0, proxy",
        "jeromqZstdjniReused, tcp, 0, proxy", "jeromqZstdjniReused, inproc, 0, proxy",
        "jeromqZstdjniParallel, tcp, 2, proxy", "jeromqZstdjniParallel, inproc, 2, proxy",
        "zmqzstd, tcp, 0, libzmqProxy", "zmqzstd, inproc, 2, libzmqProxy", "libzmqBytes, tcp, 0, libzmqProxy",
        "libzmqBytesReused, inproc, 0, libzmqProxy",
    })
    void shouldDeliverEveryMessageThroughTheProxyAndCloseCleanly(String contestant, String transport,
            int compressionThreads, String hop) {
        // 1 KiB frames are copied, 64 KiB ones go zero-copy from zmqzstd's pool (both transports)
        for (int size : new int[] {1024, 65536}) {
            PipelineContestant pipe = PipelineContestants.create(contestant, size, transport, 3, "none",
                    Thresholds.LIBRARY_DEFAULT, 0, new PipelineContestants.Parallel(compressionThreads, 0, -1, -1), null,
                    hop);
            try {
                for (int batch = 0; batch < 3; batch++) {
                    pipe.transfer(200); // checks every message's length and sequence on arrival
                }
                assertTrue(pipe.compressedBytes() > 0, "compressed bytes: " + pipe.compressedBytes());
            } finally {
                pipe.close();
            }
            assertEquals(List.of(), proxyThreads(), "proxy threads still alive after close");
            if (pipe instanceof ZmqZstdContestant z) {
                NativeBufferPool.Stats stats = z.poolStats();
                assertEquals(0, stats.outstanding(), "pooled buffers not back after close: " + stats);
                if (size == 65536) {
                    assertTrue(stats.rented() > 0, "zero-copy frames should have come from the pool: " + stats);
                }
            }
        }
    }

    @Test
    void shouldRefuseAnUnknownHop() {
        var e = assertThrows(IllegalArgumentException.class, () -> PipelineContestants.create("zmqzstd", 1024, "inproc",
                3, "none", Thresholds.LIBRARY_DEFAULT, 0, PipelineContestants.Parallel.NONE, null, "relay"));
        assertTrue(e.getMessage().contains("hop=relay"), e.getMessage());
        var jeromq = assertThrows(IllegalArgumentException.class, () -> PipelineContestants.create("jeromqZstdjni", 1024,
                "inproc", 3, "none", Thresholds.LIBRARY_DEFAULT, 0, PipelineContestants.Parallel.NONE, null,
                PipelineContestants.HOP_LIBZMQ_PROXY));
        assertTrue(jeromq.getMessage().contains("contestant=jeromqZstdjni"), jeromq.getMessage());
    }

    private static List<String> proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.endsWith("-proxy")).toList();
    }
}

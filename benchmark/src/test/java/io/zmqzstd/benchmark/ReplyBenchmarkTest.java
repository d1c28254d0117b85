package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.ReplyRig;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ReplyBenchmark}'s rig: both ways answer every request of every batch, checked, from every worker, over
 * either backend transport; close leaves no worker or proxy thread behind and, for zmqzstd, no pool buffer out.
 */
class ReplyBenchmarkTest {

    @Timeout(120)
    @ParameterizedTest
    @CsvSource({"zmqzstd, 1, 1024, tcp", "zmqzstd, 2, 65536, tcp", "zmqzstd, 2, 1024, inproc",
            "jeromqZstdjni, 1, 65536, tcp", "jeromqZstdjni, 2, 1024, tcp", "jeromqZstdjni, 2, 1024, inproc"})
    void shouldAnswerEveryRequestFromEveryWorkerAndCloseCleanly(String way, int workers, int size, String backend) {
        ReplyRig rig = ReplyRig.create(way, workers, size, backend, 3);
        try {
            rig.joinWorkers();
            long before = rig.requests();
            for (int batch = 1; batch <= 3; batch++) {
                assertEquals(before + (long) batch * ReplyRig.MAX_BATCH, rig.run(ReplyRig.MAX_BATCH));
            }
            assertEquals(rig.requests(), Arrays.stream(rig.answeredPerWorker()).sum(), "replies sent by the workers");
            assertTrue(Arrays.stream(rig.answeredPerWorker()).allMatch(n -> n > 0), rig.summary());
        } finally {
            rig.close();
        }
        String summary = rig.summary();
        assertTrue(summary.endsWith(way.equals(ReplyRig.ZMQZSTD) ? ", poolOutstanding=0" : ", pool=none"), summary);
        assertEquals(List.of(), Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.endsWith("-proxy") || n.contains("-worker-")).toList(), "threads still alive after close");
    }

    @Test
    void shouldRefuseAnUnknownWayATooSmallSizeAndNoWorkers() {
        var way = assertThrows(IllegalArgumentException.class, () -> ReplyRig.create("libzmqBytes", 1, 1024, "tcp", 3));
        assertTrue(way.getMessage().contains("way=libzmqBytes"), way.getMessage());
        var size = assertThrows(IllegalArgumentException.class, () -> ReplyRig.create("zmqzstd", 1, 4, "tcp", 3));
        assertTrue(size.getMessage().contains("size=4"), size.getMessage());
        var workers = assertThrows(IllegalArgumentException.class, () -> ReplyRig.create("zmqzstd", 0, 1024, "tcp", 3));
        assertTrue(workers.getMessage().contains("workers=0"), workers.getMessage());
    }

    @Test
    @Timeout(60)
    void shouldRefuseABatchBeyondTheHighWaterMarksMargin() {
        try (ReplyRig rig = ReplyRig.create(ReplyRig.ZMQZSTD, 1, 1024, "inproc", 3)) {
            var e = assertThrows(IllegalArgumentException.class, () -> rig.run(ReplyRig.MAX_BATCH + 1));
            assertTrue(e.getMessage().contains("batch=" + (ReplyRig.MAX_BATCH + 1)), e.getMessage());
        }
    }
}

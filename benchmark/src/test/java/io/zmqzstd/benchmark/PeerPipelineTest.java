package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each case has a time limit: a peer stuck in a blocking send (a receiver that stopped taking) fails
 * its own case instead of hanging the suite; in a separate thread, since a thread inside libzmq does
 * not answer an interrupt.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PeerPipelineTest {

    @ParameterizedTest
    @CsvSource({
        "jeromqZstdjni, tcp, none", "jeromqZstdjni, inproc, trained",
        "libzmqBytes, tcp, trained", "libzmqBytes, inproc, none",
        "zmqzstd, tcp, none", "zmqzstd, inproc, trained",
        "jeromqZstdjniReused, tcp, trained", "jeromqZstdjniReused, inproc, none",
        "libzmqBytesReused, tcp, none", "libzmqBytesReused, inproc, trained",
    })
    void shouldDeliverAndCheckEveryMessageInOrder(String contestant, String transport, String dictionary) {
        try (PipelineContestant pipe = PipelineContestants.create(contestant, 1024, transport, 3, dictionary)) {
            pipe.transfer(500);
            pipe.transfer(500);
            long compressed = pipe.compressedBytes();
            assertTrue(compressed > 0 && compressed < 1000L * 1024, "compressed bytes: " + compressed);
        }
    }

    @ParameterizedTest
    @CsvSource({"jeromqZstdjni", "libzmqBytes", "zmqzstd", "jeromqZstdjniReused", "libzmqBytesReused"})
    void shouldCompressSmallMessagesBetterWithTrainedDictionary(String contestant) {
        long without;
        long with;
        try (PipelineContestant pipe = PipelineContestants.create(contestant, 64, "inproc", 3, "none")) {
            pipe.transfer(100);
            without = pipe.compressedBytes();
        }
        try (PipelineContestant pipe = PipelineContestants.create(contestant, 64, "inproc", 3, "trained")) {
            pipe.transfer(100);
            with = pipe.compressedBytes();
        }
        assertTrue(with < without, "with dictionary=" + with + ", without=" + without);
    }

    /**
     * On the receiving thread, the reusing peer over this project's libzmq allocates only zstd-jni's
     * own few hundred bytes per call (about 112 B in {@code getFrameContentSize} and 224 B in
     * {@code decompressByteArray}, whatever the size), where the short way also allocates a frame and
     * a payload array per message: the difference the {@code ...Reused} contestants take out.
     */
    @ParameterizedTest
    @CsvSource({"libzmqBytesReused, 0, 1024", "libzmqBytes, 65536, 1000000"})
    void shouldAllocateOnTheReceivingThreadOnlyWhatTheWayNeeds(String contestant, long atLeast, long below) {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (PipelineContestant pipe = PipelineContestants.create(contestant, 65536, "inproc", 1, "none")) {
            for (int i = 0; i < 20; i++) {
                pipe.transfer(100); // warm-up: the JIT compiles the receive path
            }
            int messages = 1_000;
            long before = threads.getCurrentThreadAllocatedBytes();
            pipe.transfer(messages);
            long perMessage = (threads.getCurrentThreadAllocatedBytes() - before) / messages;
            assertTrue(perMessage >= atLeast && perMessage < below, "bytes per message on the receiving thread: "
                    + perMessage + ", expected in [" + atLeast + ", " + below + ")");
        }
    }

    @ParameterizedTest
    @CsvSource({"tcp, 0, 0", "inproc, 0, 0", "tcp, 1099511627776, 0", "inproc, 8192, 128"})
    void shouldDeliverWithEveryZeroCopyAndRawFrameSetting(String transport, long zeroCopyThresholdBytes,
            long rawFrameBelowBytes) {
        for (int size : new int[] {64, 65536}) {
            try (PipelineContestant pipe = PipelineContestants.create("zmqzstd", size, transport, 3, "none",
                    zeroCopyThresholdBytes, rawFrameBelowBytes)) {
                pipe.transfer(200);
                long compressed = pipe.compressedBytes();
                assertTrue(compressed > 0, "compressed bytes: " + compressed);
                if (rawFrameBelowBytes > size) {
                    // A raw-block frame is the payload plus a header: never smaller than the payload.
                    assertTrue(compressed > 200L * size, "raw frames: compressed bytes=" + compressed);
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"zmqzstd, tcp, 1", "zmqzstd, tcp, 2", "zmqzstd, inproc, 3", "jeromqZstdjniParallel, tcp, 3",
        "jeromqZstdjniParallel, inproc, 1"})
    void shouldDeliverInOrderWithParallelCompression(String contestant, String transport, int compressionThreads) {
        for (int size : new int[] {64, 1024, 65536}) {
            try (PipelineContestant pipe = PipelineContestants.create(contestant, size, transport, 3, "none",
                    8192, 0, new PipelineContestants.Parallel(compressionThreads, 0, -1, -1))) {
                pipe.transfer(300); // checks every message's length and sequence on arrival
                pipe.transfer(300);
                long compressed = pipe.compressedBytes();
                assertTrue(compressed > 0, "compressed bytes: " + compressed);
            }
        }
    }

    @Test
    void shouldRefuseAParallelPeerWithoutCompressionThreads() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> PipelineContestants.create("jeromqZstdjniParallel", 1024, "inproc", 3, "none"));
        assertTrue(e.getMessage().contains("compressionThreads above 0"), e.getMessage());
    }
}

package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PeerPipelineTest {

    @ParameterizedTest
    @CsvSource({
        "jeromqZstdjni, tcp, none", "jeromqZstdjni, inproc, trained",
        "libzmqBytes, tcp, trained", "libzmqBytes, inproc, none",
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
    @CsvSource({"jeromqZstdjni", "libzmqBytes"})
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
}

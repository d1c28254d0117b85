package io.zmqzstd.benchmark;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * {@code PublishBenchmark}: PUB to SUB with a topic given as a {@code byte[]} and as a native segment (each
 * to its {@code publish} overload) runs, every message's topic, length and sequence checked on arrival, and
 * under {@code -prof gc} stays near JMH's own per-iteration floor, as the pipeline README says publishing
 * does (zero allocation per message, topics included), held to {@link AllocationBound#MAX_BYTES_PER_MESSAGE}:
 * on the sender thread ({@code CompressingSender}, {@code compressionThreads=0}) and through a
 * {@code ParallelCompressingSender} with 3 workers, whose allocation {@code -prof gc} counts with the rest.
 */
class PublishAllocationTest {

    @ParameterizedTest(name = "topicForm={0}, size={1}, transport={2}, compressionThreads={3}")
    @CsvSource({"bytes, 1024, tcp, 0", "segment, 1024, tcp, 0", "bytes, 65536, inproc, 0", "segment, 65536, inproc, 0",
        "bytes, 1024, tcp, 3", "segment, 65536, inproc, 3"})
    @Timeout(120)
    void shouldPublishWithATopicWithoutAllocatingPerMessage(String topicForm, int size, String transport,
            int compressionThreads) throws RunnerException {
        AllocationBound.assertNoAllocationPerMessage(new OptionsBuilder()
                .include("^" + PublishBenchmark.class.getName() + "\\.publish$")
                .param("topicForm", topicForm).param("size", Integer.toString(size)).param("transport", transport)
                .param("level", "3").param("compressionThreads", Integer.toString(compressionThreads)),
                topicForm + ", " + size + " B, " + transport + ", compressionThreads=" + compressionThreads);
    }
}

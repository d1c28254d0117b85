package io.zmqzstd.benchmark;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * {@code PublishBenchmark}: PUB to SUB with a topic given as a {@code byte[]} ({@code publish}) and as a
 * native segment ({@code sendEnvelope} then {@code send}) runs, every message's topic, length and sequence
 * checked on arrival, and under {@code -prof gc} stays near JMH's own per-iteration floor, as the pipeline
 * README says publishing does (zero allocation per message, topics included), held to
 * {@link AllocationBound#MAX_BYTES_PER_MESSAGE}.
 */
class PublishAllocationTest {

    @ParameterizedTest(name = "topicForm={0}, size={1}, transport={2}")
    @CsvSource({"bytes, 1024, tcp", "segment, 1024, tcp", "bytes, 65536, inproc", "segment, 65536, inproc"})
    @Timeout(120)
    void shouldPublishWithATopicWithoutAllocatingPerMessage(String topicForm, int size, String transport)
            throws RunnerException {
        AllocationBound.assertNoAllocationPerMessage(new OptionsBuilder()
                .include("^" + PublishBenchmark.class.getName() + "\\.publish$")
                .param("topicForm", topicForm).param("size", Integer.toString(size)).param("transport", transport)
                .param("level", "3"), topicForm + ", " + size + " B, " + transport);
    }
}

package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * {@code -Dzmqzstd.bench.payloadForm}: the zmqzstd pipeline with its payload given as a {@code byte[]} or
 * a direct {@code ByteBuffer} runs, every message checked on arrival, and under {@code -prof gc} stays near
 * JMH's own per-iteration floor, as with a native segment. Each call of those overloads wrapped the payload
 * in a heap segment until 2026-11-27, 72 B a message, which this bound (16 B) tells apart from the floor
 * (6.9 KB an iteration over the thousands of messages a 500 ms iteration moves). The same for
 * {@code -Dzmqzstd.bench.receiveForm=into}, the receiving side's {@code receiveInto}.
 */
class PayloadFormTest {

    @ParameterizedTest(name = "{0}, compressionThreads={1}")
    @CsvSource({"bytes, 0", "direct, 0", "bytes, 3", "direct, 3"})
    @Timeout(120)
    void shouldSendEachPayloadFormWithoutAllocatingPerMessage(String form, int compressionThreads) throws RunnerException {
        AllocationBound.assertNoAllocationPerMessage(new OptionsBuilder()
                .include("^" + PipelineBenchmark.class.getName() + "\\.transfer$")
                .param("contestant", "zmqzstd").param("size", "1024").param("transport", "tcp").param("level", "3")
                .param("dictionary", "none").param("compressionThreads", Integer.toString(compressionThreads))
                .jvmArgsAppend("-D" + ZmqZstdContestant.PAYLOAD_FORM_PROPERTY + "=" + form), form);
    }

    /**
     * {@code -Dzmqzstd.bench.receiveForm=into}: the receiver decompresses into the contestant's own segment
     * ({@code receiveInto}), every message checked there, with no allocation per message either.
     */
    @ParameterizedTest(name = "compressionThreads={0}")
    @CsvSource({"0", "3"})
    @Timeout(120)
    void shouldReceiveIntoOwnMemoryWithoutAllocatingPerMessage(int compressionThreads) throws RunnerException {
        AllocationBound.assertNoAllocationPerMessage(new OptionsBuilder()
                .include("^" + PipelineBenchmark.class.getName() + "\\.transfer$")
                .param("contestant", "zmqzstd").param("size", "65536").param("transport", "tcp").param("level", "3")
                .param("dictionary", "none").param("compressionThreads", Integer.toString(compressionThreads))
                .jvmArgsAppend("-D" + ZmqZstdContestant.RECEIVE_FORM_PROPERTY + "=into"), "receiveInto");
    }
}

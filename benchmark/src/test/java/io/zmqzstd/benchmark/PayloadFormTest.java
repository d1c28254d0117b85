package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import java.util.Collection;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code -Dzmqzstd.bench.payloadForm}: the zmqzstd pipeline with its payload given as a {@code byte[]} or
 * a direct {@code ByteBuffer} runs, every message checked on arrival, and under {@code -prof gc} stays near
 * JMH's own per-iteration floor, as with a native segment. Each call of those overloads wrapped the payload
 * in a heap segment until 2026-11-27, 72 B a message, which this bound (16 B) tells apart from the floor
 * (6.9 KB an iteration over the thousands of messages a 500 ms iteration moves).
 */
class PayloadFormTest {

    private static final double MAX_BYTES_PER_MESSAGE = 16;

    @ParameterizedTest(name = "{0}, compressionThreads={1}")
    @CsvSource({"bytes, 0", "direct, 0", "bytes, 3", "direct, 3"})
    @Timeout(120)
    void shouldSendEachPayloadFormWithoutAllocatingPerMessage(String form, int compressionThreads) throws RunnerException {
        Collection<RunResult> runs = new Runner(new OptionsBuilder()
                .include("^" + PipelineBenchmark.class.getName() + "\\.transfer$")
                .param("contestant", "zmqzstd").param("size", "1024").param("transport", "tcp").param("level", "3")
                .param("dictionary", "none").param("compressionThreads", Integer.toString(compressionThreads))
                .jvmArgsAppend("-D" + ZmqZstdContestant.PAYLOAD_FORM_PROPERTY + "=" + form)
                .forks(1).warmupIterations(2).warmupTime(TimeValue.milliseconds(500))
                .measurementIterations(1).measurementTime(TimeValue.milliseconds(500))
                .addProfiler(GCProfiler.class).shouldFailOnError(true).build()).run();
        assertEquals(1, runs.size(), "runs");
        RunResult run = runs.iterator().next();
        assertTrue(run.getPrimaryResult().getScore() > 0, "messages per second: " + run.getPrimaryResult().getScore());
        Result<?> norm = run.getSecondaryResults().get("gc.alloc.rate.norm");
        assertTrue(norm != null && norm.getScore() < MAX_BYTES_PER_MESSAGE,
                form + ": gc.alloc.rate.norm=" + (norm == null ? "absent" : norm.getScore() + " B/msg"));
    }
}

package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.latency.RoundTripContestant;
import io.zmqzstd.benchmark.latency.RoundTrips;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of one compressed request: the JMH thread stamps a sequence number into the telemetry payload,
 * compresses it and sends it over a PAIR socket; a server thread receives, decompresses and checks it and
 * answers with an 8-byte acknowledgement; the operation ends when the JMH thread has received and checked
 * that acknowledgement. Sample mode: the score is the distribution of round-trip times (JMH prints the
 * percentiles, p99.9 and p99.99 included), and with {@code -prof gc} {@code gc.alloc.rate.norm} is bytes
 * allocated per round trip by the whole JVM (client and server threads), {@code gc.count} and
 * {@code gc.time} the collections and their total time during measurement.
 *
 * <p>Contestants as in {@link PipelineBenchmark}: {@code zmqzstd} (this project's pipeline, native
 * payload), {@code libzmqBytes} (this project's transport with {@code byte[]} and zstd-jni) and
 * {@code jeromqZstdjni} (JeroMQ with zstd-jni {@code byte[]}). {@code -p contestant=zmqzstd@3} sends through a
 * {@code ParallelCompressingSender} with 3 workers ({@code zmqzstd@3i0}: every request handed to a worker,
 * none compressed inline; see {@code PipelineContestants.Parallel}).
 *
 * <p>Closed loop: the next request leaves when the previous one is acknowledged, so a stall (a GC pause,
 * a preemption) delays the one request in flight rather than the requests a fixed-rate sender would have
 * queued behind it. The upper percentiles therefore understate what a stall costs an open-loop stream;
 * {@code gc.time} shows the total.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class LatencyBenchmark {

    @Param({PipelineContestants.ZMQZSTD, PipelineContestants.LIBZMQ_BYTES, PipelineContestants.JEROMQ_ZSTDJNI})
    public String contestant;

    /** Request payload bytes, at least 8 (the sequence stamp). */
    @Param({"1024", "65536", "1048576"})
    public int size;

    @Param({Endpoints.TCP, Endpoints.INPROC})
    public String transport;

    @Param({"3"})
    public int level;

    private RoundTripContestant roundTrips;
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() {
        if (size < Stamp.BYTES) {
            throw new IllegalArgumentException("size must be at least " + Stamp.BYTES + ": size=" + size);
        }
        // The tear-down rehearsed, as in PipelineBenchmark.setUp: JMH runs the trial tear-down inside the
        // last measured iteration, where the first close of a contestant in the JVM links its downcalls
        // (40-110 KB at 1 KiB, TearDownRehearsalTest) and -prof gc counted that as the round trips'.
        try (RoundTripContestant rehearsal = RoundTrips.create(contestant, size, transport, level)) {
            rehearsal.roundTrip(0);
            rehearsal.roundTrip(1);
        }
        roundTrips = RoundTrips.create(contestant, size, transport, level);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        roundTrips.close();
    }

    @Benchmark
    public long roundTrip() {
        roundTrips.roundTrip(sequence);
        return sequence++;
    }
}

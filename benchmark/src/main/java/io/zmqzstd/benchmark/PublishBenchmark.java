package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdPubSub;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End to end with a topic: compress, publish, receive, decompress, PUB to SUB, telemetry payloads, this
 * project's {@code CompressingSender} (or {@code ParallelCompressingSender}) and {@code DecompressingReceiver}
 * ({@link ZmqZstdPubSub}). The score is messages per second and {@code gc.alloc.rate.norm} ({@code -prof gc})
 * bytes allocated per message, sender thread (and compressing workers) included: what the pipeline's claim
 * that {@code publish} allocates nothing per message can be checked with.
 *
 * <p>{@code compressionThreads}: 0 (the default) publishes through a {@code CompressingSender} on the sender
 * thread; n above 0 through a {@code ParallelCompressingSender} with n compressing workers and its default
 * ring and inline settings, as {@link PipelineBenchmark}'s {@code compressionThreads} with its default
 * {@code inFlight} and {@code inlineBelowBytes}; everything else (sizes, transports, payload, pacing, the
 * receiving side) is the same for both, so {@code -p compressionThreads=0,3} compares them in one run.
 *
 * <p>{@code topicForm}: {@code bytes} publishes with {@code publish(byte[] topic, MemorySegment payload,
 * flags)}; {@code segment} with {@code publish(MemorySegment topic, MemorySegment payload, flags)}, the topic
 * in a native segment. Both forms measure one atomic publish per message (before 2026-11-27 {@code segment}
 * sent the topic with {@code sendEnvelope(MemorySegment, SNDMORE)}, then the payload with
 * {@code send(MemorySegment, flags)}: results from before then measure those two calls).
 *
 * <p>Pacing as {@link PipelineBenchmark}'s {@code stream} flow: the sender thread ({@link CreditedSender})
 * stamps each message's sequence number into the payload and may run {@link PipelineBenchmark#lead(int)}
 * messages ahead of the receiver; every invocation grants and receives {@value PipelineBenchmark#BATCH}
 * more, and the iteration's untimed tear-down receives the lead. The JMH thread checks topic, length and
 * sequence of every message on arrival. The set-up makes, uses and closes a throwaway contestant first,
 * as the pipeline benchmark does, so that the trial tear-down (inside the last measured iteration) links
 * nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class PublishBenchmark {

    @Param({ZmqZstdPubSub.TOPIC_BYTES, ZmqZstdPubSub.TOPIC_SEGMENT})
    public String topicForm;

    @Param({"1024", "65536"})
    public int size;

    @Param({Endpoints.TCP, Endpoints.INPROC})
    public String transport;

    @Param({"3"})
    public int level;

    /**
     * 0 publishes on the sender thread ({@code CompressingSender}); n above 0 hands each message to a
     * {@code ParallelCompressingSender} with n compressing workers. A negative value stops the trial with an
     * error naming it.
     */
    @Param({"0"})
    public int compressionThreads;

    private ZmqZstdPubSub pipe;
    /** Grants and receives, with {@link PipelineBenchmark#lead(int)} messages of lead. */
    private StreamPacing pacing;

    @Setup(Level.Trial)
    public void setUp() {
        try (ZmqZstdPubSub rehearsal = create()) {
            rehearsal.transfer(2);
        }
        pipe = create();
        pacing = new StreamPacing(pipe, PipelineBenchmark.lead(size));
        // one checked batch before warm-up, every byte of it checked against the payload; its counters printed
        // here, not at the tear-down that -prof gc counts
        pipe.checkEveryByte(true);
        pipe.transfer(PipelineBenchmark.BATCH);
        pipe.checkEveryByte(false);
        System.out.println("# zmqzstd publisher: topicForm=" + topicForm + ", size=" + size + ", transport="
                + transport + ", compressionThreads=" + compressionThreads + ", " + pipe.senderStats());
    }

    private ZmqZstdPubSub create() {
        return new ZmqZstdPubSub(PipelineContestants.payload(size), transport, level, topicForm,
                new PipelineContestants.Parallel(compressionThreads, 0, -1, -1));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pipe.close();
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        pacing.startIteration();
    }

    @Benchmark
    @OperationsPerInvocation(PipelineBenchmark.BATCH)
    public void publish() {
        pacing.invocation();
    }

    /** Receives the messages still in flight (the lead), untimed: the next iteration starts empty. */
    @TearDown(Level.Iteration)
    public void endIteration() {
        pacing.endIteration();
    }
}

package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import java.util.Locale;
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
 * End to end: compress, send, receive, decompress, PUSH to PULL, telemetry payloads. The score is
 * messages per second and {@code gc.alloc.rate.norm} ({@code -prof gc}) is bytes allocated per message,
 * sender thread included.
 *
 * <p>Design, the same for every contestant: the sender runs on its own thread ({@link CreditedSender})
 * and stamps each message's sequence number into the payload before compressing it; the JMH thread
 * receives, decompresses and checks length and sequence of every message on arrival. Each invocation
 * grants {@value #BATCH} messages and receives exactly those, so nothing is queued between iterations
 * and only delivered, checked messages count. Each trial first sends one checked batch and prints one
 * {@code # compression ratio} line from it (uncompressed over compressed bytes).
 *
 * <p>{@code zeroCopyThresholdBytes} and {@code rawFrameBelowBytes} apply to {@code zmqzstd} only (see
 * {@link ZmqZstdContestant}): 0 = every frame zero-copy, 1099511627776 = every frame copied; raw-block
 * frames below the given size (ignored with a dictionary).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class PipelineBenchmark {

    /**
     * Messages per invocation. Large enough that the pause at each grant (waking the sender, one message
     * of latency) stays small at 64 B, small enough that a 1 MiB invocation lasts about a second.
     */
    public static final int BATCH = 500;

    @Param({PipelineContestants.ZMQZSTD, PipelineContestants.LIBZMQ_BYTES, PipelineContestants.JEROMQ_ZSTDJNI})
    public String contestant;

    @Param({"64", "1024", "65536", "1048576"})
    public int size;

    @Param({Endpoints.TCP, Endpoints.INPROC})
    public String transport;

    @Param({"1", "3"})
    public int level;

    @Param({PipelineContestants.DICTIONARY_NONE, PipelineContestants.DICTIONARY_TRAINED})
    public String dictionary;

    /** {@code zmqzstd} only: frames of at least this size go zero-copy (sender and pool threshold). */
    @Param({"8192"})
    public long zeroCopyThresholdBytes;

    /** {@code zmqzstd} only: payloads shorter than this go out as raw-block frames (0 = never). */
    @Param({"0"})
    public long rawFrameBelowBytes;

    private PipelineContestant pipe;
    private long messages;

    @Setup(Level.Trial)
    public void setUp() {
        pipe = PipelineContestants.create(contestant, size, transport, level, dictionary, zeroCopyThresholdBytes,
                rawFrameBelowBytes);
        // One checked batch before warm-up, for the compression ratio: every message is the same payload
        // but for its 8-byte sequence stamp, so these frames have the ratio of all of them. Reported here,
        // not at tear-down: the trial tear-down runs inside the last measured iteration, and -prof gc
        // would count what printing allocates there.
        pipe.transfer(BATCH);
        messages = BATCH;
        System.out.println(ratioLine());
        if (pipe instanceof ZmqZstdContestant z) {
            System.out.println("# zmqzstd sender: " + z.senderStats());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pipe.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long transfer() {
        pipe.transfer(BATCH);
        messages += BATCH;
        return messages;
    }

    private String ratioLine() {
        long compressed = pipe.compressedBytes();
        long uncompressed = messages * size;
        return String.format(Locale.ROOT,
                "# compression ratio: contestant=%s, size=%d, transport=%s, level=%d, dictionary=%s, "
                        + "rawFrameBelowBytes=%d, ratio=%.3f, uncompressedBytes=%d, compressedBytes=%d, messages=%d",
                contestant, size, transport, level, dictionary, rawFrameBelowBytes,
                compressed == 0 ? 0.0 : (double) uncompressed / compressed, uncompressed, compressed, messages);
    }
}

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
 * receives, decompresses and checks length and sequence of every message on arrival. Only delivered,
 * checked messages count, and nothing is queued between iterations. Each trial first sends one checked
 * batch, every byte of each payload compared with the source ({@link PayloadCheck}), and prints one
 * {@code # compression ratio} line from it (uncompressed over compressed bytes).
 *
 * <p>{@code flow}: how the sender is paced. {@code stream} (the default, as the C program and a real
 * service run): the first invocation of an iteration grants the sender {@link #lead(int)} messages more
 * than it receives, every invocation grants and receives {@value #BATCH} more, so the sender never waits
 * for the receiver to drain. Its credit beyond what the receiver has taken is therefore the lead just
 * before each grant and the lead plus {@value #BATCH} just after it (up to 504 messages at 1 MiB, which
 * the high-water marks hold); how far it actually runs ahead is set by its own speed. The iteration's
 * tear-down (not timed) receives the lead, so the next iteration starts from an empty pipe and no work is
 * done ahead outside the timed region. {@code batch}: each invocation
 * grants {@value #BATCH} messages and receives exactly those, so the pipe drains and refills at every
 * invocation; measured 20 % below {@code stream} at 64 B over tcp (one tcp round trip and a sender
 * wake-up per 500 messages), kept to show that cost.
 *
 * <p>{@code zeroCopyThresholdBytes} and {@code rawFrameBelowBytes} apply to {@code zmqzstd} only (see
 * {@link ZmqZstdContestant}): 0 = every frame zero-copy, 1099511627776 = every frame copied; raw-block
 * frames below the given size (ignored with a dictionary).
 *
 * <p>{@code hop}: {@code none} (the default, every figure without it) sends PUSH straight to PULL.
 * {@code proxy} puts a hub between them, as telemetry deployments do: a proxy in the same JVM, on a platform
 * thread of its own and in the contestant's own context, over the same {@code transport} on both sides,
 * that forwards each compressed frame untouched (this project's {@code ZmqProxy} for {@code zmqzstd} and
 * {@code libzmqBytes}; JeroMQ's {@code ZMQ.proxy} for the JeroMQ contestants). {@code libzmqProxy} runs
 * libzmq's own {@code zmq_proxy_steerable} on the same sockets instead of {@code ZmqProxy}'s loop, for the
 * contestants on libzmq only: what other bindings run as their proxy, and what {@code ZmqProxy} ran until
 * 2026-11-28. The difference between {@code none} and a proxy is the cost of one forwarding hop that does not
 * decompress: on tcp a second loopback connection (one more copy in and out of the kernel per frame), on
 * inproc one more pipe and a thread hand-off. The sender still connects and the receiver still binds, the
 * proxy's sockets get the end sockets' high-water marks (so back-pressure reaches the sender through it),
 * and the contestant's close stops the proxy and joins its thread. Every contestant supports {@code proxy},
 * the parallel ones included.
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

    /**
     * {@code zmqzstd} only: frames of at least this size go zero-copy (sender and pool threshold); -1 (the
     * default): the library's thresholds, 8 KiB, and 512 B on inproc ({@link Thresholds#LIBRARY_DEFAULT}).
     */
    @Param({"-1"})
    public long zeroCopyThresholdBytes;

    /** {@code zmqzstd} only: payloads shorter than this go out as raw-block frames (0 = never). */
    @Param({"0"})
    public long rawFrameBelowBytes;

    /**
     * {@code zmqzstd} only: 0 compresses on the sender thread ({@code CompressingSender}); n above 0 hands
     * each message to a {@code ParallelCompressingSender} with n compressing workers.
     */
    @Param({"0"})
    public int compressionThreads;

    /** {@code zmqzstd} with {@code compressionThreads} above 0: the sender's in-flight messages (0 = its default). */
    @Param({"0"})
    public int inFlight;

    /**
     * {@code zmqzstd} with {@code compressionThreads} above 0: payloads shorter than this are compressed and
     * sent on the sender thread when nothing is in flight (-1 = the sender's default, 0 = never).
     */
    @Param({"-1"})
    public long inlineBelowBytes;

    /** {@code stream}: at most this many messages of lead (4 MiB of payload binds first from 8 KiB up). */
    @Param({"500"})
    public int maxLead;

    /** {@code stream} or {@code batch}, see the class comment. */
    @Param({FLOW_STREAM})
    public String flow;

    /**
     * {@code none}: threads go where the scheduler puts them. {@code split}: the sender thread on CPU 0,
     * every other thread (receiver, I/O threads, JIT, GC) on CPU 1, the same for every contestant
     * ({@link Affinity}).
     */
    @Param({AFFINITY_NONE})
    public String affinity;

    /** {@code none}, {@code proxy} or {@code libzmqProxy}: a forwarding hop between sender and receiver, see the class comment. */
    @Param({PipelineContestants.HOP_NONE})
    public String hop;

    public static final String AFFINITY_NONE = "none";
    public static final String AFFINITY_SPLIT = "split";
    public static final String FLOW_STREAM = "stream";
    public static final String FLOW_BATCH = "batch";

    private PipelineContestant pipe;
    private long messages;
    /** Grants and receives; its lead is 0 for {@code batch}. */
    private StreamPacing pacing;

    /**
     * The messages granted beyond those received while streaming, just before each grant (one batch more
     * just after it): 4 MiB of payload, at least 2 and at most one batch. Below libzmq's default high-water mark (1000), so a send never blocks on a full pipe at the
     * end of an iteration, and small enough that large messages in flight do not pile up memory.
     */
    static int lead(int size) {
        return lead(size, BATCH);
    }

    /** As {@link #lead(int)}, at most {@code maxLead} messages instead of one batch. */
    static int lead(int size, int maxLead) {
        return (int) Math.max(2, Math.min(maxLead, (4L << 20) / Math.max(size, 1)));
    }

    @Setup(Level.Trial)
    public void setUp() {
        if (!affinity.equals(AFFINITY_NONE) && !affinity.equals(AFFINITY_SPLIT)) {
            throw new IllegalArgumentException("affinity must be none or split: affinity=" + affinity);
        }
        int lead = switch (flow) {
            case FLOW_STREAM -> lead(size, maxLead);
            case FLOW_BATCH -> 0;
            default -> throw new IllegalArgumentException("flow must be stream or batch: flow=" + flow);
        };
        PipelineContestants.Parallel parallel = new PipelineContestants.Parallel(compressionThreads, inFlight, inlineBelowBytes, -1);
        // A rehearsal of the tear-down: the trial tear-down runs inside the last measured iteration, and
        // the first close of a sender, receiver, sockets and context in a JVM links their downcalls
        // (about 100 KB of method-handle classes at 1 MiB, async-profiler's alloc mode), which -prof gc
        // then counted as that iteration's allocation: 100 KB over a few hundred 1 MiB messages. A
        // contestant made, used for a few messages and closed here does that linking before warm-up; with
        // hop=proxy it has a proxy too, so stopping one and joining its thread is rehearsed as well.
        try (PipelineContestant rehearsal = PipelineContestants.create(contestant, size, transport, level, dictionary,
                zeroCopyThresholdBytes, rawFrameBelowBytes, parallel, null, hop)) {
            rehearsal.transfer(2);
        }
        pipe = PipelineContestants.create(contestant, size, transport, level, dictionary, zeroCopyThresholdBytes,
                rawFrameBelowBytes, parallel, null, hop);
        pacing = new StreamPacing(pipe, lead);
        if (affinity.equals(AFFINITY_SPLIT)) {
            int sender = pipe.senderThreadId();
            System.out.println("# affinity: sender thread " + sender + " on cpu 0, threads " + Affinity.split(sender)
                    + " on cpu 1");
        }
        // One checked batch before warm-up, for the compression ratio: every message is the same payload
        // but for its 8-byte sequence stamp, so these frames have the ratio of all of them. Reported here,
        // not at tear-down: the trial tear-down runs inside the last measured iteration, and -prof gc
        // would count what printing allocates there. Every byte of this batch is checked against the payload
        // (only length and stamp of the measured ones), so a contestant that delivers wrong bytes stops here.
        pipe.checkEveryByte(true);
        pipe.transfer(BATCH);
        pipe.checkEveryByte(false);
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

    @Setup(Level.Iteration)
    public void startIteration() {
        pacing.startIteration();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long transfer() {
        pacing.invocation();
        messages += BATCH;
        return messages;
    }

    /** Receives the messages still in flight (the lead), untimed: the next iteration starts empty. */
    @TearDown(Level.Iteration)
    public void endIteration() {
        messages += pacing.endIteration();
    }

    private String ratioLine() {
        long compressed = pipe.compressedBytes();
        long uncompressed = messages * size;
        return String.format(Locale.ROOT,
                "# compression ratio: contestant=%s, size=%d, transport=%s, level=%d, dictionary=%s, "
                        + "rawFrameBelowBytes=%d%s, ratio=%.3f, uncompressedBytes=%d, compressedBytes=%d, messages=%d",
                contestant, size, transport, level, dictionary, rawFrameBelowBytes,
                hop.equals(PipelineContestants.HOP_NONE) ? "" : ", hop=" + hop, // the line as before without a hop
                compressed == 0 ? 0.0 : (double) uncompressed / compressed, uncompressed, compressed, messages);
    }
}

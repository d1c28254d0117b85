package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
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
 * ROUTER to ROUTER throughput of this project's transport, uncompressed: the matrix of the reference
 * write-ups (buffer strategy x receive mode x size), over tcp loopback and inproc.
 *
 * <p>Design ({@link TransportRig}): the sending ROUTER lives on its own thread ({@link CreditedSender});
 * the JMH thread owns the receiving ROUTER. Each invocation grants the sender {@value #MESSAGES} messages, then receives exactly
 * those {@value #MESSAGES} in the chosen {@link ReceiveMode}, checking each one's length and sequence
 * number ({@link Stamp}). Nothing is sent that the same invocation does not receive, so the score counts
 * delivered, checked messages only. {@code @OperationsPerInvocation} makes one operation one message:
 * the score is messages per second and {@code gc.alloc.rate.norm} is bytes per message (both threads).
 *
 * <p>Each message is two frames, [routing id][payload]. The sender has ROUTER_MANDATORY so it blocks at
 * the high-water mark instead of dropping. {@code zeroCopyPooled} hands buffers to libzmq at or above the
 * pool's zero-copy threshold ({@code zeroCopyThresholdBytes}, default the library's: 8 KiB, 512 B over inproc)
 * and copies below it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class TransportBenchmark {

    /** Messages per invocation, as in the reference write-ups. */
    public static final int MESSAGES = 10_000;

    @Param({TransportStrategy.BYTE_ARRAY, TransportStrategy.REUSED_BUFFER, TransportStrategy.MESSAGE,
        TransportStrategy.ZERO_COPY_POOLED})
    public String strategy;

    @Param({"blocking", "blockingBatch", "nonBlocking", "poller"})
    public String receiveMode;

    @Param({"64", "512", "1024", "65536", "131072", "262144"})
    public int size;

    @Param({"tcp", "inproc"})
    public String transport;

    /**
     * {@code zeroCopyPooled} only: the pool's zero-copy threshold. Frames of at least this size are handed
     * to libzmq, shorter ones copied into a libzmq message: 0 = always zero-copy, 1099511627776 = always copy.
     * Running both at every size shows where zero-copy starts to win. -1 (the default): the library's
     * thresholds, 8 KiB, and 512 B on inproc ({@link Thresholds#LIBRARY_DEFAULT}).
     */
    @Param({"-1"})
    public long zeroCopyThresholdBytes;

    /**
     * How much of each payload the receiver reads: {@code stamp}, its length and 8-byte sequence stamp
     * (the default); {@code all}, every byte, compared with the source, as a consumer that uses its
     * messages reads them ({@link TransportStrategy#read}); {@code copy}, every byte, a frame read in place
     * copied into one reused heap array first. With {@code stamp}, a zero-copy frame over
     * inproc is never brought to the receiving core, while the copying strategies pay for that in their
     * copy.
     */
    @Param({TransportStrategy.READ_STAMP})
    public String read;

    /**
     * libzmq I/O threads of the one context both sockets are on: with 1 (the default, libzmq's), one
     * I/O thread serves both ends of a tcp connection, where a sender and a receiver in two processes
     * would have one each; 2 gives each end its own.
     */
    @Param({"1"})
    public int ioThreads;

    private TransportRig rig;
    private ReceiveMode mode;

    @Setup(Level.Trial)
    public void setUp() {
        mode = ReceiveMode.valueOf(receiveMode);
        // The tear-down rehearsed, as in PipelineBenchmark.setUp: a first close inside the last measured
        // iteration would link its downcalls there, and -prof gc would count that.
        try (TransportRig rehearsal = new TransportRig(strategy, transport, size, zeroCopyThresholdBytes, read,
                ioThreads)) {
            rehearsal.run(mode, 2);
        }
        rig = new TransportRig(strategy, transport, size, zeroCopyThresholdBytes, read, ioThreads);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long sendReceive() {
        return rig.run(mode, MESSAGES);
    }
}

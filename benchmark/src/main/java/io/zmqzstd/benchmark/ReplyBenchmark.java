package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.ReplyRig;
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
 * Compressed replies on several cores, as the pipeline README recommends them (DEALER/ROUTER): a ROUTER frontend,
 * a DEALER backend joined by a proxy on a thread of its own, and {@code workers} worker threads, each with a DEALER
 * socket of its own connected to the backend, that decompress each request, check it and answer it with a
 * compressed reply behind the request's routing id. {@value ReplyRig#CLIENTS} DEALER clients on the JMH thread,
 * connected over tcp to the frontend, send compressed requests and receive, decompress and check every reply
 * ({@link ReplyRig}). Requests and replies are telemetry payloads of {@code size} bytes (the pipeline's payload and
 * one from another seed), compressed at {@code level}; {@code backend} is the transport between the proxy and the
 * workers (tcp, as in {@code ProxiedWorkersTest}, or inproc).
 *
 * <p>{@code way=zmqzstd}: this project's sockets, {@code ZmqProxy}, {@code CompressingSender} (its {@code reply}
 * on the workers) and {@code DecompressingReceiver} ({@code envelopeParts(1)} on the workers), payloads in native
 * segments. {@code way=jeromqZstdjni}: the same topology with JeroMQ's sockets and its own {@code ZMQ.proxy}, and
 * zstd-jni compressing and decompressing {@code byte[]} on the same threads, as {@code PipelineBenchmark}'s
 * {@code jeromqZstdjni} contestant does.
 *
 * <p>Each invocation sends {@value ReplyRig#MAX_BATCH} requests, spread over the clients in turn with blocking
 * sends, then receives their replies: within every high-water mark on the way, so no send waits and no reply is
 * dropped, and the pipe drains at the end of each invocation. Each reply is checked: its length, that it carries
 * the sequence of one of its own client's requests of the batch, and that no request is answered twice; the
 * workers check each request's length. <b>One operation is one request answered and checked</b>: the score is
 * replies per second, and {@code gc.alloc.rate.norm} is bytes allocated per request and reply by every thread of
 * the JVM (clients, proxy and workers; libzmq's I/O threads allocate no Java heap, JeroMQ's do).
 *
 * <p>The trial set-up rehearses the tear-down (a rig made, run and closed), then runs checked batches, every byte of
 * every request and reply compared with its source, until each worker has answered. The trial tear-down closes
 * everything (workers joined, proxy stopped, sockets, context), checks that the pool has no buffer out (fails the
 * trial otherwise) and prints one {@code # replies:} line; JMH runs it inside the last measured iteration, whose
 * {@code gc.alloc.rate.norm} therefore includes that line's few hundred bytes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class ReplyBenchmark {

    /** Requests per invocation: every one answered before the invocation ends. */
    public static final int BATCH = ReplyRig.MAX_BATCH;

    /** {@code zmqzstd} or {@code jeromqZstdjni}, see the class comment. */
    @Param({ReplyRig.ZMQZSTD, ReplyRig.JEROMQ_ZSTDJNI})
    public String way;

    /** Worker threads behind the backend, each with its own socket, compressor and decompressor. */
    @Param({"1", "2"})
    public int workers;

    /** Request and reply payload bytes. */
    @Param({"1024", "65536"})
    public int size;

    @Param({"3"})
    public int level;

    /** The transport between the proxy's backend and the workers; the clients are always on tcp. */
    @Param({Endpoints.TCP})
    public String backend;

    private ReplyRig rig;

    @Setup(Level.Trial)
    public void setUp() {
        // The tear-down rehearsed, as in ProxyBenchmark: a first close inside the last measured iteration would
        // link its downcalls there; its summary links the line the tear-down prints.
        ReplyRig rehearsal = ReplyRig.create(way, workers, size, backend, level);
        try {
            rehearsal.run(2);
        } finally {
            rehearsal.close();
        }
        System.out.println(rehearsal.summary() + " (rehearsal)");
        rig = ReplyRig.create(way, workers, size, backend, level);
        rig.joinWorkers();
        System.out.println(rig.summary() + " (set-up, every byte checked)");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
        System.out.println(rig.summary());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long reply() {
        return rig.run(BATCH);
    }
}

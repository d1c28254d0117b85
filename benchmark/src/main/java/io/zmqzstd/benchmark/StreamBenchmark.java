package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.stream.StreamWay;
import io.zmqzstd.benchmark.stream.StreamWays;
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
 * Compression and decompression through {@code java.io} streams, one whole payload per operation: the score
 * is payloads (frames) per second and {@code gc.alloc.rate.norm} ({@code -prof gc}) is bytes allocated per
 * payload, which is what opening, using and closing the way's streams allocates (the sink, the source, the
 * read buffer and the payload are made once per trial).
 *
 * <p>{@code write}: a new compressing stream over a reused in-memory sink (one array, rewound per operation),
 * the telemetry payload (seed 42) written to it in calls of {@code chunk} bytes, the frame ended by the
 * stream's {@code close()}; the frame's length is checked against the first frame's. {@code read}: the frame
 * the way's own stream wrote, read back through a decompressing stream from a reused in-memory source (one
 * array, rewound per operation) in calls of {@code chunk} bytes into one array until the stream ends; the
 * total length and a CRC-32C of every byte read are checked against the payload's at the end of each
 * operation, and a mismatch fails the trial.
 *
 * <p>{@code way} (see {@link StreamWays}): {@code zmqzstd} this project's {@code ZstdOutputStream} and
 * {@code ZstdInputStream}, new streams per frame over one borrowed {@code ZstdCompressor} and
 * {@code ZstdDecompressor}; {@code zstdjni} zstd-jni's {@code ZstdOutputStreamNoFinalizer} (new per frame,
 * with its own {@code ZSTD_CStream}: the library cannot reuse one) and {@code ZstdInputStreamNoFinalizer}
 * (one stream, {@code resetSession} per frame), both with {@code RecyclingBufferPool.INSTANCE};
 * {@code aircompressor} aircompressor's {@code ZstdOutputStream.create}/{@code ZstdInputStream.create}
 * (its FFM streams over its bundled libzstd, new per frame); {@code jdkGzip} {@code GZIPOutputStream} and
 * {@code GZIPInputStream} with 8 KiB buffers, deflate level 6, new per frame (each makes and ends its own
 * {@code Deflater}/{@code Inflater}). zstd at level 3; no way writes a checksum but gzip, whose CRC-32 is
 * part of its format.
 *
 * <p>Defaults are short so the whole matrix can run; select with {@code -p}, e.g.
 * {@code -p size=65536 -p chunk=8192}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class StreamBenchmark {

    @Param({StreamWays.ZMQZSTD, StreamWays.ZSTDJNI, StreamWays.AIRCOMPRESSOR, StreamWays.JDK_GZIP})
    public String way;

    @Param({"65536", "4194304"})
    public int size;

    @Param({"8192", "65536"})
    public int chunk;

    @Param({"3"})
    public int level;

    private StreamWay stream;

    @Setup(Level.Trial)
    public void setUp() {
        // The tear-down rehearsed, as in CodecBenchmark.setUp: a first close inside the last measured
        // iteration would link its downcalls there, and -prof gc would count that.
        try (StreamWay rehearsal = StreamWays.create(way, Payloads.generate(Payloads.TELEMETRY, 1024, 42), chunk, level)) {
            for (int i = 0; i < 200; i++) {
                rehearsal.write();
                rehearsal.read();
            }
        }
        stream = StreamWays.create(way, Payloads.generate(Payloads.TELEMETRY, size, 42), chunk, level);
        long frameBytes = stream.write();
        System.out.printf("# stream: way=%s, size=%d, chunk=%d, level=%d, frameBytes=%d, ratio=%.3f%s%n", way, size,
                chunk, level, frameBytes, (double) size / frameBytes, StreamWays.describe(way));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stream.close();
    }

    @Benchmark
    public long write() {
        return stream.write();
    }

    @Benchmark
    public long read() {
        return stream.read();
    }
}

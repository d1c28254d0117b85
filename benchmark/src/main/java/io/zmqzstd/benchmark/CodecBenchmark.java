package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.codec.CodecContestant;
import io.zmqzstd.benchmark.codec.CodecContestants;
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
 * One-shot compression and decompression of one message per operation: the score is messages per second
 * and {@code gc.alloc.rate.norm} ({@code -prof gc}) is bytes allocated per message.
 *
 * <p>Every contestant keeps its contexts and buffers across operations, as a careful user would (see
 * {@link CodecContestants}); each is checked once per trial: its frame decodes with zstd-jni and its own
 * round trip returns the input. {@code decompress} reads the frame the same contestant produced.
 * {@code aircompressor-java} has no compression level: for it {@code level} does not apply; nor can it keep a
 * compression context: its {@code compress} makes one per call, which {@code -prof gc} counts.
 *
 * <p>Defaults are short so the whole matrix can run; select with {@code -p}, e.g.
 * {@code -p size=65536 -p level=3 -p payload=telemetry}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class CodecBenchmark {

    @Param({CodecContestants.ZMQZSTD_SEGMENT, CodecContestants.ZMQZSTD_BYTES, CodecContestants.ZSTDJNI_DIRECT,
        CodecContestants.ZSTDJNI_BYTES, CodecContestants.AIRCOMPRESSOR_NATIVE, CodecContestants.AIRCOMPRESSOR_JAVA})
    public String contestant;

    @Param({"64", "1024", "65536", "1048576", "67108864"})
    public int size;

    @Param({"1", "3"})
    public int level;

    @Param({Payloads.TELEMETRY, Payloads.BINARY})
    public String payload;

    private CodecContestant codec;

    @Setup(Level.Trial)
    public void setUp() {
        // The tear-down rehearsed, as in PipelineBenchmark.setUp: a first close inside the last measured
        // iteration would link its downcalls there, and -prof gc would count that. The 200 calls take each
        // downcall handle past the JDK's customisation threshold (127 invocations), whose one-off class
        // generation (about 70 KB) otherwise lands in the fourth measured iteration at 64 MiB.
        try (CodecContestant rehearsal = CodecContestants.create(contestant, Payloads.generate(payload, 64, 42), level)) {
            for (int i = 0; i < 200; i++) {
                rehearsal.compress();
                rehearsal.decompress();
            }
        }
        codec = CodecContestants.create(contestant, Payloads.generate(payload, size, 42), level);
        if (contestant.startsWith("zmqzstd")) {
            // Which libzstd this fork loaded (the system's, or -Dzmqzstd.libzstd.path): part of the result.
            System.out.println("# zmq-zstd libzstd " + io.zmqzstd.codec.Zstd.versionString());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        codec.close();
    }

    @Benchmark
    public long compress() {
        return codec.compress();
    }

    @Benchmark
    public long decompress() {
        return codec.decompress();
    }
}

package io.zmqzstd.benchmark;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
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
 * What renting and releasing a pooled buffer costs on one thread, the work a small pooled send adds
 * to the copy it makes: {@code cache=thread} takes the buffer from and gives it back to the calling
 * thread's cache (the classes below the zero-copy threshold), {@code cache=shared} goes through the
 * class's lock-free shared stack and the pool's shared counters (a pool whose threshold is 0, so that
 * no class is cached). One command runs both contestants, one after the other, each in a fork of its own;
 * the ratio between them is the figure, so quote only ratios from one command on an otherwise idle machine.
 * The pool is shared by all benchmark threads ({@code -t 2}: two threads renting from one pool, as
 * senders on several threads share their context's pool).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class PoolBenchmark {

    @Param({"thread", "shared"})
    public String cache;

    /**
     * Bytes rented; with {@code cache=thread} at most the pool's default zero-copy threshold (8 KiB), the
     * largest class a thread caches: a larger one would take the shared path under the {@code thread} label,
     * so the set-up refuses it.
     */
    @Param({"64", "4096"})
    public int size;

    private NativeBufferPool pool;

    @Setup(Level.Trial)
    public void setUp() {
        long threshold = switch (cache) {
            case "thread" -> NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES;
            case "shared" -> 0;
            default -> throw new IllegalArgumentException("cache must be thread or shared: cache=" + cache);
        };
        if (cache.equals("thread") && size > threshold) {
            throw new IllegalArgumentException("cache=thread needs a size a thread caches, at most the zero-copy"
                    + " threshold: size=" + size + ", zeroCopyThresholdBytes=" + threshold);
        }
        pool = NativeBufferPool.builder().zeroCopyThresholdBytes(threshold).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    /** One rent and one release; returns the buffer's address so that nothing is optimised away. */
    @Benchmark
    public long rentRelease() {
        PooledBuffer b = pool.rent(size);
        long a = b.address();
        b.release();
        return a;
    }
}

package io.zmqzstd.benchmark;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The control for {@code -prof gc}: an operation that allocates nothing (the thread parks for
 * {@code parkMicros}), so whatever {@code gc.alloc.rate.norm} shows here is JMH's own allocation per
 * iteration divided by the iteration's operations. JMH 1.37's GC profiler counts every thread of the
 * JVM ({@code getTotalThreadAllocatedBytes}) and reads the collectors' MXBeans inside its own window,
 * so a benchmark whose operations allocate nothing still shows that floor: bytes per iteration here =
 * score x iteration time x B/op. A pipeline message of 1 MiB takes about 2.8 ms, so
 * {@code parkMicros=2800} has about as many operations per iteration as the 1 MiB pipeline.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class AllocationFloorBenchmark {

    /** How long one operation parks, in microseconds. */
    @Param({"100", "2800"})
    public long parkMicros;

    @Benchmark
    public void park() {
        LockSupport.parkNanos(parkMicros * 1_000);
    }
}

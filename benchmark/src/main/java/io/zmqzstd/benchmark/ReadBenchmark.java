package io.zmqzstd.benchmark;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 * What the transport benchmark's reading receivers ({@code read=all}, {@code read=copy}) cost on one
 * thread with the payload in cache: {@link Stamp#foldAfterStamp} of a heap array against
 * {@link Stamp#foldAfterStampAt} of native memory, the copy-first reader ({@link Stamp#copyAt} into a
 * heap array, then the heap fold), all three with the four accumulators {@link Stamp} has used since
 * 2026-11-26, and the one-accumulator folds it had before ({@code ...1}). Every method returns its
 * fold, equal for all of them (checked in the set-up).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class ReadBenchmark {

    private static final VarHandle LONG_IN_BYTES =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_IN_SEGMENT =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    @Param({"65536"})
    public int size;

    private byte[] heap;
    private byte[] copy;
    private Arena arena;
    private long address;

    @Setup(Level.Trial)
    public void setUp() {
        heap = Payloads.generate(Payloads.BINARY, size, 1);
        copy = new byte[size];
        arena = Arena.ofConfined();
        MemorySegment n = arena.allocate(size, 64);
        n.copyFrom(MemorySegment.ofArray(heap));
        address = n.address();
        long expected = heapFold();
        if (nativeFold() != expected || copyThenFold() != expected || heapFold1() != expected
                || nativeFold1() != expected) {
            throw new IllegalStateException("the folds disagree: size=" + size);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long heapFold() {
        return Stamp.foldAfterStamp(heap, size);
    }

    @Benchmark
    public long nativeFold() {
        return Stamp.foldAfterStampAt(address, size);
    }

    @Benchmark
    public long copyThenFold() {
        Stamp.copyAt(address, copy, size);
        return Stamp.foldAfterStamp(copy, size);
    }

    /** The heap fold as it was before 2026-11-26: one accumulator. */
    @Benchmark
    public long heapFold1() {
        long fold = 0;
        int at = Stamp.BYTES;
        for (; at + Long.BYTES <= size; at += Long.BYTES) {
            fold ^= (long) LONG_IN_BYTES.get(heap, at);
        }
        for (; at < size; at++) {
            fold ^= (long) (heap[at] & 0xFF) << (8 * ((at - Stamp.BYTES) % Long.BYTES));
        }
        return fold;
    }

    /** The native fold as it was before 2026-11-26: one accumulator. */
    @Benchmark
    public long nativeFold1() {
        long fold = 0;
        long at = Stamp.BYTES;
        for (; at + Long.BYTES <= size; at += Long.BYTES) {
            fold ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at);
        }
        for (; at < size; at++) {
            fold ^= (long) (EVERYTHING.get(ValueLayout.JAVA_BYTE, address + at) & 0xFF) << (8 * ((at - Stamp.BYTES) % Long.BYTES));
        }
        return fold;
    }
}

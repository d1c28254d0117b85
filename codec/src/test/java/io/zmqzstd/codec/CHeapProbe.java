package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Collections;

/**
 * Run in a forked JVM by {@link NativeLifetimeTest}, so that the only C heap traffic besides the
 * codec's is a quiet JVM's own: runs {@code warmUpBatches + batches} batches of {@code rounds}
 * rounds, each creating a compressor and a decompressor with a raw dictionary of
 * {@code dictionaryBytes}, running heap data through both and closing them, and prints
 * {@code cHeapGrowth rounds=<n> dictionaryBytes=<n> batches=[<growth>, …]}: the bytes in use on the
 * C heap ({@code mallinfo2}, glibc only) after each measured batch less before it.
 */
public final class CHeapProbe {

    private CHeapProbe() {
    }

    /** Arguments: rounds per batch, warm-up batches, measured batches, dictionary bytes. */
    public static void main(String[] args) throws Throwable {
        int rounds = Integer.parseInt(args[0]);
        int warmUpBatches = Integer.parseInt(args[1]);
        long[] growth = new long[Integer.parseInt(args[2])];
        int dictionaryBytes = Integer.parseInt(args[3]);
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find("mallinfo2")
                .orElseThrow(() -> new IllegalStateException("no mallinfo2: not glibc"));
        StructLayout layout = MemoryLayout.structLayout(Collections.nCopies(10, JAVA_LONG).toArray(MemoryLayout[]::new));
        MethodHandle mallinfo2 = linker.downcallHandle(symbol, FunctionDescriptor.of(layout));
        byte[] data = TestData.text(300_000, 3);
        try (ZstdDictionary dict = ZstdDictionary.of(TestData.text(dictionaryBytes, 4)); Arena arena = Arena.ofConfined()) {
            SegmentAllocator into = SegmentAllocator.prefixAllocator(arena.allocate(layout));
            for (int batch = 0; batch < warmUpBatches + growth.length; batch++) {
                long start = cHeapInUse(mallinfo2, into);
                for (int i = 0; i < rounds; i++) {
                    try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
                         ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build()) {
                        if (!Arrays.equals(data, d.decompress(c.compress(data)))) {
                            throw new AssertionError("round trip changed the data: batch=" + batch + ", round=" + i);
                        }
                    }
                }
                if (batch >= warmUpBatches) { // the first batches grow the JVM's and glibc's own pools
                    growth[batch - warmUpBatches] = cHeapInUse(mallinfo2, into) - start;
                }
            }
        }
        System.out.println("cHeapGrowth rounds=" + rounds + " dictionaryBytes=" + dictionaryBytes
                + " batches=" + Arrays.toString(growth));
    }

    /** Bytes the C heap has handed out and not got back: uordblks (arenas) + hblkhd (mmapped). */
    private static long cHeapInUse(MethodHandle mallinfo2, SegmentAllocator into) throws Throwable {
        MemorySegment info = (MemorySegment) mallinfo2.invokeExact(into);
        return info.getAtIndex(JAVA_LONG, 7) + info.getAtIndex(JAVA_LONG, 4);
    }
}

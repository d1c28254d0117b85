package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated
class NativeLifetimeTest {

    @Test
    void shouldFreeEveryNativeObjectOnClose() throws Exception {
        long before = LibZstd.liveNativeObjects();
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            samples.add(TestData.text(200, i));
        }
        byte[] data = TestData.text(300_000, 1);
        try (ZstdDictionary dict = ZstdDictionary.train(samples, 4096)) {
            ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
            ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
            assertEquals(before + 4, LibZstd.liveNativeObjects(), "CCtx, CDict, DCtx, DDict");
            assertArrayEquals(data, d.decompress(c.compress(data)));
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(bytes, c)) {
                out.write(data);
            }
            try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(bytes.toByteArray()), d)) {
                assertArrayEquals(data, in.readAllBytes());
            }
            c.close();
            d.close();
            c.close();
        }
        try (ZstdOutputStream out = new ZstdOutputStream(new ByteArrayOutputStream(), 3)) {
            out.write(data);
        }
        assertEquals(before, LibZstd.liveNativeObjects());
    }

    /**
     * Zero heap allocation per call, for every mix of heap and native source, frame and
     * destination, on the one-call path (4 KiB) and the chunked path (300 KB, above the 256 KiB
     * scratch). Offsets are not 0, so no path can get away with passing whole segments.
     */
    @Test
    void shouldAllocateNothingPerCallOnHeapAndNativeSegments() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int size : new int[] {4096, 300_000}) {
            byte[] data = TestData.text(size, 7);
            long frameBytes = ZstdCompressor.maxCompressedSize(size) + 16;
            int calls = size < 100_000 ? 20_000 : 100;
            try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
                 ZstdDecompressor d = new ZstdDecompressor()) {
                for (int mix = 0; mix < 8; mix++) {
                    MemorySegment src = segment((mix & 1) != 0, size + 16, arena);
                    MemorySegment.copy(data, 0, src, JAVA_BYTE, 16, size);
                    MemorySegment frame = segment((mix & 2) != 0, frameBytes, arena);
                    MemorySegment out = segment((mix & 4) != 0, size + 16, arena);
                    String what = "size=" + size + ", srcNative=" + src.isNative() + ", frameNative="
                            + frame.isNative() + ", outNative=" + out.isNative();
                    long sink = 0;
                    for (int i = 0; i < 3 * calls; i++) { // warm-up: let the JIT compile the paths
                        sink += roundTrip(c, d, src, frame, out, size);
                    }
                    long start = threads.getCurrentThreadAllocatedBytes();
                    for (int i = 0; i < calls; i++) {
                        sink += roundTrip(c, d, src, frame, out, size);
                    }
                    long allocated = threads.getCurrentThreadAllocatedBytes() - start;
                    assertEquals((long) 2 * 4 * calls * size, sink, what);
                    assertTrue(allocated < calls, "allocated=" + allocated + " bytes over calls=" + calls + ", " + what);
                    assertEquals(-1, out.asSlice(0, size).mismatch(src.asSlice(16, size)), what);
                }
            }
        }
    }

    private static MemorySegment segment(boolean nativeMemory, long size, Arena arena) {
        return nativeMemory ? arena.allocate(size) : MemorySegment.ofArray(new byte[(int) size]);
    }

    private static long roundTrip(ZstdCompressor c, ZstdDecompressor d, MemorySegment src, MemorySegment frame,
                                  MemorySegment out, int length) {
        long n = c.compress(src, 16, length, frame, 8, frame.byteSize() - 8);
        long m = d.decompress(frame, 8, n, out, 0, out.byteSize());
        return m + ZstdFrames.contentSize(frame, 8, n);
    }
}

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

    @Test
    void shouldAllocateNothingPerCallOnNativeSegments() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] data = TestData.text(4096, 7);
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment src = arena.allocateFrom(JAVA_BYTE, data);
            MemorySegment frame = arena.allocate(ZstdCompressor.maxCompressedSize(data.length) + 16);
            MemorySegment out = arena.allocate(data.length + 16);
            int calls = 20_000;
            long sink = 0;
            for (int i = 0; i < calls; i++) { // warm-up: let the JIT compile the paths
                sink += roundTrip(c, d, src, frame, out, data.length);
            }
            assertEquals((long) 2 * calls * data.length, sink);
            sink = 0;
            long start = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                sink += roundTrip(c, d, src, frame, out, data.length);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - start;
            assertEquals((long) 2 * calls * data.length, sink);
            assertTrue(allocated < calls, "allocated=" + allocated + " bytes over calls=" + calls);
            assertEquals(-1, out.asSlice(0, data.length).mismatch(src));
        }
    }

    private static long roundTrip(ZstdCompressor c, ZstdDecompressor d, MemorySegment src, MemorySegment frame,
                                  MemorySegment out, int length) {
        long n = c.compress(src, 0, length, frame, 8, frame.byteSize() - 8);
        long m = d.decompress(frame, 8, n, out, 0, out.byteSize());
        return m + ZstdFrames.contentSize(frame, 8, n);
    }
}

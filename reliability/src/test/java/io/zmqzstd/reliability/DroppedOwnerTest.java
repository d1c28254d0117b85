package io.zmqzstd.reliability;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Codec owners dropped during their only call, while another thread forces collections: the
 * cleaner that frees an unclosed compressor or decompressor must never free a context that a call
 * is still using (each method keeps its owner reachable until libzstd returns). A context freed
 * under the call would crash the JVM or corrupt the round trip, and every dropped owner must be
 * freed and reported. Here rather than in the codec's own tests because it keeps the collector
 * busy, which upset that module's measurement of the C heap once. With the fences taken out it
 * passed too (tried, also with C2 compiling from the 100th call and 4 MiB inputs): both methods
 * use their owner again after the downcall on their error path, which keeps it reachable across
 * the call; the fences say so where a later edit could not lose it.
 */
class DroppedOwnerTest {

    private static byte[] text(int size) {
        StringBuilder s = new StringBuilder(size + 64);
        for (int i = 0; s.length() < size; i++) {
            s.append("{\"seq\":").append(i).append(",\"host\":\"h").append(i % 17).append("\",\"cpu\":").append(i * 7 % 100).append("}\n");
        }
        return s.substring(0, size).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void shouldNotFreeAContextUnderACallWhoseOwnerIsDroppedDuringIt() throws Exception {
        byte[] data = text(1 << 20);
        long before = LibZstd.liveNativeObjects();
        long reported = LibZstd.UNCLOSED_FREED.get();
        int rounds = 40;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(data.length);
            MemorySegment.copy(data, 0, src, JAVA_BYTE, 0, data.length);
            MemorySegment frame = arena.allocate(ZstdCompressor.maxCompressedSize(data.length));
            MemorySegment out = arena.allocate(data.length);
            Thread collector = Thread.ofPlatform().daemon().name("collector").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    System.gc();
                    try {
                        Thread.sleep(1); // a collection about every millisecond, during each 1 MiB call
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            try {
                for (int i = 0; i < rounds; i++) {
                    out.fill((byte) 0);
                    long n = new ZstdCompressor(1).compress(src, frame);
                    assertEquals(data.length, new ZstdDecompressor().decompress(frame.asSlice(0, n), out), "round " + i);
                    assertEquals(-1, out.mismatch(src), "round " + i);
                }
            } finally {
                collector.interrupt();
                collector.join();
            }
        }
        Await.until("every dropped owner freed by the cleaner", Duration.ofSeconds(30), () -> {
            System.gc();
            return LibZstd.liveNativeObjects() == before;
        });
        assertTrue(LibZstd.UNCLOSED_FREED.get() >= reported + 2L * rounds, "each dropped owner reported");
    }
}

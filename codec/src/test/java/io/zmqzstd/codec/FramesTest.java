package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class FramesTest {

    @Test
    void shouldReadHeaderFieldsOnHeapAndNativeFrames() {
        byte[] data = TestData.text(12345, 4);
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3)) {
            byte[] frame = c.compress(data);
            byte[] padded = new byte[frame.length + 10];
            System.arraycopy(frame, 0, padded, 3, frame.length);
            for (MemorySegment seg : new MemorySegment[] {MemorySegment.ofArray(padded), arena.allocateFrom(JAVA_BYTE, padded)}) {
                assertEquals(data.length, ZstdFrames.contentSize(seg, 3, frame.length));
                assertEquals(0, ZstdFrames.dictionaryId(seg, 3, frame.length));
                assertEquals(frame.length, ZstdFrames.compressedSize(seg, 3, padded.length - 3));
            }
        }
    }

    @Test
    void shouldWriteRawFramesThatEveryDecoderReads() {
        int[] sizes = {0, 1, 255, 256, 65_791, 65_792, 128 * 1024, 128 * 1024 + 1, 1_000_000};
        try (Arena arena = Arena.ofConfined(); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : sizes) {
                byte[] data = TestData.random(size, size);
                MemorySegment src = arena.allocateFrom(JAVA_BYTE, data);
                long expected = ZstdFrames.rawFrameSize(size);
                MemorySegment dst = arena.allocate(expected + 5);
                long n = ZstdFrames.writeRawFrame(src, 0, size, dst, 2, expected + 3);
                assertEquals(expected, n, "size=" + size);
                MemorySegment frame = dst.asSlice(2, n);
                assertEquals(size, ZstdFrames.contentSize(frame), "size=" + size);
                assertEquals(n, ZstdFrames.compressedSize(frame), "size=" + size);
                byte[] frameBytes = frame.toArray(JAVA_BYTE);
                assertArrayEquals(data, d.decompress(frameBytes), "ours, size=" + size);
                assertArrayEquals(data, Zstd.decompress(frameBytes, size), "zstd-jni, size=" + size);
            }
            MemorySegment src = arena.allocate(100);
            ZstdException e = assertThrows(ZstdException.class,
                    () -> ZstdFrames.writeRawFrame(src, 0, 100, arena.allocate(100), 0, 100));
            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason());
        }
    }

    @Test
    void shouldReportNotAFrameAndEmpty() {
        MemorySegment text = MemorySegment.ofArray("plain text".getBytes());
        assertEquals(ZstdException.Reason.NOT_ZSTD,
                assertThrows(ZstdException.class, () -> ZstdFrames.contentSize(text)).reason());
        assertEquals(ZstdException.Reason.EMPTY,
                assertThrows(ZstdException.class, () -> ZstdFrames.dictionaryId(MemorySegment.ofArray(new byte[0]))).reason());
    }

    @Test
    void shouldReportVersion() {
        assertTrue(io.zmqzstd.codec.Zstd.versionNumber() >= 10400);
        assertTrue(io.zmqzstd.codec.Zstd.versionString().startsWith("1."), io.zmqzstd.codec.Zstd.versionString());
    }
}

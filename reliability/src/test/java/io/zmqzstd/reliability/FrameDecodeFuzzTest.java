package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdFrames;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes frame inspection ({@link ZstdFrames}) and decompression with a size limit on one native
 * input, the way a receiver sees a part. The only acceptable outcomes are a result within the
 * limit or a {@link ZstdException} with a reason; anything else escaping (or a crash) is a finding.
 */
class FrameDecodeFuzzTest {

    static final long LIMIT = 64 * 1024;

    private static final Arena ARENA = Arena.ofShared();
    private static final MemorySegment IN = ARENA.allocate(1 << 20);
    // One byte more than the limit: a decompressor that ignored its limit would show it here.
    private static final MemorySegment OUT = ARENA.allocate(LIMIT + 1);
    private static final ZstdDecompressor DECOMPRESSOR = ZstdDecompressor.builder()
            .maxDecompressedSize(LIMIT).dictionary(Frames.dictionary()).build();

    @AfterAll
    static void close() {
        DECOMPRESSOR.close();
    }

    @FuzzTest(maxDuration = "20s")
    void shouldDecodeOrRejectAnyFrame(byte[] input) {
        int n = (int) Math.min(input.length, IN.byteSize());
        MemorySegment.copy(input, 0, IN, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, n);
        long declared = inspect(n);
        try {
            long produced = DECOMPRESSOR.decompress(IN, 0, n, OUT, 0, OUT.byteSize());
            assertTrue(produced >= 0 && produced <= LIMIT, "produced=" + produced + " limit=" + LIMIT);
            if (declared != ZstdFrames.CONTENT_SIZE_UNKNOWN && declared >= 0 && produced != declared) {
                // Known finding (CodecFindingsTest): data after the first frame is decoded too.
                // Any other mismatch between header and output is new.
                long first = ZstdFrames.compressedSize(IN, 0, n);
                assertTrue(first < n, "produced=" + produced + " declared=" + declared + " length=" + n);
            }
        } catch (ZstdException e) {
            assertNotNull(e.reason());
        }
    }

    /** Header inspection must agree with itself and never throw anything but ZstdException. */
    private static long inspect(int n) {
        long declared = -2;
        try {
            declared = ZstdFrames.contentSize(IN, 0, n);
        } catch (ZstdException e) {
            assertNotNull(e.reason());
        }
        try {
            ZstdFrames.dictionaryId(IN, 0, n);
        } catch (ZstdException e) {
            assertNotNull(e.reason());
        }
        try {
            long size = ZstdFrames.compressedSize(IN, 0, n);
            assertTrue(size > 0 && size <= n, "compressedSize=" + size + " length=" + n);
        } catch (ZstdException e) {
            assertNotNull(e.reason());
        }
        return declared;
    }
}

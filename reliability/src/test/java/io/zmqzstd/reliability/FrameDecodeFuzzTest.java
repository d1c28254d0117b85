package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdFrames;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes frame inspection ({@link ZstdFrames}) and decompression with a size limit on one native
 * input, the way a receiver sees a part. The only acceptable outcomes are a {@link ZstdException}
 * with a reason, or, for an input that is exactly one frame, a result within the limit of exactly
 * the size its header declares (when it declares one); anything else escaping (or a crash) is a
 * finding.
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
        MemorySegment.copy(input, 0, IN, ValueLayout.JAVA_BYTE, 0, n);
        Header header = inspect(n);
        long produced;
        // Only ZstdException is an answer; anything else thrown here escapes and is a finding.
        try {
            produced = DECOMPRESSOR.decompress(IN, 0, n, OUT, 0, OUT.byteSize());
        } catch (ZstdException e) {
            assertNotNull(e.reason());
            // OUT holds one byte more than the limit, so only the limit may stop a decode.
            assertNotEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, e.reason(), e.getMessage());
            return;
        }
        assertTrue(produced >= 0 && produced <= LIMIT, "produced=" + produced + " limit=" + LIMIT);
        // A decode succeeds only for exactly one whole frame (the codec refuses trailing bytes as
        // CORRUPT), whose header the inspection read too, and which yields what it declares.
        assertEquals(n, header.frameLength(), "decoded, so the input is exactly one frame: length=" + n);
        assertTrue(header.declared() != NOT_READ, "decoded, so its header must be readable");
        if (header.declared() != ZstdFrames.CONTENT_SIZE_UNKNOWN) {
            assertEquals(header.declared(), produced, "output size differs from the size the header declares");
        }
    }

    /** No value: the header reader refused the input. */
    private static final long NOT_READ = -2;

    /** What the header readers said: the declared content size and the first frame's length. */
    private record Header(long declared, long frameLength) {
    }

    /**
     * Header inspection must agree with itself and never throw anything but ZstdException (any
     * other exception escapes the fuzz method and is a finding).
     */
    private static Header inspect(int n) {
        long declared = NOT_READ;
        long frameLength = NOT_READ;
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
            frameLength = ZstdFrames.compressedSize(IN, 0, n);
            assertTrue(frameLength > 0 && frameLength <= n, "compressedSize=" + frameLength + " length=" + n);
        } catch (ZstdException e) {
            assertNotNull(e.reason());
        }
        return new Header(declared, frameLength);
    }
}

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A frame whose header declares more content than its blocks decode to: libzstd checks the size
 * only after the last block and says "Data corruption detected", as for a damaged block. Every
 * path names the shortfall, with the declared size and what the blocks gave, and goes on.
 */
class DeclaredSizeMismatchTest {

    private static final byte[] SMALL = TestData.text(1_000, 3);
    /** Above the scratch size: heap segments take the chunked streaming path. */
    private static final byte[] LARGE = TestData.text(300_000, 4);

    private ZstdDecompressor decompressor;
    private Arena arena;

    @BeforeEach
    void open() {
        decompressor = new ZstdDecompressor();
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        decompressor.close();
        arena.close();
    }

    private static byte[] compressed(byte[] content, boolean checksum) {
        try (ZstdCompressor c = ZstdCompressor.builder().level(3).checksum(checksum).build()) {
            return c.compress(content);
        }
    }

    private static byte[] raw(byte[] content) {
        byte[] frame = new byte[(int) ZstdFrames.rawFrameSize(content.length)];
        ZstdFrames.writeRawFrame(content, 0, content.length, MemorySegment.ofArray(frame), 0, frame.length);
        return frame;
    }

    /** {@code frame} with its 2- or 4-byte content size field rewritten to {@code declared}, of the same width. */
    static byte[] declaring(byte[] frame, long declared) {
        byte[] out = frame.clone();
        int fhd = out[4] & 0xFF;
        boolean single = (fhd & 0x20) != 0;
        int at = 5 + (single ? 0 : 1) + new int[] {0, 1, 2, 4}[fhd & 3];
        switch (fhd >>> 6) {
            case 1 -> {
                out[at] = (byte) (declared - 256);
                out[at + 1] = (byte) ((declared - 256) >>> 8);
            }
            case 2 -> {
                for (int i = 0; i < 4; i++) {
                    out[at + i] = (byte) (declared >>> (8 * i));
                }
            }
            default -> throw new IllegalArgumentException("content size flag " + (fhd >>> 6));
        }
        assertEquals(declared, ZstdFrames.contentSize(MemorySegment.ofArray(out)));
        return out;
    }

    private static String shorter(long declared, long decoded) {
        return "frame content shorter than its header declares: declared=" + declared + ", decoded=" + decoded;
    }

    private void assertShorter(ZstdException e, long declared, long decoded) {
        assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
        assertEquals(shorter(declared, decoded), e.getMessage());
        assertEquals(LibZstd.ERR_CORRUPTION_DETECTED, e.errorCode(), e.getMessage());
    }

    @Test
    void shouldNameTheShortfallOnTheOneShotArrayPath() {
        for (boolean checksum : new boolean[] {false, true}) {
            for (byte[] content : new byte[][] {SMALL, LARGE}) {
                byte[] bad = declaring(compressed(content, checksum), content.length + 1);
                assertShorter(assertThrows(ZstdException.class, () -> decompressor.decompress(bad)),
                        content.length + 1, content.length);
                assertArrayEquals(content, decompressor.decompress(compressed(content, checksum)), "goes on");
            }
        }
        byte[] rawBad = declaring(raw(SMALL), SMALL.length + 500); // raw blocks: libzstd, not the Java copy
        assertShorter(assertThrows(ZstdException.class, () -> decompressor.decompress(rawBad)),
                SMALL.length + 500, SMALL.length);
    }

    @Test
    void shouldNameTheShortfallOnTheSegmentPaths() {
        for (byte[] content : new byte[][] {SMALL, LARGE}) {
            byte[] bad = declaring(compressed(content, false), content.length + 7);
            MemorySegment[][] pairs = {
                {arena.allocateFrom(JAVA_BYTE, bad), arena.allocate(content.length + 100)},
                {MemorySegment.ofArray(bad), MemorySegment.ofArray(new byte[content.length + 100])},
                {arena.allocateFrom(JAVA_BYTE, bad), MemorySegment.ofArray(new byte[content.length + 100])},
            };
            for (MemorySegment[] pair : pairs) {
                assertShorter(assertThrows(ZstdException.class, () -> decompressor.decompress(pair[0], pair[1])),
                        content.length + 7, content.length);
                byte[] good = compressed(content, false);
                assertEquals(content.length, decompressor.decompress(MemorySegment.ofArray(good), pair[1]), "goes on");
            }
        }
    }

    @Test
    void shouldNameTheShortfallInAStream() throws IOException {
        byte[] first = compressed(SMALL, false);
        byte[] bad = declaring(compressed(SMALL, true), SMALL.length + 3);
        ZstdStreamException e = corruptInAStream(first, bad, new ByteArrayOutputStream());
        assertEquals(shorter(SMALL.length + 3, SMALL.length) + "; in the stream: frame=2, inputOffset=" + first.length
                + ", contentOffset=" + SMALL.length, e.getMessage());
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(first), decompressor)) {
            assertArrayEquals(SMALL, in.readAllBytes(), "the decompressor goes on");
        }
    }

    /** Reads {@code first} then {@code bad} through a stream into {@code got}, which must fail CORRUPT: the failure. */
    private ZstdStreamException corruptInAStream(byte[] first, byte[] bad, ByteArrayOutputStream got) throws IOException {
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.write(first);
        input.write(bad);
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(input.toByteArray()), decompressor)) {
            ZstdStreamException e = assertThrows(ZstdStreamException.class, () -> in.transferTo(got));
            assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
            return e;
        }
    }

    /**
     * A frame longer than the stream's 256 KiB input buffer: its header is gone from the buffer when
     * libzstd reports the shortfall after the last block, so the blocks cannot be decoded again; the
     * stream names the shortfall from the size it read from the header and what it produced.
     */
    @Test
    void shouldNameTheShortfallInAStreamWhenTheFrameSpansRefills() throws IOException {
        byte[] content = TestData.random(600_000, 7);
        byte[] first = compressed(SMALL, false);
        for (boolean checksum : new boolean[] {false, true}) {
            for (byte[] frame : new byte[][] {raw(content), compressed(content, checksum)}) {
                assertTrue(frame.length > StreamBuffers.SCRATCH_BYTES, "spans refills: " + frame.length);
                byte[] bad = declaring(frame, content.length + 1000);
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                ZstdStreamException e = corruptInAStream(first, bad, got);
                assertEquals(LibZstd.ERR_CORRUPTION_DETECTED, e.errorCode(), e.getMessage());
                long produced = got.size() - SMALL.length;
                assertTrue(produced > 0 && produced <= content.length, "produced=" + produced);
                assertEquals(shorterInAStream(content.length + 1000, produced) + "; in the stream: frame=2, inputOffset="
                        + first.length + ", contentOffset=" + SMALL.length, e.getMessage());
                assertArrayEquals(content, decompressor.decompress(frame), "goes on");
            }
        }
    }

    private static String shorterInAStream(long declared, long produced) {
        return "frame content shorter than its header declares, or a block is damaged: declared=" + declared
                + ", produced=" + produced + " (libzstd says \"Data corruption detected\" for both; the frame began before the"
                + " stream's input buffer was last refilled, so its blocks are not decoded again to tell which)";
    }

    /**
     * Why a stream's shortfall message counts only what the steps before the failing one produced:
     * libzstd (1.5.4) returns a step's error before it writes {@code in.pos} and {@code out.pos}
     * back, so both stay where they were, although the step has already flushed bytes into the
     * output buffer; the last block's bytes stay in libzstd's own window. Nothing tells how many
     * bytes the step wrote: counting them would take a sentinel written before every step, and
     * decoding again the header that a refill has dropped from the stream's buffer.
     */
    @Test
    void shouldFindThatAFailingStreamStepReportsNothingOfWhatItWrote() throws Throwable {
        byte[] content = TestData.random(600_000, 7);
        byte[] bad = declaring(raw(content), content.length + 1000);
        MemorySegment frame = arena.allocateFrom(JAVA_BYTE, bad);
        long counted = 0;
        decompressor.enter();
        try {
            StreamBuffers b = decompressor.buffers();
            decompressor.prepareFrame(frame, 0, bad.length);
            b.setIn(frame.address(), bad.length);
            while (true) {
                b.scratchOut.fill((byte) 0xAA);
                b.setOutToScratch();
                long inBefore = b.inPos();
                try {
                    decompressor.streamStep(b);
                } catch (ZstdException e) {
                    assertEquals(LibZstd.ERR_CORRUPTION_DETECTED, e.errorCode(), e.getMessage());
                    assertEquals(0, b.outPos(), "out.pos after the failing step");
                    assertEquals(inBefore, b.inPos(), "in.pos after the failing step");
                    long written = StreamBuffers.SCRATCH_BYTES;
                    while (written > 0 && b.scratchOut.get(JAVA_BYTE, written - 1) == (byte) 0xAA) {
                        written--;
                    }
                    System.out.println("counted before the failing step: " + counted + ", written by it: " + written);
                    assertTrue(written > 0, "the failing step wrote into the output buffer");
                    assertTrue(counted + written < content.length, "counted=" + counted + ", written=" + written);
                    break;
                }
                counted += b.outPos();
            }
        } finally {
            decompressor.exit();
        }
        assertArrayEquals(content, decompressor.decompress(raw(content)), "goes on");
    }

    /** The opposite case, which the one-shot paths named already: a stream said only libzstd's words. */
    @Test
    void shouldNameTheExcessInAStreamAsTheOneShotPathsDo() throws IOException {
        byte[] content = TestData.random(200_001, 6);
        byte[] bad = declaring(raw(content), content.length - 1); // a 128 KiB window, not single segment
        String longer = "frame content longer than its header declares: declared=" + (content.length - 1);
        assertEquals(longer, assertThrows(ZstdException.class, () -> decompressor.decompress(bad)).getMessage());
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(bad), decompressor)) {
            ZstdStreamException e = assertThrows(ZstdStreamException.class, in::readAllBytes);
            assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e.getMessage());
            assertEquals(longer + "; in the stream: frame=1, inputOffset=0, contentOffset=0", e.getMessage());
        }
        assertArrayEquals(content, decompressor.decompress(raw(content)), "goes on");
    }
}

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FramesTest {

    /**
     * ZstdFrames reads headers and walks blocks in Java; libzstd's own readers are the reference.
     * On valid frames of every header shape, every short prefix, and thousands of mutations, the
     * two agree: same value, or both refuse (libzstd: ZSTD_CONTENTSIZE_ERROR / an error code).
     */
    @Test
    void shouldAgreeWithLibzstdOnValidTruncatedAndMutatedFrames() throws Throwable {
        List<byte[]> frames = new ArrayList<>();
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            samples.add(TestData.text(180, i));
        }
        ZstdDictionary dict = ZstdDictionary.train(samples, 4096);
        for (int size : new int[] {0, 1, 100, 300, 70_000, 300_000}) {
            byte[] data = TestData.text(size, size);
            try (ZstdCompressor plain = new ZstdCompressor(3);
                 ZstdCompressor checked = ZstdCompressor.builder().checksum(true).dictionary(dict).build()) {
                frames.add(plain.compress(data));
                frames.add(checked.compress(data));
            }
            byte[] raw = new byte[(int) ZstdFrames.rawFrameSize(size)];
            ZstdFrames.writeRawFrame(MemorySegment.ofArray(data), 0, size, MemorySegment.ofArray(raw), 0, raw.length);
            frames.add(raw);
            ByteArrayOutputStream streamed = new ByteArrayOutputStream();
            try (ZstdOutputStream out = new ZstdOutputStream(streamed, 3)) {
                out.write(data);
            }
            frames.add(streamed.toByteArray());
        }
        try (ZstdCompressor plain = new ZstdCompressor(3)) {
            for (int size : new int[] {100, 5000, 16 * 1024, 40_000}) {
                frames.add(plain.compress(new byte[size])); // one repeated byte: RLE blocks
            }
        }
        List<byte[]> inputs = new ArrayList<>();
        Random random = new Random(7);
        for (byte[] frame : frames) {
            inputs.add(frame);
            for (int n = 0; n < Math.min(frame.length, 24); n++) {
                inputs.add(Arrays.copyOf(frame, n));
            }
            inputs.add(Arrays.copyOf(frame, frame.length - 1));
            for (int m = 0; m < 300; m++) {
                byte[] mutated = frame.clone();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    int at = random.nextInt(Math.min(mutated.length, 40));
                    mutated[at] = (byte) random.nextInt(256);
                }
                mutated[0] = 0x28; // keep the magic mostly, so the header paths are exercised
                inputs.add(mutated);
            }
        }
        int copiedInJava = 0;
        try (Arena arena = Arena.ofConfined();
             ZstdDecompressor fast = ZstdDecompressor.builder().dictionary(dict).maxDecompressedSize(1 << 20).build();
             ZstdDecompressor reference = ZstdDecompressor.builder().dictionary(dict).maxDecompressedSize(1 << 20)
                     .storedFrameCopy(false).build()) {
            MemorySegment outFast = arena.allocate(1 << 20);
            MemorySegment outReference = arena.allocate(1 << 20);
            for (byte[] input : inputs) {
                MemorySegment seg = arena.allocate(Math.max(1, input.length));
                MemorySegment.copy(MemorySegment.ofArray(input), 0, seg, 0, input.length);
                String what = Arrays.toString(Arrays.copyOf(input, Math.min(input.length, 16)));
                assertAgree(seg, input.length, what);
                // Decoding: the Java copy of stored frames gives what libzstd gives, errors included.
                Object expected = decode(reference, seg, input.length, outReference);
                Object actual = decode(fast, seg, input.length, outFast);
                assertEquals(expected, actual, "decompress: " + what);
                if (actual instanceof Long n) {
                    assertEquals(-1, outFast.asSlice(0, n).mismatch(outReference.asSlice(0, n)), "content: " + what);
                    int fhd = ZstdFrames.descriptor(seg, 0, input.length);
                    long declared = ZstdFrames.contentSizeOf(seg, 0, fhd);
                    if (ZstdFrames.copyStoredFrame(seg, 0, fhd, declared, outFast, 0, outFast.byteSize()) >= 0) {
                        copiedInJava++;
                    }
                }
            }
        }
        assertTrue(inputs.size() > 5000, "inputs=" + inputs.size());
        assertTrue(copiedInJava > 20, "stored frames decoded in Java: " + copiedInJava);
    }

    /** The decoded length, or the refusal's reason. */
    private static Object decode(ZstdDecompressor d, MemorySegment src, long length, MemorySegment dst) {
        try {
            return d.decompress(src, 0, length, dst, 0, dst.byteSize());
        } catch (ZstdException e) {
            return e.reason();
        }
    }

    private static void assertAgree(MemorySegment seg, long length, String what) throws Throwable {
        boolean skippable = length >= 4 && (seg.get(JAVA_BYTE, 0) & 0xF0) == 0x50 && seg.get(JAVA_BYTE, 1) == 0x2A
                && seg.get(JAVA_BYTE, 2) == 0x4D && seg.get(JAVA_BYTE, 3) == 0x18;
        if (skippable) {
            return; // skippable frames are NOT_ZSTD here by design; libzstd reads them as frames
        }
        long nativeSize = (long) LibZstd.GET_FRAME_CONTENT_SIZE_RAW.invokeExact(seg.address(), length);
        Long javaSize = attempt(() -> ZstdFrames.contentSize(seg, 0, length));
        if (nativeSize == LibZstd.CONTENTSIZE_ERROR) {
            assertEquals(null, javaSize, "contentSize: libzstd refused, Java read a value: " + what);
            return;
        }
        assertEquals(nativeSize, javaSize, "contentSize: " + what);
        int nativeId = (int) LibZstd.GET_DICT_ID_FROM_FRAME_RAW.invokeExact(seg.address(), length);
        assertEquals(nativeId, ZstdFrames.dictionaryId(seg, 0, length), "dictionaryId: " + what);
        long nativeLength = (long) LibZstd.FIND_FRAME_COMPRESSED_SIZE_RAW.invokeExact(seg.address(), length);
        Long javaLength = attempt(() -> ZstdFrames.compressedSize(seg, 0, length));
        if (LibZstd.isError(nativeLength)) {
            assertEquals(null, javaLength, "compressedSize: libzstd refused, Java read a value: " + what);
        } else {
            assertEquals(nativeLength, javaLength, "compressedSize: " + what);
        }
    }

    private static Long attempt(java.util.function.LongSupplier read) {
        try {
            return read.getAsLong();
        } catch (ZstdException e) {
            return null;
        }
    }

    /**
     * The content size field is unsigned 64-bit: a header declaring 2^63 bytes reads as libzstd
     * reads it (negative as a Java long), and every decompressing path refuses it as too large
     * by an unsigned comparison instead of taking it for a small or unknown size.
     */
    @Test
    void shouldReadAContentSizeOf2To63AsUnsignedAndRefuseIt() throws Throwable {
        byte[] header = new byte[4 + 1 + 8 + 3];
        MemorySegment h = MemorySegment.ofArray(header);
        h.set(ZstdFrames.INT_LE, 0, ZstdFrames.MAGIC);
        header[4] = (byte) 0xE0; // 8-byte content size, single segment, no checksum, no dictionary
        h.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 5,
                Long.MIN_VALUE);
        header[13] = 1; // a last raw block of 0 bytes
        try (Arena arena = Arena.ofConfined(); ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, header);
            long nativeSize = (long) LibZstd.GET_FRAME_CONTENT_SIZE_RAW.invokeExact(n.address(), (long) header.length);
            assertEquals(Long.MIN_VALUE, nativeSize, "libzstd reads 2^63");
            assertEquals(nativeSize, ZstdFrames.contentSize(n));
            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(n, arena.allocate(64)));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            assertTrue(e.getMessage().contains("declared=9223372036854775808"), e.getMessage());
            assertEquals(ZstdException.Reason.TOO_LARGE,
                    assertThrows(ZstdException.class, () -> d.decompress(header)).reason());
        }
    }

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

    /**
     * The array form writes the very bytes of the segment form, from any offset, into native and
     * heap destinations; its range and size errors are the segment form's; into native memory it
     * allocates nothing (the segment form from an array needed a heap segment per call).
     */
    @Test
    void shouldWriteTheSameRawFrameFromAnArray() {
        int[] sizes = {0, 1, 255, 256, 65_791, 65_792, 128 * 1024, 128 * 1024 + 1, 300_000};
        try (Arena arena = Arena.ofConfined(); ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : sizes) {
                byte[] data = TestData.random(size + 7, size);
                long expected = ZstdFrames.rawFrameSize(size);
                MemorySegment bySegment = arena.allocate(expected);
                ZstdFrames.writeRawFrame(MemorySegment.ofArray(data), 7, size, bySegment, 0, expected);
                MemorySegment nativeDst = arena.allocate(expected + 5);
                assertEquals(expected, ZstdFrames.writeRawFrame(data, 7, size, nativeDst, 3, expected + 2), "size=" + size);
                byte[] heapDst = new byte[(int) expected + 4];
                assertEquals(expected, ZstdFrames.writeRawFrame(data, 7, size, MemorySegment.ofArray(heapDst), 4, expected));
                byte[] want = bySegment.toArray(JAVA_BYTE);
                assertArrayEquals(want, nativeDst.asSlice(3, expected).toArray(JAVA_BYTE), "native, size=" + size);
                assertArrayEquals(want, Arrays.copyOfRange(heapDst, 4, heapDst.length), "heap, size=" + size);
                assertArrayEquals(Arrays.copyOfRange(data, 7, 7 + size), d.decompress(want), "size=" + size);
            }
            byte[] data = new byte[100];
            MemorySegment dst = arena.allocate(200);
            assertEquals(ZstdException.Reason.DESTINATION_TOO_SMALL, assertThrows(ZstdException.class,
                    () -> ZstdFrames.writeRawFrame(data, 0, 100, dst, 0, 100)).reason());
            assertThrows(IndexOutOfBoundsException.class, () -> ZstdFrames.writeRawFrame(data, 1, 100, dst, 0, 200));
            assertThrows(IndexOutOfBoundsException.class, () -> ZstdFrames.writeRawFrame(data, -1, 10, dst, 0, 200));
            assertThrows(IndexOutOfBoundsException.class, () -> ZstdFrames.writeRawFrame(data, 0, 10, dst, 150, 100));
            assertEquals("destination segment is read-only: byteSize=64", assertThrows(IllegalArgumentException.class,
                    () -> ZstdFrames.writeRawFrame(data, 0, 3, MemorySegment.ofArray(new byte[64]).asReadOnly(), 0, 64)).getMessage());

            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            byte[] small = TestData.random(64, 1);
            long sum = 0;
            for (int i = 0; i < 50_000; i++) { // compiled before it is measured
                sum += ZstdFrames.writeRawFrame(small, 0, 64, dst, 0, 200);
            }
            long start = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                sum += ZstdFrames.writeRawFrame(small, 0, 64, dst, 0, 200);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - start;
            assertEquals(60_000L * ZstdFrames.rawFrameSize(64), sum);
            assertTrue(allocated < 10_000, allocated + " bytes allocated by 10,000 raw frames of 64 B from an array");
        }
    }

    /**
     * rawFrameSize is exact for every payload whose frame size is a long, and refuses a larger one
     * naming it; near 2^63 the block count and the sum wrapped, giving a negative or too small size.
     */
    @Test
    void shouldGiveAnExactRawFrameSizeOrRefuseOneBeyondALong() {
        java.util.function.LongFunction<BigInteger> exact = p -> BigInteger.valueOf(p)
                .add(BigInteger.valueOf(Math.ceilDiv(p, 128 * 1024)).max(BigInteger.ONE).multiply(BigInteger.valueOf(3)))
                .add(BigInteger.valueOf(p <= 255 ? 6 : p <= 65_791 ? 7 : p <= 128 * 1024 ? 9 : p <= 0xFFFF_FFFFL ? 10 : 14));
        BigInteger longMax = BigInteger.valueOf(Long.MAX_VALUE);
        long largest = 0; // the largest payload whose frame size is a long
        for (long step = 1L << 62; step > 0; step >>= 1) {
            if (exact.apply(largest + step).compareTo(longMax) <= 0) {
                largest += step;
            }
        }
        for (long p : new long[] {0, 255, 256, 1L << 40, largest - 1, largest, largest + 1,
            Long.MAX_VALUE - 128 * 1024 + 1, Long.MAX_VALUE}) {
            if (p <= largest) {
                assertEquals(exact.apply(p).longValueExact(), ZstdFrames.rawFrameSize(p), "payloadSize=" + p);
            } else {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZstdFrames.rawFrameSize(p),
                        "payloadSize=" + p);
                assertTrue(e.getMessage().contains("payloadSize=" + p), e.getMessage());
            }
        }
        assertEquals("payloadSize=-1", assertThrows(IllegalArgumentException.class, () -> ZstdFrames.rawFrameSize(-1)).getMessage());
    }

    /**
     * The decompressor copies frames of raw and RLE blocks in Java and sends every other frame to
     * libzstd, choosing by {@link ZstdFrames#walk}'s flag: it must be set for raw (one and several
     * blocks) and RLE frames, clear for a compressed one, and leave the frame length exact.
     */
    @Test
    void shouldTellFramesOfStoredBlocksFromCompressedOnes() {
        try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
             ZstdDecompressor d = new ZstdDecompressor()) {
            for (int size : new int[] {0, 100, 300_000}) {
                MemorySegment src = arena.allocateFrom(JAVA_BYTE, TestData.random(size, size));
                MemorySegment frame = arena.allocate(ZstdFrames.rawFrameSize(size));
                long n = ZstdFrames.writeRawFrame(src, 0, size, frame, 0, frame.byteSize());
                long walk = ZstdFrames.walk(frame, 0, n, ZstdFrames.descriptor(frame, 0, n));
                assertEquals(ZstdFrames.ONLY_STORED_BLOCKS, walk & ZstdFrames.ONLY_STORED_BLOCKS, "raw, size=" + size);
                assertEquals(n, walk & ~ZstdFrames.ONLY_STORED_BLOCKS, "raw, size=" + size);
            }

            // magic, descriptor (single segment, 1-byte content size), content size 100, one last RLE block of 100 x 'z'
            byte[] rle = {(byte) 0x28, (byte) 0xB5, (byte) 0x2F, (byte) 0xFD, 0x20, 100,
                (byte) (1 | 1 << 1 | (100 << 3) & 0xFF), (byte) (100 << 3 >>> 8), 0, 'z'};
            MemorySegment rleFrame = arena.allocateFrom(JAVA_BYTE, rle);
            long rleWalk = ZstdFrames.walk(rleFrame, 0, rle.length, ZstdFrames.descriptor(rleFrame, 0, rle.length));
            assertEquals(ZstdFrames.ONLY_STORED_BLOCKS | rle.length, rleWalk);
            byte[] expected = new byte[100];
            Arrays.fill(expected, (byte) 'z');
            assertArrayEquals(expected, Zstd.decompress(rle, 100), "zstd-jni reads the hand-made RLE frame");
            assertArrayEquals(expected, d.decompress(rle));

            byte[] compressed = c.compress(TestData.text(12345, 4));
            MemorySegment compressedFrame = arena.allocateFrom(JAVA_BYTE, compressed);
            long compressedWalk = ZstdFrames.walk(compressedFrame, 0, compressed.length,
                    ZstdFrames.descriptor(compressedFrame, 0, compressed.length));
            assertEquals(compressed.length, compressedWalk, "a compressed frame: length only, no flag");
        }
    }

    /**
     * Inspection of odd inputs: concatenated frames (the first one's length, "more frames may
     * follow"), a frame of no content (size 0), a skippable frame (NOT_ZSTD for all three readers),
     * and writeRawFrame into a read-only destination (IllegalArgumentException, nothing written).
     */
    @Test
    void shouldInspectConcatenatedEmptyAndSkippableFrames() {
        byte[] empty;
        byte[] text;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            empty = c.compress(new byte[0]);
            text = c.compress(TestData.text(3000, 1));
        }
        byte[] both = Arrays.copyOf(text, text.length + empty.length);
        System.arraycopy(empty, 0, both, text.length, empty.length);
        MemorySegment seg = MemorySegment.ofArray(both);
        assertEquals(text.length, ZstdFrames.compressedSize(seg));
        assertEquals(3000, ZstdFrames.contentSize(seg));
        assertEquals(empty.length, ZstdFrames.compressedSize(seg, text.length, empty.length));
        assertEquals(0, ZstdFrames.contentSize(seg, text.length, empty.length));
        assertEquals(0, ZstdFrames.dictionaryId(seg, text.length, empty.length));

        MemorySegment skippable = MemorySegment.ofArray(new byte[] {0x50, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 7});
        for (java.util.function.ToLongFunction<MemorySegment> reader : List.<java.util.function.ToLongFunction<MemorySegment>>of(
                ZstdFrames::contentSize, ZstdFrames::dictionaryId, ZstdFrames::compressedSize)) {
            assertEquals(ZstdException.Reason.NOT_ZSTD,
                    assertThrows(ZstdException.class, () -> reader.applyAsLong(skippable)).reason());
        }

        byte[] target = new byte[64];
        MemorySegment payload = MemorySegment.ofArray(new byte[] {1, 2, 3});
        IllegalArgumentException readOnly = assertThrows(IllegalArgumentException.class,
                () -> ZstdFrames.writeRawFrame(payload, 0, 3, MemorySegment.ofArray(target).asReadOnly(), 0, 64));
        assertEquals("destination segment is read-only: byteSize=64", readOnly.getMessage());
        assertArrayEquals(new byte[64], target, "nothing written");
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

package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.testkit.ForkedJvm;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated
class NativeLifetimeTest {

    @Test
    void shouldFreeEveryNativeObjectOnClose() throws Exception {
        long before = LibZstd.liveNativeObjects();
        byte[] data = TestData.text(300_000, 1);
        try (ZstdDictionary dict = ZstdDictionary.train(TestData.samples(1000), 4096)) {
            ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
            ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
            assertEquals(before + 4, LibZstd.liveNativeObjects(), "CCtx, CDict, DCtx, DDict");
            assertArrayEquals(data, d.decompress(c.compress(data)));
            assertEquals(before + 6, LibZstd.liveNativeObjects(), "and a scratch arena each for heap data");
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

    /** Collects until {@code condition} holds; fails after 30 s. */
    private static void collectUntil(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s of collections: " + what
                    + "; live native objects=" + LibZstd.liveNativeObjects());
            System.gc();
            Thread.sleep(10); // gives the cleaner's thread its turn; the condition decides
        }
    }

    /** Uses a compressor and a decompressor, each with a dictionary and scratch memory, and drops them unclosed. */
    private static List<WeakReference<Object>> useAndDrop(ZstdDictionary dict, byte[] data) {
        ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
        ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
        assertArrayEquals(data, d.decompress(c.compress(data)));
        return List.of(new WeakReference<>(c), new WeakReference<>(d));
    }

    @Test
    void shouldFreeOwnersDroppedWithoutClose() throws Exception {
        byte[] data = TestData.text(10_000, 3);
        try (ZstdDictionary dict = ZstdDictionary.train(TestData.samples(1000), 4096)) {
            long before = LibZstd.liveNativeObjects();
            long reported = LibZstd.UNCLOSED_FREED.get();
            List<WeakReference<Object>> dropped = useAndDrop(dict, data);
            assertEquals(before + 6, LibZstd.liveNativeObjects(), "CCtx, CDict, DCtx, DDict and two scratch arenas");
            collectUntil("the dropped owners collected and their native objects freed",
                    () -> dropped.stream().allMatch(r -> r.get() == null) && LibZstd.liveNativeObjects() == before);
            assertTrue(LibZstd.UNCLOSED_FREED.get() >= reported + 2, "each reported as unclosed");
        }
    }

    /**
     * A stream that made its own compressor or decompressor and was dropped unclosed is named in
     * the warning, as what the user forgot: it said "ZstdCompressor was not closed" (until
     * 2026-11-27), a class the user never made. In a child JVM, whose first two such warnings are
     * these (the warning comes at the 1st, 2nd, 4th... of a JVM).
     */
    @Test
    void shouldNameTheStreamThatMadeItsOwnContextWhenItIsDroppedUnclosed() throws Exception {
        String out = ForkedJvm.run(UnclosedStreamProbe.class, List.of());
        assertTrue(out.contains("freed=2"), out);
        assertTrue(out.contains("ZstdOutputStream (its own ZstdCompressor) was not closed: "), out);
        assertTrue(out.contains("ZstdInputStream (its own ZstdDecompressor) was not closed: "), out);
    }

    @Test
    void shouldFreeAClosedOwnerOnceAndNotReportIt() throws Exception {
        long before = LibZstd.liveNativeObjects();
        long reported = LibZstd.UNCLOSED_FREED.get();
        ZstdCompressor c = new ZstdCompressor(3);
        c.compress(TestData.text(1000, 1));
        c.close();
        WeakReference<Object> ref = new WeakReference<>(c);
        c = null;
        collectUntil("the closed compressor collected", () -> ref.get() == null);
        assertEquals(before, LibZstd.liveNativeObjects(), "freed by close, not again by the cleaner");
        assertEquals(reported, LibZstd.UNCLOSED_FREED.get(), "a closed owner is not reported");
    }

    /**
     * README, Ownership: {@code close()} frees what the owner holds, is idempotent, and any later
     * call throws {@code IllegalStateException} ("compressor is closed", "decompressor is closed"),
     * every public method of either included.
     */
    @Test
    void shouldRefuseEveryCallAfterCloseAndCloseTwiceQuietly() {
        byte[] content = TestData.text(1000, 2);
        long before = LibZstd.liveNativeObjects();
        ZstdDictionary dict = ZstdDictionary.of("raw content".getBytes());
        ZstdCompressor c = new ZstdCompressor(3);
        ZstdDecompressor d = new ZstdDecompressor();
        byte[] frame = c.compress(content);
        assertArrayEquals(content, d.decompress(frame)); // scratch and contexts in use before the close
        c.close();
        d.close();
        c.close();
        d.close();
        assertEquals(before, LibZstd.liveNativeObjects(), "closed once, freed once");
        MemorySegment src = MemorySegment.ofArray(content);
        MemorySegment dst = MemorySegment.ofArray(new byte[2000]);
        List<org.junit.jupiter.api.function.Executable> compressorCalls = List.of(
                c::level, () -> c.compress(content), () -> c.compress(src, dst),
                () -> c.compress(src, 0, content.length, dst, 0, 2000),
                () -> c.compress(content, 0, content.length, new byte[2000], 0, 2000));
        for (var call : compressorCalls) {
            assertEquals("compressor is closed", assertThrows(IllegalStateException.class, call).getMessage());
        }
        MemorySegment frameSegment = MemorySegment.ofArray(frame);
        List<org.junit.jupiter.api.function.Executable> decompressorCalls = List.of(
                d::maxDecompressedSize, () -> d.addDictionary(dict), () -> d.decompress(frame),
                () -> d.decompress(frameSegment, dst), () -> d.decompress(frameSegment, 0, frame.length, dst, 0, 2000),
                () -> d.decompress(frame, 0, frame.length, new byte[2000], 0, 2000));
        for (var call : decompressorCalls) {
            assertEquals("decompressor is closed", assertThrows(IllegalStateException.class, call).getMessage());
        }
        assertEquals(before, LibZstd.liveNativeObjects(), "the refused calls made nothing");
    }

    @Test
    void shouldFreeWhatAFailedBuildCreated() {
        long before = LibZstd.liveNativeObjects();
        try (ZstdDictionary dict = ZstdDictionary.train(TestData.samples(1000), 4096);
             ZstdDictionary same = ZstdDictionary.of(dict.bytes())) {
            // The context and the first DDict exist when the second dictionary is refused.
            assertThrows(IllegalArgumentException.class,
                    () -> ZstdDecompressor.builder().dictionary(dict).dictionary(same).build());
            assertEquals(before, LibZstd.liveNativeObjects(), "decompressor build failed after its DCtx and a DDict");
            ZstdDictionary closed = ZstdDictionary.of(dict.bytes());
            closed.close();
            // The context exists when the closed dictionary is refused.
            assertThrows(IllegalStateException.class, () -> ZstdCompressor.builder().dictionary(closed).build());
            assertEquals(before, LibZstd.liveNativeObjects(), "compressor build failed after its CCtx");
        }
    }

    /**
     * The counters above are kept by the code under test; this checks the C heap itself. Each
     * round creates a compressor and a decompressor with a 64 KiB dictionary, runs heap data
     * through both (contexts, digested dictionaries, scratch arenas: about 3.5 MiB), and closes
     * them. Were any of those not freed, every batch of rounds would leave at least 64 KiB per
     * round behind (the smallest, a DDict, holds a copy of the dictionary; about 93 KiB
     * measured). The rounds run in {@link CHeapProbe}, a forked JVM kept quiet: C1 only, the
     * serial collector, a fixed heap. In the test JVM itself, what it mallocs and frees meanwhile
     * (C2 compilations, GC threads) moved single batches either way by up to about 1 MB, more
     * on a loaded machine, where it could reach the median. The median batch is judged.
     * glibc only (mallinfo2).
     */
    @Test
    void shouldGiveTheCHeapBackAfterClose() throws Exception {
        assumeTrue(Linker.nativeLinker().defaultLookup().find("mallinfo2").isPresent(), "no mallinfo2: not glibc");
        int rounds = 16;
        int dictionaryBytes = 64 * 1024;
        String out = ForkedJvm.run(CHeapProbe.class, List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms64m", "-Xmx64m"),
                String.valueOf(rounds), "2", "9", String.valueOf(dictionaryBytes));
        Matcher m = Pattern.compile("cHeapGrowth rounds=" + rounds + " dictionaryBytes=" + dictionaryBytes
                + " batches=\\[([-0-9, ]+)]").matcher(out);
        assertTrue(m.find(), "no result line in: " + out);
        long[] growth = Arrays.stream(m.group(1).split(", ")).mapToLong(Long::parseLong).toArray();
        System.out.println("C heap growth per batch of " + rounds + " rounds: " + Arrays.toString(growth) + " B");
        long[] sorted = growth.clone();
        Arrays.sort(sorted);
        long oneLeakPerRound = (long) rounds * dictionaryBytes;
        assertTrue(sorted[sorted.length / 2] < oneLeakPerRound / 2, "C heap growth per batch of " + rounds
                + " rounds: " + Arrays.toString(growth) + " B; one leak per round is at least " + oneLeakPerRound + " B");
    }

    /**
     * Rounds of calls measured per mix, at most. One-off JDK work, such as a MethodHandle's
     * customisation, can land in any one round (131,856 B once, in the first 60-call round of the
     * 300 KB path: 2,197 B per call); a per-call allocation shows in all (a {@code new byte[8]}
     * per compress: 24 B per call in each of the 20 rounds). A mix passes at its first round under
     * 1 B per call.
     */
    private static final int MAX_ROUNDS = 20;

    /**
     * Zero heap allocation per call, for every mix of heap, native and mapped (a file mapping,
     * copied through the scratch memory) source, frame and destination, on the one-call path
     * (1 KiB) and the chunked path (300 KB, above the 256 KiB scratch). Offsets are not 0, so no
     * path can get away with passing whole segments.
     */
    @Test
    void shouldAllocateNothingPerCallOnHeapAndNativeSegments(@TempDir Path dir) throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int size : new int[] {1024, 300_000}) {
            byte[] data = TestData.text(size, 7);
            long frameBytes = ZstdCompressor.maxCompressedSize(size) + 16;
            int calls = size < 100_000 ? 10_000 : 60;
            try (Arena arena = Arena.ofConfined(); ZstdCompressor c = new ZstdCompressor(3);
                 ZstdDecompressor d = new ZstdDecompressor()) {
                for (int mix = 0; mix < 27; mix++) {
                    MemorySegment src = segment(mix % 3, size + 16, arena, dir);
                    MemorySegment.copy(data, 0, src, JAVA_BYTE, 16, size);
                    MemorySegment frame = segment(mix / 3 % 3, frameBytes, arena, dir);
                    MemorySegment out = segment(mix / 9, size + 16, arena, dir);
                    String what = "size=" + size + ", src " + kind(src) + ", frame " + kind(frame) + ", out " + kind(out);
                    long sink = 0;
                    for (int i = 0; i < 2 * calls; i++) { // warm-up: let the JIT compile the paths
                        sink += roundTrip(c, d, src, frame, out, size);
                    }
                    assertEquals((long) 2 * 2 * calls * size, sink, what);
                    long[] rounds = new long[MAX_ROUNDS];
                    int measured = 0;
                    do {
                        sink = 0;
                        long start = threads.getCurrentThreadAllocatedBytes();
                        for (int i = 0; i < calls; i++) {
                            sink += roundTrip(c, d, src, frame, out, size);
                        }
                        rounds[measured++] = threads.getCurrentThreadAllocatedBytes() - start;
                        assertEquals((long) 2 * calls * size, sink, what);
                    } while (rounds[measured - 1] >= calls && measured < MAX_ROUNDS);
                    String recorded = Arrays.toString(Arrays.copyOf(rounds, measured));
                    System.out.println("allocated per round of " + calls + " calls: " + recorded + ", " + what);
                    assertTrue(rounds[measured - 1] < calls,
                            "allocated >= 1 byte per call in every round of " + calls + " calls: " + recorded + ", " + what);
                    assertEquals(-1, out.asSlice(0, size).mismatch(src.asSlice(16, size)), what);
                }
            }
        }
    }

    /**
     * The byte[] calls allocate their result and a few small objects (segment wrappers, and above
     * 128 KiB of input compress's per-call arena): no copy of the input, the frame or the content.
     * Measured: 72 B per compress up to 128 KiB, 280 B above, 144 B per decompress. Held to 400 B
     * per compress and 256 B per decompress besides the result, at 1 KiB and at 300 KB: one more
     * array of the content or the frame would be more at either size.
     */
    @Test
    void shouldAllocateOnlyTheResultAndAFewSmallObjectsPerByteArrayCall() {
        for (int size : new int[] {1024, 300_000}) {
            byte[] data = TestData.text(size, 7);
            int calls = size < 100_000 ? 2000 : 200;
            try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
                byte[] frame = c.compress(data);
                // measured 72-232 B at 1 KiB and 280-400 B at 300 KB (the call's arena above 128 KiB)
                assertAllocatesAtMost(512, arrayBytes(frame.length), calls, () -> c.compress(data).length, "compress " + size + " B");
                assertAllocatesAtMost(256, arrayBytes(size), calls, () -> d.decompress(frame).length, "decompress " + size + " B");
            }
        }
    }

    /**
     * Runs {@code call} (which returns a length) {@code calls} times a round, after a warm-up, until a
     * round allocates at most {@code extra} bytes per call besides {@code result} bytes; fails after
     * {@link #MAX_ROUNDS} rounds, printing each round's figure.
     */
    private static void assertAllocatesAtMost(long extra, long result, int calls, java.util.function.IntSupplier call, String what) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 2 * calls; i++) { // warm-up
            sink += call.getAsInt();
        }
        long[] rounds = new long[MAX_ROUNDS];
        int measured = 0;
        do {
            long start = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                sink += call.getAsInt();
            }
            rounds[measured++] = (threads.getCurrentThreadAllocatedBytes() - start) / calls - result;
        } while (rounds[measured - 1] > extra && measured < MAX_ROUNDS);
        String recorded = Arrays.toString(Arrays.copyOf(rounds, measured));
        System.out.println(what + ": allocated per call besides the result, by round of " + calls + ": " + recorded + " B");
        assertTrue(rounds[measured - 1] <= extra, what + ": more than " + extra + " B per call besides the result in every round: "
                + recorded + " B");
        assertTrue(sink > 0);
    }

    /** An array's heap footprint: 16-byte header, 8-byte alignment. */
    private static long arrayBytes(int length) {
        return 16 + ((length + 7L) & ~7L);
    }

    /** Kind 0 heap, 1 native, 2 a mapping of a new file in {@code dir}. */
    private static MemorySegment segment(int kind, long size, Arena arena, Path dir) throws IOException {
        if (kind == 2) {
            Path file = Files.createTempFile(dir, "mapped", ".bin");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                return channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            }
        }
        return kind == 1 ? arena.allocate(size) : MemorySegment.ofArray(new byte[(int) size]);
    }

    private static String kind(MemorySegment segment) {
        return segment.isMapped() ? "mapped" : segment.isNative() ? "native" : "heap";
    }

    private static long roundTrip(ZstdCompressor c, ZstdDecompressor d, MemorySegment src, MemorySegment frame,
                                  MemorySegment out, int length) {
        long n = c.compress(src, 16, length, frame, 8, frame.byteSize() - 8);
        long m = d.decompress(frame, 8, n, out, 0, out.byteSize());
        return m + ZstdFrames.contentSize(frame, 8, n);
    }

    @Test
    void streamConstructorsShouldNotLeakTheirOwnContextWhenTheStreamIsNull() {
        long before = LibZstd.liveNativeObjects();
        assertThrows(NullPointerException.class, () -> new ZstdOutputStream(null, 3));
        assertThrows(NullPointerException.class, () -> new ZstdInputStream(null));
        assertEquals(before, LibZstd.liveNativeObjects(), "a context made by a stream constructor leaked");
    }
}

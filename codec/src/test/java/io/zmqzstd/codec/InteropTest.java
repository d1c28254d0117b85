package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cross-checks against independent implementations: zstd-jni and the zstd command line. */
class InteropTest {

    private static final byte[] DATA = TestData.text(300_000, 11);

    @TempDir
    Path dir;

    private static List<byte[]> samples() {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            samples.add(TestData.text(256, 1000 + i));
        }
        return samples;
    }

    @Test
    void shouldExchangeFramesWithZstdJni() {
        try (ZstdCompressor c = ZstdCompressor.builder().level(5).checksum(true).build();
             ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] ours = c.compress(DATA);
            assertArrayEquals(DATA, Zstd.decompress(ours, DATA.length));
            for (int level : new int[] {-3, 1, 19}) {
                byte[] theirs = Zstd.compress(DATA, level);
                assertArrayEquals(DATA, d.decompress(theirs));
            }
        }
    }

    @Test
    void shouldExchangeDictionaryFramesWithZstdJni() {
        List<byte[]> samples = samples();
        byte[] message = TestData.text(200, 77);
        try (ZstdDictionary dict = ZstdDictionary.train(samples, 8192);
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build();
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
             ZstdCompressCtx jc = new ZstdCompressCtx();
             ZstdDecompressCtx jd = new ZstdDecompressCtx()) {
            byte[] ours = c.compress(message);
            jd.loadDict(new ZstdDictDecompress(dict.bytes()));
            assertArrayEquals(message, jd.decompress(ours, message.length));
            jc.loadDict(new ZstdDictCompress(dict.bytes(), 3));
            jc.setDictID(true);
            byte[] theirs = jc.compress(message);
            assertArrayEquals(message, d.decompress(theirs));
            assertEquals(dict.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(theirs)));
        }
    }

    // ---- zstd command line ------------------------------------------------------------------

    private static boolean zstdOnPath() {
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(p, "zstd"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Set to true where the CLI checks must run: a missing zstd then fails instead of skipping. CI
     * sets the environment variable {@code ZMQZSTD_REQUIRE_ALL=true} (.ci/run), which does the same.
     */
    static final String REQUIRE_CLI_PROPERTY = "zmqzstd.requireZstdCli";

    static void zstd(Path stdin, Path stdout, String... args) throws IOException, InterruptedException {
        if (Boolean.getBoolean(REQUIRE_CLI_PROPERTY) || Boolean.parseBoolean(System.getenv("ZMQZSTD_REQUIRE_ALL"))) {
            assertTrue(zstdOnPath(), "zstd command line not on PATH but -D" + REQUIRE_CLI_PROPERTY
                    + "=true or ZMQZSTD_REQUIRE_ALL=true: install it (apt-get install zstd)");
        }
        assumeTrue(zstdOnPath(), "zstd command line not on PATH: CLI interop not checked");
        List<String> cmd = new ArrayList<>();
        cmd.add("zstd");
        cmd.add("-q");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(false);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        if (stdout != null) {
            pb.redirectOutput(stdout.toFile());
        }
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        assertEquals(true, p.waitFor(60, TimeUnit.SECONDS), "zstd finished");
        assertEquals(0, p.exitValue(), "zstd " + String.join(" ", args));
    }

    @Test
    void shouldBeDecodedByZstdCommandLine() throws Exception {
        Path frame = dir.resolve("ours.zst");
        Path out = dir.resolve("ours.out");
        try (ZstdCompressor c = ZstdCompressor.builder().level(-1).checksum(true).build()) {
            Files.write(frame, c.compress(DATA));
        }
        zstd(null, null, "-d", "-f", frame.toString(), "-o", out.toString());
        assertArrayEquals(DATA, Files.readAllBytes(out));
    }

    @Test
    void shouldDecodeZstdCommandLineFramesFromFileAndStdin() throws Exception {
        Path in = dir.resolve("data");
        Files.write(in, DATA);
        Path fromFile = dir.resolve("file.zst");
        zstd(null, null, "-19", "-f", in.toString(), "-o", fromFile.toString());
        Path fromStdin = dir.resolve("stdin.zst");
        zstd(in, fromStdin, "-3", "-c");
        try (ZstdDecompressor d = new ZstdDecompressor()) {
            byte[] a = Files.readAllBytes(fromFile);
            assertEquals(DATA.length, ZstdFrames.contentSize(MemorySegment.ofArray(a)));
            assertArrayEquals(DATA, d.decompress(a));
            byte[] b = Files.readAllBytes(fromStdin);
            assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(b)),
                    "zstd reading stdin does not know the size");
            assertArrayEquals(DATA, d.decompress(b));
            MemorySegment out = MemorySegment.ofArray(new byte[DATA.length + 100]);
            assertEquals(DATA.length, d.decompress(MemorySegment.ofArray(b), out));
            try (var arena = java.lang.foreign.Arena.ofConfined()) {
                MemorySegment src = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, b);
                MemorySegment dst = arena.allocate(DATA.length + 100);
                assertEquals(DATA.length, d.decompress(src, dst));
            }
        }
    }

    @Test
    void shouldShareDictionariesWithZstdCommandLine() throws Exception {
        byte[] message = TestData.text(220, 5);
        // Ours, used by zstd -D.
        Path ourDict = dir.resolve("ours.dict");
        Path frame = dir.resolve("msg.zst");
        Path out = dir.resolve("msg.out");
        try (ZstdDictionary dict = ZstdDictionary.train(samples(), 8192);
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build()) {
            dict.save(ourDict);
            Files.write(frame, c.compress(message));
            zstd(null, null, "-d", "-f", "-D", ourDict.toString(), frame.toString(), "-o", out.toString());
            assertArrayEquals(message, Files.readAllBytes(out));
        }
        // Theirs, trained by zstd --train, used here.
        Path samplesDir = Files.createDirectory(dir.resolve("samples"));
        List<byte[]> samples = samples();
        for (int i = 0; i < samples.size(); i++) {
            Files.write(samplesDir.resolve("s" + i), samples.get(i));
        }
        Path theirDict = dir.resolve("theirs.dict");
        zstd(null, null, "--train", "-r", samplesDir.toString(), "--maxdict=8192", "-o", theirDict.toString());
        Path raw = dir.resolve("msg");
        Files.write(raw, message);
        Path theirFrame = dir.resolve("theirs.zst");
        zstd(null, null, "-f", "-D", theirDict.toString(), raw.toString(), "-o", theirFrame.toString());
        try (ZstdDictionary dict = ZstdDictionary.load(theirDict);
             ZstdDecompressor d = ZstdDecompressor.builder().dictionary(dict).build();
             ZstdCompressor c = ZstdCompressor.builder().dictionary(dict).build()) {
            byte[] theirs = Files.readAllBytes(theirFrame);
            assertEquals(dict.id(), ZstdFrames.dictionaryId(MemorySegment.ofArray(theirs)));
            assertArrayEquals(message, d.decompress(theirs));
            Files.write(frame, c.compress(message));
            zstd(null, null, "-d", "-f", "-D", theirDict.toString(), frame.toString(), "-o", out.toString());
            assertArrayEquals(message, Files.readAllBytes(out));
        }
    }
}

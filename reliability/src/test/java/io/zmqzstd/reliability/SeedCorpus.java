package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdFrames;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the committed seed corpus and dictionary (run by hand, output committed):
 * {@code java -cp <test classpath> io.zmqzstd.reliability.SeedCorpus reliability/src/test/resources}.
 * Jazzer reads {@code <package>/<TestClass>Inputs/<method>/} both as regression inputs and as the
 * starting corpus when fuzzing.
 */
public final class SeedCorpus {

    private SeedCorpus() {
    }

    public static void main(String[] args) throws IOException {
        Path pkg = Path.of(args[0]).resolve("io/zmqzstd/reliability");
        Files.createDirectories(pkg);
        Path dictFile = pkg.resolve(Frames.DICTIONARY_RESOURCE);
        if (!Files.exists(dictFile)) {
            List<byte[]> samples = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                samples.add(Frames.text(64 + i % 200, i));
            }
            try (ZstdDictionary d = ZstdDictionary.train(samples, 4096)) {
                d.save(dictFile);
            }
        }
        Map<String, byte[]> single = singleFrames(ZstdDictionary.of(Files.readAllBytes(dictFile)));
        write(pkg.resolve("FrameDecodeFuzzTestInputs/shouldDecodeOrRejectAnyFrame"), single);

        Map<String, byte[]> multi = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : single.entrySet()) {
            multi.put("one-" + e.getKey(), PartSplitter.join(e.getValue()));
        }
        byte[] good = single.get("sized-text-1k");
        multi.put("two-good", PartSplitter.join(good, single.get("sized-text-64")));
        multi.put("four-good", PartSplitter.join(good, good, single.get("raw-frame-100"), good));
        multi.put("good-then-corrupt", PartSplitter.join(good, single.get("corrupt-block")));
        multi.put("bomb-in-middle", PartSplitter.join(good, single.get("bomb-declared-1m"), good));
        multi.put("unsized-bomb-last", PartSplitter.join(good, single.get("bomb-unsized-1m")));
        multi.put("empty-then-good", PartSplitter.join(new byte[0], good));
        multi.put("topic-like-then-good", PartSplitter.join("topic".getBytes(), good));
        multi.put("dictionary-two", PartSplitter.join(single.get("dictionary-text-200"), single.get("dictionary-text-200")));
        multi.put("four-near-limit", PartSplitter.join(single.get("sized-zeros-64k"), single.get("sized-zeros-64k"),
                single.get("sized-zeros-64k"), single.get("sized-zeros-64k")));
        // Envelopes: DEALER to ROUTER (routing id prepended) and PUB to SUB (first part the topic).
        multi.put("router-two-good", PartSplitter.joinRouted(1, good, single.get("sized-text-64")));
        multi.put("router-delimiter-then-good", PartSplitter.joinRouted(1, new byte[0], good));
        multi.put("router-corrupt", PartSplitter.joinRouted(1, single.get("corrupt-block")));
        multi.put("sub-topic-then-good", PartSplitter.joinRouted(2, "topic".getBytes(), good));
        multi.put("sub-frame-as-topic", PartSplitter.joinRouted(2, good, good));
        multi.put("sub-topic-then-bomb", PartSplitter.joinRouted(2, "t".getBytes(), single.get("bomb-unsized-1m")));
        write(pkg.resolve("MultipartReceiveFuzzTestInputs/shouldReceiveOrRejectAnyMessage"), multi);
    }

    static Map<String, byte[]> singleFrames(ZstdDictionary dictionary) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        byte[] text1k = Frames.text(1024, 1);
        m.put("empty", new byte[0]);
        m.put("magic-only", new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD});
        m.put("not-zstd", "hello, not a frame".getBytes());
        m.put("sized-text-64", Frames.sized(Frames.text(64, 2), 3));
        m.put("sized-text-1k", Frames.sized(text1k, 3));
        m.put("sized-text-1k-level19", Frames.sized(text1k, 19));
        m.put("sized-random-300", Frames.sized(Frames.random(300, 3), 3));
        m.put("sized-empty-payload", Frames.sized(new byte[0], 3));
        m.put("sized-zeros-64k", Frames.sized(Frames.zeros(64 * 1024), 3));
        m.put("checksum-text-1k", Frames.checksummed(text1k));
        m.put("checksum-wrong", Frames.flipped(Frames.checksummed(text1k), Frames.checksummed(text1k).length - 1));
        m.put("unsized-text-1k", Frames.unsized(text1k));
        m.put("unsized-zeros-64k", Frames.unsized(Frames.zeros(64 * 1024)));
        m.put("dictionary-text-200", Frames.withDictionary(Frames.text(200, 4), dictionary));
        byte[] raw = new byte[(int) ZstdFrames.rawFrameSize(100)];
        ZstdFrames.writeRawFrame(MemorySegment.ofArray(Frames.text(100, 5)), 0, 100, MemorySegment.ofArray(raw), 0, raw.length);
        m.put("raw-frame-100", raw);
        byte[] sized = m.get("sized-text-1k");
        m.put("truncated-header", Frames.truncated(sized, 5));
        m.put("truncated-half", Frames.truncated(sized, sized.length / 2));
        m.put("truncated-last-byte", Frames.truncated(sized, sized.length - 1));
        m.put("corrupt-block", Frames.flipped(sized, sized.length / 2));
        m.put("corrupt-header", Frames.flipped(sized, 4));
        m.put("two-frames", Frames.concat(m.get("sized-text-64"), m.get("sized-text-64")));
        m.put("trailing-garbage", Frames.concat(m.get("sized-text-64"), "junk".getBytes()));
        m.put("skippable-frame", new byte[] {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4});
        m.put("bomb-declared-1m", Frames.sized(Frames.zeros(1 << 20), 3));
        m.put("bomb-unsized-1m", Frames.unsized(Frames.zeros(1 << 20)));
        return m;
    }

    private static void write(Path dir, Map<String, byte[]> files) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
    }
}

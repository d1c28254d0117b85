package io.zmqzstd.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Deterministic test payloads: JSON-like text that compresses about as well as telemetry. */
final class TestData {

    private TestData() {
    }

    private static final String[] WORDS = {"\"ts\":", "\"host\":", "\"cpu\":", "\"mem\":", "\"level\":", "\"INFO\"",
        "\"WARN\"", "{", "}", ",", "\"svc-", "\"msg\":", "\"request handled\"", "\"latencyMs\":", "true", "null"};

    static byte[] text(int size, long seed) {
        byte[] out = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        int p = 0;
        while (p < size) {
            byte[] w = r.nextInt(4) == 0
                    ? Integer.toString(r.nextInt(100000)).getBytes()
                    : WORDS[r.nextInt(WORDS.length)].getBytes();
            int n = Math.min(w.length, size - p);
            System.arraycopy(w, 0, out, p, n);
            p += n;
        }
        return out;
    }

    static byte[] random(int size, long seed) {
        byte[] out = new byte[size];
        new SplittableRandom(seed).nextBytes(out);
        return out;
    }

    /** {@code count} samples of 200 B of {@link #text}, seeds 0 to {@code count - 1}: enough to train a dictionary. */
    static List<byte[]> samples(int count) {
        List<byte[]> samples = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            samples.add(text(200, i));
        }
        return samples;
    }

    /** A skippable frame (magic 0x184D2A50) with {@code length} zero bytes of content, below 64 KiB. */
    static byte[] skippable(int length) {
        byte[] f = new byte[8 + length];
        f[0] = 0x50;
        f[1] = 0x2A;
        f[2] = 0x4D;
        f[3] = 0x18;
        f[4] = (byte) length;
        f[5] = (byte) (length >>> 8);
        return f;
    }
}

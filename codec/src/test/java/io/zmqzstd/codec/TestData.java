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
}

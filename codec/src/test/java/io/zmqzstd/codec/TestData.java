package io.zmqzstd.codec;

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
}

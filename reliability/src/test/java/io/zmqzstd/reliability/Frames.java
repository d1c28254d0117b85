package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Deterministic payloads and zstd frames, good and bad, shared by the fuzz seeds, the bomb tests
 * and the peers. One place makes every kind of frame the tests talk about.
 */
final class Frames {

    private Frames() {
    }

    private static final String[] WORDS = {"\"ts\":", "\"host\":", "\"cpu\":", "\"mem\":", "\"level\":", "\"INFO\"",
        "\"WARN\"", "{", "}", ",", "\"svc-", "\"msg\":", "\"request handled\"", "\"latencyMs\":", "true", "null"};

    /** The committed dictionary (trained once from {@link #text} samples): a stable ID for the seed corpus. */
    static final String DICTIONARY_RESOURCE = "telemetry.dict";

    /** JSON-like text that compresses about as well as telemetry. */
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

    /** The committed dictionary; the caller owns it. */
    static ZstdDictionary dictionary() {
        try (InputStream in = Frames.class.getResourceAsStream(DICTIONARY_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource: " + DICTIONARY_RESOURCE);
            }
            return ZstdDictionary.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One frame with its content size set, as the pipeline sends it. */
    static byte[] sized(byte[] payload, int level) {
        try (ZstdCompressor c = new ZstdCompressor(level)) {
            return c.compress(payload);
        }
    }

    /** One frame with a checksum. */
    static byte[] checksummed(byte[] payload) {
        try (ZstdCompressor c = ZstdCompressor.builder().checksum(true).build()) {
            return c.compress(payload);
        }
    }

    /** One frame compressed with {@code dictionary}: it names the dictionary's ID. */
    static byte[] withDictionary(byte[] payload, ZstdDictionary dictionary) {
        try (ZstdCompressor c = ZstdCompressor.builder().dictionary(dictionary).build()) {
            return c.compress(payload);
        }
    }

    /** One frame that does not declare its size, as a streaming compressor writes it. */
    static byte[] unsized(byte[] payload) {
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            return unsized(payload, c);
        }
    }

    /** {@link #unsized(byte[])} made with {@code compressor} (its level, checksum, dictionary), still the caller's. */
    static byte[] unsized(byte[] payload, ZstdCompressor compressor) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdOutputStream z = new ZstdOutputStream(out, compressor)) {
            z.write(payload);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@code size} zero bytes, which compress to almost nothing: the stuff of bombs. */
    static byte[] zeros(int size) {
        return new byte[size];
    }

    static byte[] truncated(byte[] frame, int keep) {
        return Arrays.copyOf(frame, Math.min(keep, frame.length));
    }

    /** {@code frame} with one byte flipped at {@code index} (modulo its length). */
    static byte[] flipped(byte[] frame, int index) {
        byte[] out = frame.clone();
        out[index % out.length] ^= (byte) 0x5A;
        return out;
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}

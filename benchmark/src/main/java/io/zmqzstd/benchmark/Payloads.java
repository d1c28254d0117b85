package io.zmqzstd.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Deterministic message payloads shared by every benchmark, so codec, transport and pipeline figures are
 * measured on the same bytes. The same (kind, size, seed) always gives the same bytes, on every machine.
 *
 * <ul>
 *   <li>{@link #TELEMETRY}: newline-separated JSON events as a service would log or ship them
 *       (timestamps, hosts, services, levels, paths, latencies, trace ids). Compresses roughly 3-6x at
 *       large sizes; a single small event barely compresses without a dictionary, as in real life.</li>
 *   <li>{@link #BINARY}: less compressible data: 64-byte blocks that are either random, a repeat of an
 *       earlier block, or low-entropy counters, in a fixed mix. Roughly 1.3-1.6x.</li>
 * </ul>
 * Every returned array is a fresh copy owned by the caller.
 */
public final class Payloads {

    public static final String TELEMETRY = "telemetry";
    public static final String BINARY = "binary";
    /** Random bytes: what already compressed or encrypted payloads look like to zstd. */
    public static final String RANDOM = "random";

    private static final String[] HOSTS = {"web-01", "web-02", "web-07", "api-03", "api-11", "db-02", "cache-05"};
    private static final String[] SERVICES = {"checkout", "inventory", "auth", "search", "billing", "gateway"};
    private static final String[] LEVELS = {"INFO", "INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
    private static final String[] MESSAGES = {
        "request completed", "cache miss, loading from store", "user session refreshed",
        "upstream timeout, retrying", "order placed", "payment authorised", "rate limit applied",
    };
    private static final String[] PATHS = {
        "/api/v1/orders/", "/api/v1/users/", "/api/v2/search?q=", "/api/v1/cart/", "/internal/health/",
    };
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Payloads() {
    }

    /** {@code kind} is {@link #TELEMETRY}, {@link #BINARY} or {@link #RANDOM}. */
    public static byte[] generate(String kind, int size, long seed) {
        return switch (kind) {
            case TELEMETRY -> telemetry(size, seed);
            case BINARY -> binary(size, seed);
            case RANDOM -> {
                byte[] b = new byte[size];
                new SplittableRandom(seed).nextBytes(b);
                yield b;
            }
            default -> throw new IllegalArgumentException("unknown payload kind: kind=" + kind
                    + ", expected " + TELEMETRY + ", " + BINARY + " or " + RANDOM);
        };
    }

    /** Exactly {@code size} bytes of JSON lines; the last event is cut where the size ends. */
    public static byte[] telemetry(int size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[size];
        StringBuilder line = new StringBuilder(256);
        long timestampMs = 1_767_225_600_000L + random.nextInt(1_000_000);
        int pos = 0;
        while (pos < size) {
            timestampMs += random.nextInt(25);
            line.setLength(0);
            line.append("{\"ts\":").append(timestampMs)
                .append(",\"host\":\"").append(pick(random, HOSTS))
                .append("\",\"svc\":\"").append(pick(random, SERVICES))
                .append("\",\"level\":\"").append(pick(random, LEVELS))
                .append("\",\"msg\":\"").append(pick(random, MESSAGES))
                .append("\",\"path\":\"").append(pick(random, PATHS)).append(random.nextInt(100_000))
                .append("\",\"status\":").append(random.nextInt(10) == 0 ? 503 : 200)
                .append(",\"latency_ms\":").append(random.nextInt(400)).append('.').append(random.nextInt(10))
                .append(",\"bytes\":").append(random.nextInt(65_536))
                .append(",\"trace\":\"");
            for (int i = 0; i < 16; i++) {
                line.append(HEX[random.nextInt(16)]);
            }
            line.append("\"}\n");
            byte[] bytes = line.toString().getBytes(StandardCharsets.US_ASCII);
            int n = Math.min(bytes.length, size - pos);
            System.arraycopy(bytes, 0, out, pos, n);
            pos += n;
        }
        return out;
    }

    /** Exactly {@code size} bytes: a fixed mix of random, repeated and counter blocks. */
    public static byte[] binary(int size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[size];
        final int block = 64;
        for (int pos = 0; pos < size; pos += block) {
            int n = Math.min(block, size - pos);
            int choice = random.nextInt(10);
            if (choice < 5 || pos < 4096) {
                // Random: incompressible half of the data (and all of the start, so small sizes stay hard).
                for (int i = 0; i < n; i++) {
                    out[pos + i] = (byte) random.nextInt(256);
                }
            } else if (choice < 8) {
                // A repeat of a recent block: what a match finder can use.
                int from = pos - block * (1 + random.nextInt(Math.min(64, pos / block)));
                System.arraycopy(out, from, out, pos, n);
            } else {
                // Slowly changing little-endian counters, as in sensor or price records.
                long value = random.nextLong(1L << 40);
                for (int i = 0; i < n; i++) {
                    out[pos + i] = (byte) (i % 8 == 0 ? value++ : value >>> (8 * (i % 8)));
                }
            }
        }
        return out;
    }

    /** Dictionary capacity: zstd's usual 110 KB target is far more than single events need. */
    public static final int DICTIONARY_BYTES = 16 * 1024;

    private static byte[] telemetryDictionary;

    /**
     * A zstd dictionary trained on telemetry events (sizes 64 B to 4 KiB, seeds disjoint from the ones the
     * benchmarks send), as a user would train on a sample of their traffic. Trained once per JVM; the
     * caller gets its own copy.
     */
    public static synchronized byte[] trainedTelemetryDictionary() {
        if (telemetryDictionary == null) {
            java.util.List<byte[]> samples = new java.util.ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                samples.add(telemetry(64 << (i % 7), 1_000_000L + i));
            }
            try (io.zmqzstd.codec.ZstdDictionary dictionary =
                    io.zmqzstd.codec.ZstdDictionary.train(samples, DICTIONARY_BYTES)) {
                telemetryDictionary = dictionary.bytes();
            }
        }
        return telemetryDictionary.clone();
    }

    private static String pick(SplittableRandom random, String[] values) {
        return values[random.nextInt(values.length)];
    }
}

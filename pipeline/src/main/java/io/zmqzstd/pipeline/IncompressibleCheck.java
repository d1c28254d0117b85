package io.zmqzstd.pipeline;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One compressing thread's judgement of which payloads would not gain from compression, so that
 * they go out as raw-block frames (still one valid zstd frame each) without the compressor's
 * cost. Payloads of at most {@link #MAX_PAYLOAD_BYTES} (16 KiB) only: above that, raw frames measured
 * no faster end to end. It costs nothing while frames gain: only after a frame that did not gain
 * (saved less than 1/64 of its payload) does it look at each of the next {@value #WATCH_MESSAGES}
 * payloads, by counting the byte values of up to {@value #SAMPLES} samples spread over the payload.
 *
 * <p>A payload in which no byte value occurs more than {@code max(5, samples/32)} times (8 of 256
 * samples, about 3 %) is as evenly spread as random bytes, on which an order-0 coder such as
 * zstd's Huffman stage gains next to nothing: it goes raw, and the watch starts again. Random bytes
 * pass that bound in about 3 payloads in 10,000 (those are compressed). A compressible payload
 * usually passes it within a few dozen samples and is compressed as usual; after
 * {@value #WATCH_MESSAGES} of those in a row the watch ends. Data that only long repeats make
 * compressible (random blocks that recur) looks even to the samples, so in a stream that also
 * carries incompressible payloads such data may go raw. Not thread-safe: one per compressing thread.
 */
final class IncompressibleCheck {

    /** Bytes sampled from a payload at most. */
    static final int SAMPLES = 256;
    /**
     * The longest payload looked at (and whose frame can start the watch): longer ones are always
     * compressed. Measured end to end over tcp on random payloads (BENCHMARKS.md, "Incompressible
     * payloads"): raw frames moved 2.1x the messages of compressing at 1 KiB and 1.18x at 4 KiB with
     * one compressing thread, 1.00x at 16 KiB and 0.930x at 64 KiB; with 3 workers 1.46x, 1.28x,
     * 1.08x and 1.01x (medians). On larger inputs zstd itself passes random data through fast (3.0-3.4 GB/s in
     * blocks of 64 KiB and 1 MiB at level 3, against 272 MB/s in blocks of 1 KiB, by zstd -b3 here).
     */
    static final long MAX_PAYLOAD_BYTES = 16 * 1024;
    /** Payloads looked at after a frame that did not gain, or a payload that looked incompressible. */
    static final int WATCH_MESSAGES = 64;

    private final int[] counts = new int[256];
    /** Payloads still to look at; 0: frames gain, nothing is looked at. */
    private int watch;

    /** True when {@code src[offset, offset + length)} should go out raw: only while watching. */
    boolean looksIncompressible(MemorySegment src, long offset, long length) {
        if (watch == 0 || length > MAX_PAYLOAD_BYTES) {
            return false;
        }
        boolean flat = flat(src, offset, length);
        watch = flat ? WATCH_MESSAGES : watch - 1;
        return flat;
    }

    /** Notes a compressed frame: one of at most 16 KiB that saved less than 1/64 of its payload starts the watch. */
    void compressed(long length, long frameBytes) {
        if (length <= MAX_PAYLOAD_BYTES && frameBytes > length - (length >>> 6)) {
            watch = WATCH_MESSAGES;
        }
    }

    /** Whether payloads are being looked at (for tests). */
    boolean watching() {
        return watch > 0;
    }

    private boolean flat(MemorySegment src, long offset, long length) {
        int n = (int) Math.min(length, SAMPLES);
        if (n == 0) {
            return false;
        }
        int bound = Math.max(5, n >> 5);
        long step = length / n;
        Arrays.fill(counts, 0);
        for (int i = 0; i < n; i++) {
            int b = src.get(ValueLayout.JAVA_BYTE, offset + i * step) & 0xff;
            if (++counts[b] > bound) {
                return false;
            }
        }
        return true;
    }
}

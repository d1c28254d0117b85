package io.zmqzstd.benchmark;

import io.airlift.compress.v3.zstd.ZstdNativeDecompressor;
import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * What zmq-zstd's checks add to one decompression, measured where JMH's separate forks cannot see it:
 * a difference of 1-3 % at 1 KiB, when on this shared VM two forks a minute apart differ by more. Three
 * ways of decompressing the same frame (the telemetry payload at level 3) into the same native buffer
 * take turns in one JVM, ITERATIONS calls each, for ROUNDS rounds after 10 warm-up rounds:
 * <ul>
 *   <li>{@code zmqzstd}: {@link ZstdDecompressor#decompress(MemorySegment, long, long, MemorySegment, long,
 *   long)}, with its frame checks (header, limit, dictionary, exactly one frame, raw blocks);</li>
 *   <li>{@code bare}: the same libzstd's {@code ZSTD_decompressDCtx} through the binding's downcall handle,
 *   on a context of its own, with no check at all (what no caller should do with untrusted input);</li>
 *   <li>{@code aircompressor}: aircompressor's FFM binding ({@code ZstdNativeDecompressor}).</li>
 * </ul>
 * Printed per way: the median time per call, and the median over the rounds of its speed relative to
 * {@code zmqzstd} in the same round. Run with {@code -Dzmqzstd.libzstd.path} set to aircompressor's bundled
 * libzstd for all three to use the same library (see BENCHMARKS.md, "Codec").
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar
 * io.zmqzstd.benchmark.DecompressOverhead SIZE ROUNDS ITERATIONS}
 */
public final class DecompressOverhead {

    private static final String[] WAYS = {"zmqzstd", "bare", "aircompressor"};

    private DecompressOverhead() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 3) {
            System.err.println("usage: DecompressOverhead SIZE ROUNDS ITERATIONS");
            System.exit(2);
        }
        int size = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int iterations = Integer.parseInt(args[2]);
        byte[] payload = Payloads.telemetry(size, 42);
        try (Arena arena = Arena.ofConfined();
             ZstdCompressor compressor = new ZstdCompressor(3);
             ZstdDecompressor decompressor = new ZstdDecompressor()) {
            MemorySegment input = arena.allocate(Math.max(size, 1), 64).copyFrom(MemorySegment.ofArray(payload));
            MemorySegment frameBuffer = arena.allocate(ZstdCompressor.maxCompressedSize(size), 64);
            long frameLength = compressor.compress(input, 0, size, frameBuffer, 0, frameBuffer.byteSize());
            MemorySegment frame = frameBuffer.asSlice(0, frameLength);
            MemorySegment output = arena.allocate(Math.max(size, 1), 64);
            ZstdNativeDecompressor aircompressor = new ZstdNativeDecompressor();
            long bareContext = (long) LibZstd.CREATE_DCTX.invokeExact();
            try {
                double[][] nanos = new double[WAYS.length][rounds];
                long check = 0;
                for (int round = -10; round < rounds; round++) {
                    for (int way = 0; way < WAYS.length; way++) {
                        long start = System.nanoTime();
                        for (int i = 0; i < iterations; i++) {
                            check += switch (way) {
                                case 0 -> decompressor.decompress(frame, 0, frameLength, output, 0, size);
                                case 1 -> (long) LibZstd.DECOMPRESS_DCTX_RAW.invokeExact(bareContext, output.address(),
                                        (long) size, frame.address(), frameLength);
                                default -> aircompressor.decompress(frame, output);
                            };
                        }
                        long elapsed = System.nanoTime() - start;
                        if (round >= 0) {
                            nanos[way][round] = (double) elapsed / iterations;
                        }
                    }
                }
                if (check != (long) (rounds + 10) * WAYS.length * iterations * size) {
                    throw new IllegalStateException("a decompression returned a wrong length: total=" + check);
                }
                System.out.printf("libzstd=%s size=%d frame=%d rounds=%d iterations=%d%n",
                        io.zmqzstd.codec.Zstd.versionString(), size, frameLength, rounds, iterations);
                for (int way = 0; way < WAYS.length; way++) {
                    double[] speed = new double[rounds];
                    for (int round = 0; round < rounds; round++) {
                        speed[round] = nanos[0][round] / nanos[way][round];
                    }
                    System.out.printf("%-14s ns_per_call=%.1f speed_vs_zmqzstd=%.3f (quartiles %.3f-%.3f)%n", WAYS[way],
                            median(nanos[way]), median(speed), quantile(speed, 0.25), quantile(speed, 0.75));
                }
            } finally {
                long ignored = (long) LibZstd.FREE_DCTX.invokeExact(bareContext);
            }
        }
    }

    private static double median(double[] values) {
        return quantile(values, 0.5);
    }

    private static double quantile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.round(q * (sorted.length - 1))];
    }
}

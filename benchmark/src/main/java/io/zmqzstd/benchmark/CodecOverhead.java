package io.zmqzstd.benchmark;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.airlift.compress.v3.zstd.ZstdNativeCompressor;
import io.airlift.compress.v3.zstd.ZstdNativeDecompressor;
import io.zmqzstd.codec.Zstd;
import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * What zmq-zstd adds to one compression or decompression, measured where JMH's separate forks cannot
 * see it: differences of 1-5 %, when on this shared VM two forks a minute apart differ by more. Several
 * ways of doing the same call on the same telemetry payload (level 3) and native buffers take turns in
 * one JVM, ITERATIONS calls each, for ROUNDS rounds after 10 warm-up rounds.
 * <ul>
 *   <li>{@code decompress}: {@code zmqzstd} ({@link ZstdDecompressor}, with its frame checks: header,
 *   limit, dictionary, exactly one frame, raw blocks); {@code bare-decompressDCtx} (the same libzstd's
 *   {@code ZSTD_decompressDCtx} through the binding's downcall handle, on a context of its own, no check
 *   at all: what no caller should do with untrusted input); {@code aircompressor} (its FFM binding, whose
 *   every downcall is critical); {@code bare-decompressDCtx-critical} (the bare call as a critical
 *   downcall); {@code header-walk+bare} (the bare call after
 *   the header and block walk through the public {@code ZstdFrames} readers: what the two frame reads
 *   cost, without the rest of the decompressor's checks).</li>
 *   <li>{@code compress}: {@code zmqzstd} ({@link ZstdCompressor}); {@code bare-compress2} and
 *   {@code bare-compressCCtx} (those two libzstd calls on a context of their own at level 3, no check);
 *   {@code aircompressor}; {@code zmqzstd-64-buffers} (zmq-zstd from 64 copies of the input into 64
 *   output buffers in turn, as a pipeline compresses each message from and into buffers of its own,
 *   where every other way compresses the same input into the same output, hot in the caches);
 *   {@code bare-compressCCtx-critical} (that call as a critical downcall).</li>
 * </ul>
 * Printed per way: the median time per call, the median over the rounds of its speed relative to
 * {@code zmqzstd} in the same round, and in how many rounds it was faster (with the sign test's p,
 * {@link Rounds#signTestP}). Run with {@code -Dzmqzstd.libzstd.path} set to aircompressor's bundled
 * libzstd for every way to use the same library (see BENCHMARKS.md, "Codec").
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar
 * io.zmqzstd.benchmark.CodecOverhead compress|decompress SIZE ROUNDS ITERATIONS}
 */
public final class CodecOverhead {

    private static final int LEVEL = 3;

    /*
     * The two calls as critical downcalls (no thread-state transition), as aircompressor links every
     * libzstd function; zmq-zstd's own handles are normal downcalls.
     */
    private static final MethodHandle DECOMPRESS_DCTX_CRITICAL = NativeLibrary.ZSTD.downcall("ZSTD_decompressDCtx",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle COMPRESS_CCTX_CRITICAL = NativeLibrary.ZSTD.downcall("ZSTD_compressCCtx",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT),
            Linker.Option.critical(false));
    /** {@code zmqzstd-64-buffers}: input and output buffers taken in turn, as a pipeline's pooled ones are. */
    private static final int FRESH_BUFFERS = 64;

    /** One way of making the call; returns the call's result (output length). */
    @FunctionalInterface
    private interface Way {
        long call() throws Throwable;
    }

    private CodecOverhead() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 4 || !(args[0].equals("compress") || args[0].equals("decompress"))) {
            System.err.println("usage: CodecOverhead compress|decompress SIZE ROUNDS ITERATIONS");
            System.exit(2);
        }
        boolean compress = args[0].equals("compress");
        int size = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int iterations = Integer.parseInt(args[3]);
        byte[] payload = Payloads.telemetry(size, 42);
        long dctx = (long) LibZstd.CREATE_DCTX.invokeExact();
        long cctx = (long) LibZstd.CREATE_CCTX.invokeExact();
        try (Arena arena = Arena.ofConfined();
             ZstdCompressor compressor = new ZstdCompressor(LEVEL);
             ZstdDecompressor decompressor = new ZstdDecompressor()) {
            long r = (long) LibZstd.CCTX_SET_PARAMETER.invokeExact(cctx, LibZstd.C_COMPRESSION_LEVEL, LEVEL);
            if (LibZstd.isError(r)) {
                throw new IllegalStateException("ZSTD_CCtx_setParameter failed: result=" + r);
            }
            MemorySegment input = arena.allocate(size, 64).copyFrom(MemorySegment.ofArray(payload));
            long bound = ZstdCompressor.maxCompressedSize(size);
            MemorySegment frameBuffer = arena.allocate(bound, 64);
            long frameLength = compressor.compress(input, 0, size, frameBuffer, 0, bound);
            MemorySegment frame = frameBuffer.asSlice(0, frameLength);
            MemorySegment output = arena.allocate(size, 64);
            MemorySegment scratch = arena.allocate(bound, 64);
            String[] names;
            Way[] ways;
            if (compress) {
                ZstdNativeCompressor aircompressor = new ZstdNativeCompressor(LEVEL);
                // A pipeline compresses each message from a buffer of its own into another, not the
                // same hot pair every time: 64 copies of the input and 64 outputs, taken in turn.
                MemorySegment[] inputs = new MemorySegment[FRESH_BUFFERS];
                MemorySegment[] outputs = new MemorySegment[FRESH_BUFFERS];
                for (int i = 0; i < FRESH_BUFFERS; i++) {
                    inputs[i] = arena.allocate(size, 64).copyFrom(input);
                    outputs[i] = arena.allocate(bound, 64);
                }
                int[] next = {0};
                names = new String[] {"zmqzstd", "bare-compress2", "bare-compressCCtx", "aircompressor", "zmqzstd-64-buffers",
                    "bare-compressCCtx-critical"};
                ways = new Way[] {
                    () -> compressor.compress(input, 0, size, scratch, 0, bound),
                    () -> (long) LibZstd.COMPRESS2_RAW.invokeExact(cctx, scratch.address(), bound, input.address(), (long) size),
                    () -> (long) LibZstd.COMPRESS_CCTX_RAW.invokeExact(cctx, scratch.address(), bound, input.address(),
                            (long) size, LEVEL),
                    () -> aircompressor.compress(input, scratch),
                    () -> {
                        int i = next[0]++ & (FRESH_BUFFERS - 1);
                        return compressor.compress(inputs[i], 0, size, outputs[i], 0, bound);
                    },
                    () -> (long) COMPRESS_CCTX_CRITICAL.invokeExact(cctx, scratch.address(), bound,
                            input.address(), (long) size, LEVEL),
                };
            } else {
                ZstdNativeDecompressor aircompressor = new ZstdNativeDecompressor();
                names = new String[] {"zmqzstd", "bare-decompressDCtx", "aircompressor", "bare-decompressDCtx-critical",
                    "header-walk+bare"};
                ways = new Way[] {
                    () -> decompressor.decompress(frame, 0, frameLength, output, 0, size),
                    () -> (long) LibZstd.DECOMPRESS_DCTX_RAW.invokeExact(dctx, output.address(), (long) size,
                            frame.address(), frameLength),
                    () -> aircompressor.decompress(frame, output),
                    () -> (long) DECOMPRESS_DCTX_CRITICAL.invokeExact(dctx, output.address(), (long) size,
                            frame.address(), frameLength),
                    () -> {
                        long declared = ZstdFrames.contentSize(frame, 0, frameLength);
                        if (declared > size || ZstdFrames.compressedSize(frame, 0, frameLength) != frameLength) {
                            throw new IllegalStateException("frame checks failed");
                        }
                        return (long) LibZstd.DECOMPRESS_DCTX_RAW.invokeExact(dctx, output.address(), declared,
                                frame.address(), frameLength);
                    },
                };
            }
            double[][] nanos = run(ways, rounds, iterations);
            System.out.printf("method=%s libzstd=%s size=%d frame=%d rounds=%d iterations=%d%n", args[0],
                    Zstd.versionString(), size, frameLength, rounds, iterations);
            System.out.printf("%-20s ns_per_call=%.1f%n", names[0], Rounds.quantile(nanos[0], 0.5));
            for (int way = 1; way < ways.length; way++) {
                double[] speed = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    speed[round] = nanos[0][round] / nanos[way][round];
                }
                System.out.printf("%-20s ns_per_call=%.1f speed_vs_zmqzstd=%s%n", names[way],
                        Rounds.quantile(nanos[way], 0.5), Rounds.describe(speed));
                Rounds.printPerRound(names[way], speed);
            }
        } finally {
            long ignored = (long) LibZstd.FREE_DCTX.invokeExact(dctx);
            ignored = (long) LibZstd.FREE_CCTX.invokeExact(cctx);
        }
    }

    /** Nanoseconds per call, [way][round]; every call of a way must return what its first call returned. */
    private static double[][] run(Way[] ways, int rounds, int iterations) throws Throwable {
        long[] expected = new long[ways.length];
        for (int way = 0; way < ways.length; way++) {
            expected[way] = ways[way].call();
        }
        double[][] nanos = new double[ways.length][rounds];
        for (int round = -10; round < rounds; round++) {
            for (int way = 0; way < ways.length; way++) {
                Way w = ways[way];
                long sum = 0;
                long start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    sum += w.call();
                }
                long elapsed = System.nanoTime() - start;
                if (sum != expected[way] * iterations) {
                    throw new IllegalStateException("way " + way + " returned other lengths: sum=" + sum);
                }
                if (round >= 0) {
                    nanos[way][round] = (double) elapsed / iterations;
                }
            }
        }
        return nanos;
    }

}

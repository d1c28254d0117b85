package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;
import java.util.Arrays;

/**
 * Run in a forked JVM by {@link CompressorWorkersTest} against a libzstd given by
 * {@code -Dzmqzstd.libzstd.path}. Prints {@code workers=<n> built} or {@code workers=<n> <exception
 * class> <message>} for each count in its arguments, then {@code live=<native objects left>}.
 */
public final class WorkersProbe {

    private WorkersProbe() {
    }

    public static void main(String[] args) {
        long before = LibZstd.liveNativeObjects();
        for (String arg : args) {
            int workers = Integer.parseInt(arg);
            byte[] data = TestData.text(300_000, workers);
            try (ZstdCompressor c = ZstdCompressor.builder().workers(workers).build();
                 ZstdDecompressor d = new ZstdDecompressor()) {
                boolean same = Arrays.equals(data, d.decompress(c.compress(data)));
                System.out.println("workers=" + workers + (same ? " built" : " wrong content"));
            } catch (RuntimeException e) {
                System.out.println("workers=" + workers + " " + e.getClass().getName() + " " + e.getMessage());
            }
        }
        System.out.println("live=" + (LibZstd.liveNativeObjects() - before));
    }
}

package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the exact bytes the pipeline benchmarks send, so that programs outside the JVM (the C reference
 * in {@code benchmark/c/}) measure the same work:
 * <ul>
 *   <li>{@code telemetry-<size>.bin}: the telemetry payload of {@code size} bytes, for each size given;</li>
 *   <li>{@code telemetry.dict}: the trained telemetry dictionary ({@code dictionary=trained}).</li>
 * </ul>
 * Usage: {@code java -cp benchmarks.jar io.zmqzstd.benchmark.ExportPayload DIR [SIZE...]} (default sizes
 * 64 1024 65536 1048576). The payload's first 8 bytes are overwritten per message with its sequence number
 * by every sender, the C one included.
 */
public final class ExportPayload {

    private static final int[] DEFAULT_SIZES = {64, 1024, 65536, 1048576};

    private ExportPayload() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: ExportPayload DIR [SIZE...]");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        int[] sizes = DEFAULT_SIZES;
        if (args.length > 1) {
            sizes = new int[args.length - 1];
            for (int i = 1; i < args.length; i++) {
                sizes[i - 1] = Integer.parseInt(args[i]);
            }
        }
        for (int size : sizes) {
            Path file = dir.resolve("telemetry-" + size + ".bin");
            Files.write(file, PipelineContestants.payload(size));
            System.out.println(file);
        }
        Path dictionary = dir.resolve("telemetry.dict");
        Files.write(dictionary, Payloads.trainedTelemetryDictionary());
        System.out.println(dictionary);
    }
}

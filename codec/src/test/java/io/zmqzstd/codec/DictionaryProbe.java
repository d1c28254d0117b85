package io.zmqzstd.codec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Run in a forked JVM by {@link DictionaryTest}, so that the peak resident size it reads is the
 * training's: trains with {@code Integer.MAX_VALUE} as the capacity and with the samples' total
 * size, and prints {@code trained capacity=<n> bytes=<dictionary size> same|different as
 * capacity=sampleBytes=<total>, peakRssGrowthKiB=<growth>} (Linux: {@code VmHWM} in
 * {@code /proc/self/status}).
 */
public final class DictionaryProbe {

    private DictionaryProbe() {
    }

    public static void main(String[] args) throws IOException {
        List<byte[]> samples = new ArrayList<>();
        int total = 0;
        for (int i = 0; i < 300; i++) {
            samples.add(TestData.text(200, i));
            total += 200;
        }
        long peakBefore = peakRssKiB();
        try (ZstdDictionary huge = ZstdDictionary.train(samples, Integer.MAX_VALUE)) {
            long growth = peakRssKiB() - peakBefore;
            try (ZstdDictionary bounded = ZstdDictionary.train(samples, total)) {
                boolean same = Arrays.equals(huge.bytes(), bounded.bytes());
                System.out.println("trained capacity=" + Integer.MAX_VALUE + " bytes=" + huge.bytes().length
                        + (same ? " same" : " different") + " as capacity=sampleBytes=" + total
                        + ", peakRssGrowthKiB=" + growth);
            }
        }
    }

    /** The process's peak resident size, {@code VmHWM} in {@code /proc/self/status}. */
    static long peakRssKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmHWM in /proc/self/status");
    }
}

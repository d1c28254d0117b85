package io.zmqzstd.benchmark.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartToolTest {

    private static String row(String contestant, int size, double score, double alloc) {
        return """
            {"benchmark":"io.zmqzstd.benchmark.CodecBenchmark.compress","mode":"thrpt",
             "params":{"contestant":"%s","level":"3","size":"%d"},
             "primaryMetric":{"score":%s,"scoreError":"NaN","scoreUnit":"ops/s","rawData":[[1.0]]},
             "secondaryMetrics":{"gc.alloc.rate.norm":{"score":%s,"scoreError":"NaN","scoreUnit":"B/op"}}}
            """.formatted(contestant, size, score, alloc);
    }

    @Test
    void shouldRenderThroughputAndAllocationChartsAndSummaryFromJmhJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        Files.writeString(json, "[" + String.join(",", row("a", 64, 1000.5, 0.0), row("b", 64, 2000, 224),
                row("a", 1024, 500, 0.0), row("b", 1024, 900, 2048)) + "]");
        List<ChartTool.Result> results = ChartTool.read(json);
        assertEquals(4, results.size());
        assertEquals(224.0, results.get(1).allocPerOp());

        List<Path> written = ChartTool.render(results, dir.resolve("out"));
        assertEquals(3, written.size());
        for (Path svg : written.subList(0, 2)) {
            assertTrue(svg.toString().endsWith(".svg"), svg.toString());
            assertTrue(Files.readString(svg).contains("<svg"), svg + " is not SVG");
        }
        String summary = Files.readString(written.get(2));
        assertTrue(summary.contains("| b | 2,000 msg/s, 224.00 B/msg | 900 msg/s, 2,048.00 B/msg |"), summary);
        assertTrue(summary.contains("CodecBenchmark.compress (level=3)"), summary);
    }

    /**
     * run-all.sh charts every JSON of a directory together, and codec-samelib.json repeats cells of
     * codec.json on another libzstd: each figure must reach the summary, the variant's under its name.
     */
    @Test
    void shouldChartAFileThatRepeatsAnotherFilesCellsApart(@TempDir Path dir) throws Exception {
        Path main = dir.resolve("codec.json");
        Files.writeString(main, "[" + String.join(",", row("a", 64, 1000, 0.0), row("b", 64, 2000, 224),
                row("c", 64, 3000, 16)) + "]");
        Path variant = dir.resolve("codec-samelib.json");
        Files.writeString(variant, "[" + String.join(",", row("a", 64, 1111, 0.0), row("b", 64, 2222, 224)) + "]");
        List<ChartTool.Result> results = new java.util.ArrayList<>(ChartTool.read(variant)); // read first, as *.json lists it
        results.addAll(ChartTool.read(main));

        List<Path> written = ChartTool.render(results, dir.resolve("out"));
        String summary = Files.readString(written.getLast());
        assertTrue(summary.contains("""
                ## CodecBenchmark.compress (level=3)

                | contestant | 64 B |
                |---|---:|
                | a | 1,000 msg/s, 0.00 B/msg |
                | b | 2,000 msg/s, 224.00 B/msg |
                | c | 3,000 msg/s, 16.00 B/msg |
                """), summary);
        assertTrue(summary.contains("""
                ## CodecBenchmark.compress [codec-samelib] (level=3)

                | contestant | 64 B |
                |---|---:|
                | a | 1,111 msg/s, 0.00 B/msg |
                | b | 2,222 msg/s, 224.00 B/msg |
                """), summary);
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertTrue(names.contains("CodecBenchmark.compress_level=3-throughput.svg"), names.toString());
        assertTrue(names.contains("CodecBenchmark.compress_codec-samelib_level=3-throughput.svg"), names.toString());
    }

    @Test
    void shouldChartSampleModeResultsByTheirPercentiles(@TempDir Path dir) throws Exception {
        String sample = """
            {"benchmark":"io.zmqzstd.benchmark.LatencyBenchmark.roundTrip","mode":"sample",
             "params":{"contestant":"%s","size":"1024"},
             "primaryMetric":{"score":%s,"scoreError":"NaN","scoreUnit":"us/op",
               "scorePercentiles":{"0.0":50.0,"50.0":%s,"90.0":150.0,"99.0":%s,"99.9":%s,"100.0":9000.0}},
             "secondaryMetrics":{"gc.alloc.rate.norm":{"score":%s,"scoreError":"NaN","scoreUnit":"B/op"}}}
            """;
        Path json = dir.resolve("latency.json");
        Files.writeString(json, "[" + sample.formatted("a", 140.0, 120.5, 400.0, 2000.0, 0.5) + ","
                + sample.formatted("b", 180.0, 160.0, 900.0, 5000.0, 3100.0) + "]");
        List<ChartTool.Result> results = ChartTool.read(json);
        assertTrue(results.getFirst().sampled());
        assertEquals(400.0, results.getFirst().percentiles().get("99.0"));

        List<Path> written = ChartTool.render(results, dir.resolve("out"));
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(5, written.size(), names.toString());
        assertTrue(names.stream().anyMatch(n -> n.endsWith("-latency-p50.svg")), names.toString());
        assertTrue(names.stream().anyMatch(n -> n.endsWith("-latency-p99.9.svg")), names.toString());
        assertTrue(names.stream().noneMatch(n -> n.endsWith("-throughput.svg")), names.toString());
        String summary = Files.readString(written.getLast());
        assertTrue(summary.contains("| b | p50 160.0, p99 900.0, p99.9 5,000.0 us/op, 3,100.00 B/op |"), summary);
    }

    /** An average-time result (PoolBenchmark: ns per rent and release) is no message rate. */
    @Test
    void shouldGiveAScoreThatIsNotOperationsPerSecondInItsOwnUnit(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("pool.json");
        Files.writeString(json, """
            [{"benchmark":"io.zmqzstd.benchmark.PoolBenchmark.rentRelease","mode":"avgt",
              "params":{"cache":"thread","size":"64"},
              "primaryMetric":{"score":12.5,"scoreError":"NaN","scoreUnit":"ns/op","rawData":[[12.5]]},
              "secondaryMetrics":{"gc.alloc.rate.norm":{"score":0.001,"scoreError":"NaN","scoreUnit":"B/op"}}}]
            """);
        List<Path> written = ChartTool.render(ChartTool.read(json), dir.resolve("out"));
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertTrue(names.contains("PoolBenchmark.rentRelease-score.svg"), names.toString());
        assertTrue(names.stream().noneMatch(n -> n.endsWith("-throughput.svg")), names.toString());
        String summary = Files.readString(written.getLast());
        assertTrue(summary.contains("| thread | 12.50 ns/op, 0.00 B/op |"), summary);
    }

    @Test
    void shouldLabelSizesInBinaryUnits() {
        assertEquals("64 B", ChartTool.sizeLabel(64));
        assertEquals("64 KiB", ChartTool.sizeLabel(65536));
        assertEquals("1 MiB", ChartTool.sizeLabel(1 << 20));
    }
}

package io.zmqzstd.benchmark.charts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * Renders JMH JSON results ({@code -rf json}) as grouped bar charts (SVG, XChart) and a Markdown summary.
 *
 * <pre>java -cp benchmarks.jar io.zmqzstd.benchmark.charts.ChartTool result.json... outdir</pre>
 *
 * <p>One chart per benchmark method and per combination of the parameters that are neither the size
 * nor the series parameter: x = message size, one bar per {@code contestant} (or {@code strategy}, or
 * {@code receiveMode} when the strategy is fixed). Two metrics: the score in messages per second (one JMH
 * operation is one message in the throughput benchmarks here) and {@code gc.alloc.rate.norm} in bytes
 * per message when the run used {@code -prof gc}. A score in another unit (an average-time benchmark
 * such as {@code PoolBenchmark}, or {@code -tu ms}) is charted and tabled in JMH's unit, per operation. Both use a log scale, since sizes span six orders of magnitude;
 * an allocation below 0.01 B/message is drawn at 0.01 (the tables give the real figure).
 *
 * <p>Results are charted with the other results of their own file only where they would meet another
 * file's result for the same benchmark and parameters: {@code run-all.sh} charts every JSON of a
 * directory at once, and {@code codec-samelib.json} repeats cells of {@code codec.json} (on another
 * libzstd, which no parameter shows). Such a file's charts and tables carry its name, e.g.
 * {@code CodecBenchmark.compress [codec-samelib] (level=3, payload=telemetry)}, and no file's figure
 * takes the place of another's.
 *
 * <p>Results of JMH's sample mode ({@code "mode":"sample"}, the latency benchmark) are charted by their
 * percentiles instead of the score: one chart each for p50, p99 and p99.9 of the time per operation, in
 * the run's unit (microseconds for the latency benchmark), plus the allocation chart.
 */
public final class ChartTool {

    private static final List<String> SERIES_PARAMETERS = List.of("contestant", "strategy", "receiveMode");
    private static final String SIZE = "size";
    private static final double LOG_FLOOR = 0.01;

    private ChartTool() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ChartTool <jmh-result.json>... <outdir>");
            System.exit(2);
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < args.length - 1; i++) {
            results.addAll(read(Path.of(args[i])));
        }
        Path out = Path.of(args[args.length - 1]);
        List<Path> written = render(results, out);
        written.forEach(p -> System.out.println("wrote " + p));
    }

    /** JMH's sample-mode percentiles charted for latency results, by their keys in the JSON. */
    private static final List<String> LATENCY_PERCENTILES = List.of("50.0", "99.0", "99.9");
    private static final String SAMPLE_MODE = "sample";
    private static final String THROUGHPUT_MODE = "thrpt";
    private static final String OPS_PER_SECOND = "ops/s";

    /**
     * One JMH result row: benchmark method, mode, parameters, score, allocation per operation if measured,
     * and the percentiles of sample mode (empty in other modes).
     */
    record Result(String source, String benchmark, String mode, Map<String, String> params, double score,
            String unit, Double allocPerOp, Map<String, Double> percentiles) {

        boolean sampled() {
            return SAMPLE_MODE.equals(mode);
        }

        /** Throughput in operations per second: with one message per operation, messages per second. */
        boolean messagesPerSecond() {
            return THROUGHPUT_MODE.equals(mode) && OPS_PER_SECOND.equals(unit);
        }

        /** The benchmark and every parameter: one cell of a table, which two files must not both fill. */
        String cell() {
            return benchmark + params;
        }
    }

    /** The results in {@code file}, each with the file's name less {@code .json} as its source. */
    @SuppressWarnings("unchecked")
    static List<Result> read(Path file) throws IOException {
        List<Result> results = new ArrayList<>();
        String source = file.getFileName().toString().replaceFirst("\\.json$", "");
        for (Object row : (List<Object>) Json.parse(Files.readString(file))) {
            Map<String, Object> r = (Map<String, Object>) row;
            Map<String, String> params = new TreeMap<>();
            Object p = r.get("params");
            if (p != null) {
                ((Map<String, Object>) p).forEach((k, v) -> params.put(k, String.valueOf(v)));
            }
            Map<String, Object> primary = (Map<String, Object>) r.get("primaryMetric");
            Double alloc = null;
            Map<String, Object> secondary = (Map<String, Object>) r.get("secondaryMetrics");
            if (secondary != null && secondary.get("gc.alloc.rate.norm") instanceof Map<?, ?> m) {
                alloc = number(m.get("score"));
            }
            Map<String, Double> percentiles = new TreeMap<>();
            if (primary.get("scorePercentiles") instanceof Map<?, ?> ps) {
                ps.forEach((k, v) -> percentiles.put(String.valueOf(k), number(v)));
            }
            results.add(new Result(source, (String) r.get("benchmark"), String.valueOf(r.get("mode")), params,
                    number(primary.get("score")), (String) primary.get("scoreUnit"), alloc, percentiles));
        }
        return results;
    }

    private static double number(Object o) {
        return o instanceof Double d ? d : Double.NaN;
    }

    static List<Path> render(List<Result> results, Path out) throws IOException {
        // Fonts and layout only: no display is needed, or wanted on a benchmark machine.
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(out);
        List<Path> written = new ArrayList<>();
        StringBuilder summary = new StringBuilder("# JMH results\n\nScore: messages per second (msg/s) where JMH "
                + "gives operations per second, and allocation in bytes per message (gc.alloc.rate.norm); any other "
                + "score in JMH's unit, allocation in bytes per operation; latency results (sample mode): "
                + "percentiles of the time per operation, allocation in bytes per operation.\n");
        Map<String, List<Result>> byBenchmark = results.stream().collect(
                Collectors.groupingBy(Result::benchmark, LinkedHashMap::new, Collectors.toList()));
        Map<String, Integer> layers = layers(results);
        for (Map.Entry<String, List<Result>> e : byBenchmark.entrySet()) {
            List<Result> rows = e.getValue();
            String series = seriesParameter(rows);
            // by layer, then by the parameters that are neither size nor series
            Map<Integer, Map<String, List<Result>>> groups = new TreeMap<>();
            for (Result r : rows) {
                groups.computeIfAbsent(layers.get(r.source()), k -> new TreeMap<>())
                        .computeIfAbsent(groupKey(r, series), k -> new ArrayList<>()).add(r);
            }
            for (Map.Entry<String, List<Result>> g : groups.values().stream().flatMap(m -> m.entrySet().stream())
                    .toList()) {
                String title = shortName(e.getKey()) + sourcesLabel(g.getValue(), layers)
                        + (g.getKey().isEmpty() ? "" : " (" + g.getKey() + ")");
                String file = fileName(title);
                boolean perMessage = g.getValue().stream().allMatch(Result::messagesPerSecond);
                if (g.getValue().stream().allMatch(Result::sampled)) {
                    String unit = g.getValue().getFirst().unit();
                    for (String p : LATENCY_PERCENTILES) {
                        String label = "p" + p.replaceAll("\\.0$", "");
                        written.add(chart(g.getValue(), series, title + ": " + label + " time per operation", unit,
                                r -> r.percentiles().getOrDefault(p, Double.NaN),
                                out.resolve(file + "-latency-" + label + ".svg")));
                    }
                } else if (perMessage) {
                    written.add(chart(g.getValue(), series, title + ": throughput", "messages / s",
                            Result::score, out.resolve(file + "-throughput.svg")));
                } else {
                    written.add(chart(g.getValue(), series, title + ": score", scoreUnit(g.getValue()),
                            Result::score, out.resolve(file + "-score.svg")));
                }
                if (g.getValue().stream().allMatch(r -> r.allocPerOp() != null)) {
                    written.add(chart(g.getValue(), series, title + ": heap allocation",
                            perMessage ? "bytes / message" : "bytes / operation",
                            Result::allocPerOp, out.resolve(file + "-alloc.svg")));
                }
                table(summary, title, g.getValue(), series);
            }
        }
        Path md = out.resolve("summary.md");
        Files.writeString(md, summary);
        written.add(md);
        return written;
    }

    /**
     * Each source's layer: 0 for the sources charted together, as before; a source that holds a cell
     * another source of a lower layer also holds goes up until it meets none, and its rows are charted
     * in groups of their own, named after it. Sources with more rows are placed first (then by name),
     * so a table's main run keeps the charts' plain names and a variant of it moves.
     */
    static Map<String, Integer> layers(List<Result> results) {
        Map<String, Set<String>> cells = new TreeMap<>();
        for (Result r : results) {
            cells.computeIfAbsent(r.source(), k -> new LinkedHashSet<>()).add(r.cell());
        }
        List<String> order = cells.keySet().stream()
                .sorted((a, b) -> cells.get(a).size() != cells.get(b).size()
                        ? Integer.compare(cells.get(b).size(), cells.get(a).size()) : a.compareTo(b))
                .toList();
        Map<String, Integer> layer = new LinkedHashMap<>();
        List<Set<String>> taken = new ArrayList<>(); // the cells each layer holds so far
        for (String source : order) {
            int l = 0;
            while (l < taken.size() && taken.get(l).stream().anyMatch(cells.get(source)::contains)) {
                l++;
            }
            if (l == taken.size()) {
                taken.add(new HashSet<>());
            }
            taken.get(l).addAll(cells.get(source));
            layer.put(source, l);
        }
        return layer;
    }

    /** Empty in layer 0; else the names of the sources of {@code rows}, e.g. {@code " [codec-samelib]"}. */
    private static String sourcesLabel(List<Result> rows, Map<String, Integer> layers) {
        if (layers.get(rows.getFirst().source()) == 0) {
            return "";
        }
        return rows.stream().map(Result::source).distinct().sorted().collect(Collectors.joining(", ", " [", "]"));
    }

    /** JMH's unit of the rows' scores; their units joined when they differ (a chart should not mix them). */
    private static String scoreUnit(List<Result> rows) {
        return rows.stream().map(Result::unit).distinct().collect(Collectors.joining(", "));
    }

    private static String seriesParameter(List<Result> rows) {
        for (String candidate : SERIES_PARAMETERS) {
            if (rows.stream().map(r -> r.params().get(candidate)).distinct().count() > 1) {
                return candidate;
            }
        }
        return rows.getFirst().params().keySet().stream().filter(k -> !k.equals(SIZE)).findFirst().orElse(null);
    }

    private static String groupKey(Result r, String series) {
        return r.params().entrySet().stream()
                .filter(p -> !p.getKey().equals(SIZE) && !p.getKey().equals(series))
                .map(p -> p.getKey() + "=" + p.getValue())
                .collect(Collectors.joining(", "));
    }

    private interface Metric {
        Double of(Result r);
    }

    private static Path chart(List<Result> rows, String series, String title, String yTitle, Metric metric,
            Path file) throws IOException {
        List<Long> sizes = sizes(rows);
        List<String> labels = sizes.stream().map(ChartTool::sizeLabel).toList();
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(560).title(title)
                .xAxisTitle("message size").yAxisTitle(yTitle + " (log scale)").build();
        CategoryStyler styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setYAxisLogarithmic(true);
        styler.setYAxisDecimalPattern("#,###.##");
        double smallest = Double.MAX_VALUE;
        for (String name : seriesNames(rows, series)) {
            List<Double> values = new ArrayList<>();
            for (long size : sizes) {
                Double v = rows.stream()
                        .filter(r -> name.equals(r.params().get(series)) && size == size(r))
                        .map(metric::of).findFirst().orElse(null);
                Double drawn = v == null || v.isNaN() ? null : Math.max(v, LOG_FLOOR);
                values.add(drawn);
                smallest = drawn == null ? smallest : Math.min(smallest, drawn);
            }
            chart.addSeries(name, labels, values);
        }
        // Bars start at the axis minimum, which XChart puts at 0 unless told: impossible on a log axis.
        styler.setYAxisMin(smallest == Double.MAX_VALUE ? 1 : Math.pow(10, Math.floor(Math.log10(smallest))));
        VectorGraphicsEncoder.saveVectorGraphic(chart, file.toString(), VectorGraphicsFormat.SVG);
        return file;
    }

    private static void table(StringBuilder md, String title, List<Result> rows, String series) {
        List<Long> sizes = sizes(rows);
        md.append("\n## ").append(title).append("\n\n| ").append(series == null ? "" : series);
        sizes.forEach(s -> md.append(" | ").append(sizeLabel(s)));
        md.append(" |\n|---");
        sizes.forEach(s -> md.append("|---:"));
        md.append("|\n");
        for (String name : seriesNames(rows, series)) {
            md.append("| ").append(name);
            for (long size : sizes) {
                Result r = rows.stream().filter(x -> name.equals(x.params().get(series)) && size == size(x))
                        .findFirst().orElse(null);
                md.append(" | ");
                if (r != null && r.sampled()) {
                    md.append(String.format(Locale.ROOT, "p50 %,.1f, p99 %,.1f, p99.9 %,.1f %s",
                            r.percentiles().getOrDefault("50.0", Double.NaN),
                            r.percentiles().getOrDefault("99.0", Double.NaN),
                            r.percentiles().getOrDefault("99.9", Double.NaN), r.unit()));
                    if (r.allocPerOp() != null) {
                        md.append(String.format(Locale.ROOT, ", %,.2f B/op", r.allocPerOp()));
                    }
                } else if (r != null && r.messagesPerSecond()) {
                    md.append(String.format(Locale.ROOT, "%,.0f msg/s", r.score()));
                    if (r.allocPerOp() != null) {
                        md.append(String.format(Locale.ROOT, ", %,.2f B/msg", r.allocPerOp()));
                    }
                } else if (r != null) {
                    md.append(String.format(Locale.ROOT, "%,.2f %s", r.score(), r.unit()));
                    if (r.allocPerOp() != null) {
                        md.append(String.format(Locale.ROOT, ", %,.2f B/op", r.allocPerOp()));
                    }
                }
            }
            md.append(" |\n");
        }
    }

    private static List<Long> sizes(List<Result> rows) {
        return new ArrayList<>(rows.stream().map(ChartTool::size).collect(Collectors.toCollection(TreeSet::new)));
    }

    private static Set<String> seriesNames(List<Result> rows, String series) {
        return rows.stream().map(r -> String.valueOf(r.params().get(series)))
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static long size(Result r) {
        String s = r.params().get(SIZE);
        return s == null ? 0 : Long.parseLong(s);
    }

    static String sizeLabel(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    private static String shortName(String benchmark) {
        String[] parts = benchmark.split("\\.");
        return parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : benchmark;
    }

    private static String fileName(String title) {
        return title.replaceAll("[^A-Za-z0-9.=-]+", "_").replaceAll("_+$", "");
    }
}

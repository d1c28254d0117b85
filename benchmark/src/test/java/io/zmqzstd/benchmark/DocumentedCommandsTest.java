package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.codec.CodecContestants;
import io.zmqzstd.benchmark.latency.RoundTrips;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

/**
 * The commands BENCHMARKS.md, the root README.md and benchmark/README.md quote would run: every JMH
 * invocation selects a benchmark of the generated list ({@code META-INF/BenchmarkList}) and gives only
 * its {@code @Param}s, with values the benchmark accepts; every {@code verdict.sh} and {@code run-all.sh}
 * name is one the script defines; every script, result and link they point to is in the repository.
 * Reads text only: no benchmark runs.
 */
class DocumentedCommandsTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static final Path ROOT = MODULE.getParent();
    private static final List<Path> DOCUMENTS =
            List.of(ROOT.resolve("BENCHMARKS.md"), ROOT.resolve("README.md"), MODULE.resolve("README.md"));

    /** A class name as a JMH selector: {@code PipelineBenchmark}, {@code CodecBenchmark.compress}. */
    private static final Pattern BENCHMARK_CLASS = Pattern.compile("[A-Z][A-Za-z0-9]*Benchmark(\\.[A-Za-z0-9_]+)?");
    /** A shell token that ends a command (or starts a comment) inside a code fragment. */
    private static final Set<String> END_OF_COMMAND = Set.of("#", ";", "&&", "||", "|", ">", "2>&1", "then", "and");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    /** A repository path in a code fragment: {@code benchmark/...} from the root, the others from benchmark/. */
    private static final Pattern PATH = Pattern.compile("(?<![\\w/.-])((?:benchmark|results|scripts|c)/[A-Za-z0-9_./*+@-]+)");
    /** A case label of a shell script's {@code case "$1" in}: the check and table names. */
    private static final Pattern CASE_LABEL = Pattern.compile("(?m)^\\s+([a-z0-9][a-z0-9|-]*)\\)");
    /** An {@code interleaved.sh} cell: {@code KIND:TRANSPORT:SIZE} or {@code codec:METHOD:SIZE}. */
    private static final Pattern CELL = Pattern.compile("([a-z]+):([a-z]+):([0-9]+)");
    /** A tool in the jar run by class name: {@code -cp benchmarks.jar io.zmqzstd.benchmark.CodecOverhead}. */
    private static final Pattern TOOL = Pattern.compile("-cp \\S*(?:benchmarks\\.jar|\\$J) (io\\.zmqzstd\\.[A-Za-z0-9_.]+)");

    private static List<BenchmarkListEntry> benchmarks;

    /**
     * The values each benchmark accepts for its parameters that name something (a contestant, a mode), from
     * the same lists and constants the benchmarks map them with; numeric parameters take what parses.
     */
    private static final Map<String, Predicate<String>> NAMED_VALUES = Map.ofEntries(
            Map.entry("CodecBenchmark.contestant", CodecContestants.NAMES::contains),
            Map.entry("CodecBenchmark.payload", DocumentedCommandsTest::isPayload),
            Map.entry("TransportBenchmark.strategy", TransportStrategy.NAMES::contains),
            Map.entry("TransportBenchmark.receiveMode", v -> Stream.of(ReceiveMode.values()).anyMatch(m -> m.name().equals(v))),
            Map.entry("TransportBenchmark.transport", DocumentedCommandsTest::isTransport),
            Map.entry("TransportBenchmark.read", TransportStrategy.READS::contains),
            Map.entry("PipelineBenchmark.contestant", PipelineContestants.NAMES::contains),
            Map.entry("PipelineBenchmark.transport", DocumentedCommandsTest::isTransport),
            Map.entry("PipelineBenchmark.dictionary",
                    List.of(PipelineContestants.DICTIONARY_NONE, PipelineContestants.DICTIONARY_TRAINED)::contains),
            Map.entry("PipelineBenchmark.flow", List.of(PipelineBenchmark.FLOW_STREAM, PipelineBenchmark.FLOW_BATCH)::contains),
            Map.entry("PipelineBenchmark.affinity",
                    List.of(PipelineBenchmark.AFFINITY_NONE, PipelineBenchmark.AFFINITY_SPLIT)::contains),
            Map.entry("PipelineBenchmark.hop", List.of(PipelineContestants.HOP_NONE, PipelineContestants.HOP_PROXY)::contains),
            Map.entry("LatencyBenchmark.contestant", DocumentedCommandsTest::isRoundTripContestant),
            Map.entry("LatencyBenchmark.transport", DocumentedCommandsTest::isTransport),
            Map.entry("LatencyBenchmark.size", v -> v.matches("[0-9]+") && Integer.parseInt(v) >= Stamp.BYTES),
            Map.entry("PoolBenchmark.cache", List.of("thread", "shared")::contains));

    @BeforeAll
    static void readBenchmarkList() throws IOException {
        try (InputStream in = DocumentedCommandsTest.class.getResourceAsStream(BenchmarkList.BENCHMARK_LIST)) {
            assertTrue(in != null, "no " + BenchmarkList.BENCHMARK_LIST + " on the class path: JMH's annotation processor did not run");
            benchmarks = BenchmarkList.readBenchmarkList(in);
        }
    }

    @Test
    void shouldFindTheDocumentedCommands() {
        List<Invocation> invocations = invocations();
        // a parser that silently finds nothing would pass every other test
        assertTrue(invocations.size() > 50, "JMH invocations found: " + invocations.size());
        assertTrue(invocations.stream().anyMatch(i -> "LatencyBenchmark".equals(i.selector())), invocations.toString());
        assertTrue(scriptArguments("verdict.sh").size() > 20);
    }

    @Test
    void shouldSelectABenchmarkWithEveryDocumentedParameterAndValue() {
        List<String> defects = new ArrayList<>();
        for (Invocation invocation : invocations()) {
            List<BenchmarkListEntry> selected = invocation.selector() == null ? benchmarks : benchmarks.stream()
                    .filter(b -> Pattern.compile(invocation.selector()).matcher(b.getUsername()).find()).toList();
            if (selected.isEmpty()) {
                defects.add(invocation + ": selects no benchmark");
                continue;
            }
            invocation.params().forEach((name, values) -> {
                List<BenchmarkListEntry> having = selected.stream().filter(b -> paramsOf(b).contains(name)).toList();
                if (having.isEmpty()) {
                    defects.add(invocation + ": no parameter " + name + " in " + classesOf(selected));
                    return;
                }
                for (String value : values) {
                    if (!isPlaceholder(value) && having.stream().noneMatch(b -> accepts(b, name, value))) {
                        defects.add(invocation + ": " + classesOf(having) + " rejects " + name + "=" + value);
                    }
                }
            });
        }
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldNameOnlyChecksTablesCellsAndToolsTheScriptsDefine() throws IOException {
        List<String> defects = new ArrayList<>();
        for (String script : List.of("verdict.sh", "run-all.sh")) {
            Set<String> defined = caseLabels(MODULE.resolve(script));
            assertFalse(defined.isEmpty(), script);
            for (Argument argument : scriptArguments(script)) {
                if (!defined.contains(argument.value())) {
                    defects.add(argument.where() + ": " + script + " defines no " + argument.value() + " (it has "
                            + defined + ")");
                }
            }
        }
        Set<String> kinds = caseLabels(MODULE.resolve("interleaved.sh"));
        for (Fragment fragment : DOCUMENTS.stream().flatMap(d -> fragments(d).stream()).toList()) {
            List<String> tokens = tokens(fragment.code());
            int script = tokens.indexOf(tokens.stream().filter(t -> t.endsWith("interleaved.sh")).findFirst().orElse(""));
            for (int i = script + 1; script >= 0 && i < tokens.size(); i++) {
                Matcher cell = CELL.matcher(tokens.get(i));
                if (cell.matches() && !(kinds.contains(cell.group(1)) && (cell.group(1).equals("codec")
                        ? List.of("compress", "decompress").contains(cell.group(2)) : isTransport(cell.group(2))))) {
                    defects.add(fragment.where() + ": interleaved.sh has no cell " + tokens.get(i));
                }
            }
            Matcher tool = TOOL.matcher(fragment.code());
            while (tool.find()) {
                try {
                    Class.forName(tool.group(1)).getMethod("main", String[].class);
                } catch (ReflectiveOperationException e) {
                    defects.add(fragment.where() + ": no main class " + tool.group(1));
                }
            }
        }
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldPointOnlyAtFilesInTheRepository() {
        List<String> defects = new ArrayList<>();
        for (Path doc : DOCUMENTS) {
            String text = read(doc);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1).replaceFirst("#.*", "");
                if (!target.isEmpty() && !target.matches("[a-z]+:.*") && !exists(doc.getParent().resolve(target))) {
                    defects.add(doc.getFileName() + ": link to a missing " + target);
                }
            }
            for (Fragment fragment : fragments(doc)) {
                Matcher path = PATH.matcher(fragment.code());
                while (path.find()) {
                    String p = path.group(1).replaceAll("[.,:;]+$", "");
                    if (p.startsWith("benchmark/target/") || p.contains("…") || p.contains("...")) {
                        continue; // built, or elided
                    }
                    Path resolved = p.startsWith("benchmark/") ? ROOT.resolve(p) : MODULE.resolve(p);
                    if (!exists(resolved)) {
                        defects.add(fragment.where() + ": no " + p);
                    }
                }
            }
        }
        assertEquals(List.of(), defects);
    }

    /** One JMH command line of a document: its selector (null: only {@code -p} options) and its {@code -p}s. */
    record Invocation(String where, String selector, Map<String, List<String>> params) {
        @Override
        public String toString() {
            return where + " `" + (selector == null ? "" : selector + " ") + params + "`";
        }
    }

    /** A piece of code in a document (a fenced line, continuation lines joined, or an inline span). */
    record Fragment(String where, String code) {
    }

    /** A word after a script's name in a document. */
    record Argument(String where, String value) {
    }

    static List<Invocation> invocations() {
        List<Invocation> found = new ArrayList<>();
        for (Path doc : DOCUMENTS) {
            for (Fragment fragment : fragments(doc)) {
                List<String> tokens = tokens(fragment.code());
                boolean selected = false;
                for (int i = 0; i < tokens.size(); i++) {
                    int start = selectorAt(tokens, i);
                    if (start >= 0) {
                        selected = true;
                        String selector = tokens.get(start);
                        if (!selector.startsWith("-")) { // -l, -lp: a listing
                            found.add(new Invocation(fragment.where(), isPlaceholder(selector) ? null : selector,
                                    params(tokens, start + 1)));
                        }
                    }
                }
                if (!selected && tokens.contains("-p")) {
                    found.add(new Invocation(fragment.where(), null, params(tokens, 0)));
                }
            }
        }
        return found;
    }

    /** The index of a JMH selector that the command at {@code i} starts, or -1. */
    private static int selectorAt(List<String> tokens, int i) {
        String t = tokens.get(i);
        boolean jar = t.equals("-jar") && i + 2 < tokens.size()
                && (tokens.get(i + 1).endsWith("benchmarks.jar") || tokens.get(i + 1).equals("$J"));
        if (jar) {
            return i + 2;
        }
        if (t.equals("--") && i + 1 < tokens.size() && BENCHMARK_CLASS.matcher(tokens.get(i + 1)).matches()) {
            return i + 1; // schedstat.py -- JMH ARGS (or a program of its own)
        }
        return i == 0 && BENCHMARK_CLASS.matcher(t).matches() && tokens.size() > 1 ? 0 : -1;
    }

    private static Map<String, List<String>> params(List<String> tokens, int from) {
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (int i = from; i < tokens.size() && !END_OF_COMMAND.contains(tokens.get(i)); i++) {
            if (i > from && selectorAt(tokens, i) >= 0 && i != 0) {
                break; // the next command
            }
            if (tokens.get(i).equals("-p") && i + 1 < tokens.size()) {
                String[] nameValues = tokens.get(i + 1).split("=", 2);
                if (nameValues[0].equals("name")) {
                    continue; // the syntax, -p name=v1,v2
                }
                List<String> values = nameValues.length < 2 ? List.of("") : List.of(nameValues[1].split("[,|]", -1));
                params.computeIfAbsent(nameValues[0], k -> new ArrayList<>()).addAll(values);
            }
        }
        return params;
    }

    /** {@code C}, {@code SIZE}, {@code …}: a value the reader fills in. */
    private static boolean isPlaceholder(String value) {
        return value.isEmpty() || value.matches("[A-Z]+") || value.contains("…") || value.contains("...");
    }

    static List<Argument> scriptArguments(String script) {
        List<Argument> found = new ArrayList<>();
        for (Path doc : DOCUMENTS) {
            for (Fragment fragment : fragments(doc)) {
                List<String> tokens = tokens(fragment.code());
                for (int i = 0; i < tokens.size(); i++) {
                    if (!tokens.get(i).endsWith("/" + script) && !tokens.get(i).equals(script)) {
                        continue;
                    }
                    for (int j = i + 1; j < tokens.size() && tokens.get(j).matches("[a-z0-9][a-z0-9-]*"); j++) {
                        if (END_OF_COMMAND.contains(tokens.get(j))) {
                            break;
                        }
                        found.add(new Argument(fragment.where(), tokens.get(j)));
                    }
                }
            }
        }
        return found;
    }

    /**
     * The code of a document: each line of a fenced block (lines ending in {@code \} joined to the next) and
     * each inline span outside them, a span broken over lines read as one line.
     */
    static List<Fragment> fragments(Path doc) {
        List<Fragment> fragments = new ArrayList<>();
        String name = ROOT.relativize(doc).toString();
        List<String> lines = read(doc).lines().toList();
        StringBuilder prose = new StringBuilder();
        int proseStart = 1;
        boolean fenced = false;
        StringBuilder continued = new StringBuilder();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.startsWith("```")) {
                if (!fenced) {
                    inlineSpans(name, proseStart, prose.toString(), fragments);
                    prose.setLength(0);
                }
                fenced = !fenced;
                proseStart = n + 2;
                continue;
            }
            if (!fenced) {
                prose.append(line).append('\n');
                continue;
            }
            if (line.endsWith("\\")) {
                continued.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            String code = continued + line;
            continued.setLength(0);
            if (!code.stripLeading().startsWith("#")) {
                fragments.add(new Fragment(name + ":" + (n + 1), code));
            }
        }
        inlineSpans(name, proseStart, prose.toString(), fragments);
        return fragments;
    }

    private static void inlineSpans(String name, int firstLine, String prose, List<Fragment> fragments) {
        Matcher span = INLINE_CODE.matcher(prose);
        while (span.find()) {
            int line = firstLine + (int) prose.substring(0, span.start()).chars().filter(c -> c == '\n').count();
            fragments.add(new Fragment(name + ":" + line, span.group(1).replace('\n', ' ')));
        }
    }

    /** Shell words: split at blanks, double-quoted words kept whole (without their quotes). */
    static List<String> tokens(String code) {
        List<String> tokens = new ArrayList<>();
        Matcher word = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(code);
        while (word.find()) {
            tokens.add(word.group(1) != null ? word.group(1) : word.group(2));
        }
        return tokens;
    }

    private static Set<String> paramsOf(BenchmarkListEntry benchmark) {
        return benchmark.getParams().hasValue() ? benchmark.getParams().get().keySet() : Set.of();
    }

    private static Set<String> classesOf(List<BenchmarkListEntry> benchmarks) {
        Set<String> names = new TreeSet<>();
        benchmarks.forEach(b -> names.add(simpleName(b)));
        return names;
    }

    private static String simpleName(BenchmarkListEntry benchmark) {
        String q = benchmark.getUserClassQName();
        return q.substring(q.lastIndexOf('.') + 1);
    }

    /** Whether {@code benchmark} takes {@code value} for {@code param}: a named value it maps, or a number of its field's type. */
    private static boolean accepts(BenchmarkListEntry benchmark, String param, String value) {
        Predicate<String> named = NAMED_VALUES.get(simpleName(benchmark) + "." + param);
        if (named != null) {
            return named.test(value);
        }
        Class<?> type;
        try {
            type = Class.forName(benchmark.getUserClassQName()).getField(param).getType();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no public field for @Param " + param + " in " + benchmark.getUserClassQName(), e);
        }
        try {
            if (type == int.class) {
                Integer.parseInt(value);
            } else if (type == long.class) {
                Long.parseLong(value);
            } else {
                throw new AssertionError(simpleName(benchmark) + "." + param + " is a " + type
                        + ": add the values it accepts to NAMED_VALUES");
            }
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean isTransport(String value) {
        return value.equals(Endpoints.TCP) || value.equals(Endpoints.INPROC);
    }

    private static boolean isPayload(String value) {
        try {
            Payloads.generate(value, 16, 1);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** As {@code RoundTrips.create} maps it: a name, {@code zmqzstd} also with a parallel sender's suffixes. */
    private static boolean isRoundTripContestant(String value) {
        if (!RoundTrips.NAMES.contains(PipelineContestants.Parallel.contestant(value))) {
            return false;
        }
        try {
            PipelineContestants.Parallel.of(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Set<String> caseLabels(Path script) throws IOException {
        Set<String> labels = new LinkedHashSet<>();
        Matcher label = CASE_LABEL.matcher(Files.readString(script));
        while (label.find()) {
            labels.addAll(List.of(label.group(1).split("\\|")));
        }
        return labels;
    }

    /** Whether the path exists; a {@code *} in its last element matches as a glob. */
    private static boolean exists(Path path) {
        Path normal = path.normalize();
        String last = normal.getFileName().toString();
        if (!last.contains("*")) {
            return Files.exists(normal);
        }
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + last);
        try (Stream<Path> siblings = Files.list(normal.getParent())) {
            return siblings.anyMatch(p -> glob.matches(p.getFileName()));
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

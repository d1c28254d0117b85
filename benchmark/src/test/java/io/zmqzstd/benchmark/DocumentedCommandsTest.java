package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.codec.CodecContestants;
import io.zmqzstd.benchmark.latency.RoundTrips;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ReplyRig;
import io.zmqzstd.benchmark.pipeline.ZmqZstdContestant;
import io.zmqzstd.benchmark.pipeline.ZmqZstdPubSub;
import io.zmqzstd.benchmark.stream.StreamWays;
import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import io.zmqzstd.nativelib.NativeLibrary;
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
import java.util.function.Function;
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
 * name is one the script defines; every script, result and link they point to is in the repository;
 * every way of {@code interleaved.sh} ({@code TRANSPORT_WAYS}, {@code PIPELINE_WAYS}, {@code PAIRS}, and any
 * way-shaped word in prose or a table) is one {@code TransportOverhead} or {@code PipelineOverhead} takes;
 * every {@code -Dzmqzstd.*} property, {@code io.zmqzstd.*} class or package, and environment variable set
 * for a script is one the code or the script has. Reads text only: no benchmark runs.
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

    /** The ways of an {@code interleaved.sh} command: {@code TRANSPORT_WAYS="…"}, {@code PIPELINE_WAYS="…"}, {@code PAIRS="A/B …"}. */
    private static final Pattern WAYS = Pattern.compile("\\b(TRANSPORT_WAYS|PIPELINE_WAYS|PAIRS)=(?:\"([^\"]*)\"|([^\\s\"]+))");
    /**
     * A word shaped as a way of {@code TransportOverhead} or {@code PipelineOverhead} (a name, then
     * {@code @…}, {@code #N}, {@code +read} or {@code ~}), anywhere in a document, prose and tables too.
     */
    private static final Pattern WAY_SHAPED =
            Pattern.compile("(?<![\\w.$/@#+~-])[a-z][a-zA-Z0-9]*(?:@[0-9][0-9a-z]*|#[0-9]+|\\+[a-z]+|~)+(?![\\w@#+~])");
    /**
     * Ways the documents name that no code accepts, as the documents say: measured in a build that was not
     * kept (BENCHMARKS.md, "Spinning instead of parking", results/experiments/spin-before-park/).
     */
    private static final Set<String> WAYS_NOT_KEPT = Set.of("zmqzstd@3s5000", "zmqzstd@3s20000");
    /** A system property of zmq-zstd set on a command line: {@code -Dzmqzstd.bench.ioThreads=2}. */
    private static final Pattern PROPERTY = Pattern.compile("-D(zmqzstd\\.[A-Za-z0-9_.]*[A-Za-z0-9_])(?:=(\\S*))?");
    /** A class or package of the project: {@code io.zmqzstd.reliability.Soak}, {@code io.zmqzstd.codec}. */
    private static final Pattern PROJECT_NAME = Pattern.compile("\\bio\\.zmqzstd(?:\\.[a-z][a-z0-9]*)+(?:\\.[A-Z][A-Za-z0-9_]*)?");
    /** Environment variables set for a script: {@code JVMS=6 OUT=… benchmark/interleaved.sh}. */
    private static final Pattern SCRIPT_ENV =
            Pattern.compile("((?:\\b[A-Z][A-Z0-9_]*=(?:\"[^\"]*\"|\\S*)\\s+)+)([^\\s=]+\\.(?:sh|py))(?!\\S)");
    private static final Pattern ENV_NAME = Pattern.compile("\\b([A-Z][A-Z0-9_]*)=");

    /**
     * The system properties zmq-zstd and its benchmarks read, with the values each accepts, from the
     * constants the code reads them by.
     */
    private static final Map<String, Predicate<String>> PROPERTIES = Map.of(
            NativeLibrary.ZSTD.pathProperty(), v -> true,
            NativeLibrary.ZMQ.pathProperty(), v -> true,
            PipelineContestants.IO_THREADS_PROPERTY, v -> v.matches("[1-9][0-9]*"),
            PipelineContestants.PAYLOAD_PROPERTY, DocumentedCommandsTest::isPayload,
            ZmqZstdContestant.PAYLOAD_FORM_PROPERTY, ZmqZstdContestant.PAYLOAD_FORMS::contains,
            ZmqZstdContestant.RECEIVE_FORM_PROPERTY, ZmqZstdContestant.RECEIVE_FORMS::contains);

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
            Map.entry("PipelineBenchmark.hop", List.of(PipelineContestants.HOP_NONE, PipelineContestants.HOP_PROXY,
                    PipelineContestants.HOP_LIBZMQ_PROXY)::contains),
            Map.entry("LatencyBenchmark.contestant", DocumentedCommandsTest::isRoundTripContestant),
            Map.entry("LatencyBenchmark.transport", DocumentedCommandsTest::isTransport),
            Map.entry("LatencyBenchmark.size", v -> v.matches("[0-9]+") && Integer.parseInt(v) >= Stamp.BYTES),
            Map.entry("PoolBenchmark.cache", List.of("thread", "shared")::contains),
            Map.entry("PublishBenchmark.topicForm", ZmqZstdPubSub.TOPIC_FORMS::contains),
            Map.entry("PublishBenchmark.transport", DocumentedCommandsTest::isTransport),
            Map.entry("ReplyBenchmark.way", ReplyRig.WAYS::contains),
            Map.entry("ReplyBenchmark.backend", DocumentedCommandsTest::isTransport),
            Map.entry("StreamBenchmark.way", StreamWays.NAMES::contains));

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
        for (Fragment fragment : allFragments()) {
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
    void shouldGiveInterleavedShOnlyWaysItsToolsAccept() throws IOException {
        List<String> defects = new ArrayList<>();
        int found = 0;
        for (Fragment fragment : allFragments()) {
            Map<String, List<String>> ways = new LinkedHashMap<>();
            Matcher m = WAYS.matcher(fragment.code());
            while (m.find()) {
                String value = m.group(2) != null ? m.group(2) : m.group(3);
                ways.computeIfAbsent(m.group(1), k -> new ArrayList<>()).addAll(List.of(value.trim().split("\\s+")));
            }
            for (Map.Entry<String, List<String>> e : ways.entrySet()) {
                for (String way : e.getValue()) {
                    found++;
                    String defect = switch (e.getKey()) {
                        case "TRANSPORT_WAYS" -> isPlaceholder(way) ? null : transportWayDefect(way);
                        case "PIPELINE_WAYS" -> isPlaceholder(way) ? null : pipelineWayDefect(way);
                        default -> pairDefect(way, ways);
                    };
                    if (defect != null) {
                        defects.add(fragment.where() + " `" + fragment.code().strip() + "`: " + e.getKey() + " " + defect);
                    }
                }
            }
        }
        assertTrue(found > 50, "ways found in TRANSPORT_WAYS, PIPELINE_WAYS and PAIRS: " + found);
        // and the ways interleaved.sh gives its tools itself: PIPELINE_WAYS's default, switchover's pair
        String script = Files.readString(MODULE.resolve("interleaved.sh"));
        scriptWays(script, "\\$\\{PIPELINE_WAYS:-([^}]*)}", "default PIPELINE_WAYS", DocumentedCommandsTest::pipelineWayDefect,
                defects);
        scriptWays(script, "ways=\\(([^)]*)\\)", "switchover's ways", DocumentedCommandsTest::transportWayDefect, defects);
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldNameOnlyWaysThatExistInProseAndTables() {
        List<String> defects = new ArrayList<>();
        int found = 0;
        for (Path doc : DOCUMENTS) {
            String text = read(doc);
            Matcher way = WAY_SHAPED.matcher(text);
            while (way.find()) {
                found++;
                String w = way.group();
                if (!WAYS_NOT_KEPT.contains(w) && transportWayDefect(w) != null && pipelineWayDefect(w) != null) {
                    int line = 1 + (int) text.substring(0, way.start()).chars().filter(c -> c == '\n').count();
                    defects.add(ROOT.relativize(doc) + ":" + line + ": " + w + " is no way of either tool: "
                            + transportWayDefect(w) + "; " + pipelineWayDefect(w));
                }
            }
        }
        assertTrue(found > 100, "way-shaped words found: " + found);
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldSetOnlySystemPropertiesTheCodeReads() {
        List<String> defects = new ArrayList<>();
        int found = 0;
        for (Fragment fragment : allFragments()) {
            Matcher property = PROPERTY.matcher(fragment.code());
            while (property.find()) {
                found++;
                Predicate<String> accepts = PROPERTIES.get(property.group(1));
                String value = property.group(2) == null ? "" : property.group(2).replaceAll("[\"',;)]+$", "");
                if (accepts == null) {
                    defects.add(fragment.where() + ": no code reads -D" + property.group(1) + " (it reads "
                            + new TreeSet<>(PROPERTIES.keySet()) + ")");
                } else if (!isPlaceholder(value) && !value.startsWith("<") && !accepts.test(value)) {
                    defects.add(fragment.where() + ": -D" + property.group(1) + " does not take " + value);
                }
            }
        }
        assertTrue(found > 10, "system properties found: " + found);
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldNameOnlyClassesAndPackagesThatExist() throws IOException {
        List<Path> sourceRoots = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.toList()) {
                for (String set : List.of("main", "test")) {
                    if (Files.isDirectory(module.resolve("src").resolve(set).resolve("java"))) {
                        sourceRoots.add(module.resolve("src").resolve(set).resolve("java"));
                    }
                }
            }
        }
        List<String> defects = new ArrayList<>();
        int found = 0;
        for (Fragment fragment : allFragments()) {
            Matcher name = PROJECT_NAME.matcher(fragment.code());
            while (name.find()) {
                found++;
                String relative = name.group().replace('.', '/');
                if (sourceRoots.stream().noneMatch(r -> Files.isRegularFile(r.resolve(relative + ".java"))
                        || Files.isDirectory(r.resolve(relative)))) {
                    defects.add(fragment.where() + ": no class or package " + name.group() + " in any module");
                }
            }
        }
        assertTrue(found > 10, "class and package names found: " + found);
        assertEquals(List.of(), defects);
    }

    @Test
    void shouldSetOnlyEnvironmentVariablesTheScriptsRead() throws IOException {
        List<String> defects = new ArrayList<>();
        int found = 0;
        String common = Files.readString(MODULE.resolve("scripts/common.sh"));
        for (Fragment fragment : allFragments()) {
            Matcher command = SCRIPT_ENV.matcher(fragment.code());
            while (command.find()) {
                String name = command.group(2);
                Path script = Stream.of(ROOT.resolve(name), MODULE.resolve(name), MODULE.resolve("scripts").resolve(name))
                        .filter(Files::isRegularFile).findFirst().orElse(null);
                if (script == null || fragment.code().substring(command.end()).matches("(?s).*\\s--\\s.*")) {
                    continue; // elided (…/run.sh), or the environment of the program a wrapper runs
                }
                String text = Files.readString(script);
                if (text.contains("scripts/common.sh")) {
                    text += common;
                }
                Matcher variable = ENV_NAME.matcher(command.group(1).replaceAll("\"[^\"]*\"", ""));
                while (variable.find()) {
                    found++;
                    String v = variable.group(1);
                    // $V, ${V...} in a shell script; os.environ["V"], os.environ.get("V"), getenv("V") in Python
                    if (!Pattern.compile("\\$\\{?" + v + "\\b|(?:environ(?:\\.get\\()?\\[?|getenv\\()[\"']" + v + "[\"']")
                            .matcher(text).find()) {
                        defects.add(fragment.where() + ": " + name + " does not read " + v);
                    }
                }
            }
        }
        assertTrue(found > 50, "environment variables found: " + found);
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

    /** The code of every document ({@link #fragments}). */
    static List<Fragment> allFragments() {
        return DOCUMENTS.stream().flatMap(d -> fragments(d).stream()).toList();
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

    /** Null if {@code TransportOverhead} takes {@code way}, else why not. */
    private static String transportWayDefect(String way) {
        return wayDefect("TransportOverhead", TransportOverhead.Way::of, way);
    }

    /** Null if {@code PipelineOverhead} takes {@code way}, else why not. */
    private static String pipelineWayDefect(String way) {
        return wayDefect("PipelineOverhead", PipelineOverhead.Way::of, way);
    }

    private static String wayDefect(String tool, Function<String, ?> parse, String way) {
        try {
            parse.apply(way);
            return null;
        } catch (IllegalArgumentException e) {
            return tool + ": " + e.getMessage();
        }
    }

    /** The ways {@code interleaved.sh} gives a tool itself, found by {@code regex}'s group 1. */
    private static void scriptWays(String script, String regex, String what, Function<String, String> defectOf,
            List<String> defects) {
        Matcher ways = Pattern.compile(regex).matcher(script);
        assertTrue(ways.find(), "no " + what + " in interleaved.sh");
        for (String way : ways.group(1).split("\\s+")) {
            String defect = defectOf.apply(way);
            if (defect != null) {
                defects.add("interleaved.sh: " + what + " " + defect);
            }
        }
    }

    /** Null if both ways of {@code pair} ({@code A/B}) are ways of the same command, else why not. */
    private static String pairDefect(String pair, Map<String, List<String>> ways) {
        String[] ab = pair.split("/", -1);
        List<String> given = new ArrayList<>(ways.getOrDefault("TRANSPORT_WAYS", List.of()));
        given.addAll(ways.getOrDefault("PIPELINE_WAYS", List.of()));
        if (ab.length != 2) {
            return "has " + pair + ", not A/B";
        }
        for (String way : ab) {
            if (!given.contains(way)) {
                return "pairs " + way + " (in " + pair + "), not a way the command gives: " + given;
            }
        }
        return null;
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

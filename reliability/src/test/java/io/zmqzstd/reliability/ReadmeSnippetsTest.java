package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.zmqzstd.testkit.Ports;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code java} blocks that users copy from the READMEs (the root's and every module's)
 * compile against the current API, and those that are a whole flow (a sender and a receiver) run
 * end to end and deliver their payload intact. Each block is compiled in-process as the body of a
 * method in a class that declares the names it takes from its surroundings ({@link #SCAFFOLDING});
 * a block without an entry there fails, so a new block has to be registered, and a diagnostic names
 * the README, the block and the README's line.
 */
class ReadmeSnippetsTest {

    /** The repository root, seen from this module's directory (Maven runs tests there). */
    private static final Path ROOT = Path.of("..");
    private static final String PACKAGE = ReadmeSnippetsTest.class.getPackageName();
    private static final String IMPORTS = """
            import io.zmqzstd.codec.*;
            import io.zmqzstd.pipeline.*;
            import io.zmqzstd.transport.*;
            import java.lang.foreign.*;
            import java.nio.file.*;
            import java.time.*;
            import java.util.*;
            """;

    /**
     * The declarations each block needs, by {@code README#block} (blocks count from 1 in the order
     * of the file). Members of a subclass of {@link Scaffold}, whose {@code log} and
     * {@code delivered} they may use.
     */
    private static final Map<String, String> SCAFFOLDING = Map.of(
            "README.md#1", """
                    long length = 1000;
                    volatile boolean running = true;
                    void handle(MemorySegment part) { delivered(part); running = delivered.size() < 2; }
                    """,
            "codec/README.md#1", """
                    ZstdCompressor c;
                    MemorySegment src, dst;
                    long srcOffset, srcLength, dstOffset, dstCapacity;
                    byte[] bytes;
                    """,
            "transport/README.md#1", """
                    void fill(MemorySegment segment) { segment.copyFrom(MemorySegment.ofArray(ReadmeSnippetsTest.payload(segment.byteSize()))); }
                    /** The snippet's receive loop has no exit: the first message ends it. */
                    void consume(long address, long size) { delivered(MemorySegment.ofAddress(address).reinterpret(size)); throw new Stop(); }
                    """,
            "transport/README.md#2", """
                    ZmqSocket push;
                    """,
            "transport/README.md#3", """
                    ZmqContext ctx;
                    """,
            "transport/README.md#4", "",
            "pipeline/README.md#1", """
                    MemorySegment payloadSegment = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, ReadmeSnippetsTest.payload(16 << 10));
                    void handle(MemorySegment body) { delivered(body); }
                    """,
            "pipeline/README.md#2", """
                    DecompressingReceiver receiver;
                    CompressingSender sender;
                    static final java.nio.charset.Charset UTF_8 = java.nio.charset.StandardCharsets.UTF_8;
                    byte[] handle(ReceivedMessage request) { return new byte[0]; }
                    """,
            "pipeline/README.md#3", """
                    ZmqSocket push;
                    List<MemorySegment> events;
                    """,
            "pipeline/README.md#4", """
                    ParallelCompressingSender sender;
                    Encoder encoder;
                    Object event;
                    long maxEventBytes;
                    """);

    /**
     * How a block that is a whole flow runs: the texts it must contain and what replaces them for
     * the run (fixed ports become {@code PORT}, a free one; placeholder files real ones), whether
     * its top-level statements (split at blank lines) run each on its own thread, and the
     * payloads its receiver must hand to {@link Scaffold#delivered}, in order.
     */
    private record Flow(Map<String, String> replacements, boolean concurrentParts, List<byte[]> expected) {
    }

    private static final Map<String, Flow> FLOWS = Map.of(
            "README.md#1", new Flow(Map.of(
                    "\"tcp://collector:5555\"", "\"tcp://127.0.0.1:PORT\"",
                    "\"tcp://*:5555\"", "\"tcp://127.0.0.1:PORT\"",
                    "\"telemetry.dict\"", "\"DICTIONARY\""),
                    true, List.of(new byte[1000], new byte[1000])), // the snippet sends its zeroed event twice
            "transport/README.md#1", new Flow(Map.of(), false, List.of(payload(65536))),
            // two sends, one receive: the second message is dropped with the receiver's context
            "pipeline/README.md#1", new Flow(Map.of("\"tcp://127.0.0.1:5555\"", "\"tcp://127.0.0.1:PORT\""),
                    false, List.of(payload(16 << 10))));

    /**
     * Declarations for a second run of a block, in which a placeholder throws
     * {@link Scaffold.Failure} between the snippet's taking something and its handing it on, and
     * {@link Scaffold#check()} then asserts that the snippet gave it back.
     */
    private static final Map<String, String> FAILING = Map.of(
            "transport/README.md#1", """
                    void fill(MemorySegment segment) { throw new Failure(); }
                    void consume(long address, long size) { }
                    """,
            "pipeline/README.md#4", """
                    final ZmqContext ctx = new ZmqContext();
                    final ParallelCompressingSender sender = ParallelCompressingSender.builder(ctx.socket(SocketType.PUSH)).build();
                    final Encoder encoder = (e, out) -> { throw new Failure(); };
                    Object event;
                    long maxEventBytes = 64;
                    /** A claim left open refuses the next one. */
                    @Override void check() { try (ctx; sender) { sender.claim(1, 0); sender.abort(); } }
                    """);

    /** A {@code java} block of a README: where it is and its text, fences excluded. */
    record Block(String readme, int number, int firstLine, String code) {
        String key() {
            return readme + "#" + number;
        }

        @Override
        public String toString() {
            return key();
        }
    }

    /**
     * What a block's class extends: a stand-in for the reader's logger, and a record of the
     * payloads the snippet's receiver handed over, and the hook a failing run checks with. Its
     * types serve as placeholders too: a type declared in a block's class would be a second class
     * to define. Package-private is enough: a block's class is
     * defined at run time in this class's loader and package ({@link MethodHandles.Lookup#defineClass}).
     */
    abstract static class Scaffold {
        /** A stand-in for whatever logger the reader's service uses. */
        interface Log {
            void warn(String message);
        }

        /** A stand-in for the reader's serialiser, which writes an event into native memory. */
        interface Encoder {
            long encode(Object event, MemorySegment out);
        }

        /** Thrown by a placeholder to end a snippet that would otherwise wait forever. */
        static final class Stop extends RuntimeException {
            Stop() {
                super("the snippet's work is done", null, false, false);
            }
        }

        /** What a failing placeholder throws. */
        static final class Failure extends RuntimeException {
            Failure() {
                super("a placeholder failed, as the reader's code may", null, false, false);
            }
        }

        final List<String> warnings = new CopyOnWriteArrayList<>();
        final Log log = warnings::add;
        final List<byte[]> delivered = new CopyOnWriteArrayList<>();

        /** Copies a part the snippet received: its view ends at the snippet's next receive. */
        void delivered(MemorySegment part) {
            delivered.add(part.toArray(ValueLayout.JAVA_BYTE));
        }

        abstract void run(int part) throws Exception;

        /** After a failing run: what must hold of the state the snippet left. */
        void check() throws Exception {
        }
    }

    /**
     * Every README of the project: the root's and each module's (a module's README with a java
     * block that {@link #SCAFFOLDING} does not name fails to compile, so none is passed over).
     */
    static List<String> readmes() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT, 2)) {
            List<String> found = files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .map(p -> ROOT.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> !p.startsWith("."))
                    .sorted()
                    .toList();
            assertTrue(found.containsAll(List.of("README.md", "codec/README.md", "transport/README.md",
                    "pipeline/README.md")), () -> "READMEs found from " + ROOT.toAbsolutePath() + ": " + found);
            return found;
        }
    }

    static Stream<Block> blocks() throws IOException {
        List<Block> all = new ArrayList<>();
        for (String readme : readmes()) {
            all.addAll(javaBlocks(readme));
        }
        return all.stream();
    }

    static Stream<Block> flows() throws IOException {
        return blocks().filter(b -> FLOWS.containsKey(b.key()));
    }

    static Stream<Block> failing() throws IOException {
        return blocks().filter(b -> FAILING.containsKey(b.key()));
    }

    @Test
    void shouldRegisterEveryBlockAndNoOther() throws IOException {
        TreeSet<String> found = blocks().map(Block::key).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(found.size() >= 8, () -> "too few java blocks found from " + ROOT.toAbsolutePath() + ": " + found);
        TreeSet<String> stale = new TreeSet<>(SCAFFOLDING.keySet());
        stale.removeAll(found);
        assertEquals(Collections.emptySet(), stale, "SCAFFOLDING entries for blocks the READMEs no longer have");
        assertTrue(found.containsAll(FLOWS.keySet()), () -> "FLOWS names blocks that are gone: " + FLOWS.keySet());
        assertTrue(found.containsAll(FAILING.keySet()), () -> "FAILING names blocks that are gone: " + FAILING.keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("blocks")
    void shouldCompileEveryJavaBlock(Block block, @TempDir Path out) {
        compile(block, SCAFFOLDING.get(block.key()), List.of(block.code()), className(block, "Compiled"), out).ifPresent(report -> fail(report));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flows")
    void shouldRunEveryWholeFlowEndToEnd(Block block, @TempDir Path out) throws Exception {
        Flow flow = FLOWS.get(block.key());
        String code = block.code();
        String port = Integer.toString(Ports.unused());
        for (Map.Entry<String, String> r : flow.replacements().entrySet()) {
            assertTrue(code.contains(r.getKey()), () -> block + " no longer contains " + r.getKey() + ": update FLOWS");
            code = code.replace(r.getKey(), r.getValue().replace("PORT", port)
                    .replace("DICTIONARY", dictionaryFile().toString()));
        }
        List<String> parts = flow.concurrentParts() ? List.of(code.split("\n\n")) : List.of(code);
        Ran ran = run(block, "Flow", SCAFFOLDING.get(block.key()), parts, out);
        if (ran.failure() != null) {
            fail(block + " threw", ran.failure());
        }
        assertEquals(List.of(), ran.logged(), block + " logged");
        assertEquals(flow.expected().size(), ran.snippet().delivered.size(), block + ": payloads delivered");
        for (int i = 0; i < flow.expected().size(); i++) {
            assertArrayEquals(flow.expected().get(i), ran.snippet().delivered.get(i), block + ": payload " + i);
        }
    }

    /**
     * A snippet that holds something between two calls gives it back when the reader's code
     * between them throws: the pooled buffer of a failed {@code fill} is released (else the pool
     * logs a LEAK at the context's close), a claim whose serialiser failed is aborted (else the
     * sender refuses the next claim). The placeholder's own exception comes out, nothing else.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("failing")
    void shouldGiveBackWhatItHoldsWhenAPlaceholderThrows(Block block, @TempDir Path out) throws Exception {
        Ran ran = run(block, "Failing", FAILING.get(block.key()), List.of(block.code()), out);
        assertTrue(ran.failure() instanceof Scaffold.Failure, () -> block + " did not pass the placeholder's failure on: "
                + ran.failure());
        ran.snippet().check();
        assertEquals(List.of(), ran.logged(), block + " logged");
    }

    /** What running a block's parts left: the snippet object, the first throwable, the library's log records. */
    private record Ran(Scaffold snippet, Throwable failure, List<String> logged) {
    }

    /**
     * Compiles {@code parts} of {@code block} with {@code declarations}, defines the class here and
     * runs each part on its own thread, the last (a flow's receiver) first, for at most 20 s.
     */
    private static Ran run(Block block, String purpose, String declarations, List<String> parts, Path out) throws Exception {
        String name = className(block, purpose);
        compile(block, declarations, parts, name, out).ifPresent(report -> fail(report));
        Path classes = out.resolve(PACKAGE.replace('.', '/'));
        try (Stream<Path> files = Files.list(classes)) {
            // a nested type would need defining too, and it and its host each need the other first:
            // placeholder types belong in Scaffold
            assertEquals(List.of(name + ".class"), files.map(f -> f.getFileName().toString()).toList(),
                    "declarations of " + block + " that compile to more than one class");
        }
        Scaffold snippet = (Scaffold) MethodHandles.lookup().defineClass(Files.readAllBytes(classes.resolve(name + ".class")))
                .getDeclaredConstructor().newInstance();
        List<String> logged = new CopyOnWriteArrayList<>();
        Logger library = Logger.getLogger("io.zmqzstd");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    logged.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        library.addHandler(handler);
        try {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            Scaffold s = snippet;
            for (int i = parts.size() - 1; i >= 0; i--) {
                int part = i;
                threads.add(Thread.ofPlatform().daemon().name(block + " part " + (part + 1)).start(() -> {
                    try {
                        s.run(part);
                    } catch (Scaffold.Stop done) {
                        // the placeholder ended the snippet's loop
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(20_000);
                assertTrue(!t.isAlive() || failure.get() != null, () -> t.getName() + " still running after 20 s, "
                        + s.delivered.size() + " payloads delivered");
            }
            return new Ran(snippet, failure.get(), logged);
        } finally {
            library.removeHandler(handler);
        }
    }

    /** The harness catches drift: a call the API does not have fails, named by README, block and line. */
    @Test
    void shouldFailOnASnippetThatDriftedFromTheApi(@TempDir Path out) throws IOException {
        Block real = javaBlocks("pipeline/README.md").getFirst();
        List<String> lines = List.of(real.code().split("\n"));
        int line = real.firstLine() + lines.indexOf(lines.stream().filter(l -> l.contains(".level(3)")).findFirst()
                .orElseThrow(() -> new AssertionError(real + " no longer calls .level(3): pick another drift")));
        Block drifted = new Block(real.readme(), real.number(), real.firstLine(),
                real.code().replace(".level(3)", ".compressionLevel(3)"));
        String report = compile(drifted, SCAFFOLDING.get(real.key()), List.of(drifted.code()), "Drifted", out)
                .orElseThrow(() -> new AssertionError("a snippet calling a method the builder does not have compiled"));
        assertTrue(report.startsWith("pipeline/README.md block 1, line " + line + ": cannot find symbol"), report);
        assertTrue(report.contains("compressionLevel(int)"), report);
    }

    /** A block that SCAFFOLDING does not name fails, so a new README block has to be registered. */
    @Test
    void shouldRefuseABlockWithoutScaffolding(@TempDir Path out) {
        Block unknown = new Block("transport/README.md", 9, 1, "ctx.close();");
        String report = compile(unknown, SCAFFOLDING.get(unknown.key()), List.of(unknown.code()), "Unknown", out)
                .orElseThrow();
        assertTrue(report.startsWith("transport/README.md block 9 has no SCAFFOLDING entry"), report);
    }

    /**
     * Compiles {@code parts} as the methods of a subclass of {@link Scaffold} named {@code name},
     * with {@code declarations} (null: the block has none registered), into {@code out}.
     *
     * @return the compiler's diagnostics, each with the README's line, when it failed; empty when it compiled
     */
    private static Optional<String> compile(Block block, String declarations, List<String> parts, String name, Path out) {
        if (declarations == null) {
            return Optional.of(block.readme() + " block " + block.number() + " has no SCAFFOLDING entry in "
                    + ReadmeSnippetsTest.class.getSimpleName() + ": declare the names it uses there");
        }
        StringBuilder source = new StringBuilder("package " + PACKAGE + ";\n").append(IMPORTS)
                .append("final class ").append(name).append(" extends ReadmeSnippetsTest.Scaffold {\n")
                .append(declarations)
                .append("@Override void run(int part) throws Exception {\n switch (part) {\n");
        for (int i = 0; i < parts.size(); i++) {
            source.append("  case ").append(i).append(" -> part").append(i).append("();\n");
        }
        source.append("  default -> throw new IndexOutOfBoundsException(part);\n }\n}\n");
        // README line of each wrapped line that holds snippet code
        Map<Long, Integer> readmeLines = new LinkedHashMap<>();
        int readmeLine = block.firstLine();
        for (int i = 0; i < parts.size(); i++) {
            source.append("void part").append(i).append("() throws Exception {\n");
            long wrappedLine = source.chars().filter(c -> c == '\n').count() + 1;
            for (int n = parts.get(i).split("\n", -1).length; n > 0; n--) {
                readmeLines.put(wrappedLine++, readmeLine++);
            }
            readmeLine++; // the blank line the parts were split at
            source.append(parts.get(i)).append("\n}\n");
        }
        source.append("}\n");

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "no system Java compiler: the tests need a JDK");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringWriter output = new StringWriter();
        boolean ok = javac.getTask(output, null, diagnostics,
                List.of("-proc:none", "-Xlint:none", "-classpath", System.getProperty("java.class.path"), "-d", out.toString()),
                null, List.of(file)).call();
        if (ok) {
            return Optional.empty();
        }
        StringBuilder report = new StringBuilder();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            Integer line = readmeLines.get(d.getLineNumber());
            report.append(block.readme()).append(" block ").append(block.number())
                    .append(line == null ? ", scaffolding line " + d.getLineNumber() : ", line " + line)
                    .append(": ").append(d.getMessage(null)).append('\n');
        }
        return Optional.of(report.append(output).append("wrapped source:\n").append(source).toString());
    }

    private static String className(Block block, String purpose) {
        return purpose + "_" + block.key().replaceAll("[^A-Za-z0-9]", "_");
    }

    /** Bytes that compress (a run of numbered JSON-like events) and differ all along. */
    static byte[] payload(long size) {
        byte[] bytes = new byte[Math.toIntExact(size)];
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < bytes.length; i++) {
            text.append("{\"seq\":").append(i).append(",\"value\":").append(i * 7919 % 1000).append("}\n");
        }
        System.arraycopy(text.toString().getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, bytes.length);
        return bytes;
    }

    /** The reliability tests' trained dictionary, as a file (test resources are copied to a directory). */
    private static Path dictionaryFile() {
        try {
            return Path.of(ReadmeSnippetsTest.class.getResource(Frames.DICTIONARY_RESOURCE).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** The {@code java} fences of one README (indented ones inside list items too), in order. */
    private static List<Block> javaBlocks(String readme) throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve(readme), StandardCharsets.UTF_8);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```java")) {
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                    end++;
                }
                assertTrue(end < lines.size(), () -> readme + ":" + start + ": a java block that never ends");
                blocks.add(new Block(readme, blocks.size() + 1, start + 1, String.join("\n", lines.subList(start, end))));
                i = end;
            }
        }
        return blocks;
    }
}

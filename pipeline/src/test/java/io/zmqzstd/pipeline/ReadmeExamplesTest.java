package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code java} code block of the project's READMEs compiles against the current API: a
 * renamed method or a changed signature fails here, not in a reader's editor. Each block becomes
 * the body of a method; the names it takes from its surroundings (a payload, a logger) are
 * declared per block below. A new block without declarations fails {@link #everyBlockIsListed}.
 */
class ReadmeExamplesTest {

    /** Repository root, seen from this module's directory (Maven runs tests there). */
    private static final Path ROOT = Path.of("..");

    private static final String IMPORTS = """
            import io.zmqzstd.codec.*;
            import io.zmqzstd.pipeline.*;
            import io.zmqzstd.transport.*;
            import java.lang.foreign.*;
            import java.nio.file.*;
            import java.time.*;
            import java.util.*;
            """;

    /** A stand-in for whatever logger the reader's service uses. */
    private static final String LOG = "interface Log { void warn(String message); }\nLog log;\n";

    /** README path (from the root) to the declarations of each of its java blocks, in order. */
    private static final Map<String, List<String>> DECLARATIONS = Map.of(
            "README.md", List.of(LOG + """
                    long length;
                    boolean running;
                    void handle(MemorySegment part) { }
                    """),
            "codec/README.md", List.of("""
                    ZstdCompressor c;
                    MemorySegment src, dst;
                    long srcOffset, srcLength, dstOffset, dstCapacity;
                    byte[] bytes;
                    """),
            "pipeline/README.md", List.of(LOG + """
                    MemorySegment payloadSegment;
                    void handle(MemorySegment body) { }
                    """, """
                    ZmqSocket push;
                    List<MemorySegment> events;
                    """, """
                    interface Encoder { long encode(Object event, MemorySegment out); }
                    ParallelCompressingSender sender;
                    Encoder encoder;
                    Object event;
                    long maxEventBytes;
                    """),
            "transport/README.md", List.of("""
                    void fill(MemorySegment segment) { }
                    void consume(long address, long size) { }
                    """, LOG + """
                    ZmqSocket push;
                    """, """
                    ZmqContext ctx;
                    """));

    static Stream<Arguments> blocks() throws IOException {
        List<Arguments> all = new ArrayList<>();
        for (var e : DECLARATIONS.entrySet()) {
            List<String> code = javaBlocks(e.getKey());
            for (int i = 0; i < code.size() && i < e.getValue().size(); i++) {
                all.add(Arguments.of(e.getKey(), i, code.get(i), e.getValue().get(i)));
            }
        }
        return all.stream();
    }

    @Test
    void everyBlockIsListed() throws IOException {
        List<String> readmes;
        try (Stream<Path> files = Files.walk(ROOT, 2)) {
            readmes = files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/."))
                    .map(p -> ROOT.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        }
        assertTrue(readmes.contains("README.md"), () -> "no README.md found from " + ROOT.toAbsolutePath());
        for (String readme : readmes) {
            int blocks = javaBlocks(readme).size();
            int declared = DECLARATIONS.getOrDefault(readme, List.of()).size();
            assertEquals(blocks, declared, readme + " has " + blocks + " java blocks and " + declared
                    + " sets of declarations in ReadmeExamplesTest.DECLARATIONS");
        }
    }

    @ParameterizedTest(name = "{0} block {1}")
    @MethodSource("blocks")
    void compiles(String readme, int index, String code, String declarations, @TempDir Path out) {
        String name = "Example" + index;
        String source = IMPORTS + "class " + name + " {\n" + declarations
                + "void example() throws Exception {\n" + code + "\n}\n}\n";
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
                List.of("-proc:none", "-classpath", System.getProperty("java.class.path"), "-d", out.toString()),
                null, List.of(file)).call();
        assertTrue(ok, () -> readme + ", java block " + index + " does not compile:\n"
                + diagnostics.getDiagnostics().stream()
                        .map(d -> "  line " + d.getLineNumber() + " of the wrapped source: " + d.getMessage(null))
                        .reduce("", (a, b) -> a + b + "\n")
                + output + "wrapped source:\n" + source);
    }

    /** The contents of the {@code ```java} fences of one README, in order. */
    private static List<String> javaBlocks(String readme) throws IOException {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : Files.readAllLines(ROOT.resolve(readme), StandardCharsets.UTF_8)) {
            if (current == null) {
                if (line.strip().equals("```java")) {
                    current = new StringBuilder();
                }
            } else if (line.strip().equals("```")) {
                blocks.add(current.toString());
                current = null;
            } else {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }
}

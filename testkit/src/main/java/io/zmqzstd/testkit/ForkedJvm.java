package io.zmqzstd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test class's {@code main} in a child JVM on the test's class path, for checks that need JVM
 * settings of their own from start-up: system properties read once, a heap size, a compiler level,
 * native memory tracking.
 */
public final class ForkedJvm {

    /** How long {@link #run(Class, List, String...)} lets the child run. */
    public static final Duration LIMIT = Duration.ofMinutes(2);

    private ForkedJvm() {
    }

    /**
     * Runs {@code main.main(args)} in a child JVM with native access enabled and {@code jvmOptions},
     * waits up to {@link #LIMIT} and asserts that it exited with 0.
     *
     * @param main the class whose {@code main} the child runs
     * @param jvmOptions options for the child JVM, before its class path
     * @param args the arguments to {@code main}
     * @return everything the child printed, standard error included
     * @throws IOException when the child cannot be started or its output not read
     * @throws InterruptedException when interrupted while waiting for the child
     */
    public static String run(Class<?> main, List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        return run(LIMIT, main, jvmOptions, args);
    }

    /**
     * As {@link #run(Class, List, String...)}, with the child killed, and the assertion failed, once
     * it has run for {@code limit}.
     *
     * @param limit how long the child may run
     * @param main the class whose {@code main} the child runs
     * @param jvmOptions options for the child JVM, before its class path
     * @param args the arguments to {@code main}
     * @return everything the child printed, standard error included
     * @throws IOException when the child cannot be started or its output not read
     * @throws InterruptedException when interrupted while waiting for the child
     */
    public static String run(Duration limit, Class<?> main, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return run(limit, Map.of(), main, jvmOptions, args);
    }

    /**
     * As {@link #run(Class, List, String...)}, with {@code environment} added to the child's
     * environment (what native libraries read through {@code getenv}, which a running JVM cannot set).
     *
     * @param environment variables to set in the child, over the test's own
     * @param main the class whose {@code main} the child runs
     * @param jvmOptions options for the child JVM, before its class path
     * @param args the arguments to {@code main}
     * @return everything the child printed, standard error included
     * @throws IOException when the child cannot be started or its output not read
     * @throws InterruptedException when interrupted while waiting for the child
     */
    public static String run(Map<String, String> environment, Class<?> main, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return run(LIMIT, environment, main, jvmOptions, args);
    }

    private static String run(Duration limit, Map<String, String> environment, Class<?> main, List<String> jvmOptions,
            String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        // Its output goes to a file, not to a pipe that the test reads to its end first: that read
        // returns only when the child ends, so a hung child would hang the test despite the limit.
        Path log = Files.createTempFile("forked-jvm", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            Process child = builder.start();
            boolean finished = false;
            try {
                finished = child.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                if (!finished) {
                    child.destroyForcibly().waitFor();
                }
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(finished, "forked JVM still running after " + limit + ", killed: " + main.getName() + "; it printed: " + out);
            assertEquals(0, child.exitValue(), () -> "forked JVM " + main.getName() + " failed; it printed: " + out);
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}

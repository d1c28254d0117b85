package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a test class's {@code main} in a new JVM: for settings that must be there at start-up. */
final class ForkedJvm {

    private ForkedJvm() {
    }

    /**
     * Runs {@code main} with this JVM's class path, native access enabled and {@code jvmOptions}
     * (system properties, heap limits), and asserts that it exits with 0.
     *
     * @return everything it printed, standard error included
     */
    static String run(List<String> jvmOptions, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        // Its output goes to a file, not a pipe read to the end first, so that the time limit holds
        // even when the child hangs (a read of the pipe returned only when the child ended).
        Path log = Files.createTempFile("forked-jvm", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean finished = false;
            try {
                finished = p.waitFor(120, TimeUnit.SECONDS);
            } finally {
                if (!finished) {
                    p.destroyForcibly().waitFor();
                }
            }
            String text = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(finished, "forked JVM still running after 120 s, killed: " + main.getName() + "; it printed: " + text);
            assertEquals(0, p.exitValue(), text);
            return text;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}

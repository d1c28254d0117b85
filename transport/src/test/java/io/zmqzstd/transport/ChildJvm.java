package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test class's {@code main} in a child JVM on the test class path, for checks that need JVM
 * flags of their own (a compiler level, a heap size, native memory tracking).
 */
final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * Runs {@code main.main(args)} in a child JVM with native access and {@code jvmOptions}, waits
     * up to 2 minutes, and asserts it exited with 0.
     *
     * @return what the child printed (stdout and stderr)
     */
    static String run(Class<?> main, List<String> jvmOptions, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        // Its output goes to a file, not a pipe read to the end first, so that the time limit holds
        // even when the child hangs (a read of the pipe returned only when the child ended).
        Path log = Files.createTempFile("child-jvm", ".log");
        try {
            Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean finished = false;
            try {
                finished = child.waitFor(2, TimeUnit.MINUTES);
            } finally {
                if (!finished) {
                    child.destroyForcibly().waitFor();
                }
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(finished, "child still running after 2 minutes, killed: " + main.getName() + "; it printed: " + out);
            assertEquals(0, child.exitValue(), out);
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}

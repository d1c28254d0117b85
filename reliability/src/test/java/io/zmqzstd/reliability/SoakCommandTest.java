package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README, "Soak": the {@code java ... io.zmqzstd.reliability.Soak} command as the README prints it, class
 * path included (the project's own class directories, no third-party jar), run from the project root with
 * {@code messages=2000 reportS=1} in place of its duration: it reports, checks every message and exits 0.
 */
class SoakCommandTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void shouldRunTheReadmeCommandOnTheProjectsOwnClassDirectories(@TempDir Path dir)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(readmeCommand(Soak.class.getName()));
        assertEquals("java", command.getFirst(), "the README's command: " + command);
        int main = command.indexOf(Soak.class.getName());
        assertTrue(main > 0 && command.contains("-cp"), "the README's command: " + command);
        for (String entry : command.get(command.indexOf("-cp") + 1).split(":")) {
            assertTrue(Files.isDirectory(ROOT.resolve(entry)), "class path entry missing (build with -am): " + entry);
        }
        String out = runChild(command, main, List.of("messages=2000", "reportS=1"), dir.resolve("soak.log"));
        assertTrue(out.contains("heapAfterGcKB") && out.contains("nmtCommittedKB") && out.contains("outstanding"), out);
        assertTrue(out.contains("sent=2000 received=2000 problems=0"), out);
    }

    /**
     * Runs {@code readme} (a README command whose main class is word {@code main}) with this JVM's
     * {@code java} and {@code args} in place of the README's arguments, from the project root, within 60 s;
     * asserts exit status 0 and returns its output.
     */
    static String runChild(List<String> readme, int main, List<String> args, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(readme);
        command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.subList(main + 1, command.size()).clear();
        command.addAll(args);
        Process child = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean ended = child.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(ended, command.get(main) + " still running after 60 s: " + out);
        assertEquals(0, child.exitValue(), out);
        return out;
    }

    /**
     * The README's {@code java} command line running {@code mainClass} (also {@code FaultSoakTest}'s),
     * its continuation lines joined, split into words.
     */
    static List<String> readmeCommand(String mainClass) throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("reliability/README.md"));
        int start = -1;
        for (int i = 0; i < lines.size() && start < 0; i++) {
            if (lines.get(i).startsWith("java ") && String.join(" ", lines.subList(i, Math.min(i + 3, lines.size())))
                    .contains(mainClass + " ")) {
                start = i;
            }
        }
        assertTrue(start >= 0, "no java ... " + mainClass + " command in reliability/README.md");
        StringBuilder joined = new StringBuilder();
        for (int i = start; ; i++) {
            String line = lines.get(i).strip();
            boolean continued = line.endsWith("\\");
            joined.append(continued ? line.substring(0, line.length() - 1) : line).append(' ');
            if (!continued) {
                break;
            }
        }
        return Arrays.asList(joined.toString().strip().split("\\s+"));
    }
}

package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What {@link LogShippingJourneyTest} needs around the journey itself: application log lines as a
 * user's service writes them, and the cli's jar run as a shell runs it ({@code java -jar
 * cli/target/zmq-zstd.jar …}, cli/README.md), with its standard streams on files.
 */
final class LogShippingJourneySupport {

    /** The jar cli/README.md's first block builds; reliability's tests do not depend on the cli module. */
    static final Path CLI_JAR = Path.of(System.getProperty("user.dir")).resolveSibling("cli")
            .resolve("target").resolve("zmq-zstd.jar");

    private static final String[] LEVELS = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
    private static final String[] LOGGERS = {
        "c.a.orders.OrderService", "c.a.payments.PaymentGateway", "c.a.http.AccessLog",
        "c.a.inventory.StockLevels", "o.h.engine.jdbc.spi.SqlExceptionHelper"};

    private LogShippingJourneySupport() {
    }

    /** Skips without the cli's jar, or fails where every test must run ({@link MachineRequirement}). */
    static void assumeCliJar() {
        MachineRequirement.require(Files.isRegularFile(CLI_JAR), "the cli's jar is not built: " + CLI_JAR
                + " (./mvnw -B -pl cli -am package -DskipTests builds it, cli/README.md)", "zmqzstd.requireJars");
    }

    /** {@code count} log lines in the layout of a Logback/Log4j pattern, the same for the same seed. */
    static List<String> logLines(long seed, int count) {
        Random random = new Random(seed);
        List<String> lines = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String level = LEVELS[random.nextInt(LEVELS.length)];
            String logger = LOGGERS[random.nextInt(LOGGERS.length)];
            String message = switch (random.nextInt(5)) {
                case 0 -> "order " + (100000 + random.nextInt(900000)) + " accepted for customer "
                        + random.nextInt(50000) + " in " + random.nextInt(900) + " ms";
                case 1 -> "payment authorised: amount=" + random.nextInt(10000) + "." + random.nextInt(100)
                        + " currency=EUR card=****" + (1000 + random.nextInt(9000));
                case 2 -> "GET /api/v2/orders/" + random.nextInt(1000000) + " 200 " + random.nextInt(20000)
                        + "B " + random.nextInt(400) + "ms ua=\"Mozilla/5.0\"";
                case 3 -> "stock below threshold: sku=SKU-" + random.nextInt(99999) + " level="
                        + random.nextInt(20) + " threshold=20";
                default -> "SQL Error: 0, SQLState: 40001 - deadlock detected while waiting for lock on tuple ("
                        + random.nextInt(5000) + "," + random.nextInt(64) + ")";
            };
            lines.add(String.format("2026-11-29T%02d:%02d:%02d.%03dZ %-5s [http-nio-8080-exec-%d] %s - %s",
                    random.nextInt(24), random.nextInt(60), random.nextInt(60), random.nextInt(1000), level,
                    1 + random.nextInt(40), logger, message));
        }
        return lines;
    }

    /** The lines as a file holds them: each followed by a newline, which is what recv writes too. */
    static byte[] asFile(List<String> lines) {
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A started {@code java -jar zmq-zstd.jar …}; its standard output and error go to files. */
    record Cli(Process process, Path stdout, Path stderr, List<String> command) {

        /** Waits for the exit, killing the process after {@code seconds}; returns the exit code. */
        int awaitExit(long seconds) throws IOException, InterruptedException {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("no exit within " + seconds + " s: " + command + "\nstderr:\n" + err());
            }
            return process.exitValue();
        }

        String out() throws IOException {
            return Files.readString(stdout, StandardCharsets.UTF_8);
        }

        String err() throws IOException {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        }
    }

    /**
     * Starts the cli's jar with the java of this JVM (the JDK 25 the README asks to put first on
     * PATH). {@code stdin} null gives it a closed pipe.
     */
    static Cli cli(Path dir, String name, Path stdin, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(CLI_JAR.toString());
        command.addAll(List.of(args));
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.redirectInput(stdin == null ? Redirect.PIPE : Redirect.from(stdin.toFile()));
        Process process = builder.start();
        if (stdin == null) {
            process.getOutputStream().close();
        }
        return new Cli(process, out, err, command);
    }
}

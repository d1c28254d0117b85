package io.zmqzstd.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The built {@code zmq-zstd.jar} run as a child process ({@code java -jar}, no flags), with its
 * stdout and stderr collected as they arrive so a test can wait for a line instead of sleeping.
 */
final class CliProcess implements AutoCloseable {

    static final Path JAR = Path.of(System.getProperty("zmqzstd.cli.jar", "target/zmq-zstd.jar"));
    private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
    /** Upper bound for anything a test waits for; far above what a healthy run needs. */
    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final List<String> args;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Thread outPump;
    private final Thread errPump;
    /** Our end of the child's stdin when the test writes it as it goes ({@link #startInteractive}). */
    private final OutputStream stdin;

    private CliProcess(List<String> args, ProcessBuilder.Redirect stdin, byte[] input) {
        this(List.of(), List.of(), args, stdin, input);
    }

    private CliProcess(List<String> jvmOptions, List<String> args, ProcessBuilder.Redirect stdin, byte[] input) {
        this(List.of(), jvmOptions, args, stdin, input);
    }

    /** {@code prefix} runs the JVM, e.g. {@code setpriv --reuid=...} to run it as another user. */
    private CliProcess(List<String> prefix, List<String> jvmOptions, List<String> args, ProcessBuilder.Redirect stdin, byte[] input) {
        this.args = args;
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(JAVA);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(args);
        try {
            process = new ProcessBuilder(cmd).redirectInput(stdin).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        outPump = pump(process.getInputStream(), out);
        errPump = pump(process.getErrorStream(), err);
        if (stdin == ProcessBuilder.Redirect.PIPE && input == null) {
            this.stdin = process.getOutputStream();
        } else if (stdin == ProcessBuilder.Redirect.PIPE) {
            this.stdin = null;
            Thread.ofPlatform().daemon().start(() -> {
                try (OutputStream o = process.getOutputStream()) {
                    o.write(input);
                } catch (IOException e) {
                    // the process ended without reading everything: its exit code tells the test
                }
            });
        } else {
            this.stdin = null;
        }
    }

    /** Runs {@code zmq-zstd args...} with {@code input} on its stdin (then end of input). */
    static CliProcess start(byte[] input, String... args) {
        return new CliProcess(List.of(args), ProcessBuilder.Redirect.PIPE, input);
    }

    /** Runs {@code prefix... java -jar zmq-zstd.jar args...} (e.g. as another user) with an empty stdin. */
    static CliProcess startUnder(List<String> prefix, String... args) {
        return new CliProcess(prefix, List.of(), List.of(args), ProcessBuilder.Redirect.PIPE, new byte[0]);
    }

    /** Runs {@code zmq-zstd args...} with an empty stdin. */
    static CliProcess start(String... args) {
        return start(new byte[0], args);
    }

    /**
     * Runs {@code zmq-zstd args...} with a stdin the test writes piece by piece
     * ({@link #writeStdin}) and ends ({@link #closeStdin}).
     */
    static CliProcess startInteractive(String... args) {
        return new CliProcess(List.of(args), ProcessBuilder.Redirect.PIPE, null);
    }

    /** Writes {@code text} to the child's stdin now (a line reaches a line-reading send at once). */
    void writeStdin(String text) {
        try {
            stdin.write(text.getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("stdin of " + this, e);
        }
    }

    /** Ends the child's stdin. */
    void closeStdin() {
        try {
            stdin.close();
        } catch (IOException e) {
            throw new UncheckedIOException("stdin of " + this, e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Runs {@code zmq-zstd args...} reading stdin from {@code file}. */
    static CliProcess startFrom(Path file, String... args) {
        return new CliProcess(List.of(args), ProcessBuilder.Redirect.from(file.toFile()), null);
    }

    /** As {@link #startFrom(Path, String...)}, with these options for the JVM, e.g. {@code -Xmx64m}. */
    static CliProcess startFrom(List<String> jvmOptions, Path file, String... args) {
        return new CliProcess(jvmOptions, List.of(args), ProcessBuilder.Redirect.from(file.toFile()), null);
    }

    /** Runs to the end and returns the exit code. */
    static CliProcess run(byte[] input, String... args) {
        CliProcess p = start(input, args);
        p.awaitExit();
        return p;
    }

    private static Thread pump(InputStream in, ByteArrayOutputStream sink) {
        return Thread.ofPlatform().daemon().start(() -> {
            byte[] buf = new byte[65536];
            try (in) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    synchronized (sink) {
                        sink.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // stream closed with the process
            }
        });
    }

    /** Waits for the process to end (failing the test after {@link #PATIENCE}); returns its exit code. */
    int awaitExit() {
        try {
            if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                fail("still running after " + PATIENCE + ": " + this);
            }
            outPump.join(PATIENCE.toMillis());
            errPump.join(PATIENCE.toMillis());
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits until stderr holds a line that matches (polling with a deadline, not a fixed sleep). */
    void awaitStderrLine(Predicate<String> match) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            if (stderrLines().stream().anyMatch(match)) {
                return;
            }
            if (!process.isAlive() && !errPump.isAlive()) {
                break;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        fail("no matching stderr line: " + this);
    }

    /** Waits until stdout holds at least {@code bytes} bytes. */
    void awaitStdoutBytes(int bytes) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            synchronized (out) {
                if (out.size() >= bytes) {
                    return;
                }
            }
            if (!process.isAlive() && !outPump.isAlive()) {
                break;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        fail("stdout did not reach " + bytes + " bytes: " + this);
    }

    /**
     * SIGTERM. Through the process handle: {@code Process.destroy()} also closes our ends of its
     * pipes, which would lose what the process writes while it shuts down.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** SIGINT, as Ctrl-C on a terminal sends it (with {@code kill -INT}: Java has no call for it). */
    void interrupt() {
        try {
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                fail("kill -INT " + process.pid() + " failed: " + this);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Whether the process ignores SIGINT ({@code SigIgn} in {@code /proc/PID/status}): it inherits
     * an ignored SIGINT from its parent (a background job of a non-interactive shell has one), and
     * then the JVM leaves it ignored.
     */
    boolean ignoresSigint() throws IOException {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & (1L << 1)) != 0; // SIGINT = 2
            }
        }
        return false;
    }

    byte[] stdout() {
        synchronized (out) {
            return out.toByteArray();
        }
    }

    String stdoutText() {
        return new String(stdout(), StandardCharsets.UTF_8);
    }

    List<String> stdoutLines() {
        return stdoutText().lines().toList();
    }

    byte[] stderr() {
        synchronized (err) {
            return err.toByteArray();
        }
    }

    String stderrText() {
        return new String(stderr(), StandardCharsets.UTF_8);
    }

    List<String> stderrLines() {
        return stderrText().lines().toList();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        String o = stdoutText();
        return "zmq-zstd " + String.join(" ", args) + "\n--- stdout (" + o.length() + " chars, head) ---\n"
                + o.substring(0, Math.min(500, o.length())) + "\n--- stderr ---\n" + stderrText();
    }
}

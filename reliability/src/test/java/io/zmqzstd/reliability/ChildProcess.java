package io.zmqzstd.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM, usually running {@link Peer} with the test classpath; its stdout lines and stderr
 * are collected as they come so tests can await them. Closing kills it (SIGKILL) if it still runs.
 */
final class ChildProcess implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private final Thread errReader;
    private final StringBuilder stderr = new StringBuilder();

    private ChildProcess(Process process) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("child-stdout-" + process.pid()).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process died: what was read is what there is
            }
        });
        this.errReader = Thread.ofPlatform().daemon().name("child-stderr-" + process.pid()).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (stderr) {
                        stderr.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // as above
            }
        });
    }

    /** Starts {@code Peer} with {@code args}, after {@code prefix} (e.g. {@code ip netns exec ns}). */
    static ChildProcess peer(List<String> prefix, String... args) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(java());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Peer.class.getName());
        cmd.addAll(List.of(args));
        return start(cmd);
    }

    /** Starts {@code command} as it is (e.g. a JVM with options of its own, see {@link #java()}). */
    static ChildProcess start(List<String> command) {
        try {
            return new ChildProcess(new ProcessBuilder(command).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code java} launcher of the JVM running the tests. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Waits until the child has exited and both of its outputs are read to the end.
     *
     * @return its exit code
     */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + timeout + "; last lines=" + tail() + ", stderr=" + stderr());
        }
        reader.join(Duration.ofSeconds(10));
        errReader.join(Duration.ofSeconds(10));
        return process.exitValue();
    }

    static ChildProcess peer(String... args) {
        return peer(List.of(), args);
    }

    List<String> lines() {
        return lines;
    }

    /** Waits for a line matching {@code p}; fails with the output so far when it does not come. */
    String await(String what, Duration timeout, Predicate<String> p) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int from = 0;
        for (;;) {
            // The size once, before the lines are looked at: the reader thread appends meanwhile,
            // and a line appended after the loop but before a second size() was read would be
            // skipped by the next round, never tested (the wait then ran into its timeout).
            int size = lines.size();
            for (int i = from; i < size; i++) {
                if (p.test(lines.get(i))) {
                    return lines.get(i);
                }
            }
            from = size;
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; alive="
                        + process.isAlive() + ", last lines=" + tail() + ", stderr=" + stderr());
            }
            try {
                Thread.sleep(5); // poll interval; the line decides
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    void awaitReady() {
        await("READY", Duration.ofSeconds(30), "READY"::equals);
    }

    /** SIGKILL, and wait until it is gone; then every line it wrote has been read. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
            reader.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends {@code signal} (a name {@code kill} knows, e.g. {@code STOP}, {@code CONT}) to this
     * child, by its pid, and waits until {@code kill} has delivered it.
     */
    void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " " + process.pid() + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Writes {@code line} and a newline to the child's stdin. */
    void tell(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("stdin of the child: alive=" + process.isAlive() + ", stderr=" + stderr(), e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String stderr() {
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    private List<String> tail() {
        List<String> s = lines;
        return s.subList(Math.max(0, s.size() - 5), s.size());
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}

package io.zmqzstd.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The {@code --progress} and {@code --stats} lines of one command (send, recv, proxy): a progress
 * line every second from a daemon thread while it runs, then the summary once at the end, each
 * {@code COMMAND: progress|summary: key=value ...} on the command's error stream.
 *
 * <p>The command gives a function from the kind ({@code "progress"} or {@code "summary"}) to the
 * whole line; it runs on the progress thread for progress lines, so it reads counters another
 * thread updates. It may return null for "nothing to show yet" (that progress line is skipped),
 * and a progress line that throws ends the progress lines (the counters went away at exit: the
 * summary says the rest).
 */
final class StatsPrinter {

    private final String command;
    private final StatsOptions options;
    private final PrintWriter err;
    private final long startNanos = System.nanoTime();
    private final AtomicBoolean printed = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Function<String, String> line;
    private Thread progress;

    /**
     * @param command name in each line, e.g. {@code zmq-zstd recv}
     * @param err     the command's error stream (picocli's, which a test may capture), flushed at each line
     */
    StatsPrinter(String command, StatsOptions options, PrintWriter err) {
        this.command = command;
        this.options = options;
        this.err = err;
    }

    /** Starts reporting with {@code line} (progress lines begin now when asked for); the first call's thread stays. */
    void start(Function<String, String> line) {
        this.line = line;
        if (options.progress && progress == null) {
            progress = Thread.ofPlatform().daemon().name("zmq-zstd-progress").start(this::progressLoop);
        }
    }

    /** True when --stats asks for a summary. */
    boolean wantsSummary() {
        return options.summary;
    }

    /** Stops the progress lines, prints the summary (once, if --stats and started) and lets {@link #awaitFinished} go. */
    void finish() {
        stopProgress();
        Function<String, String> l = line;
        if (printed.compareAndSet(false, true) && options.summary && l != null) {
            String summary = l.apply("summary");
            if (summary != null) {
                err.println(summary);
            }
        }
        finished.countDown();
    }

    /** Waits up to {@code ms} for {@link #finish()}; true when it has run. */
    boolean awaitFinished(long ms) throws InterruptedException {
        return finished.await(ms, TimeUnit.MILLISECONDS);
    }

    /** Seconds since this printer was made (the command's start). */
    double elapsedSeconds() {
        return elapsedSeconds(System.nanoTime());
    }

    /** Seconds from this printer's making (the command's start) to {@code nanoTime}. */
    double elapsedSeconds(long nanoTime) {
        return (nanoTime - startNanos) / 1e9;
    }

    /** The start of a line: {@code zmq-zstd proxy: summary:}. */
    StringBuilder head(String kind) {
        return new StringBuilder(command).append(": ").append(kind).append(':');
    }

    /**
     * The closing fields of every line: {@code elapsed=…s}, then {@code active=…s} when the command
     * knows when messages flowed ({@code activeSeconds} not negative), then the rate and throughput
     * over {@code windowSeconds} (MB = 10^6 bytes).
     */
    static String rates(double elapsedSeconds, double activeSeconds, double windowSeconds, long messages, long bytes) {
        String active = activeSeconds < 0 ? "" : String.format(Locale.ROOT, " active=%.3fs", activeSeconds);
        return String.format(Locale.ROOT, " elapsed=%.3fs%s rate=%.0fmsg/s throughput=%.2fMB/s",
                elapsedSeconds, active, messages / windowSeconds, bytes / windowSeconds / 1e6);
    }

    private void progressLoop() {
        try {
            while (finished.getCount() > 0 && !finished.await(1, TimeUnit.SECONDS)) {
                if (printed.get()) {
                    return;
                }
                String l = line.apply("progress");
                if (l != null && !printed.get()) {
                    err.println(l);
                }
            }
        } catch (InterruptedException e) {
            // stopped
        } catch (RuntimeException e) {
            // the counters closed under us at exit: the summary says the rest
        }
    }

    private void stopProgress() {
        Thread t = progress;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            try {
                t.join(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

package io.zmqzstd.cli;

import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.transport.ZmqContext;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The run of one send or recv: its summary and progress lines, and what happens on SIGINT or
 * SIGTERM.
 *
 * <p>On a signal the JVM runs our shutdown hook. For send ({@link #endInputOnSignal}) it first ends
 * the input: a read of standard input that waits is woken, and the main thread sends what it had
 * read (an unfinished line or chunk as the last message) and ends as at the end of input, with its
 * linger cut to {@link #lingerAfterSignal}; the hook gives it {@link #HOOK_WAIT_MS} for that. Then
 * (at once for recv) the hook shuts the context down: a blocking send or receive on the main thread
 * fails with ETERM, the main thread sees {@link #interrupted()}, flushes what it holds and calls
 * {@link #finish()}. A main thread blocked elsewhere (recv writing to a full pipe nobody reads)
 * cannot be woken that way, so the hook prints the summary itself after {@link #HOOK_WAIT_MS} more,
 * counting as delivered only the messages recv's standard output took whole. Either way the
 * summary is printed once.
 *
 * <p>Progress lines come from a daemon thread ({@link StatsPrinter}) that reads the sender's or receiver's counters
 * (and recv's count of messages written, {@link #countWritten}) without synchronisation: plain fields the main thread updates, so a line may be a moment stale,
 * never wrong for long. Counting costs the hot path nothing.
 */
final class Session implements AutoCloseable {

    /** How long the shutdown hook waits for the main thread to finish on its own. */
    private static final long HOOK_WAIT_MS = 500;

    private final StatsPrinter printer;
    private final boolean sender;
    private final Thread hook;
    private volatile boolean interrupted;
    /** send: ends a read of standard input that waits, run by the hook before anything else; null for recv. */
    private volatile Runnable endInput;
    private volatile Supplier<PipelineStats> stats;
    /** nanoTime of the first and the latest message: rates are over this window, not idle time. */
    private long firstMessageNanos;
    private long lastMessageNanos;
    /**
     * send only: the message in hand when sending failed (its pipeline counts bad frames for recv,
     * and a parallel sender the messages it took and then dropped).
     */
    private long failedMessages;
    /**
     * recv only: how many messages standard output has taken whole, read by the progress thread and
     * by a shutdown hook the main thread cannot answer. Its {@code messages=} in every line.
     */
    private volatile LongSupplier writtenMessages;

    /**
     * @param command name in each line, e.g. {@code zmq-zstd recv}
     * @param sender  true: bytes in are uncompressed (send); false: bytes in are compressed (recv)
     * @param err     the command's error stream (picocli's, which a test may capture), flushed at each line
     */
    Session(String command, StatsOptions options, boolean sender, ZmqContext context, PrintWriter err) {
        this.printer = new StatsPrinter(command, options, err);
        this.sender = sender;
        this.hook = new Thread(() -> onSignal(context), "zmq-zstd-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts reporting on these counters (progress lines begin now when asked for). */
    void watch(Supplier<PipelineStats> source) {
        this.stats = source;
        printer.start(kind -> line(kind, stats.get(), kind.equals("summary") ? lastMessageNanos : System.nanoTime()));
    }

    /** Called by the main thread after each message sent or delivered (one nanoTime call). */
    void messageDone() {
        long now = System.nanoTime();
        if (firstMessageNanos == 0) {
            firstMessageNanos = now;
        }
        lastMessageNanos = now;
    }

    /**
     * recv, before {@link #watch}: {@code written} says how many received messages standard output
     * has taken whole. Progress lines and the summary count only those as {@code messages=}, so
     * the two mean the same; the summary names the others {@code unwritten=} (a failed write, or a
     * signal that finds the main thread stuck in a write to a standard output nobody reads).
     */
    void countWritten(LongSupplier written) {
        this.writtenMessages = written;
    }

    /**
     * send: the message in hand could not be sent (--timeout gave up on it, or its send failed).
     * Called at most once per run, since send stops there.
     */
    void messageFailed() {
        failedMessages++;
    }

    /**
     * send: on SIGINT/SIGTERM the hook runs {@code wake} first (after {@link #interrupted()} is
     * true), which ends a read of standard input that waits, and gives the main thread
     * {@link #HOOK_WAIT_MS} to send what it had read and end, before it shuts the context down.
     */
    void endInputOnSignal(Runnable wake) {
        this.endInput = wake;
    }

    /**
     * The linger for the messages send hands to libzmq after a signal ended its input: at most
     * {@link #HOOK_WAIT_MS}, within which the hook waits for the main thread before it shuts the
     * context down ({@code linger} when shorter; negative is forever).
     */
    static Duration lingerAfterSignal(Duration linger) {
        return linger.isNegative() || linger.toMillis() > HOOK_WAIT_MS ? Duration.ofMillis(HOOK_WAIT_MS) : linger;
    }

    /** True once SIGINT/SIGTERM arrived. */
    boolean interrupted() {
        return interrupted;
    }

    /** Prints the summary (once, if --stats) and lets a waiting shutdown hook go. */
    void finish() {
        printer.finish();
    }

    /** Ends the session: summary if not yet printed, hook removed (unless the JVM is already exiting). */
    @Override
    public void close() {
        finish();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the hook is running or has run: nothing to remove
        }
    }

    private void onSignal(ZmqContext context) {
        interrupted = true;
        try {
            Runnable wake = endInput;
            if (wake != null) {
                // send: what it had read goes out as at the end of input, unless a send waits for a peer
                wake.run();
                if (printer.awaitFinished(HOOK_WAIT_MS)) {
                    return;
                }
            }
            try {
                context.shutdown();
            } catch (RuntimeException e) {
                // already closed: the main thread is past its blocking calls
            }
            if (!printer.awaitFinished(HOOK_WAIT_MS)) {
                // The main thread is stuck: recv in a write that a full pipe blocks (or send reading a
                // standard input that is no file stream, which no wake ended), with messages in its buffer
                // or cut by that write, which are not delivered:
                // the summary counts what was written (a plain field of the main thread, set after its
                // last write returned, more than HOOK_WAIT_MS ago).
                finish();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One key=value line: {@code zmq-zstd recv: summary: messages=... bytesIn=... ...}. Rates and
     * throughput (of uncompressed bytes, MB = 10^6) are over the time from the first message to
     * {@code windowEndNanos}, so waiting for a peer or for --timeout does not dilute them.
     */
    String line(String kind, PipelineStats s, long windowEndNanos) {
        double elapsed = printer.elapsedSeconds();
        long first = firstMessageNanos;
        double active = first == 0 ? 0 : Math.max(0, windowEndNanos - first) / 1e9;
        double window = active > 1e-3 ? active : Math.max(elapsed, 1e-9);
        long in = sender ? s.uncompressedBytes() : s.compressedBytes();
        long out = sender ? s.compressedBytes() : s.uncompressedBytes();
        LongSupplier written = writtenMessages;
        // recv: delivered means written whole to standard output, while it runs as at the end
        long messages = written == null ? s.messages() : written.getAsLong();
        long unwritten = s.messages() - messages;
        StringBuilder b = printer.head(kind)
                .append(" messages=").append(messages)
                .append(" bytesIn=").append(in)
                .append(" bytesOut=").append(out)
                .append(" ratio=").append(String.format(Locale.ROOT, "%.3f", s.ratio()));
        if (sender) {
            // read and not sent: the message in hand, and (--threads) those taken and dropped behind it
            b.append(" errors=").append(failedMessages + s.droppedMessages()).append(" wouldBlock=").append(s.wouldBlock());
        } else {
            b.append(" errors=").append(s.errors());
            for (BadFrameReason r : BadFrameReason.values()) {
                if (s.errors(r) > 0) {
                    b.append(' ').append(r).append('=').append(s.errors(r));
                }
            }
            if (unwritten > 0 && kind.equals("summary")) { // while it runs, they are only still in the buffer
                b.append(" unwritten=").append(unwritten);
            }
        }
        return b.append(StatsPrinter.rates(elapsed, active, window, messages, s.uncompressedBytes())).toString();
    }
}

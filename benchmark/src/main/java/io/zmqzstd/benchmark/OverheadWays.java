package io.zmqzstd.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The ways of {@link TransportOverhead} and {@link PipelineOverhead}, checked before anything runs.
 * {@code benchmark/interleaved.sh} runs this once, before the first cell's JVM, with its settings that hold
 * ways: until 2026-11-27 a bad way there stopped the script only in the first JVM of a cell that read it, after
 * the cells before it had run and once that JVM had set up the ways before the bad one, with a stack trace.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.zmqzstd.benchmark.OverheadWays [NAME "WAY WAY ..."]...}, NAME
 * {@code TRANSPORT_WAYS} or {@code PIPELINE_WAYS}, the ways separated by spaces. Exits 0 when every way parses;
 * else prints {@code NAME: unknown ... way: WAY (what a way may be)} for the first that does not and exits 2.
 */
public final class OverheadWays {

    /** The settings of {@code interleaved.sh} that hold ways, and each one's tool. */
    static final String TRANSPORT_WAYS = "TRANSPORT_WAYS";
    static final String PIPELINE_WAYS = "PIPELINE_WAYS";

    private OverheadWays() {
    }

    public static void main(String[] args) {
        if (args.length % 2 != 0) {
            exit("usage: OverheadWays [" + TRANSPORT_WAYS + "|" + PIPELINE_WAYS + " \"WAY ...\"]...");
        }
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            Function<String, ?> parse = switch (name) {
                case TRANSPORT_WAYS -> TransportOverhead.Way::of;
                case PIPELINE_WAYS -> PipelineOverhead.Way::of;
                default -> {
                    exit("unknown setting: " + name + " (" + TRANSPORT_WAYS + " or " + PIPELINE_WAYS + ")");
                    yield null;
                }
            };
            String ways = args[i + 1].strip();
            if (!ways.isEmpty()) {
                try {
                    parse(ways.split("\\s+"), parse);
                } catch (IllegalArgumentException e) {
                    exit(name + ": " + e.getMessage());
                }
            }
        }
    }

    /** Every way of {@code names}, in order; throws for the first that {@code parse} refuses. */
    static <W> List<W> parse(String[] names, Function<String, W> parse) {
        List<W> ways = new ArrayList<>(names.length);
        for (String name : names) {
            ways.add(parse.apply(name));
        }
        return ways;
    }

    /**
     * A tool's ways, all parsed before it sets any up: a way it refuses ends the JVM with its message and
     * status 2, as a wrong argument does, instead of after the ways before it were made.
     */
    static <W> List<W> parseOrExit(String[] names, Function<String, W> parse) {
        try {
            return parse(names, parse);
        } catch (IllegalArgumentException e) {
            exit(e.getMessage());
            return null;
        }
    }

    private static void exit(String message) {
        System.err.println(message);
        System.exit(2);
    }
}

package io.zmqzstd.cli;

import picocli.CommandLine.Option;

/** --stats and --progress, shared by send, recv and proxy (a picocli mixin); {@link StatsPrinter} prints the lines. */
final class StatsOptions {

    @Option(names = "--stats", description = "At exit, print a summary on stderr: messages and bytes (send, recv: in and out, ratio,"
            + " errors by reason; proxy: each way), elapsed time, throughput.")
    boolean summary;

    @Option(names = "--progress", description = "Print the same line on stderr every second while running, counted the same way"
            + " (recv: messages= are those written whole to standard output).")
    boolean progress;
}

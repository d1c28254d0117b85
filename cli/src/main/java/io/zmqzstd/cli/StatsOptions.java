package io.zmqzstd.cli;

import picocli.CommandLine.Option;

/** --stats and --progress, shared by send and recv (a picocli mixin). */
final class StatsOptions {

    @Option(names = "--stats", description = "At exit, print a summary on stderr: messages, bytes in and out, ratio, errors by reason, elapsed time, throughput.")
    boolean summary;

    @Option(names = "--progress", description = "Print the same line on stderr every second while running.")
    boolean progress;
}

package io.zmqzstd.cli;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.nativelib.internal.WholeFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code train}: a zstd dictionary from sample messages, in the standard format ({@code zstd -D}
 * reads it). Prints the dictionary ID on stdout.
 */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Train a zstd dictionary from sample messages and write it in the standard zstd format.",
                "It works with 'zstd -D FILE' and with send/recv --dict. Prints the dictionary ID on stdout.",
                "Samples: the lines of standard input, or FILEs (each file one sample, or its lines with --lines).",
                "zstd needs many samples: hundreds at least, about 100 times the dictionary size in total."},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {ExitCodes.HELP_OK,
                "1:Runtime failure: unreadable input, a sample over 2 GiB, training failed (too few samples, or 4 GiB of them or more), cannot write FILE.",
                ExitCodes.HELP_USAGE})
final class TrainCommand implements Callable<Integer> {

    /** zstd's own default dictionary size (zstd --train, --maxdict). */
    static final long DEFAULT_SIZE_BYTES = 112_640;
    /** ZDICT refuses smaller capacities. */
    private static final long MIN_SIZE_BYTES = ZstdDictionary.MIN_CAPACITY_BYTES;

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "FILE", required = true, converter = Values.OutputFile.class,
            description = "Write the dictionary here, whole or not at all (a new file, renamed over FILE once written); not a"
                    + " sample FILE, the file standard input reads, or standard output.")
    Path out;

    @Option(names = "--size", paramLabel = "BYTES", converter = Values.ByteSize.class, defaultValue = "112640",
            description = "Largest dictionary size, 256 to 32M (default ${DEFAULT-VALUE}, zstd's default; e.g. 16K).")
    long sizeBytes;

    @Option(names = "--lines", description = "Each line of each sample FILE is a sample (default: each FILE is one sample;"
            + " standard input is read by lines either way).")
    boolean lines;

    @Option(names = "--delimiter", paramLabel = "BYTE", converter = Values.Delimiter.class, defaultValue = "\\n",
            description = "Samples from standard input, and with --lines from FILEs, end at this byte (default: newline).")
    Values.Bytes delimiter;

    // As given: picocli gives a FILE the global converter refuses back as "Unmatched argument", and Path.of
    // drops a trailing '/'; call() checks them as the converter does options and makes the paths
    @Parameters(paramLabel = "FILE", arity = "0..*", description = "Sample files ('-' or none: standard input).")
    List<String> fileNames = new ArrayList<>();

    /** The sample FILEs, from {@link #fileNames} once checked. */
    private List<Path> files = List.of();

    /** Standard input; a test may swap it. */
    InputStream stdin = new FileInputStream(FileDescriptor.in);

    /**
     * The most sample bytes libzstd's trainer takes in all: {@code ZDICT_trainFromBuffer} (fastCover)
     * indexes them with 32 bits and refuses a total of {@code (unsigned) -1} or more as "Src size is
     * incorrect", which the advice for too few samples then followed.
     */
    static final long ZDICT_MAX_TOTAL_BYTES = 0xFFFF_FFFEL;

    /** The longest sample cut at the delimiter: the longest Java array; a test may lower it. */
    int sampleMaxBytes = MessageReader.MAX_ARRAY_BYTES;

    /** The most sample bytes in all: {@link #ZDICT_MAX_TOTAL_BYTES}; a test may lower it. */
    long totalMaxBytes = ZDICT_MAX_TOTAL_BYTES;

    /** The bytes of the samples read so far. */
    private long totalBytes;

    @Override
    public Integer call() throws IOException {
        if (sizeBytes < MIN_SIZE_BYTES || sizeBytes > SendCommand.MAX_DICTIONARY_BYTES) {
            // no larger than send and recv take as --dict
            throw new ParameterException(spec.commandLine(), "--size out of range: bytes=" + sizeBytes
                    + ", range=" + MIN_SIZE_BYTES + ".." + SendCommand.MAX_DICTIONARY_BYTES);
        }
        if (delimiter.value().length != 1) {
            throw new ParameterException(spec.commandLine(), "--delimiter must be exactly one byte: bytes=" + delimiter.value().length);
        }
        files = new ArrayList<>();
        for (String name : fileNames) {
            // Path.of("") is the working directory: "cannot read sample file: file=, error=Is a directory"
            String problem = name.isEmpty() ? Values.EMPTY_PATH : Values.directoryName(name, true);
            if (problem != null) {
                throw new ParameterException(spec.commandLine(), "Invalid value for sample FILE " + (files.size() + 1) + " of "
                        + fileNames.size() + ": " + problem);
            }
            files.add(Path.of(name));
        }
        // --lines with standard input only is redundant, not ignored: stdin is read by lines, as asked
        if (Main.given(spec, "--delimiter") && !lines && !files.isEmpty() && files.stream().noneMatch(TrainCommand::isStandardInput)) {
            throw new ParameterException(spec.commandLine(), "--delimiter needs --lines or standard input: without --lines"
                    + " each FILE is one sample, whole, and no FILE is '-' (standard input)");
        }
        String outProblem = Main.outputProblem(out);
        if (outProblem == null && isStandardOutput(out)) {
            // as "--out -": standard output carries the printed ID, which would follow the dictionary there
            outProblem = "it is standard output, which carries the printed ID behind the dictionary; give --out a file";
        }
        if (outProblem == null) {
            // a link to a file not there yet is written at its target: that target's directory must take it
            try {
                Path target = WholeFiles.destination(out);
                outProblem = target.equals(out) ? null : Main.outputProblem(target);
            } catch (IOException e) {
                outProblem = Main.describe(e); // a loop of links
            }
        }
        if (outProblem != null) {
            // before reading and training, which may take long
            throw new CliException(ExitCodes.FAILURE, "cannot write dictionary: file=" + out + ", error=" + outProblem);
        }
        String input = inputAt(out);
        if (input != null) {
            // read whole before the dictionary is written, so the samples were replaced without a word (exit 0)
            throw new CliException(ExitCodes.FAILURE, "cannot write dictionary: file=" + out + ", error=it is " + input
                    + ", which the dictionary would replace; give --out another file");
        }
        if (readsStandardInput()) {
            ClosedStandardInput.check(stdin); // it would train on the JVM's own file
        }
        List<byte[]> samples = new ArrayList<>();
        try {
            readSamples(samples);
        } catch (OutOfMemoryError e) {
            // many samples (lines), each held until training: a line, not a stack trace. Counted
            // without allocating (no iterator) and let go before the message is built.
            long bytes = 0;
            int count = samples.size();
            for (int i = 0; i < count; i++) {
                bytes += samples.get(i).length;
            }
            samples.clear();
            throw new CliException(ExitCodes.FAILURE, "the samples do not fit in the Java heap: samples=" + count
                    + ", sampleBytes=" + bytes + " read so far; give java more heap (java -Xmx...) or fewer samples"
                    + " (about 100 times --size in total is enough)");
        }
        samples.removeIf(s -> s.length == 0);
        if (samples.isEmpty()) {
            throw new CliException(ExitCodes.FAILURE, "no samples: " + sampleSources()
                    + " empty (empty samples, such as blank lines, are skipped)");
        }
        long total = samples.stream().mapToLong(s -> s.length).sum();
        ZstdDictionary dict;
        try {
            dict = ZstdDictionary.train(samples, (int) sizeBytes);
        } catch (ZstdException e) {
            throw new CliException(ExitCodes.FAILURE, e.getMessage()
                    + "; zstd needs hundreds of samples, about 100 times the dictionary size in total", e);
        }
        try {
            dict.save(out); // whole or not at all (WholeFiles)
        } catch (UncheckedIOException e) {
            throw new CliException(ExitCodes.FAILURE, "cannot write dictionary: file=" + out + ", error="
                    + Main.describe(e.getCause()), e.getCause());
        }
        String id = Integer.toUnsignedString(dict.id());
        System.out.println(id);
        KeygenCommand.checkStandardOutput();
        spec.commandLine().getErr().println(spec.qualifiedName() + ": wrote dictionary: id=" + id + ", bytes=" + dict.bytes().length
                + ", samples=" + samples.size() + ", sampleBytes=" + total + ", out=" + out);
        return ExitCodes.OK;
    }

    /**
     * Whether {@code file} is this process's standard output ({@code /dev/stdout}, {@code /dev/fd/1},
     * or the file, pipe or terminal it is), as far as Linux's {@code /proc/self/fd/1} tells.
     */
    private static boolean isStandardOutput(Path file) {
        Path fd1 = Path.of("/proc/self/fd/1");
        try {
            return Files.exists(file) && Files.exists(fd1) && Files.isSameFile(file, fd1);
        } catch (IOException | SecurityException e) {
            return false; // cannot tell: written as asked
        }
    }

    /** Adds the samples of standard input and the FILEs to {@code samples}. */
    private void readSamples(List<byte[]> samples) {
        if (files.isEmpty()) {
            addStandardInput(samples);
        }
        for (Path f : files) {
            if (isStandardInput(f)) {
                addStandardInput(samples);
            } else if (lines) {
                try (InputStream in = Files.newInputStream(f)) {
                    addLines(in, samples, "file=" + f);
                } catch (IOException e) {
                    throw new CliException(ExitCodes.FAILURE, "cannot read sample file: file=" + f + ", error=" + Main.describe(e), e);
                }
            } else {
                try {
                    add(samples, Files.readAllBytes(f));
                } catch (OutOfMemoryError e) {
                    // above the largest Java array, or above the heap: a line, not a stack trace
                    throw new CliException(ExitCodes.FAILURE, "cannot read sample file: file=" + f + ", error=does not fit in"
                            + " the Java heap (" + e.getMessage() + "); with --lines each line of it is a sample, or give java"
                            + " more heap (java -Xmx...)");
                } catch (IOException e) {
                    throw new CliException(ExitCodes.FAILURE, "cannot read sample file: file=" + f + ", error=" + Main.describe(e), e);
                }
            }
        }
    }

    /**
     * What the samples were read from, with its verb, for the "no samples" line: {@code standard input
     * was}, {@code file=a.json was}, {@code standard input and files=a.json,b.json were}. It named
     * "standard input and the files" whichever was read.
     */
    private String sampleSources() {
        List<String> named = files.stream().filter(f -> !isStandardInput(f)).map(Path::toString).toList();
        List<String> sources = new ArrayList<>();
        if (readsStandardInput()) {
            sources.add("standard input");
        }
        if (!named.isEmpty()) {
            sources.add((named.size() == 1 ? "file=" : "files=") + String.join(",", named));
        }
        return String.join(" and ", sources) + (sources.size() > 1 || named.size() > 1 ? " were" : " was");
    }

    private boolean readsStandardInput() {
        return files.isEmpty() || files.stream().anyMatch(TrainCommand::isStandardInput);
    }

    /** Which input of the samples {@code file} is (a sample FILE, or the file standard input reads), or null. */
    private String inputAt(Path file) {
        for (Path f : files) {
            if (!isStandardInput(f) && sameFile(f, file)) {
                return "the sample file " + f;
            }
        }
        return readsStandardInput() && ClosedStandardInput.readsFile(stdin, file) ? "the file standard input reads" : null;
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException notBothThere) {
            return false; // a missing sample file is named when it is read
        }
    }

    /** A FILE of {@code -}: standard input. */
    private static boolean isStandardInput(Path file) {
        return file.toString().equals("-");
    }

    private void addStandardInput(List<byte[]> samples) {
        try {
            addLines(stdin, samples, "in standard input");
        } catch (IOException e) {
            throw Main.cannotReadStandardInput(e);
        }
    }

    /** The samples of {@code in}, cut at the delimiter; {@code source} names it in an error. */
    private void addLines(InputStream in, List<byte[]> samples, String source) throws IOException {
        MessageReader reader = MessageReader.delimited(in, delimiter.value()[0], sampleMaxBytes);
        try {
            while (reader.next()) {
                add(samples, reader.copy());
            }
        } catch (MessageReader.TooLongException e) {
            // not a failure to read: said as "cannot read standard input: error=message longer than ..." without a remedy
            String cut = "cut the input into samples at another byte (--delimiter BYTE)";
            throw new CliException(ExitCodes.FAILURE, (e.heap() ? e.getMessage() + ", " + source
                    + "; give java more heap (java -Xmx...) or " + cut
                    : "sample longer than the limit: limit=" + e.limitBytes() + " bytes (one sample is one Java array), no "
                    + Values.delimiterName(delimiter.value()[0]) + " within it, " + source + "; samples are typical messages: " + cut), e);
        }
    }

    /** Adds one sample, refusing it once the samples add up to more than libzstd's trainer takes. */
    private void add(List<byte[]> samples, byte[] sample) {
        totalBytes += sample.length;
        if (totalBytes > totalMaxBytes) {
            // before reading gigabytes more, and before libzstd refuses them with the advice for too few samples
            throw new CliException(ExitCodes.FAILURE, "the samples add up to more than zstd's trainer takes: limit="
                    + totalMaxBytes + " bytes in all, passed at sample=" + (samples.size() + 1) + "; give fewer samples"
                    + " (about 100 times --size in total is enough: " + 100 * sizeBytes + " bytes)");
        }
        samples.add(sample);
    }

}

package io.zmqzstd.cli;

import io.zmqzstd.codec.Zstd;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.nativelib.NativeLibraryUnavailableException;
import io.zmqzstd.transport.ZmqContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code zmq-zstd}: the command-line tool. Errors the user can fix are one line on stderr
 * ({@code zmq-zstd send: <what>}) and an exit code from {@link ExitCodes}; only bugs print a stack
 * trace.
 */
@Command(name = "zmq-zstd", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Stream zstd-compressed messages over ZeroMQ, and train zstd dictionaries.",
        subcommands = {SendCommand.class, RecvCommand.class, ProxyCommand.class, TrainCommand.class, KeygenCommand.class,
                CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE,
                ExitCodes.HELP_USAGE, ExitCodes.HELP_TIMEOUT, ExitCodes.HELP_INTERRUPTED_TOP})
public final class Main implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    private Main() {
        // made by commandLine() only
    }

    /**
     * Runs the tool and exits the JVM with its exit code.
     *
     * @param args the command-line arguments, without the program name
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the tool with {@code args} on this process's stdin/stdout/stderr; returns the exit
     * code.
     *
     * @param args the command-line arguments, without the program name
     * @return the exit code, one of those in {@link ExitCodes}
     */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // "@FILE" is ours (--curve-server-key @FILE), not picocli's argument-file expansion.
        cl.setExpandAtFiles(false);
        // every command's file options: an empty path is a usage error naming the option, not the working directory
        cl.registerConverter(Path.class, new Values.FilePath());
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler((e, failed, parseResult) -> failure(e, failed));
        cl.setExecutionStrategy(Main::executeCheckingHelpOutput);
        // Each command's standard options offer --version too: without a provider it printed nothing.
        for (CommandLine command : cl.getSubcommands().values()) {
            command.getCommandSpec().versionProvider(new Version());
        }
        return cl;
    }

    /** No command given: the overview on stderr, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /**
     * picocli's own strategy, then, after {@code --help}, {@code --version} or {@code help}, whether
     * standard output took the text: picocli prints it through a PrintStream, which keeps write
     * errors to itself, so {@code --version > /dev/full} or into a closed pipe exited 0 with nothing
     * written. Now that is one line, exit 1, as for keygen's key pair.
     */
    private static int executeCheckingHelpOutput(ParseResult parseResult) {
        refuseUndecodedArguments(parseResult);
        refuseArgumentsLeftOver(parseResult);
        int code = new CommandLine.RunLast().execute(parseResult);
        ParseResult last = parseResult;
        boolean help = false;
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            last = p;
            help |= p.isUsageHelpRequested() || p.isVersionHelpRequested()
                    || p.commandSpec().userObject() instanceof CommandLine.HelpCommand;
        }
        if (!help) {
            return code;
        }
        CommandLine printed = last.commandSpec().commandLine();
        printed.getOut().flush();
        try {
            KeygenCommand.checkStandardOutput();
        } catch (CliException e) {
            return failure(e, printed);
        }
        return code;
    }

    /**
     * picocli leaves unmatched the arguments after {@code --version} or {@code help COMMAND} and
     * still prints, exit 0: {@code zmq-zstd --version extra} and {@code zmq-zstd help send extra}
     * succeeded as if the extra argument meant nothing. Now each is a usage error naming it.
     * {@code --help} keeps printing whatever else the command line holds: a user adds it to a line
     * that went wrong to learn why.
     */
    private static void refuseArgumentsLeftOver(ParseResult parseResult) {
        boolean version = false;
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.isUsageHelpRequested()) {
                return;
            }
            version |= p.isVersionHelpRequested();
        }
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) {
                String after = version ? "--version takes no other argument" : "help takes at most one COMMAND";
                throw new ParameterException(p.commandSpec().commandLine(), after + ": unexpected argument '"
                        + p.unmatched().getFirst() + "'" + (p.unmatched().size() > 1 ? " and " + (p.unmatched().size() - 1) + " more" : ""));
            }
        }
    }

    /**
     * The JVM decodes the command line in the locale's charset ({@code sun.jnu.encoding}), which
     * under the C or POSIX locale (LANG unset: cron, systemd units and container images without a
     * locale) is ASCII, and replaces every other byte with U+FFFD. A {@code --delimiter '→'} then
     * wrote three U+FFFD after each message, a {@code --subscribe café} matched no publisher's topic
     * and a {@code --topic café} sent another one, without a word. Now an argument that holds one
     * is a usage error naming the remedy.
     */
    private static void refuseUndecodedArguments(ParseResult parseResult) {
        String charset = System.getProperty("sun.jnu.encoding", "UTF-8");
        try {
            if (Charset.forName(charset).equals(StandardCharsets.UTF_8)) {
                return;
            }
        } catch (IllegalArgumentException unknown) {
            // a charset Java does not know: look at the arguments
        }
        ParseResult last = parseResult;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        for (String arg : parseResult.originalArgs()) {
            if (arg.indexOf('\uFFFD') >= 0) {
                throw new ParameterException(last.commandSpec().commandLine(), "argument '" + arg + "' has bytes that the JVM"
                        + " could not decode in this locale's charset, " + charset + " (LC_ALL, LC_CTYPE or LANG unset, C or"
                        + " POSIX), and replaced each with U+FFFD; run zmq-zstd in a UTF-8 locale, e.g. LC_ALL=C.UTF-8");
            }
        }
    }

    private static int usageError(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        PrintWriter err = cl.getErr();
        err.println(name + ": " + oneLine(e.getMessage()) + " (see '" + name + " --help')");
        err.flush();
        return ExitCodes.USAGE;
    }

    private static int failure(Exception e, CommandLine failed) {
        String name = failed.getCommandSpec().qualifiedName();
        PrintWriter err = failed.getErr();
        int code;
        String message;
        NativeLibraryUnavailableException missing = find(e, NativeLibraryUnavailableException.class);
        if (e instanceof CliException c) {
            code = c.exitCode();
            message = c.getMessage();
        } else if (missing != null) {
            code = ExitCodes.FAILURE;
            message = missing.getMessage();
        } else if (e instanceof java.io.UncheckedIOException || e instanceof java.io.IOException) {
            code = ExitCodes.FAILURE;
            message = e.getMessage() + (e.getCause() != null ? ", error=" + describe(e.getCause()) : "");
        } else {
            // not an outcome we foresaw: keep the stack trace for the bug report
            e.printStackTrace(err);
            code = ExitCodes.FAILURE;
            message = "internal error: " + e;
        }
        err.println(name + ": " + oneLine(message));
        err.flush();
        return code;
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /** An I/O failure in a few words, for "error=" in a message: no exception class names. */
    static String describe(Throwable e) {
        return io.zmqzstd.nativelib.internal.IoErrors.describe(e); // shared with the codec's dictionary files
    }

    /**
     * Why {@code file} cannot be written as a new output file, or null. Checked before any work, so
     * that nothing is half-written (keygen's secret key without its public half) and no file
     * option replaces a directory.
     */
    static String outputProblem(Path file) {
        if (file.toString().equals("-")) {
            // a FILE of '-' is standard input to train: "--out -" wrote a file named '-' without a word
            return "'-' is not standard output here (that carries the printed ID or key), it would be a file named '-';"
                    + " give ./- for such a file";
        }
        if (Files.isDirectory(file)) {
            return "is a directory";
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.exists(parent)) {
            return "no such directory: " + parent; // "no such file" would name the file about to be created
        }
        if (parent != null && !Files.isDirectory(parent)) {
            return "not a directory: " + parent;
        }
        // where the file lands: a regular file there is replaced, else a new one is made in parent (a link to a
        // pipe or a device, /dev/stderr, is written through and not looked at here)
        if (Files.isRegularFile(file)) {
            return fileSystemProblem(file, true, parent);
        }
        return Files.exists(file) || parent == null ? null : fileSystemProblem(parent, false, parent);
    }

    /** The kernel's own file systems: their files are its state and settings, not files to write to. */
    private static final java.util.Set<String> KERNEL_FILE_SYSTEMS = java.util.Set.of("proc", "sysfs");

    /**
     * Why a file cannot be written at {@code where} (an existing regular file, or the directory a
     * new one is made in), before any work: a read-only file system, one of the kernel's (creating a
     * file in {@code /proc}, as root, failed as "no such file"; {@code /proc/sys/…} sets the
     * kernel), or a directory this user may not create a file in, where no existing file could be
     * written in place; else null. What cannot be told from here (the store unreadable) is left for
     * the write to say.
     *
     * @param exists whether {@code where} is the existing file, not the directory of a new one
     */
    private static String fileSystemProblem(Path where, boolean exists, Path parent) {
        java.nio.file.FileStore store;
        try {
            store = Files.getFileStore(where);
        } catch (java.io.IOException | SecurityException e) {
            return null;
        }
        if (KERNEL_FILE_SYSTEMS.contains(store.type())) {
            return (exists ? "it" : "its directory " + where) + " is on the kernel's " + store.type()
                    + " file system, whose files are the kernel's state and settings, not files to write to";
        }
        if (store.isReadOnly()) {
            return "read-only file system: " + where + " is on " + store;
        }
        if (parent != null && !Files.isWritable(parent) && (!exists || !Files.isWritable(where))) {
            return "permission denied: this user may not create a file in " + parent + (exists ? " nor write " + where : "");
        }
        return null;
    }

    /**
     * Whether the user gave {@code option} on the command line, rather than its default applying: for
     * refusing an option that would do nothing where it was given.
     */
    static boolean given(CommandSpec spec, String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** Reading standard input failed (e.g. {@code < /tmp}: EISDIR): the one line that says so. */
    static CliException cannotReadStandardInput(java.io.IOException e) {
        return new CliException(ExitCodes.FAILURE, "cannot read standard input: error=" + describe(e), e);
    }

    static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /**
     * {@code --version}: this tool, and the libzstd and libzmq it loads, each by version and file or, when
     * it cannot be used, by the one sentence that says why (missing, too old, native access off).
     */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String own = Main.class.getPackage().getImplementationVersion();
            return new String[] {
                    "zmq-zstd " + (own != null ? own : "(development build)"),
                    "libzstd " + loaded(Zstd::versionString, NativeLibrary.ZSTD),
                    "libzmq " + loaded(() -> ZmqContext.version().toString(), NativeLibrary.ZMQ)};
        }

        /** "1.5.4 (/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4)": the file where it can be found. */
        private static String loaded(Supplier<String> version, NativeLibrary library) {
            try {
                String v = version.get();
                return library.file().map(f -> v + " (" + f + ")").orElse(v);
            } catch (RuntimeException | LinkageError e) {
                // a binding whose class failed to initialise carries the library's sentence as its cause
                NativeLibraryUnavailableException why = find(e, NativeLibraryUnavailableException.class);
                return "unavailable: " + oneLine(describe(why != null ? why : e));
            }
        }
    }
}

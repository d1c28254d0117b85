package io.zmqzstd.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Consumer;

/** The tool run in the test's JVM, on the command line the jar builds, with its output captured. */
final class InProcess {

    /** A finished run: exit code, and what the command wrote to picocli's out and err. */
    record Result(int code, String out, String err) {
    }

    private InProcess() {
    }

    /**
     * Runs {@code args} on a command line set up by {@code setup}; train's standard input is empty
     * unless {@code setup} sets it (never the test JVM's own).
     */
    static Result execute(Consumer<CommandLine> setup, String... args) {
        return execute(setup, new StringWriter(), args);
    }

    /** As {@link #execute(Consumer, String...)}, with the command's err written to {@code err}, which another thread may read as it runs. */
    static Result execute(Consumer<CommandLine> setup, StringWriter err, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = Main.commandLine();
        ((TrainCommand) cl.getSubcommands().get("train").getCommand()).stdin = java.io.InputStream.nullInputStream();
        setup.accept(cl);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}

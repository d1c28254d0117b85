package io.zmqzstd.cli;

/** The process exit codes of every command; the README and each command's help list them. */
final class ExitCodes {

    /** Done: input sent and lingered out, --count reached, dictionary written. */
    static final int OK = 0;
    /** A runtime failure: native library missing, address in use, unreadable file, training failed. */
    static final int FAILURE = 1;
    /** A wrong option, value or endpoint: one line on stderr, nothing was sent or received. */
    static final int USAGE = 2;
    /** --timeout fired: no message (recv) or no peer taking a message (send) within it. */
    static final int TIMEOUT = 3;
    /**
     * What recv/send return when a signal ended them, after printing the summary. The process
     * status the shell sees is the JVM's 128 + signal number: 130 for SIGINT, 143 for SIGTERM.
     */
    static final int INTERRUPTED = 130;

    /** The same table for picocli's help sections (annotation values must be constants). */
    static final String HELP_OK = "0:Success.";
    static final String HELP_FAILURE = "1:Runtime failure (native library missing, address in use, I/O error, ...).";
    static final String HELP_USAGE = "2:Usage error: wrong option, value or endpoint (one line on stderr).";
    static final String HELP_TIMEOUT = "3:--timeout fired.";
    static final String HELP_INTERRUPTED = "130/143:Interrupted by SIGINT/SIGTERM (after the --stats summary).";
    /** The top level's line: a proxy ends with 0 on the same signals. */
    static final String HELP_INTERRUPTED_TOP = "130/143:send, recv: interrupted by SIGINT/SIGTERM (after the --stats summary); proxy: exit 0.";

    private ExitCodes() {
    }
}

package io.zmqzstd.cli;

/**
 * Ends a command with a message (printed as one line on stderr) and an exit code. Thrown for
 * outcomes the user must hear about, not for bugs: those keep their stack trace.
 */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause, false, false);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}

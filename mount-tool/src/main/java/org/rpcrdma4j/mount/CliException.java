package org.rpcrdma4j.mount;

/**
 * A failure a command has already put into words: the message is the one line printed on stderr, the exit code is
 * the process status. Commands throw it where they know better than the generic mapping ({@link Failures}) what went
 * wrong (which local file, which remote path).
 */
public final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ExitCode exitCode;

    public CliException(ExitCode exitCode, String message) {
        this(exitCode, message, null);
    }

    public CliException(ExitCode exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public ExitCode exitCode() {
        return exitCode;
    }
}

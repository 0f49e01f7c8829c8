package org.rpcrdma4j.mount;

/**
 * The exit statuses of the command line, one per kind of failure, so that scripts can tell a typo from a missing
 * file from a dead server. The numbers are part of the interface and never change meaning.
 */
public enum ExitCode {
    /** The command did what was asked. */
    OK(0, "success"),
    /** Bad command line: unknown command or option, malformed URL, size or duration, missing argument. */
    USAGE(1, "bad command line"),
    /** The server answered with an error: no such file or directory, no such export, permission, exists, ... */
    NFS(2, "the server refused the operation (no such file or export, permission, ...)"),
    /** The server could not be reached or stopped answering: unknown host, refused, timeout, lost connection. */
    TRANSPORT(3, "connection or transport failure"),
    /** The RDMA provider cannot be used here (e.g. no libdisni, no device) or a device option is wrong. */
    PROVIDER(4, "RDMA provider unavailable or misconfigured"),
    /** A local file could not be read or written. */
    LOCAL(5, "local file error"),
    /** Data read back differs from the data written (demo, bench). */
    VERIFY(6, "data verification failed"),
    /** A defect: an unexpected exception (run with --verbose for the stack trace). */
    INTERNAL(70, "internal error"),
    /** Interrupted (Ctrl-C) before the command finished; partial transfers were removed. */
    INTERRUPTED(130, "interrupted");

    private final int code;
    private final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /** The process exit status. */
    public int code() {
        return code;
    }

    /** One line for the help text. */
    public String meaning() {
        return meaning;
    }
}

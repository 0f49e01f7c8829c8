package org.rpcrdma4j.nfs.client;

/** The server denied the call ({@code MSG_DENIED}: {@code RPC_MISMATCH} or {@code AUTH_ERROR}). */
public final class RpcDeniedException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    public RpcDeniedException(String message, Throwable cause) {
        super(message, cause);
    }

    private static final String[] AUTH_STATS = {"AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
        "AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP", "AUTH_FAILED"};

    /**
     * A call {@code server} denied: {@code rejectStatus} is the {@code reject_stat} (0 RPC_MISMATCH, 1 AUTH_ERROR),
     * {@code authStatus} the {@code auth_stat} of an AUTH_ERROR (-1 when not known); the message names both, and what
     * usually causes them.
     */
    public static RpcDeniedException of(Object server, int rejectStatus, int authStatus) {
        if (rejectStatus == 0) {
            return new RpcDeniedException("call denied by " + server + ": RPC_MISMATCH (the server does not speak "
                    + "RPC version 2)", null);
        }
        if (rejectStatus != 1) {
            return new RpcDeniedException("call denied by " + server + ": reject status " + rejectStatus, null);
        }
        String stat = authStatus < 0 ? "" : authStatus < AUTH_STATS.length ? ", " + AUTH_STATS[authStatus]
                : ", auth_stat " + authStatus;
        String hint = authStatus == 5 ? " (the server wants a stronger security flavour than AUTH_SYS)"
                : " (an NFS server answers so to a host none of its exports is open to: check its export list)";
        return new RpcDeniedException("call denied by " + server + ": AUTH_ERROR" + stat + hint, null);
    }
}

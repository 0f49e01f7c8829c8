package org.rpcrdma4j.nfs.client;

import java.io.IOException;

/**
 * An RPC did not produce a result: the transport failed, the server did not answer in time, or it answered with an
 * RPC-level error instead of the procedure's result. Distinct from {@link org.rpcrdma4j.nfs.NfsException}, which
 * means the procedure ran and returned an error status.
 */
public abstract class RpcCallException extends IOException {
    private static final long serialVersionUID = 1L;

    protected RpcCallException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether sending the call again (on a new connection) may succeed. */
    public boolean isRetryable() {
        return false;
    }
}

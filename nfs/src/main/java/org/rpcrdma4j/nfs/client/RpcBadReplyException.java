package org.rpcrdma4j.nfs.client;

/** The reply did not decode as the procedure's result (malformed, out of bounds, or larger than the sink). */
public final class RpcBadReplyException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    public RpcBadReplyException(String message, Throwable cause) {
        super(message, cause);
    }
}

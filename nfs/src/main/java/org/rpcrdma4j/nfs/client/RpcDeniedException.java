package org.rpcrdma4j.nfs.client;

/** The server denied the call ({@code MSG_DENIED}: {@code RPC_MISMATCH} or {@code AUTH_ERROR}). */
public final class RpcDeniedException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    public RpcDeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}

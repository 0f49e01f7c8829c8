package org.rpcrdma4j.nfs.client;

/** The connection failed or closed before the reply arrived, or could not be made. */
public final class RpcConnectionException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    public RpcConnectionException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetryable() {
        return true;
    }
}

package org.rpcrdma4j.nfs.client;

/** No reply arrived within the call timeout. The call may or may not have been executed. */
public final class RpcTimeoutException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    public RpcTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}

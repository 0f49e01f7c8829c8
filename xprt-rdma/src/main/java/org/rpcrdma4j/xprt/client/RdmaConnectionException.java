package org.rpcrdma4j.xprt.client;

/**
 * The connection to the server could not be made, or the transport was closed before the call was answered. A call
 * that failed this way may or may not have been executed by the server.
 */
public final class RdmaConnectionException extends RdmaTransportException {
    private static final long serialVersionUID = 1L;

    public RdmaConnectionException(String message) {
        super(message);
    }

    public RdmaConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}

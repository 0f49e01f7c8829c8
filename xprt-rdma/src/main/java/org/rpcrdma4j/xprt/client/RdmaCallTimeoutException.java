package org.rpcrdma4j.xprt.client;

/**
 * No reply came within the call's timeout. The message says what the connection was doing meanwhile (connected,
 * lost and why, reconnecting). A call that times out on the wire also makes the transport drop the connection (RC has
 * no keep-alive of its own); the other calls are sent again on the next one.
 */
public final class RdmaCallTimeoutException extends RdmaTransportException {
    private static final long serialVersionUID = 1L;

    public RdmaCallTimeoutException(String message) {
        super(message);
    }
}

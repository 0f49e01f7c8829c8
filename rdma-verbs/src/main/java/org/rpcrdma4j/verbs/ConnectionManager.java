package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/** Establishes reliable connections between queue pairs, carrying private data both ways. */
public interface ConnectionManager {

    /**
     * Connects an {@link QpState#INIT} queue pair to a listener. The future completes with the established
     * connection, or exceptionally with a {@link ConnectException} naming why (refused with the peer's private data,
     * unreachable, timed out, handshake error); it never blocks a caller and always completes within the parameters'
     * timeouts. Later events (DISCONNECTED, DEVICE_REMOVAL) go to the listener.
     */
    CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote, ConnectParameters parameters,
                                              ConnectionListener listener);

    /** Listens; each request goes to the handler on a device thread. */
    RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler) throws VerbsException;

    @FunctionalInterface
    interface ConnectionRequestHandler {
        void onConnectionRequest(ConnectionRequest request);
    }
}

package org.rpcrdma4j.verbs.conformance;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A connection manager that passes connects and listens to the one it wraps, for a wrapping device's manager to
 * override what it changes (to hand its handlers {@link ForwardingConnectionRequest}s, say).
 */
public class ForwardingConnectionManager implements ConnectionManager {
    private final ConnectionManager manager;

    protected ForwardingConnectionManager(ConnectionManager manager) {
        this.manager = manager;
    }

    @Override
    public CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote,
                                                     ConnectParameters parameters, ConnectionListener listener) {
        return manager.connect(qp, remote, parameters, listener);
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
            throws VerbsException {
        return manager.listen(bindAddress, handler);
    }
}

package org.rpcrdma4j.verbs.conformance;

import java.net.InetSocketAddress;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A connection request that passes everything to the one it wraps, for a wrapping device's listeners to hand out
 * with {@link #accept} or {@link #reject} changed.
 */
public class ForwardingConnectionRequest implements ConnectionRequest {
    private final ConnectionRequest request;

    protected ForwardingConnectionRequest(ConnectionRequest request) {
        this.request = request;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return request.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return request.localAddress();
    }

    @Override
    public byte[] privateData() {
        return request.privateData();
    }

    @Override
    public int responderResources() {
        return request.responderResources();
    }

    @Override
    public int initiatorDepth() {
        return request.initiatorDepth();
    }

    @Override
    public void accept(QueuePair qp, AcceptParameters parameters, ConnectionListener listener)
            throws VerbsException {
        request.accept(qp, parameters, listener);
    }

    @Override
    public void reject(byte[] privateData) {
        request.reject(privateData);
    }
}

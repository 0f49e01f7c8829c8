package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;

/**
 * An incoming connection request at a listener. Exactly one of {@link #accept} or {@link #reject} must be called,
 * from any thread, within the device's handshake timeout.
 */
public interface ConnectionRequest {

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** The requester's private data for the upper layer. */
    byte[] privateData();

    /** RDMA READs the requester accepts in flight (its IRD). */
    int responderResources();

    /** RDMA READs the requester wants in flight (its ORD). */
    int initiatorDepth();

    /**
     * Accepts with a queue pair of this device (in {@link QpState#INIT}, receives already posted as needed).
     * The listener gets ESTABLISHED once the connection is usable.
     */
    void accept(QueuePair qp, AcceptParameters parameters, ConnectionListener listener) throws VerbsException;

    /** Refuses, with optional private data for the requester. */
    void reject(byte[] privateData);
}

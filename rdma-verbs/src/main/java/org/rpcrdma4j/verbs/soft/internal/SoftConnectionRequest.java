package org.rpcrdma4j.verbs.soft.internal;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;

/** A received MPA Request waiting for the upper layer's accept or reject (exactly one, within the timeout). */
final class SoftConnectionRequest implements ConnectionRequest {
    private static final int PENDING = 0;
    private static final int ANSWERED = 1;
    private static final int EXPIRED = 2;

    private final PassiveHandshake handshake;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final byte[] privateData;
    private final int peerIrd;
    private final int peerOrd;
    private final AtomicInteger state = new AtomicInteger(PENDING);

    SoftConnectionRequest(PassiveHandshake handshake, InetSocketAddress remote, InetSocketAddress local,
                          byte[] privateData, int peerIrd, int peerOrd) {
        this.handshake = handshake;
        this.remote = remote;
        this.local = local;
        this.privateData = privateData;
        this.peerIrd = peerIrd;
        this.peerOrd = peerOrd;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public int responderResources() {
        return peerIrd;
    }

    @Override
    public int initiatorDepth() {
        return peerOrd;
    }

    @Override
    public void accept(QueuePair queuePair, AcceptParameters parameters, ConnectionListener listener)
            throws VerbsException {
        SoftDevice device = handshake.device();
        if (!(queuePair instanceof SoftQp qp) || qp.device != device) {
            throw new VerbsException("not a queue pair of device '" + device.name() + "': " + queuePair);
        }
        if (listener == null) {
            throw new VerbsException("a connection listener is required");
        }
        if (parameters.privateData().length > device.attributes().maxPrivateData()) {
            throw new VerbsException("private data of " + parameters.privateData().length + " bytes exceeds "
                    + device.attributes().maxPrivateData());
        }
        if (!qp.claimForConnection()) {
            throw new VerbsException("queue pair " + qp.qpNum() + " is not an unused queue pair in INIT ("
                    + qp.state() + ")");
        }
        if (!state.compareAndSet(PENDING, ANSWERED)) {
            qp.engine.execute(() -> qp.enterError(SoftQp.TEARDOWN_ABORT,
                    org.rpcrdma4j.verbs.ConnectionEventType.CONNECT_ERROR, null));
            throw new VerbsException("connection request from " + remote + " was already answered or has expired");
        }
        handshake.accept(qp, parameters, listener);
    }

    @Override
    public void reject(byte[] privateData) {
        if (state.compareAndSet(PENDING, ANSWERED)) {
            handshake.reject(privateData);
        }
    }

    /** Marks the request expired unless answered; returns whether it was still pending. */
    boolean expire() {
        return state.compareAndSet(PENDING, EXPIRED);
    }
}

package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;

/** Connects and listens through librdmacm, every identifier on the device thread. */
final class FfmConnectionManager implements ConnectionManager {
    private final FfmDevice device;
    /** On the device thread: what to end when the device closes. */
    private final List<FfmConnection> connections = new ArrayList<>();
    private final List<FfmListener> listeners = new ArrayList<>();

    FfmConnectionManager(FfmDevice device) {
        this.device = device;
    }

    @Override
    public CompletableFuture<ConnectionInfo> connect(QueuePair queuePair, InetSocketAddress remote,
                                                     ConnectParameters parameters, ConnectionListener listener) {
        CompletableFuture<ConnectionInfo> future = new CompletableFuture<>();
        if (!(queuePair instanceof FfmQueuePair qp) || qp.ffmDevice() != device) {
            future.completeExceptionally(new IllegalArgumentException("the queue pair is not of " + device.name()));
            return future;
        }
        if (device.isClosed() || qp.state() != QpState.INIT || !qp.claim()) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR, "the queue pair is "
                    + (device.isClosed() ? "of a closed device" : "not new (" + qp.state() + ", or already "
                    + "connecting)"), null, null));
            return future;
        }
        if (parameters.privateData().length > device.attributes().maxPrivateData()) {
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                    parameters.privateData().length + " bytes of private data; " + device.name() + " carries "
                            + device.attributes().maxPrivateData(), null, null));
            return future;
        }
        device.loop().execute(() -> {
            MemorySegment id;
            try (Arena arena = Arena.ofConfined()) {
                id = device.runtime().cm().createId(arena, device.cmChannel(), device.loop().errno());
            } catch (VerbsException e) {
                future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                        "rdma_create_id failed: " + e.getMessage(), null, e));
                return;
            }
            connections.add(FfmConnection.connect(device, id, qp, remote, parameters.privateData(),
                    Math.min(parameters.responderResources(), device.attributes().maxQpRdAtom()),
                    Math.min(parameters.initiatorDepth(), device.attributes().maxQpInitRdAtom()),
                    parameters.resolveTimeout(), parameters.connectTimeout(), listener, future));
            connections.removeIf(c -> !c.isOpen());
        });
        return future;
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
            throws VerbsException {
        device.checkOpen();
        return device.loop().call(() -> {
            FfmListener l = FfmListener.listen(device, bindAddress, handler, this);
            listeners.add(l);
            return l;
        });
    }

    /** On the device thread: a connection accepted at one of the listeners. */
    void accepted(FfmConnection c) {
        connections.removeIf(x -> !x.isOpen());
        connections.add(c);
    }

    /**
     * On the device thread: every connection ends with DEVICE_REMOVAL, every request not answered yet is rejected,
     * every listener closes, so that no identifier outlives the event channel.
     */
    void deviceClosing() {
        for (FfmConnection c : List.copyOf(connections)) {
            c.deviceClosing();
        }
        for (CmEndpoint e : device.loop().endpoints()) {
            if (e instanceof FfmConnectionRequest r) {
                r.reject(null);
            }
        }
        for (FfmListener l : List.copyOf(listeners)) {
            l.close();
        }
        listeners.clear();
    }

    void closed(FfmListener l) {
        listeners.remove(l);
    }
}

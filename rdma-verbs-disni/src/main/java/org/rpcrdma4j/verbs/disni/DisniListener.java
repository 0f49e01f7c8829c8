package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

import com.ibm.disni.verbs.RdmaCmId;
import org.rpcrdma4j.verbs.ConnectionManager.ConnectionRequestHandler;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A listening rdma_cm id. Its requests go to the handler on the connection-manager thread. */
final class DisniListener implements RdmaListener, CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(DisniListener.class);

    private final RdmaCmId id;
    private final InetSocketAddress localAddress;
    private final ConnectionRequestHandler handler;
    private final DisniConnectionManager manager;
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniListener(RdmaCmId id, InetSocketAddress localAddress, ConnectionRequestHandler handler,
                  DisniConnectionManager manager) {
        this.id = id;
        this.localAddress = localAddress;
        this.handler = handler;
        this.manager = manager;
    }

    RdmaCmId id() {
        return id;
    }

    ConnectionRequestHandler handler() {
        return handler;
    }

    boolean isClosed() {
        return closed.get();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void onCmEvent(CmAction action, int event) {
        if (action == CmAction.DEVICE_REMOVAL) {
            LOG.warn("listener on {}: the RDMA device went away", localAddress);
        }
    }

    @Override
    public void onTick(long nowNanos) {
        // no deadlines
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            manager.loop().call(() -> {
                manager.listenerClosed(this);
                try {
                    id.destroyId();
                } catch (IOException e) {
                    LOG.warn("destroying the listening id on {} failed: {}", localAddress, e.toString());
                }
                return null;
            });
        } catch (VerbsException e) {
            LOG.warn("closing the listener on {}: {}", localAddress, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "DisniListener[" + localAddress + "]";
    }
}

package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.ConnectionManager.ConnectionRequestHandler;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A listening rdma_cm identifier; each CONNECT_REQUEST becomes an {@link FfmConnectionRequest} for the handler. */
final class FfmListener implements RdmaListener, CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(FfmListener.class);
    private static final int BACKLOG = 128;

    private final FfmDevice device;
    private final MemorySegment id;
    private final InetSocketAddress local;
    private final ConnectionRequestHandler handler;
    private final FfmConnectionManager manager;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FfmListener(FfmDevice device, MemorySegment id, InetSocketAddress local, ConnectionRequestHandler handler,
                        FfmConnectionManager manager) {
        this.device = device;
        this.id = id;
        this.local = local;
        this.handler = handler;
        this.manager = manager;
    }

    /** On the device thread. */
    static FfmListener listen(FfmDevice device, InetSocketAddress bindAddress, ConnectionRequestHandler handler,
                              FfmConnectionManager manager) throws VerbsException {
        MemorySegment errno = device.loop().errno();
        MemorySegment id;
        try (Arena arena = Arena.ofConfined()) {
            id = device.runtime().cm().createId(arena, device.cmChannel(), errno);
            try {
                device.runtime().cm().bindAddr(id, RdmaCm.sockaddr(arena, bindAddress), errno);
                long verbs = RdmaCm.verbs(id);
                if (verbs != 0 && verbs != device.context().address()) {
                    throw new VerbsException(bindAddress.getAddress().getHostAddress() + " belongs to another RDMA "
                            + "device than " + device.name());
                }
                device.runtime().cm().listen(id, BACKLOG, errno);
            } catch (VerbsException | RuntimeException e) {
                device.runtime().cm().destroyId(id, errno);
                throw e;
            }
        }
        InetSocketAddress local = RdmaCm.localAddress(id);
        FfmListener l = new FfmListener(device, id, local == null ? bindAddress : local, handler, manager);
        device.loop().register(id.address(), l);
        device.listeners.incrementAndGet();
        LOG.debug("listening on {} ({})", l.local, device.name());
        return l;
    }

    @Override
    public void onCmEvent(CmEvent e) {
        if (e.type() != RdmaCmAbi.EVENT_CONNECT_REQUEST) {
            LOG.debug("{} at the listener on {}", e.name(), local);
            return;
        }
        MemorySegment connId = MemorySegment.ofAddress(e.id()).reinterpret(RdmaCmAbi.CM_ID_PD + 8);
        FfmConnectionRequest request = new FfmConnectionRequest(device, connId, e, manager);
        device.loop().register(e.id(), request);
        try {
            handler.onConnectionRequest(request);
        } catch (RuntimeException ex) {
            LOG.error("the connection request handler threw; the request is rejected", ex);
            request.reject(null);
        }
    }

    @Override
    public void onTick(long nowNanos) {
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            device.loop().call(() -> {
                device.loop().unregister(id.address());
                try {
                    device.runtime().cm().destroyId(id, device.loop().errno());
                } catch (VerbsException e) {
                    LOG.warn("closing the listener on {}: {}", local, e.getMessage());
                }
                manager.closed(this);
                return null;
            });
        } catch (VerbsException e) {
            LOG.warn("closing the listener on {}: {}", local, e.getMessage());
        }
        device.listeners.decrementAndGet();
    }
}

package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CONNECT_REQUEST at a listener: the requester's private data and IRD/ORD, until it is accepted (the identifier
 * then belongs to the connection) or rejected ({@code rdma_reject} with the private data given, then
 * {@code rdma_destroy_id}). One not answered within {@code acceptTimeoutMillis} is rejected.
 */
final class FfmConnectionRequest implements ConnectionRequest, CmEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(FfmConnectionRequest.class);

    private final FfmDevice device;
    private final MemorySegment id;
    private final CmEvent request;
    private final FfmConnectionManager manager;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final long deadline;
    private final AtomicBoolean answered = new AtomicBoolean();

    FfmConnectionRequest(FfmDevice device, MemorySegment id, CmEvent request, FfmConnectionManager manager) {
        this.device = device;
        this.id = id;
        this.request = request;
        this.manager = manager;
        this.remote = RdmaCm.peerAddress(id);
        this.local = RdmaCm.localAddress(id);
        this.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(device.options().acceptTimeoutMillis());
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
        return request.privateData().clone();
    }

    /** The requester's IRD: what librdmacm reports as this side's initiator depth. */
    @Override
    public int responderResources() {
        return request.initiatorDepth();
    }

    /** The requester's ORD: what librdmacm reports as this side's responder resources. */
    @Override
    public int initiatorDepth() {
        return request.responderResources();
    }

    @Override
    public void accept(QueuePair queuePair, AcceptParameters parameters, ConnectionListener listener)
            throws VerbsException {
        if (!(queuePair instanceof FfmQueuePair qp) || qp.ffmDevice() != device) {
            throw new VerbsException("the queue pair is not of " + device.name());
        }
        if (qp.state() != QpState.INIT || !qp.claim()) {
            throw new VerbsException("the queue pair is not new (" + qp.state() + ", or already connecting)");
        }
        if (parameters.privateData().length > device.attributes().maxPrivateData()) {
            throw new VerbsException(parameters.privateData().length + " bytes of private data; " + device.name()
                    + " carries " + device.attributes().maxPrivateData());
        }
        if (!answered.compareAndSet(false, true)) {
            throw new VerbsException("the connection request was answered already");
        }
        device.loop().call(() -> {
            if (RdmaCm.verbs(id) != device.context().address()) {
                rejectNow(null);
                throw new VerbsException("the request from " + remote + " came through another RDMA device than "
                        + device.name() + "; it was rejected");
            }
            device.loop().unregister(id.address());
            // IRD: what we accept in flight, no more than the requester will issue (its ORD); ORD: no more than the
            // requester accepts (its IRD)
            int ird = Math.min(Math.min(parameters.responderResources(), device.attributes().maxQpRdAtom()),
                    initiatorDepth());
            int ord = Math.min(Math.min(parameters.initiatorDepth(), device.attributes().maxQpInitRdAtom()),
                    responderResources());
            FfmConnection c;
            try {
                c = FfmConnection.accept(device, id, qp, parameters.privateData(), request.privateData(), ird, ord,
                        listener);
            } catch (VerbsException e) {
                rejectNow(null);
                throw e;
            }
            manager.accepted(c);
            return null;
        });
    }

    @Override
    public void reject(byte[] privateData) {
        if (answered.compareAndSet(false, true)) {
            device.loop().execute(() -> rejectNow(privateData));
        }
    }

    /** On the device thread. */
    private void rejectNow(byte[] privateData) {
        device.loop().unregister(id.address());
        try (Arena arena = Arena.ofConfined()) {
            int n = privateData == null ? 0 : Math.min(privateData.length, device.attributes().maxPrivateData());
            MemorySegment data = MemorySegment.NULL;
            if (n > 0) {
                data = arena.allocate(n);
                data.copyFrom(MemorySegment.ofArray(privateData).asSlice(0, n));
            }
            device.runtime().cm().reject(id, data, n, device.loop().errno());
        } catch (VerbsException e) {
            LOG.debug("rdma_reject: {}", e.getMessage());
        }
        device.loop().destroyQuietly(id.address());
    }

    @Override
    public void onCmEvent(CmEvent e) {
        // the requester gave up before an answer (a DISCONNECTED or a CONNECT_ERROR): nothing to accept any more
        LOG.debug("{} for a connection request from {} not answered yet", e.name(), remote);
    }

    @Override
    public void onTick(long nowNanos) {
        if (nowNanos - deadline >= 0 && answered.compareAndSet(false, true)) {
            LOG.warn("a connection request from {} was not answered within {} ms; rejected", remote,
                    device.options().acceptTimeoutMillis());
            rejectNow(null);
        }
    }
}

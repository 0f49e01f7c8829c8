package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;

import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegistrationConfig;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection holds on the device and in the buffer pool, sized from the server's settings and the client's
 * connection request, made before the request is accepted and given back in one place ({@link #close()}).
 * <p>
 * Negotiation (RFC 8797, as the shared transport brief and Linux do it): the client's private data, or the version 1
 * defaults (1024 bytes each way, no remote invalidation) when it sent none the codec understands; the server sends
 * inline = min(its own, the client's receive size); its receive buffers hold min(its own, the client's send size).
 * Send With Invalidate is used only when the client offered remote invalidation and the device can send it. ORD (the
 * server's RDMA READs in flight) = min(the client's IRD, the device's, the configured cap); a client offering no RDMA
 * READ at all (IRD 0) is refused, as Linux svcrdma refuses it.
 * <p>
 * Sizes: {@code credits + margin} receive buffers and call slots; a send queue for every slot's reply with a few
 * RDMA WRITEs, the READs of the ORD, and the registration pool's REG_MR and LOCAL_INV work requests.
 */
final class ConnectionResources implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionResources.class);
    /** Send-queue entries reserved per slot for its reply (RDMA WRITEs + the Send); more waits or is refused. */
    private static final int WRS_PER_REPLY = 4;

    final int credits;
    final int slotCount;
    final int receiveCount;
    final int inlineSend;
    final int inlineReceive;
    final int maxSendSge;
    final boolean sendWithInvalidate;
    final int ord;
    final int sqBudget;
    final InetSocketAddress localAddress;
    final InetSocketAddress remoteAddress;
    final byte[] privateData;

    RegistrationPool registrations;
    CompletionQueue deviceSendCq;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    QueuePair qp;
    RegisteredBuffer recvRegion;
    RegisteredBuffer slotRegion;
    private boolean closed;

    private ConnectionResources(ServerConfig config, DeviceAttributes device, ConnectionRequest request) {
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.decode(request.privateData())
                .orElse(RpcRdmaPrivateData.V1_DEFAULTS);
        credits = config.credits();
        slotCount = config.slotsPerConnection();
        receiveCount = slotCount;
        inlineSend = peer.sendLimit(config.inlineSend());
        inlineReceive = peer.receiveLimit(config.inlineReceive());
        maxSendSge = Math.min(device.maxSge(), 8);
        sendWithInvalidate = peer.remoteInvalidation() && device.has(DeviceCapability.SEND_WITH_INV);
        ord = Math.min(request.responderResources(), Math.min(device.maxQpInitRdAtom(), config.maxReadsInFlight()));
        localAddress = request.localAddress();
        remoteAddress = request.remoteAddress();
        privateData = RpcRdmaPrivateData.of(false, config.inlineSend(), config.inlineReceive()).encode();
        sqBudget = slotCount * WRS_PER_REPLY + ord;
    }

    /**
     * Makes everything a connection needs for {@code request}; on failure releases what was made and throws.
     *
     * @throws VerbsException          when the device or the buffer pool refused
     * @throws IllegalArgumentException when the request cannot be served (no RDMA READ offered)
     */
    static ConnectionResources open(RdmaRpcServer server, ConnectionRequest request)
            throws VerbsException, InterruptedException {
        ServerConfig config = server.config;
        DeviceAttributes attributes = server.device.attributes();
        if (attributes.maxSge() < 2) {
            throw new IllegalArgumentException("the device offers " + attributes.maxSge() + " SGE per work request; "
                    + "replies need 2 (header and message)");
        }
        if (request.responderResources() < 1) {
            throw new IllegalArgumentException("the client offers no RDMA READ (IRD 0); read chunks could not be "
                    + "pulled");
        }
        ConnectionResources r = new ConnectionResources(config, attributes, request);
        try {
            r.allocate(server, attributes);
            return r;
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    private void allocate(RdmaRpcServer server, DeviceAttributes attributes)
            throws VerbsException, InterruptedException {
        ServerConfig config = server.config;
        // a sink: the call's pages at the fast-register depth, plus one handle per gap (around each read chunk)
        int depth = attributes.maxFastRegDepth() > 0 ? attributes.maxFastRegDepth() : 256;
        long pages = config.maxCallSize() / ServerConfig.PAGE + 2;
        int perCall = (int) ((pages + depth - 1) / depth) + config.maxReadChunks() + 1;
        int handles = perCall * Math.min(slotCount, 8);
        registrations = RegistrationPool.create(server.pd, RegistrationConfig.defaults(slotCount)
                .withMode(config.registrationMode())
                .withSizes(config.maxCallSize(), 0)
                .withHandles(handles, Math.max(handles, perCall * slotCount))
                .withExecutor(server.ioExecutor));
        int reserve = 2 * registrations.maxHandles() + 16;
        int maxSendWr = Math.min(attributes.maxQpWr(), sqBudget + reserve);
        int cqEntries = Math.min(attributes.maxCqe(), maxSendWr + reserve);
        deviceSendCq = server.device.createCompletionQueue(cqEntries);
        sendCq = registrations.wrap(deviceSendCq);
        recvCq = server.device.createCompletionQueue(Math.min(attributes.maxCqe(), receiveCount));
        // receive queue with headroom: a device may report a receive before it frees the receive's ring slot
        int maxRecvWr = Math.min(attributes.maxQpWr(), 2 * receiveCount);
        qp = server.pd.createQueuePair(new QueuePairConfig(deviceSendCq, recvCq, maxSendWr, maxRecvWr,
                maxSendSge, 1, 0));
        registrations.attach(qp);
        recvRegion = server.bufferPool.allocate((int) ((long) receiveCount * inlineReceive));
        slotRegion = server.bufferPool.allocate(slotCount * 2 * inlineSend);
        server.memoryIndex.record(slotRegion);
    }

    /** Gives everything back: queue pair, completion queues, handles, buffers. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (qp != null) {
            qp.close();
        }
        closeQuietly(sendCq);
        if (sendCq != deviceSendCq) {
            // the wrapper closes the device queue; without one (never made) close it directly
            if (sendCq == null) {
                closeQuietly(deviceSendCq);
            }
        }
        closeQuietly(recvCq);
        if (registrations != null) {
            registrations.close();
        }
        if (recvRegion != null) {
            recvRegion.release();
        }
        if (slotRegion != null) {
            slotRegion.release();
        }
    }

    private static void closeQuietly(CompletionQueue cq) {
        if (cq == null) {
            return;
        }
        try {
            cq.close();
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("closing a completion queue failed: {}", e.toString());
        }
    }
}

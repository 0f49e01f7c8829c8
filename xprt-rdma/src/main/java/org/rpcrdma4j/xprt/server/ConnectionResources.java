package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;

import org.rpcrdma4j.registration.BufferPoolExhaustedException;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegistrationConfig;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.internal.InlineSends;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.QueueSet;
import org.rpcrdma4j.xprt.internal.ReceiveRing;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;

/**
 * What one connection holds on the device and in the buffer pool, sized from the server's settings and the client's
 * connection request, made before the request is accepted and given back in one place ({@link #close()}).
 * <p>
 * Negotiation ({@link InlineThresholds}, RFC 8797 as Linux does it): the client's private data, or the version 1
 * defaults (1024 bytes each way, no remote invalidation) when it sent none the codec understands; the server sends
 * inline = min(its own, the client's receive size); its receive buffers hold min(its own, the client's send size).
 * Send With Invalidate is used only when the client offered remote invalidation and the device can send it. ORD (the
 * server's RDMA READs in flight) = min(the client's IRD, the device's, the configured cap); a client offering no RDMA
 * READ at all (IRD 0) is refused, as Linux svcrdma refuses it.
 * <p>
 * Sizes: {@code credits + margin} receive buffers and call slots; a send queue for every slot's reply with a few
 * RDMA WRITEs, the READs of the ORD, and the registration pool's REG_MR and LOCAL_INV work requests.
 * <p>
 * Memory: the fixed buffers (receives, the slots' header and message areas, the reverse-direction sends) are one piece
 * ({@link Layout}) of the server's connection pool, whose arenas hold one connection at the server's inline sizes and
 * are never used for calls: idle connections neither use up nor cut into the memory large calls need, and, as a
 * connection takes one piece of at most an arena and the pool has an arena per allowed connection, a connection the
 * server admits always finds room. Taking it never waits; a connection whose piece cannot be had (the device refused
 * to register an arena) is refused at accept.
 */
final class ConnectionResources implements AutoCloseable {
    /**
     * Where a connection's fixed buffers lie in its one piece of registered memory: the receive buffers, then the call
     * slots' memory (a header area and a message area per slot, each of the inline send size), then the
     * reverse-direction send buffers, each part starting on a page.
     */
    record Layout(int receiveOffset, int slotOffset, int reverseOffset, int bytes) {
        static Layout of(int receives, int inlineReceive, int slots, int inlineSend) {
            long receiveBytes = pages((long) receives * inlineReceive);
            long slotBytes = pages((long) slots * 2 * inlineSend);
            long total = receiveBytes + slotBytes + pages((long) ReverseChannel.REQUESTS * inlineSend);
            if (total > 1 << 30) {
                throw new IllegalArgumentException("a connection's buffers would take " + total + " bytes");
            }
            return new Layout(0, (int) receiveBytes, (int) (receiveBytes + slotBytes), (int) total);
        }

        private static long pages(long bytes) {
            return (bytes + ServerConfig.PAGE - 1) / ServerConfig.PAGE * ServerConfig.PAGE;
        }
    }

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
    /** The queue pair's inline size: replies up to this long go inline and unsignaled ({@link UnsignaledRun}). */
    final int replyInline;
    final InetSocketAddress localAddress;
    final InetSocketAddress remoteAddress;
    final byte[] privateData;

    RegistrationPool registrations;
    QueueSet queues;
    /** The connection's fixed buffers, one piece of the server's connection pool ({@link Layout}). */
    RegisteredBuffer memory;
    Layout layout;
    ReceiveRing receives;
    /** The send buffers of reverse-direction calls (RFC 8167), {@link ReverseChannel#REQUESTS} of them. */
    InlineSends reverseSends;
    private boolean closed;

    private ConnectionResources(ServerConfig config, DeviceAttributes device, ConnectionRequest request) {
        InlineThresholds thresholds = InlineThresholds.negotiate(request.privateData(), config.inlineSend(),
                config.inlineReceive());
        credits = config.credits();
        slotCount = config.slotsPerConnection();
        // the replies to reverse-direction calls arrive in receives of their own, beyond the forward credits
        receiveCount = slotCount + ReverseChannel.REQUESTS;
        inlineSend = thresholds.send();
        inlineReceive = thresholds.receive();
        maxSendSge = Math.min(device.maxSge(), 8);
        replyInline = UnsignaledRun.inlineSize(Math.min(device.maxInlineData(), inlineSend));
        sendWithInvalidate = thresholds.peerRemoteInvalidation() && device.has(DeviceCapability.SEND_WITH_INV);
        ord = Math.min(request.responderResources(), Math.min(device.maxQpInitRdAtom(), config.maxReadsInFlight()));
        localAddress = request.localAddress();
        remoteAddress = request.remoteAddress();
        privateData = InlineThresholds.privateData(false, config.inlineSend(), config.inlineReceive());
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
                .withExecutor(server.connectionExecutor));
        int reserve = 2 * registrations.maxHandles() + 16;
        int maxSendWr = Math.min(attributes.maxQpWr(), sqBudget + ReverseChannel.REQUESTS + reserve);
        int cqEntries = Math.min(attributes.maxCqe(), maxSendWr + reserve);
        // receive queue with headroom: a device may report a receive before it frees the receive's ring slot
        int maxRecvWr = Math.min(attributes.maxQpWr(), 2 * receiveCount);
        queues = QueueSet.create(server.device, server.pd, registrations, new QueueSet.Sizes(maxSendWr, maxRecvWr,
                maxSendSge, cqEntries, Math.min(attributes.maxCqe(), receiveCount), replyInline));
        layout = Layout.of(receiveCount, inlineReceive, slotCount, inlineSend);
        memory = server.connectionPool.tryAllocate(layout.bytes());
        if (memory == null) {
            throw new BufferPoolExhaustedException("no room for the connection's " + layout.bytes()
                    + " bytes of buffers");
        }
        receives = ReceiveRing.over(memory, layout.receiveOffset(), receiveCount, inlineReceive);
        reverseSends = InlineSends.over(memory, layout.reverseOffset(), ReverseChannel.REQUESTS, inlineSend);
        server.memoryIndex.record(memory);
    }

    /** Gives everything back: queue pair, completion queues, handles, buffers. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // the handles before the queue pair, as on the client: a memory window bound through it holds it
        if (registrations != null) {
            registrations.close();
        }
        if (queues != null) {
            queues.close();
        }
        if (memory != null) {
            memory.release(); // the receive ring and the reverse sends are carved from it
        }
    }
}

package org.rpcrdma4j.it.fault;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A decorator of any {@link RdmaDevice} that injects the faults a {@link FaultPlan} chooses into work request posts
 * and connects, without touching the device underneath: protection domains and queue pairs are wrapped so that
 * {@code postSend} passes through the plan; the connection manager unwraps the queue pairs it is given and refuses
 * connects when the plan says so. Memory regions, completion queues and listeners are the device's own.
 * <p>
 * Borrows the device it wraps ({@link #close()} does not close it).
 */
public final class FaultyDevice implements RdmaDevice {
    private final RdmaDevice inner;
    private final FaultPlan plan;
    private final ConnectionManager connections = new Connections();

    private FaultyDevice(RdmaDevice inner, FaultPlan plan) {
        this.inner = inner;
        this.plan = plan;
    }

    /** Wraps {@code device} (borrowed) so that {@code plan} decides its faults. */
    public static FaultyDevice wrap(RdmaDevice device, FaultPlan plan) {
        return new FaultyDevice(device, plan);
    }

    public FaultPlan plan() {
        return plan;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return inner.attributes();
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        return new Pd(inner.allocProtectionDomain());
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        return inner.createCompletionQueue(entries);
    }

    @Override
    public ConnectionManager connectionManager() {
        return connections;
    }

    @Override
    public ResourceCounts resourceCounts() {
        return inner.resourceCounts();
    }

    /** Does not close the borrowed device. */
    @Override
    public void close() {
    }

    static QueuePair unwrap(QueuePair qp) {
        return qp instanceof FaultyQueuePair f ? f.inner() : qp;
    }

    private final class Pd implements ProtectionDomain {
        private final ProtectionDomain pd;
        /** Its fast-register regions: what a queue pair's close finds still valid is told to the plan. */
        private final Queue<FastRegMemoryRegion> fastReg = new ConcurrentLinkedQueue<>();

        Pd(ProtectionDomain pd) {
            this.pd = pd;
        }

        @Override
        public RdmaDevice device() {
            return FaultyDevice.this;
        }

        @Override
        public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
            return new Region(pd.registerMemory(buffer, access), this);
        }

        @Override
        public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
            FastRegMemoryRegion region = pd.allocFastRegMr(maxPages);
            fastReg.removeIf(r -> r.state() == MrState.FREE);
            fastReg.add(region);
            return region;
        }

        /** Its fast-register regions valid now (a peer may still reach memory through them). */
        int validFastRegions() {
            int valid = 0;
            for (FastRegMemoryRegion r : fastReg) {
                if (r.state() == MrState.VALID) {
                    valid++;
                }
            }
            return valid;
        }

        @Override
        public Fmr allocFmr(int maxPages, int access) throws VerbsException {
            return pd.allocFmr(maxPages, access);
        }

        @Override
        public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
            pd.unmapFmrs(fmrs);
        }

        @Override
        public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
            return new FaultyQueuePair(pd.createQueuePair(config), this, plan, this::validFastRegions);
        }

        @Override
        public void close() throws VerbsException {
            pd.close();
        }
    }

    /**
     * A memory region of a wrapped protection domain: the device's own, except that it names the wrapper as its
     * protection domain (users compare them). Work requests carry only its keys, so the device never sees it.
     */
    private static final class Region implements RegisteredMemory {
        private final RegisteredMemory region;
        private final ProtectionDomain pd;

        Region(RegisteredMemory region, ProtectionDomain pd) {
            this.region = region;
            this.pd = pd;
        }

        @Override
        public ByteBuffer buffer() {
            return region.buffer();
        }

        @Override
        public ProtectionDomain protectionDomain() {
            return pd;
        }

        @Override
        public int lkey() {
            return region.lkey();
        }

        @Override
        public int rkey() {
            return region.rkey();
        }

        @Override
        public long iova() {
            return region.iova();
        }

        @Override
        public long length() {
            return region.length();
        }

        @Override
        public int access() {
            return region.access();
        }

        @Override
        public org.rpcrdma4j.verbs.MrState state() {
            return region.state();
        }

        @Override
        public void close() {
            region.close();
        }
    }

    private final class Connections implements ConnectionManager {
        @Override
        public CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote,
                                                         ConnectParameters parameters, ConnectionListener listener) {
            if (plan.refuseConnect()) {
                return CompletableFuture.failedFuture(new ConnectException(ConnectionEventType.UNREACHABLE,
                        "connect to " + remote + " refused by the fault plan", null, null));
            }
            return inner.connectionManager().connect(unwrap(qp), remote, parameters, listener);
        }

        @Override
        public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
                throws VerbsException {
            return inner.connectionManager().listen(bindAddress, request -> handler.onConnectionRequest(
                    new Request(request)));
        }
    }

    private static final class Request implements ConnectionRequest {
        private final ConnectionRequest request;

        Request(ConnectionRequest request) {
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
            request.accept(unwrap(qp), parameters, listener);
        }

        @Override
        public void reject(byte[] privateData) {
            request.reject(privateData);
        }
    }
}

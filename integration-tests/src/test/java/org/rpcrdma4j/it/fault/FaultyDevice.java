package org.rpcrdma4j.it.fault;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.conformance.ForwardingConnectionManager;
import org.rpcrdma4j.verbs.conformance.ForwardingConnectionRequest;
import org.rpcrdma4j.verbs.conformance.ForwardingProtectionDomain;
import org.rpcrdma4j.verbs.conformance.ForwardingRdmaDevice;
import org.rpcrdma4j.verbs.conformance.ForwardingRegisteredMemory;

/**
 * A decorator of any {@link RdmaDevice} that injects the faults a {@link FaultPlan} chooses into work request posts
 * and connects, without touching the device underneath: protection domains and queue pairs are wrapped so that
 * {@code postSend} passes through the plan; the connection manager unwraps the queue pairs it is given and refuses
 * connects when the plan says so. Memory regions, completion queues and listeners are the device's own.
 * <p>
 * Borrows the device it wraps ({@link #close()} does not close it).
 */
public final class FaultyDevice extends ForwardingRdmaDevice {
    private final FaultPlan plan;
    private final ConnectionManager connections;

    private FaultyDevice(RdmaDevice inner, FaultPlan plan) {
        super(inner);
        this.plan = plan;
        this.connections = new Connections(inner.connectionManager());
    }

    /** Wraps {@code device} (borrowed) so that {@code plan} decides its faults. */
    public static FaultyDevice wrap(RdmaDevice device, FaultPlan plan) {
        return new FaultyDevice(device, plan);
    }

    public FaultPlan plan() {
        return plan;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        return new Pd(super.allocProtectionDomain());
    }

    @Override
    public ConnectionManager connectionManager() {
        return connections;
    }

    /** Does not close the borrowed device. */
    @Override
    public void close() {
    }

    static QueuePair unwrap(QueuePair qp) {
        return qp instanceof FaultyQueuePair f ? f.inner() : qp;
    }

    private final class Pd extends ForwardingProtectionDomain {
        /** Its fast-register regions: what a queue pair's close finds still valid is told to the plan. */
        private final Queue<FastRegMemoryRegion> fastReg = new ConcurrentLinkedQueue<>();

        Pd(ProtectionDomain pd) {
            super(pd, FaultyDevice.this);
        }

        /**
         * The device's own region, naming this domain as its own (users compare them); work requests carry only its
         * keys, so the device never sees the wrapper.
         */
        @Override
        public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
            return new ForwardingRegisteredMemory(super.registerMemory(buffer, access), this);
        }

        @Override
        public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
            FastRegMemoryRegion region = super.allocFastRegMr(maxPages);
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
        public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
            return new FaultyQueuePair(super.createQueuePair(config), this, plan, this::validFastRegions);
        }
    }

    private final class Connections extends ForwardingConnectionManager {
        Connections(ConnectionManager manager) {
            super(manager);
        }

        @Override
        public CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote,
                                                         ConnectParameters parameters, ConnectionListener listener) {
            if (plan.refuseConnect()) {
                return CompletableFuture.failedFuture(new ConnectException(ConnectionEventType.UNREACHABLE,
                        "connect to " + remote + " refused by the fault plan", null, null));
            }
            return super.connect(unwrap(qp), remote, parameters, listener);
        }

        @Override
        public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
                throws VerbsException {
            return super.listen(bindAddress, request -> handler.onConnectionRequest(new Request(request)));
        }
    }

    /** A connection request whose {@code accept} unwraps the queue pair it is given. */
    private static final class Request extends ForwardingConnectionRequest {
        Request(ConnectionRequest request) {
            super(request);
        }

        @Override
        public void accept(QueuePair qp, AcceptParameters parameters, ConnectionListener listener)
                throws VerbsException {
            super.accept(unwrap(qp), parameters, listener);
        }
    }
}

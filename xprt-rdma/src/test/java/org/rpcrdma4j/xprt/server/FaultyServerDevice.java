package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A server's device that misbehaves where the test asks: its protection domains, while the test {@linkplain #fail arms}
 * them, throw instead of registering the memory the test picks (by default memory for remote access, the per-call
 * registrations of RDMA READ sinks in REG_MR mode; buffer arenas, registered for local access only, are left alone);
 * and the server's acceptance of a connection request may {@linkplain #holdAccepts return late}, after the client
 * has its connection. Everything else goes to the device it wraps, which it owns.
 */
final class FaultyServerDevice implements RdmaDevice {
    /** Which registrations fail. */
    interface Registrations {
        boolean match(int bytes, int access);
    }

    private final RdmaDevice device;
    private volatile Registrations which;
    private volatile Supplier<? extends Throwable> failure;
    private volatile CountDownLatch acceptsHeld;

    FaultyServerDevice(RdmaDevice device) {
        this.device = device;
    }

    /** From now on registrations for remote access throw what {@code failure} gives (an unchecked one); null: none. */
    void fail(Supplier<? extends Throwable> failure) {
        fail((bytes, access) -> access != Access.LOCAL_WRITE, failure);
    }

    /** From now on the registrations {@code which} picks throw what {@code failure} gives; null: none. */
    void fail(Registrations which, Supplier<? extends Throwable> failure) {
        this.which = which;
        this.failure = failure;
    }

    @Override
    public String name() {
        return device.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return device.attributes();
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        return new Pd(device.allocProtectionDomain());
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        return device.createCompletionQueue(entries);
    }

    /**
     * From now on the server's {@code accept} of a connection request returns only once {@code release} is counted
     * down (the connection is established before that); null: at once.
     */
    void holdAccepts(CountDownLatch release) {
        this.acceptsHeld = release;
    }

    @Override
    public ConnectionManager connectionManager() {
        ConnectionManager manager = device.connectionManager();
        return new ConnectionManager() {
            @Override
            public CompletableFuture<ConnectionInfo> connect(QueuePair qp, InetSocketAddress remote,
                                                             ConnectParameters parameters, ConnectionListener listener) {
                return manager.connect(qp, remote, parameters, listener);
            }

            @Override
            public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
                    throws VerbsException {
                return manager.listen(bindAddress, request -> handler.onConnectionRequest(new HeldRequest(request)));
            }
        };
    }

    /** A connection request whose {@code accept} returns when the test lets it. */
    private final class HeldRequest implements ConnectionRequest {
        private final ConnectionRequest request;

        HeldRequest(ConnectionRequest request) {
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
            request.accept(qp, parameters, listener);
            CountDownLatch held = acceptsHeld;
            if (held != null) {
                try {
                    held.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void reject(byte[] privateData) {
            request.reject(privateData);
        }
    }

    @Override
    public ResourceCounts resourceCounts() {
        return device.resourceCounts();
    }

    @Override
    public void close() {
        device.close();
    }

    private final class Pd implements ProtectionDomain {
        private final ProtectionDomain pd;

        Pd(ProtectionDomain pd) {
            this.pd = pd;
        }

        @Override
        public RdmaDevice device() {
            return FaultyServerDevice.this;
        }

        @Override
        public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
            Supplier<? extends Throwable> f = failure;
            if (f != null && which.match(buffer.remaining(), access)) {
                Throwable t = f.get();
                if (t instanceof Error e) {
                    throw e;
                }
                if (t instanceof VerbsException e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }
            return pd.registerMemory(buffer, access);
        }

        @Override
        public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
            return pd.allocFastRegMr(maxPages);
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
            return pd.createQueuePair(config);
        }

        @Override
        public void close() throws VerbsException {
            pd.close();
        }
    }
}

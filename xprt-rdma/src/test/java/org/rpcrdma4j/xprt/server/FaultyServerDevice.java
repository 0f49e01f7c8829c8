package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.conformance.ForwardingConnectionManager;
import org.rpcrdma4j.verbs.conformance.ForwardingConnectionRequest;
import org.rpcrdma4j.verbs.conformance.ForwardingProtectionDomain;
import org.rpcrdma4j.verbs.conformance.ForwardingRdmaDevice;

/**
 * A server's device that misbehaves where the test asks: its protection domains, while the test {@linkplain #fail arms}
 * them, throw instead of registering the memory the test picks (by default memory for remote access, the per-call
 * registrations of RDMA READ sinks in REG_MR mode; buffer arenas, registered for local access only, are left alone);
 * and the server's acceptance of a connection request may {@linkplain #holdAccepts return late}, after the client
 * has its connection. Everything else goes to the device it wraps, which it owns.
 */
final class FaultyServerDevice extends ForwardingRdmaDevice {
    /** Which registrations fail. */
    interface Registrations {
        boolean match(int bytes, int access);
    }

    private volatile Registrations which;
    private volatile Supplier<? extends Throwable> failure;
    private volatile CountDownLatch acceptsHeld;

    FaultyServerDevice(RdmaDevice device) {
        super(device);
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
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        return new Pd(super.allocProtectionDomain());
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
        return new ForwardingConnectionManager(super.connectionManager()) {
            @Override
            public RdmaListener listen(InetSocketAddress bindAddress, ConnectionRequestHandler handler)
                    throws VerbsException {
                return super.listen(bindAddress, request -> handler.onConnectionRequest(new HeldRequest(request)));
            }
        };
    }

    /** A connection request whose {@code accept} returns when the test lets it. */
    private final class HeldRequest extends ForwardingConnectionRequest {
        HeldRequest(ConnectionRequest request) {
            super(request);
        }

        @Override
        public void accept(QueuePair qp, AcceptParameters parameters, ConnectionListener listener)
                throws VerbsException {
            super.accept(qp, parameters, listener);
            CountDownLatch held = acceptsHeld;
            if (held != null) {
                try {
                    held.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private final class Pd extends ForwardingProtectionDomain {
        Pd(ProtectionDomain pd) {
            super(pd, FaultyServerDevice.this);
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
            return super.registerMemory(buffer, access);
        }
    }
}

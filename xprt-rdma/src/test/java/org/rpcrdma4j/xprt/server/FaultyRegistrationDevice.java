package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A device whose protection domains, while the test {@linkplain #fail arms} them, throw instead of registering the
 * memory the test picks: by default memory for remote access, the per-call registrations of RDMA READ sinks in REG_MR
 * mode (buffer arenas, registered for local access only, are left alone). Everything else goes to the device it wraps,
 * which it owns.
 */
final class FaultyRegistrationDevice implements RdmaDevice {
    /** Which registrations fail. */
    interface Registrations {
        boolean match(int bytes, int access);
    }

    private final RdmaDevice device;
    private volatile Registrations which;
    private volatile Supplier<? extends Throwable> failure;

    FaultyRegistrationDevice(RdmaDevice device) {
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

    @Override
    public ConnectionManager connectionManager() {
        return device.connectionManager();
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
            return FaultyRegistrationDevice.this;
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

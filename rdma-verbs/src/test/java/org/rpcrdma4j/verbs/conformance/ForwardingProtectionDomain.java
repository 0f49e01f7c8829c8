package org.rpcrdma4j.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.List;

import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A protection domain of a wrapping device (a {@link ForwardingRdmaDevice}, say): it names that device as its own and
 * passes every verb to the domain it wraps, for subclasses to override the few they change. What the verbs return is
 * the wrapped domain's.
 */
public class ForwardingProtectionDomain implements ProtectionDomain {
    private final ProtectionDomain pd;
    private final RdmaDevice device;

    /** Wraps {@code pd}, a domain of the device {@code device} wraps. */
    protected ForwardingProtectionDomain(ProtectionDomain pd, RdmaDevice device) {
        this.pd = pd;
        this.device = device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
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

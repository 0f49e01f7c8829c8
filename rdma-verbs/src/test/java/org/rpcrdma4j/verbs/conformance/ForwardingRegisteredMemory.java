package org.rpcrdma4j.verbs.conformance;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;

/**
 * Registered memory of a wrapping protection domain (a {@link ForwardingProtectionDomain}, say): the device's own
 * region, except that it names the wrapper as its protection domain, as users that compare the two expect. Work
 * requests carry only its keys, so the device never sees it.
 */
public class ForwardingRegisteredMemory implements RegisteredMemory {
    private final RegisteredMemory region;
    private final ProtectionDomain pd;

    /** Wraps {@code region}, registered with the domain {@code pd} wraps. */
    public ForwardingRegisteredMemory(RegisteredMemory region, ProtectionDomain pd) {
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
    public MrState state() {
        return region.state();
    }

    @Override
    public void close() {
        region.close();
    }
}

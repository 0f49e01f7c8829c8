package org.rpcrdma4j.verbs.soft;

import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.soft.internal.SoftDevice;

/**
 * The {@code soft} provider: the software iWARP device, always available. Options: see {@link SoftIwarpOptions}.
 */
public final class SoftIwarpProvider implements RdmaProvider {
    public static final String NAME = "soft";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        return Availability.yes("software iWARP (MPA/DDP/RDMAP over TCP); needs no RDMA hardware");
    }

    @Override
    public RdmaDevice open(Map<String, String> options) throws VerbsException {
        return open(SoftIwarpOptions.parse(options));
    }

    /** Opens a device with typed options. */
    public static RdmaDevice open(SoftIwarpOptions options) throws VerbsException {
        return SoftDevice.open(options);
    }
}

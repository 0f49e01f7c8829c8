package org.rpcrdma4j.xprt.client;

import java.util.List;

import org.rpcrdma4j.xprt.UpperLayerBinding;

/** The upper-layer bindings of a transport, found by program and version without allocation. Immutable. */
final class Bindings {
    private final UpperLayerBinding[] bindings;

    Bindings(List<UpperLayerBinding> list) {
        this.bindings = list.toArray(new UpperLayerBinding[0]);
    }

    /** The binding for {@code program} that knows {@code version}, or null. */
    UpperLayerBinding find(int program, int version) {
        for (UpperLayerBinding b : bindings) {
            if (b.program() == program) {
                return b.supportsVersion(version) ? b : null;
            }
        }
        return null;
    }
}

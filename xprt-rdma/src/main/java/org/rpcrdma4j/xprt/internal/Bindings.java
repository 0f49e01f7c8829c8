package org.rpcrdma4j.xprt.internal;

import java.util.List;

import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * The upper-layer bindings of a transport, found by program <em>and</em> version without allocation. Several bindings
 * may describe one program (NFSv3 and NFSv4 are both program 100003): a call's binding is the first, in the order
 * they were given, whose {@link UpperLayerBinding#program()} is the call's program and which
 * {@linkplain UpperLayerBinding#supportsVersion supports} its version. Immutable.
 */
public final class Bindings {
    private final UpperLayerBinding[] bindings;

    public Bindings(List<UpperLayerBinding> list) {
        this.bindings = list.toArray(new UpperLayerBinding[0]);
    }

    /** The binding for {@code program} that knows {@code version}, or null. */
    public UpperLayerBinding find(int program, int version) {
        for (UpperLayerBinding b : bindings) {
            if (b.program() == program && b.supportsVersion(version)) {
                return b;
            }
        }
        return null;
    }

    /**
     * Checks that {@code added} may join {@code existing}: the same object may not be added twice. Bindings of one
     * program are told apart by the versions they support, which the interface cannot enumerate, so overlapping
     * bindings are allowed; the first one given wins.
     *
     * @throws IllegalArgumentException when {@code added} is already in {@code existing}
     */
    public static void checkAddable(List<UpperLayerBinding> existing, UpperLayerBinding added) {
        for (UpperLayerBinding b : existing) {
            if (b == added) {
                throw new IllegalArgumentException("binding " + added + " of program " + added.program()
                        + " is added twice");
            }
        }
    }
}

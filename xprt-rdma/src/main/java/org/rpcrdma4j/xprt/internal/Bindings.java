package org.rpcrdma4j.xprt.internal;

import java.util.List;

import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * The upper-layer bindings of a transport, found by program <em>and</em> version without allocation: a call's binding
 * is the first, in the order given, whose {@link UpperLayerBinding#program()} is the call's program and which
 * {@linkplain UpperLayerBinding#supportsVersion supports} its version. The transports' builders give at most one
 * per program ({@link #checkOnePerProgram}). Immutable.
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
     * Checks that {@code added} may join {@code existing}: a transport takes one binding per program (a program whose
     * versions need different bindings, such as NFS, gives one binding that dispatches on the version).
     *
     * @throws IllegalArgumentException when {@code existing} has a binding for the same program
     */
    public static void checkOnePerProgram(List<UpperLayerBinding> existing, UpperLayerBinding added) {
        for (UpperLayerBinding b : existing) {
            if (b.program() == added.program()) {
                throw new IllegalArgumentException("a binding for program " + added.program() + " is set");
            }
        }
    }
}

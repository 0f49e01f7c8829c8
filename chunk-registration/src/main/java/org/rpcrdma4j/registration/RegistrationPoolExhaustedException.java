package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * A {@link RegistrationPool} had too few free handles for a mapping within its timeout
 * ({@link Registration#map(ScatterList, ChunkRole, long, java.util.concurrent.TimeUnit)}). The mapping took none.
 */
public final class RegistrationPoolExhaustedException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public RegistrationPoolExhaustedException(String message) {
        super(message);
    }
}

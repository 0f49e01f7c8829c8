package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * The connection was reset ({@link RegistrationPool#onDisconnect()}) after {@link Registration#begin(int)} and before
 * a mapping took its handles. Whatever the registration mapped before died with the connection's handles: begin again
 * and map everything again, on the next connection's handles. A transport retries on this type, not on every
 * {@link VerbsException}: the reset is the pool's to know, not the caller's.
 */
public final class RegistrationResetException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public RegistrationResetException(String message) {
        super(message);
    }

    public RegistrationResetException(String message, Throwable cause) {
        super(message, cause);
    }
}

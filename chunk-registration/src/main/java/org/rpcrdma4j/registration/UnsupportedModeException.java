package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.VerbsException;

/** A registration mode was asked for that the device cannot do (e.g. FRWR on a device without FAST_REG). */
public final class UnsupportedModeException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public UnsupportedModeException(String message) {
        super(message);
    }
}

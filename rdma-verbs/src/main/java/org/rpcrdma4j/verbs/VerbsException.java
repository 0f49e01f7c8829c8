package org.rpcrdma4j.verbs;

import java.io.IOException;

/** A verb failed: the device refused it, or the object it was applied to is in the wrong state. */
public class VerbsException extends IOException {
    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }

    public VerbsException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.rpcrdma4j.registration;

import org.rpcrdma4j.verbs.VerbsException;

/** A {@link RegisteredBufferPool} had no room for a buffer within the allocation timeout. */
public final class BufferPoolExhaustedException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public BufferPoolExhaustedException(String message) {
        super(message);
    }
}

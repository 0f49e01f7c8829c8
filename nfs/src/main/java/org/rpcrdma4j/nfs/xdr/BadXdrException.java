package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.rpc.OncRpcException;

/**
 * An XDR item broke its bounds or its type: a length beyond the protocol's limit, a discriminant with no arm, a bool
 * that is neither 0 nor 1, bytes that are not UTF-8. A server answers {@code GARBAGE_ARGS} (oncrpc4j's dispatcher
 * does so for every {@link OncRpcException}); a client treats it as a bad reply.
 */
public final class BadXdrException extends OncRpcException {
    private static final long serialVersionUID = 1L;

    public BadXdrException(String message) {
        super(message);
    }
}

package org.rpcrdma4j.xprt.client;

/**
 * The call could not be put on the wire: it is not a well-formed RPC call, it needs more registered memory or more
 * segments than the transport may use, or its transport header does not fit the inline threshold. Counted as
 * {@code failed_marshal_count}. Nothing was sent.
 */
public final class RdmaMarshalException extends RdmaTransportException {
    private static final long serialVersionUID = 1L;

    public RdmaMarshalException(String message) {
        super(message);
    }

    public RdmaMarshalException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.codec.RpcRdmaErrorCode;

/** The server answered the call with RDMA_ERROR (RFC 8166 section 4.5): {@link #errorCode()} says which. */
public abstract class RdmaErrorReplyException extends RdmaTransportException {
    private static final long serialVersionUID = 1L;

    RdmaErrorReplyException(String message) {
        super(message);
    }

    /** ERR_VERS or ERR_CHUNK. */
    public abstract RpcRdmaErrorCode errorCode();
}

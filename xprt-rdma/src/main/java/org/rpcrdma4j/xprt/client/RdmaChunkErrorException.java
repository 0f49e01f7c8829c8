package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.codec.RpcRdmaErrorCode;

/**
 * RDMA_ERROR / ERR_CHUNK: the server could not parse the call's chunk lists, or its reply did not fit the chunks the
 * call offered (version 1 has no other way to say so).
 */
public final class RdmaChunkErrorException extends RdmaErrorReplyException {
    private static final long serialVersionUID = 1L;

    public RdmaChunkErrorException(String message) {
        super(message);
    }

    @Override
    public RpcRdmaErrorCode errorCode() {
        return RpcRdmaErrorCode.ERR_CHUNK;
    }
}

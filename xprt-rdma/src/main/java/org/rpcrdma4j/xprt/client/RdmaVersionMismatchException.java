package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.codec.RpcRdmaErrorCode;

/** RDMA_ERROR / ERR_VERS: the server does not speak RPC-over-RDMA version 1; it reports the versions it does. */
public final class RdmaVersionMismatchException extends RdmaErrorReplyException {
    private static final long serialVersionUID = 1L;

    private final long low;
    private final long high;

    public RdmaVersionMismatchException(String server, int low, int high) {
        super("server " + server + " refused RPC-over-RDMA version 1 (ERR_VERS): it supports versions "
                + Integer.toUnsignedString(low) + " to " + Integer.toUnsignedString(high));
        this.low = Integer.toUnsignedLong(low);
        this.high = Integer.toUnsignedLong(high);
    }

    /** The lowest version the server supports. */
    public long versionLow() {
        return low;
    }

    /** The highest version the server supports. */
    public long versionHigh() {
        return high;
    }

    @Override
    public RpcRdmaErrorCode errorCode() {
        return RpcRdmaErrorCode.ERR_VERS;
    }
}

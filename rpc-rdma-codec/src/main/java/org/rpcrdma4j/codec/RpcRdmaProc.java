package org.rpcrdma4j.codec;

/**
 * The {@code rdma_proc} field of an RPC-over-RDMA version 1 transport header (RFC 8166), with its wire value.
 * <p>
 * {@link #RDMA_MSGP} and {@link #RDMA_DONE} exist so that they can be recognised and named; RFC 8166 says they are
 * not to be used, so {@link RpcRdmaDecoder} refuses them and {@link RpcRdmaEncoder} will not write them.
 */
public enum RpcRdmaProc {
    /** Chunk lists followed by the RPC message, sent inline. */
    RDMA_MSG(0),
    /** Chunk lists only; the RPC message is in a position-zero Read chunk (Call) or in the Reply chunk (Reply). */
    RDMA_NOMSG(1),
    /** Padded message (alignment and threshold words before the lists). Obsolete: recognised and refused. */
    RDMA_MSGP(2),
    /** Void "done with the Reply chunk" signal. Obsolete: recognised and refused. */
    RDMA_DONE(3),
    /** Transport-level error report; the body is an {@link RpcRdmaErrorCode} and its arguments. */
    RDMA_ERROR(4);

    private static final RpcRdmaProc[] BY_VALUE = {RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR};

    private final int value;

    RpcRdmaProc(int value) {
        this.value = value;
    }

    /** @return the XDR value of this procedure on the wire */
    public int value() {
        return value;
    }

    /**
     * Looks a procedure up by its wire value; allocation free.
     *
     * @param value the 32-bit {@code rdma_proc} word
     * @return the procedure, or {@code null} when the value is not one of the five defined by RFC 8166
     */
    public static RpcRdmaProc forValue(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}

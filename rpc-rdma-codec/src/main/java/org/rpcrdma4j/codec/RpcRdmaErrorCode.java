package org.rpcrdma4j.codec;

/**
 * The {@code rdma_err} word of an RDMA_ERROR message (RFC 8166), with its wire value.
 * <p>
 * {@link #UNKNOWN} stands for any value this implementation does not know; it is what {@link #forValue(int)}
 * returns for such a value and is never written to the wire.
 */
public enum RpcRdmaErrorCode {
    /** The receiver does not support the version in the header; the body carries the supported low and high. */
    ERR_VERS(1),
    /** The header (typically its chunk lists) could not be parsed or the Reply does not fit the chunks offered. */
    ERR_CHUNK(2),
    /** Any other value. Never encoded. */
    UNKNOWN(-1);

    private final int value;

    RpcRdmaErrorCode(int value) {
        this.value = value;
    }

    /** @return the XDR value on the wire; {@code -1} for {@link #UNKNOWN}, which is never encoded */
    public int value() {
        return value;
    }

    /**
     * Looks an error code up by its wire value; allocation free.
     *
     * @param value the 32-bit {@code rdma_err} word
     * @return {@link #ERR_VERS}, {@link #ERR_CHUNK} or {@link #UNKNOWN}
     */
    public static RpcRdmaErrorCode forValue(int value) {
        switch (value) {
            case 1:
                return ERR_VERS;
            case 2:
                return ERR_CHUNK;
            default:
                return UNKNOWN;
        }
    }
}

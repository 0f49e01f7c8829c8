package org.rpcrdma4j.codec;

/**
 * The one exception {@link RpcRdmaDecoder} throws: the bytes are not an acceptable RPC-over-RDMA version 1 header.
 * <p>
 * It tells the receiver what went wrong ({@link #reason()}, {@link #offset()} and the message), which xid the
 * message carried if it could be read ({@link #hasXid()}, {@link #xid()}), and how a responder should answer
 * ({@link #response()}): RDMA_ERROR / ERR_VERS with the supported range {@link #versLow()}..{@link #versHigh()},
 * RDMA_ERROR / ERR_CHUNK, or nothing ({@link Response#DROP}). {@link RpcRdmaEncoder#encodeErrorReply} writes that
 * answer. A requester (client) that fails to decode a Reply never answers; it counts a bad reply.
 * <p>
 * Thrown for hostile or broken peers, so it is cheap: no stack trace is captured (the cause is always the input,
 * which the message describes).
 */
public final class RpcRdmaDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What a responder should send back. */
    public enum Response {
        /** Answer RDMA_ERROR / ERR_VERS with the versions this codec supports (1..1). */
        ERR_VERS(RpcRdmaErrorCode.ERR_VERS),
        /** Answer RDMA_ERROR / ERR_CHUNK. */
        ERR_CHUNK(RpcRdmaErrorCode.ERR_CHUNK),
        /**
         * Do not answer: no xid to answer to, the message was itself an RDMA_ERROR (answering errors with errors
         * can loop between two peers), or it was an RDMA_DONE (which the Linux server silently drops as well).
         */
        DROP(null);

        private final RpcRdmaErrorCode errorCode;

        Response(RpcRdmaErrorCode errorCode) {
            this.errorCode = errorCode;
        }

        /** @return the error code to send, or {@code null} for {@link #DROP} */
        public RpcRdmaErrorCode errorCode() {
            return errorCode;
        }
    }

    /** What was wrong; stable names suitable for counters. */
    public enum Reason {
        /** The buffer ends inside the header. */
        TRUNCATED,
        /** {@code rdma_vers} is not 1. */
        BAD_VERSION,
        /** {@code rdma_proc} is not one of the five RFC 8166 values. */
        UNKNOWN_PROC,
        /** {@code rdma_proc} is RDMA_MSGP or RDMA_DONE, which RFC 8166 says are not to be used. */
        UNSUPPORTED_PROC,
        /** An XDR optional-data discriminator is neither 0 nor 1. */
        BAD_DISCRIMINATOR,
        /** A read segment's position is not a multiple of 4. */
        MISALIGNED_POSITION,
        /** A read segment's position is smaller than the one before it. */
        DECREASING_POSITION,
        /** A segment count says more segments than there are bytes left in the buffer. */
        COUNT_EXCEEDS_BUFFER,
        /** More read segments than {@link RpcRdmaLimits#maxReadSegments()}. */
        TOO_MANY_READ_SEGMENTS,
        /** More Write chunks than {@link RpcRdmaLimits#maxWriteChunks()}. */
        TOO_MANY_WRITE_CHUNKS,
        /** One chunk has more segments than {@link RpcRdmaLimits#maxSegmentsPerChunk()}. */
        TOO_MANY_SEGMENTS_IN_CHUNK,
        /** The header has more segments than {@link RpcRdmaLimits#maxSegments()}. */
        TOO_MANY_SEGMENTS,
        /** An RDMA_ERROR carries an {@code rdma_err} other than ERR_VERS or ERR_CHUNK. */
        UNKNOWN_ERROR_CODE
    }

    private final Reason reason;
    private final Response response;
    private final boolean hasXid;
    private final int xid;
    private final int offset;

    /**
     * @param reason   what was wrong
     * @param response how a responder should answer
     * @param hasXid   whether {@code xid} was read from the message
     * @param xid      the message's xid (0 when {@code hasXid} is false)
     * @param offset   byte offset, from the first byte of the header, of the word found wrong
     * @param detail   text naming the field and the value found
     */
    public RpcRdmaDecodeException(Reason reason, Response response, boolean hasXid, int xid, int offset,
                                  String detail) {
        super(reason + " at byte " + offset + (hasXid ? " (xid 0x" + Integer.toHexString(xid) + ")" : " (no xid)")
                + ": " + detail + "; answer " + response, null, false, false);
        this.reason = reason;
        this.response = response;
        this.hasXid = hasXid;
        this.xid = hasXid ? xid : 0;
        this.offset = offset;
    }

    /** @return what was wrong */
    public Reason reason() {
        return reason;
    }

    /** @return how a responder should answer; never null */
    public Response response() {
        return response;
    }

    /** @return whether the xid could be read (at least 4 bytes) */
    public boolean hasXid() {
        return hasXid;
    }

    /** @return the message's xid; meaningful only when {@link #hasXid()} */
    public int xid() {
        return xid;
    }

    /** @return byte offset, from the first byte of the header, where the problem was found */
    public int offset() {
        return offset;
    }

    /** @return lowest version to report in ERR_VERS: 1 */
    public int versLow() {
        return RpcRdmaLayout.VERSION;
    }

    /** @return highest version to report in ERR_VERS: 1 */
    public int versHigh() {
        return RpcRdmaLayout.VERSION;
    }
}

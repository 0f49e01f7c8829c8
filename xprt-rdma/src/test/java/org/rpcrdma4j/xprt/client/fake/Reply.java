package org.rpcrdma4j.xprt.client.fake;

import org.rpcrdma4j.codec.RpcRdmaErrorCode;

/**
 * What the fake server does with one call: a well-formed reply by default (the RPC reply message and where its
 * DDP-eligible item lies), with the misbehaviours a script can switch on. Mutable builder; one per call.
 */
public final class Reply {
    byte[] message;
    int itemOffset = -1;
    int itemLength;
    Integer credits;
    Integer transportXid;
    long reportWriteLength = -1;
    long reportReplyLength = -1;
    boolean disconnectBeforeSend;
    boolean none;
    Integer invalidateStag;
    boolean noRemoteInvalidation;
    RpcRdmaErrorCode error;
    int errorLow;
    int errorHigh;
    long delayMillis;

    private Reply() {
    }

    /**
     * A reply carrying {@code rpcReply}; its DDP-eligible item (the bytes after a length word) is at
     * {@code itemOffset} for {@code itemLength} bytes, or -1 for none. It goes out as the protocol says: the item
     * into the call's Write chunk, the whole reply into its Reply chunk, or inline.
     */
    public static Reply of(byte[] rpcReply, int itemOffset, int itemLength) {
        Reply r = new Reply();
        r.message = rpcReply;
        r.itemOffset = itemOffset;
        r.itemLength = itemLength;
        return r;
    }

    /** No reply at all. */
    public static Reply none() {
        Reply r = new Reply();
        r.none = true;
        return r;
    }

    /** RDMA_ERROR / ERR_VERS reporting {@code low..high}. */
    public static Reply errVers(int low, int high) {
        Reply r = new Reply();
        r.error = RpcRdmaErrorCode.ERR_VERS;
        r.errorLow = low;
        r.errorHigh = high;
        return r;
    }

    /** RDMA_ERROR / ERR_CHUNK. */
    public static Reply errChunk() {
        Reply r = new Reply();
        r.error = RpcRdmaErrorCode.ERR_CHUNK;
        return r;
    }

    /** Grants {@code n} credits in this reply instead of the server's default. */
    public Reply credits(int n) {
        this.credits = n;
        return this;
    }

    /** Puts another xid in the transport header (and the inline message's first word). */
    public Reply xid(int xid) {
        this.transportXid = xid;
        return this;
    }

    /** Reports {@code length} bytes written in segment 0 of the Write chunk, whatever was written. */
    public Reply reportWriteLength(long length) {
        this.reportWriteLength = length;
        return this;
    }

    /** Reports {@code length} bytes written in segment 0 of the Reply chunk, whatever was written. */
    public Reply reportReplyLength(long length) {
        this.reportReplyLength = length;
        return this;
    }

    /** Does the RDMA WRITEs, then drops the connection instead of sending the reply. */
    public Reply disconnectBeforeSend() {
        this.disconnectBeforeSend = true;
        return this;
    }

    /** Answers with Send With Invalidate naming {@code stag}, whatever the call exposed. */
    public Reply invalidate(int stag) {
        this.invalidateStag = stag;
        return this;
    }

    /** Answers with a plain Send even where Send With Invalidate would be allowed. */
    public Reply noRemoteInvalidation() {
        this.noRemoteInvalidation = true;
        return this;
    }

    /** Waits before answering. */
    public Reply delay(long millis) {
        this.delayMillis = millis;
        return this;
    }
}

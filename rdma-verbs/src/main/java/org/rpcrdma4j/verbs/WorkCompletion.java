package org.rpcrdma4j.verbs;

/**
 * One completion, filled in place by {@link CompletionQueue#poll}. Reusable: the consumer polls into an array of these
 * made once.
 */
public final class WorkCompletion {
    /** Set in {@link #flags} when an incoming Send with Invalidate invalidated {@link #invalidatedStag}. */
    public static final int WITH_INVALIDATE = 1;

    public long wrId;
    public WcStatus status = WcStatus.SUCCESS;
    public WcOpcode opcode = WcOpcode.SEND;
    /** Bytes received (RECV) or read (RDMA_READ). */
    public int byteLen;
    public int flags;
    /** The local STag a peer's Send with Invalidate invalidated, when {@link #WITH_INVALIDATE} is set. */
    public int invalidatedStag;
    /** Number of the QP this completion belongs to. */
    public int qpNum;
    /** Device-specific detail for an error (e.g. the TERMINATE layer/type/code of an iWARP device); 0 if none. */
    public int vendorError;

    public boolean ok() {
        return status == WcStatus.SUCCESS;
    }

    public boolean withInvalidate() {
        return (flags & WITH_INVALIDATE) != 0;
    }

    /** Copies every field from another completion. */
    public WorkCompletion copyFrom(WorkCompletion other) {
        wrId = other.wrId;
        status = other.status;
        opcode = other.opcode;
        byteLen = other.byteLen;
        flags = other.flags;
        invalidatedStag = other.invalidatedStag;
        qpNum = other.qpNum;
        vendorError = other.vendorError;
        return this;
    }

    public WorkCompletion clear() {
        wrId = 0;
        status = WcStatus.SUCCESS;
        opcode = WcOpcode.SEND;
        byteLen = 0;
        flags = 0;
        invalidatedStag = 0;
        qpNum = 0;
        vendorError = 0;
        return this;
    }

    @Override
    public String toString() {
        return "WorkCompletion[" + opcode + " " + status + ", wrId=" + wrId + ", len=" + byteLen
                + (withInvalidate() ? ", invalidated=" + Stag.toString(invalidatedStag) : "")
                + ", qp=" + qpNum + (vendorError != 0 ? ", vendor=0x" + Integer.toHexString(vendorError) : "") + "]";
    }
}

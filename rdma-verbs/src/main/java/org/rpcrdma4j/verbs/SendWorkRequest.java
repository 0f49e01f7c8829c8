package org.rpcrdma4j.verbs;

/**
 * A send-queue work request. Mutable and reusable: the device copies what it needs when the chain is posted, so the
 * consumer may change or re-post this object as soon as {@link QueuePair#postSend} returns.
 * <p>
 * Fields used per opcode:
 * <table>
 * <caption>fields per opcode</caption>
 * <tr><th>opcode</th><th>fields</th></tr>
 * <tr><td>SEND</td><td>sges (or inline)</td></tr>
 * <tr><td>SEND_WITH_INV</td><td>sges, invalidateStag (the peer's)</td></tr>
 * <tr><td>RDMA_WRITE</td><td>sges (source), remoteAddress, rkey</td></tr>
 * <tr><td>RDMA_READ</td><td>sges (sink; one SGE on iWARP), remoteAddress, rkey</td></tr>
 * <tr><td>RDMA_READ_WITH_INV</td><td>as RDMA_READ, invalidateStag = the sink's local STag</td></tr>
 * <tr><td>REG_MR</td><td>mr, pageList, access, key (the new full STag: same index, new 8-bit key)</td></tr>
 * <tr><td>LOCAL_INV</td><td>invalidateStag</td></tr>
 * </table>
 */
public final class SendWorkRequest {
    /** Generate a completion for this request. Unsignaled requests complete silently unless they fail. */
    public static final int SIGNALED = 1;
    /** Copy the SGEs' bytes at post time (at most the QP's maxInlineData); lkeys are not checked. */
    public static final int INLINE = 1 << 1;
    /** Wait until every earlier RDMA READ of this QP has completed. */
    public static final int FENCE = 1 << 2;
    /** Send with Solicited Event. */
    public static final int SOLICITED = 1 << 3;

    public long wrId;
    public Opcode opcode = Opcode.SEND;
    public int flags;

    private final Sge[] sges;
    private int numSge;

    public long remoteAddress;
    public int rkey;
    public int invalidateStag;

    public FastRegMemoryRegion mr;
    public PageList pageList;
    public int access;
    public int key;

    /** The next request of the chain, or null. */
    public SendWorkRequest next;

    public SendWorkRequest(int maxSge) {
        sges = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sges[i] = new Sge();
        }
    }

    /** Clears every field but the SGE objects themselves. */
    public SendWorkRequest reset() {
        wrId = 0;
        opcode = Opcode.SEND;
        flags = 0;
        numSge = 0;
        remoteAddress = 0;
        rkey = 0;
        invalidateStag = 0;
        mr = null;
        pageList = null;
        access = 0;
        key = 0;
        next = null;
        return this;
    }

    public int numSge() {
        return numSge;
    }

    public int maxSge() {
        return sges.length;
    }

    public Sge sge(int index) {
        if (index < 0 || index >= numSge) {
            throw new IndexOutOfBoundsException("sge " + index + " of " + numSge);
        }
        return sges[index];
    }

    /** Adds an SGE and returns it for filling. */
    public Sge addSge() {
        if (numSge == sges.length) {
            throw new IllegalStateException("at most " + sges.length + " SGEs");
        }
        return sges[numSge++];
    }

    public SendWorkRequest clearSges() {
        numSge = 0;
        return this;
    }

    public boolean signaled() {
        return (flags & SIGNALED) != 0;
    }

    /** Total bytes of the SGEs. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            total += sges[i].length;
        }
        return total;
    }

    @Override
    public String toString() {
        return "SendWorkRequest[" + opcode + ", wrId=" + wrId + ", flags=" + flags + ", sges=" + numSge + "]";
    }
}

package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * One send-queue slot: a copy of a posted {@link SendWorkRequest} plus its execution state. Made once per slot; the
 * copy is written by the posting thread (under the send queue's lock) before the slot is published, everything else
 * only by the engine.
 */
final class SendWqe {
    static final int QUEUED = 0;
    /** Transmitted; waiting for the peer to confirm placement. */
    static final int AWAITING_ACK = 1;
    /** Read Request transmitted; waiting for the Read Response. */
    static final int AWAITING_RESPONSE = 2;
    static final int DONE = 3;

    long wrId;
    Opcode opcode;
    int flags;
    int numSge;
    final long[] addr;
    final int[] len;
    final int[] lkey;
    long remoteAddress;
    int rkey;
    int invalidateStag;

    SoftFastRegMr regMr;
    ByteBuffer[] regPages = new ByteBuffer[0];
    /** Not null: the registration's pages are a run of this table from {@link #regTableFirst}; regPages unused. */
    PageTable regTable;
    int regTableFirst;
    int regPageCount;
    int regPageSize;
    int regFbo;
    long regLength;
    long regIova;
    int regAccess;
    int regKey;

    /** This slot's inline area (a slice of the queue's inline buffer), or null when the queue has none. */
    final ByteBuffer inlineData;
    boolean inline;
    int inlineLength;

    int state;
    WcStatus status;
    int vendorError;
    int byteLen;
    long length;
    int msn;
    final SoftRegion[] regions;
    final long[] offsets;

    SendWqe(int maxSge, ByteBuffer inlineData) {
        addr = new long[maxSge];
        len = new int[maxSge];
        lkey = new int[maxSge];
        regions = new SoftRegion[maxSge];
        offsets = new long[maxSge];
        this.inlineData = inlineData;
    }

    boolean signaled() {
        return (flags & SendWorkRequest.SIGNALED) != 0;
    }

    boolean fenced() {
        return (flags & SendWorkRequest.FENCE) != 0;
    }

    boolean isRead() {
        return opcode == Opcode.RDMA_READ || opcode == Opcode.RDMA_READ_WITH_INV;
    }

    boolean isSend() {
        return opcode == Opcode.SEND || opcode == Opcode.SEND_WITH_INV;
    }

    void done(WcStatus result, int vendor) {
        state = DONE;
        status = result;
        vendorError = vendor;
    }

    /** Drops references to consumer objects once the slot is retired. */
    void clearReferences() {
        regMr = null;
        if (regTable == null) {
            for (int i = 0; i < regPageCount; i++) {
                regPages[i] = null;
            }
        }
        regTable = null;
        regPageCount = 0;
        for (int i = 0; i < numSge; i++) {
            regions[i] = null;
        }
    }
}

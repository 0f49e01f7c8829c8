package org.rpcrdma4j.verbs.soft.internal;

import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.Sge;

/**
 * The receive queue: a ring of {@link RecvWqe} slots. Posting threads fill slots and advance {@code published}
 * under the queue's lock; the engine consumes from {@code head} and advances {@code free} as receives complete.
 */
final class RecvQueue {
    final RecvWqe[] slots;
    final int mask;
    final int depth;
    private final SoftQp qp;

    volatile long published;
    volatile long free;
    /** Next receive an incoming Send takes (engine). */
    long head;

    RecvQueue(SoftQp qp, int depth, int maxSge) {
        this.qp = qp;
        this.depth = depth;
        int size = 1;
        while (size < depth) {
            size <<= 1;
        }
        slots = new RecvWqe[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            slots[i] = new RecvWqe(maxSge);
        }
    }

    RecvWqe slot(long index) {
        return slots[(int) (index & mask)];
    }

    synchronized void post(RecvWorkRequest chain) throws PostException {
        long t = published;
        int i = 0;
        for (RecvWorkRequest wr = chain; wr != null; wr = wr.next, i++) {
            if (qp.state() == QpState.CLOSED) {
                throw new PostException("queue pair " + qp.qpNum() + " is closed", i, wr.wrId);
            }
            if (wr.numSge() > qp.config().maxRecvSge()) {
                throw new PostException(wr.numSge() + " SGEs exceed the queue pair's " + qp.config().maxRecvSge(),
                        i, wr.wrId);
            }
            if (t - free >= depth) {
                throw new PostException("receive queue full (" + depth + " receives posted)", i, wr.wrId);
            }
            RecvWqe wqe = slot(t);
            wqe.wrId = wr.wrId;
            int n = wr.numSge();
            wqe.numSge = n;
            long total = 0;
            for (int s = 0; s < n; s++) {
                Sge sge = wr.sge(s);
                if (sge.length < 0) {
                    throw new PostException("negative SGE length " + sge.length, i, wr.wrId);
                }
                total += sge.length;
                wqe.addr[s] = sge.address;
                wqe.len[s] = sge.length;
                wqe.lkey[s] = sge.lkey;
            }
            if (total > Integer.MAX_VALUE) {
                // a message offset into it (an int, as DDP's MO) would wrap
                throw new PostException("receive of " + total + " bytes exceeds " + Integer.MAX_VALUE, i, wr.wrId);
            }
            t++;
        }
        published = t;
    }
}

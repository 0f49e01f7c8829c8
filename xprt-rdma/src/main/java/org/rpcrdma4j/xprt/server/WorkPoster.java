package org.rpcrdma4j.xprt.server;

import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.xprt.internal.SlotQueue;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;

/**
 * Posts a connection's RDMA READs and replies to its send queue, within two budgets: at most {@code ord} READs in
 * flight (the client's IRD), and at most {@code sqBudget} send-queue entries held by this transport (each reply
 * holds its RDMA WRITEs and its Send until the Send completes; each READ until it completes; the registration
 * pool's REG_MR and LOCAL_INV work requests have room of their own beyond the budget). Work that does not fit waits,
 * in order: READs per call slot, replies per call slot. Work requests are built in a small array of reusable
 * objects, posted in chains of at most its length (a device copies a chain when it is posted).
 * <p>
 * A reply that is one Send of at most the queue pair's inline size (no RDMA WRITEs) goes inline and unsignaled
 * ({@link UnsignaledRun}): the call slot is free at once. Its send-queue entry is held in the budget until the next
 * signaled reply's completion, which retires it.
 * <p>
 * Owned by the connection's agent thread; allocation-free.
 */
final class WorkPoster {
    private final QueuePair qp;
    private final SendWorkRequest[] wrs;
    private final int ord;
    private final int budget;
    /** Unsignaled replies posted since the last signaled one: held until a later signaled reply completes. */
    private final UnsignaledRun unsignaled;
    /** Entries held by posted work requests whose (signaled) completion will give them back. */
    private int used;
    private int readsOutstanding;
    private final SlotQueue<CallSlot> readQueue = new SlotQueue<>();
    private final SlotQueue<CallSlot> replyQueue = new SlotQueue<>();

    /**
     * @param inlineMax   the queue pair's inline size: a reply of one Send up to this long is posted inline and
     *                    unsignaled (0: never)
     * @param signalEvery every this many replies at least one is signaled (1: every reply is)
     */
    WorkPoster(QueuePair qp, int maxSge, int chainLength, int ord, int budget, int inlineMax, int signalEvery) {
        this.qp = qp;
        this.ord = ord;
        this.budget = budget;
        this.unsignaled = new UnsignaledRun(inlineMax, Math.min(signalEvery, budget / 4));
        wrs = new SendWorkRequest[chainLength];
        for (int i = 0; i < wrs.length; i++) {
            wrs[i] = new SendWorkRequest(maxSge);
        }
    }

    /** The most send-queue entries one reply may take (larger replies are refused with ERR_CHUNK). */
    int maxReplyEntries() {
        return budget / 2;
    }

    // ------------------------------------------------------------------ RDMA READ

    /** Queues the READs of a call slot (state READING). */
    void queueReads(CallSlot slot) {
        readQueue.addLast(slot);
    }

    /** Posts queued READs while the ORD and the budget allow. @return READs posted */
    int postReads() throws PostException {
        int posted = 0;
        CallSlot slot;
        while ((slot = readQueue.peekFirst()) != null && readsOutstanding < ord && held() < budget) {
            ReadOps reads = slot.reads;
            int n = Math.min(reads.count() - reads.posted,
                    Math.min(ord - readsOutstanding, Math.min(wrs.length, budget - held())));
            SendWorkRequest head = null;
            SendWorkRequest tail = null;
            for (int k = 0; k < n; k++) {
                int op = reads.posted + k;
                SendWorkRequest wr = wrs[k].reset();
                int invalidate = reads.invalidate(op);
                wr.opcode = invalidate != 0 ? Opcode.RDMA_READ_WITH_INV : Opcode.RDMA_READ;
                wr.invalidateStag = invalidate;
                wr.flags = SendWorkRequest.SIGNALED;
                wr.wrId = WrIds.of(WrIds.Kind.RDMA_READ, 0, slot.index);
                wr.rkey = reads.rkey(op);
                wr.remoteAddress = reads.remoteAddress(op);
                wr.addSge().set(reads.localAddress(op), reads.length(op), reads.lkey(op));
                if (head == null) {
                    head = wr;
                } else {
                    tail.next = wr;
                }
                tail = wr;
            }
            if (reads.posted == 0) {
                // the sink's fast registrations go first, in the same chain
                head = slot.sinkRegistration.linkAfterPending(head);
            }
            try {
                qp.postSend(head);
            } finally {
                unlink(head);
            }
            reads.posted += n;
            reads.outstanding += n;
            readsOutstanding += n;
            used += n;
            posted += n;
            if (reads.posted == reads.count()) {
                readQueue.remove(slot);
            }
        }
        return posted;
    }

    /** A READ completed or flushed. */
    void readCompleted() {
        readsOutstanding--;
        used--;
    }

    // ------------------------------------------------------------------ replies

    /** Whether a marshaled reply can be posted now: nothing queued before it, and room in the budget. */
    boolean canPost(CallSlot slot) {
        return replyQueue.isEmpty() && held() + slot.marshaler.writes().count() + 1 <= budget;
    }

    /** Queues a reply behind the others until the budget has room ({@link #nextWaitingReply()}). */
    void queue(CallSlot slot) {
        replyQueue.addLast(slot);
    }

    /** The oldest queued reply if the budget now has room for it (removed from the queue), else null. */
    CallSlot nextWaitingReply() {
        CallSlot slot = replyQueue.peekFirst();
        if (slot == null || held() + slot.marshaler.writes().count() + 1 > budget) {
            return null;
        }
        replyQueue.remove(slot);
        return slot;
    }

    /**
     * Posts a reply: its RDMA WRITEs unsignaled, then its Send (or Send With Invalidate), in chains. A signaled reply's
     * slot holds its entries of the budget, and those of the unsignaled replies before it, until
     * {@link #sendCompleted}. Returns true when the reply went inline and unsignaled: it is done with the slot.
     */
    boolean post(CallSlot slot) throws PostException {
        ReplyMarshaler m = slot.marshaler;
        WritePlan writes = m.writes();
        SgeList sges = writes.sges();
        if (goesUnsignaled(slot)) {
            postUnsignaled(slot, m);
            return true;
        }
        int total = writes.count() + 1;
        slot.postedWrs = total + unsignaled.signaled();
        used += slot.postedWrs;
        int op = 0;
        while (op < total) {
            SendWorkRequest head = null;
            SendWorkRequest tail = null;
            for (int k = 0; k < wrs.length && op < total; k++, op++) {
                SendWorkRequest wr = wrs[k].reset();
                if (op < writes.count()) {
                    wr.opcode = Opcode.RDMA_WRITE;
                    wr.wrId = WrIds.of(WrIds.Kind.RDMA_WRITE, 0, slot.index);
                    wr.rkey = writes.rkey(op);
                    wr.remoteAddress = writes.remoteAddress(op);
                    int first = writes.firstSge(op);
                    for (int s = first; s < first + writes.sgeCount(op); s++) {
                        wr.addSge().set(sges.address(s), sges.length(s), sges.lkey(s));
                    }
                } else {
                    send(wr, m, SendWorkRequest.SIGNALED, slot.index);
                }
                if (head == null) {
                    head = wr;
                } else {
                    tail.next = wr;
                }
                tail = wr;
            }
            try {
                qp.postSend(head);
            } finally {
                unlink(head);
            }
        }
        return false;
    }

    /** Whether {@link #post} will post {@code slot}'s reply (marshaled) inline and unsignaled, if posted next. */
    boolean goesUnsignaled(CallSlot slot) {
        ReplyMarshaler m = slot.marshaler;
        return m.writes().count() == 0 && unsignaled.admits(m.sendSges().total());
    }

    private void postUnsignaled(CallSlot slot, ReplyMarshaler m) throws PostException {
        SendWorkRequest wr = wrs[0].reset();
        send(wr, m, SendWorkRequest.INLINE, UnsignaledRun.WR_INDEX);
        slot.postedWrs = 0;
        qp.postSend(wr);
        unsignaled.unsignaled();
    }

    /** Makes {@code wr} the reply's Send (or Send With Invalidate) of the marshaled bytes. */
    private static void send(SendWorkRequest wr, ReplyMarshaler m, int flags, int index) {
        SgeList send = m.sendSges();
        wr.opcode = m.opcode();
        wr.invalidateStag = m.invalidateStag();
        wr.flags = flags;
        wr.wrId = WrIds.of(WrIds.Kind.SEND, 0, index);
        for (int s = 0; s < send.count(); s++) {
            wr.addSge().set(send.address(s), send.length(s), send.lkey(s));
        }
    }

    /** A reply's Send completed or flushed: its entries are free again. */
    void sendCompleted(CallSlot slot) {
        used -= slot.postedWrs;
        slot.postedWrs = 0;
    }

    // ------------------------------------------------------------------ closing

    /**
     * Entries that completions will still give back (READs and signaled replies posted, not completed): 0 once every
     * flush has arrived. Unsignaled replies after the last signaled one are not among them: they name no memory of
     * ours (their bytes were copied when they were posted).
     */
    int used() {
        return used;
    }

    /** Entries held against the budget: {@link #used()} and the unsignaled replies since the last signaled one. */
    private int held() {
        return used + unsignaled.length();
    }

    int readsOutstanding() {
        return readsOutstanding;
    }

    boolean hasQueuedReads() {
        return !readQueue.isEmpty();
    }

    boolean hasQueuedReplies() {
        return !replyQueue.isEmpty();
    }

    /** Closing: forgets the queued READs and takes the oldest queued reply (null when none is left). */
    CallSlot abandonReply() {
        while (readQueue.pollFirst() != null) {
            // the READs will never be posted
        }
        return replyQueue.pollFirst();
    }

    private static void unlink(SendWorkRequest head) {
        while (head != null) {
            SendWorkRequest next = head.next;
            head.next = null;
            head = next;
        }
    }
}

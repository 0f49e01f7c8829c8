package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The fore channel slots of one session on the server, and its reply cache (RFC 8881 section 2.10.6.1). Slot
 * {@code i} holds the sequence id of the last request it accepted (0 before the first one, which must use 1), whether
 * that request is still executing, and the reply it left if it asked for caching ({@code sa_cachethis}).
 *
 * <p>A request on a slot moves it through: {@link #acquire} (EXECUTE: the sequence id advances, the slot is in
 * progress and the previous reply is dropped) and then exactly one of {@link #complete} (the reply is kept if it was
 * asked for) or {@link #release} (no reply). A retry of the last request meets the slot again with the same sequence
 * id: while it executes, NFS4ERR_DELAY; once completed, the cached reply (REPLAY) or, when none was kept,
 * NFS4ERR_RETRY_UNCACHED_REP. Any other sequence id is NFS4ERR_SEQ_MISORDERED. A release leaves the sequence id
 * advanced: the request may have changed state before it failed, so running it again would break exactly-once
 * semantics; its retry is answered NFS4ERR_RETRY_UNCACHED_REP like any completed request without a cached reply.
 *
 * <p>Thread-safe: every method holds this table's monitor, and none calls out while holding it, so callers may hold
 * their own locks (the {@link ClientTable} does) when calling in. Slot numbers are fixed: the target highest slot id
 * is the highest slot id (this server does not shrink a session's slots).
 */
public final class SlotTable {
    /** The most slots a session may have. */
    public static final int MAX_SLOTS = 2048;

    private static final class Slot {
        int sequenceId;
        boolean used;
        boolean inProgress;
        boolean cacheThis;
        /** What the request was beyond its slot and sequence id (see {@link #acquire(int, int, boolean, Object)}). */
        Object request;
        byte[] reply;
    }

    private final Slot[] slots;
    private int inProgress;

    /** A table of {@code slotCount} slots, 1 to {@value #MAX_SLOTS}, numbered from 0. */
    public SlotTable(int slotCount) {
        this(slotCount, 0);
    }

    /** A table whose slots all start at {@code startSequenceId} (never used), to test the wrap at 2^32. */
    SlotTable(int slotCount, int startSequenceId) {
        if (slotCount < 1 || slotCount > MAX_SLOTS) {
            throw new IllegalArgumentException("slots: 1 to " + MAX_SLOTS + ", got " + slotCount);
        }
        slots = new Slot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new Slot();
            slots[i].sequenceId = startSequenceId;
        }
    }

    /**
     * Takes a request with {@code seqId} onto slot {@code slotId}.
     *
     * @return EXECUTE for a new request (sequence id one more than the slot's, modulo 2^32), REPLAY with the cached
     *         reply for a retry of a completed request that asked for caching
     * @throws Nfs4Exception NFS4ERR_BADSLOT for a slot id outside the table; NFS4ERR_DELAY for a retry, or the next
     *                       request, while the original still executes; NFS4ERR_RETRY_UNCACHED_REP for a retry whose reply was not kept;
     *                       NFS4ERR_SEQ_MISORDERED for any other sequence id (also the same id on a never-used slot)
     */
    public synchronized SlotVerdict acquire(int slotId, int seqId, boolean cacheThis) throws Nfs4Exception {
        return acquire(slotId, seqId, cacheThis, null);
    }

    /**
     * {@link #acquire(int, int, boolean)} for a request described by {@code request} (compared with
     * {@code equals}; the server passes its operation count and its caller's credential). A retry that asks for caching
     * otherwise than the request it repeats, or whose description differs, is NFS4ERR_SEQ_FALSE_RETRY (RFC 8881
     * section 2.10.6.1.3.1), as Linux's server answers: the client reused a sequence id for another request, or another
     * user sends it, and must not get the cached reply of the first.
     */
    public synchronized SlotVerdict acquire(int slotId, int seqId, boolean cacheThis, Object request)
            throws Nfs4Exception {
        Slot slot = slot(slotId);
        if (seqId == slot.sequenceId + 1) {
            if (slot.inProgress) {
                // the client gave up on the request before (its reply was lost or failed); that one still runs
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_DELAY, "slot " + slotId + " still executes sequence id "
                        + Integer.toUnsignedString(slot.sequenceId));
            }
            slot.sequenceId = seqId;
            slot.used = true;
            slot.inProgress = true;
            slot.cacheThis = cacheThis;
            slot.request = request;
            slot.reply = null;
            inProgress++;
            return SlotVerdict.EXECUTE;
        }
        if (seqId == slot.sequenceId && slot.used) {
            if (slot.inProgress) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_DELAY, "slot " + slotId + " still executes sequence id "
                        + Integer.toUnsignedString(seqId));
            }
            if (slot.cacheThis != cacheThis || !java.util.Objects.equals(slot.request, request)) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_SEQ_FALSE_RETRY, "slot " + slotId + ", sequence id "
                        + Integer.toUnsignedString(seqId) + ": not the request it carried");
            }
            if (slot.reply == null) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP, "slot " + slotId + " kept no reply for "
                        + "sequence id " + Integer.toUnsignedString(seqId));
            }
            return SlotVerdict.replay(slot.reply);
        }
        throw new Nfs4Exception(Nfs4Status.NFS4ERR_SEQ_MISORDERED, "slot " + slotId + " is at sequence id "
                + Integer.toUnsignedString(slot.sequenceId) + ", got " + Integer.toUnsignedString(seqId));
    }

    /**
     * Ends the request executing on {@code slotId} with its whole encoded COMPOUND {@code reply}, which the table keeps
     * (without a copy; the caller must not modify it afterwards) if the request asked for caching.
     *
     * @throws IllegalStateException if no request executes on the slot
     */
    public synchronized void complete(int slotId, byte[] reply) {
        if (reply == null) {
            throw new NullPointerException("reply");
        }
        Slot slot = executing(slotId);
        slot.reply = slot.cacheThis ? reply : null;
        finish(slot);
    }

    /**
     * Ends the request executing on {@code slotId} without a reply (it failed before one existed). Its retry gets
     * NFS4ERR_RETRY_UNCACHED_REP; the next sequence id starts a new request.
     *
     * @throws IllegalStateException if no request executes on the slot
     */
    public synchronized void release(int slotId) {
        Slot slot = executing(slotId);
        slot.reply = null;
        finish(slot);
    }

    /** {@code sr_highest_slotid}: the number of slots less one. */
    public int highestSlotId() {
        return slots.length - 1;
    }

    /** {@code sr_target_highest_slotid}: the same as {@link #highestSlotId()}, as this table never shrinks. */
    public int targetHighestSlotId() {
        return slots.length - 1;
    }

    /** Requests acquired and not yet completed or released. */
    public synchronized int inProgress() {
        return inProgress;
    }

    /** Whether {@code slotId} is a slot of this table. */
    boolean hasSlot(int slotId) {
        return slotId >= 0 && slotId < slots.length;
    }

    private Slot slot(int slotId) throws Nfs4Exception {
        if (!hasSlot(slotId)) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BADSLOT, "slot " + Integer.toUnsignedString(slotId)
                    + " is beyond the highest slot id " + highestSlotId());
        }
        return slots[slotId];
    }

    private Slot executing(int slotId) {
        if (!hasSlot(slotId) || !slots[slotId].inProgress) {
            throw new IllegalStateException("no request executes on slot " + slotId);
        }
        return slots[slotId];
    }

    private void finish(Slot slot) {
        slot.inProgress = false; // cacheThis and request stay: a retry is checked against them
        inProgress--;
    }
}

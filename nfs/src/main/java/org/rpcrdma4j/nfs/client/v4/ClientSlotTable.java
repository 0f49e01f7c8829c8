package org.rpcrdma4j.nfs.client.v4;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The client's side of a session's fore channel slots (RFC 8881 section 2.10.6): one request per slot at a time,
 * each new request on a slot one sequence id past the slot's last. A caller {@link #acquire}s a slot (the lowest free
 * one the server lets it use; when none is free it waits, in arrival order, instead of failing) and
 * {@link #release}s it when the reply came.
 * <p>
 * The server steers how many slots are used: {@code sr_highest_slotid} and {@code sr_target_highest_slotid} of every
 * SEQUENCE reply ({@link #serverLimits}); slots above the smaller of the two are not handed out until it grows again
 * (requests already on them finish). The table never grows past the slots CREATE_SESSION granted. A slot above an
 * {@code sr_highest_slotid} the server answered may have been dropped by the server, its sequence id with it: when it
 * is next handed out it starts again at sequence id 1, as Linux's client starts a slot it allocates anew.
 * <p>
 * A table is {@linkplain #retire() retired} when its session is gone: waiters are told (their future completes with
 * null, to try the next session) and released slots are dropped.
 * <p>
 * Thread-safe; futures of waiters are completed on {@code handoff}, never inside {@link #release} or under the lock.
 */
final class ClientSlotTable {
    /** One slot. Its fields are only touched by the request holding it. */
    static final class Slot {
        final int id;
        /**
         * The sequence id of the last request sent on this slot (0: none yet); the next request takes one more. A
         * request that got no reply (connection lost, timed out) may or may not have reached the server, so this may
         * run ahead of the server's, by as many requests as went unanswered.
         */
        int sequenceId;
        /** The sequence id of the last request on this slot the server answered: the server's is at least this. */
        int acked;
        /**
         * The slot's sequence id before it started again at 1 ({@link ClientSlotTable#serverLimits}); 0 when it did
         * not, or since a request on it went through. A server that kept the slot after all expects one past this,
         * or, when requests on it went unanswered, one past an id down to {@link #ackedBeforeRestart}.
         */
        int beforeRestart;
        /** {@link #acked} before the slot started again at 1, with {@link #beforeRestart}. */
        int ackedBeforeRestart;

        Slot(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "slot " + id + " at " + Integer.toUnsignedString(sequenceId);
        }
    }

    private final Slot[] slots;
    private final boolean[] busy;
    /** Slots above an {@code sr_highest_slotid} the server answered: they start again at 1 when next handed out. */
    private final boolean[] dropped;
    private final ArrayDeque<CompletableFuture<Slot>> waiters = new ArrayDeque<>();
    private final Executor handoff;
    private int limit;
    private int inUse;
    private boolean retired;

    /** A table of {@code count} slots (what CREATE_SESSION granted), numbered from 0. */
    ClientSlotTable(int count, Executor handoff) {
        if (count < 1) {
            throw new IllegalArgumentException("a session has at least one slot");
        }
        this.slots = new Slot[count];
        this.busy = new boolean[count];
        this.dropped = new boolean[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new Slot(i);
        }
        this.limit = count - 1;
        this.handoff = handoff;
    }

    /**
     * A free slot, now or when one is released; null (at once or later) when the table is retired.
     */
    CompletableFuture<Slot> acquire() {
        synchronized (this) {
            if (retired) {
                return CompletableFuture.completedFuture(null);
            }
            Slot s = takeFree();
            if (s != null) {
                return CompletableFuture.completedFuture(s);
            }
            CompletableFuture<Slot> f = new CompletableFuture<>();
            waiters.add(f);
            return f;
        }
    }

    /** A free slot at once, or null when none is free (or the table is retired). */
    synchronized Slot tryAcquire() {
        return retired ? null : takeFree();
    }

    private Slot takeFree() {
        for (int i = 0; i <= limit; i++) {
            if (!busy[i]) {
                busy[i] = true;
                inUse++;
                restartIfDropped(slots[i]);
                return slots[i];
            }
        }
        return null;
    }

    /** Gives a slot back: to the first waiter when the slot may still be used, else to the free ones. */
    void release(Slot slot) {
        CompletableFuture<Slot> next = null;
        synchronized (this) {
            if (retired || !busy[slot.id]) {
                return;
            }
            if (slot.id <= limit && !waiters.isEmpty()) {
                next = waiters.poll(); // stays busy: handed over
                restartIfDropped(slot);
            } else {
                busy[slot.id] = false;
                inUse--;
            }
        }
        if (next != null) {
            complete(next, slot);
        }
    }

    /** A slot the server may have dropped, being handed out (no request holds it): its next sequence id is 1. */
    private void restartIfDropped(Slot s) {
        if (dropped[s.id]) {
            dropped[s.id] = false;
            if (s.sequenceId != 0) {
                s.beforeRestart = s.sequenceId;
                s.ackedBeforeRestart = s.acked;
            }
            s.sequenceId = 0;
            s.acked = 0;
        }
    }

    /**
     * Applies a SEQUENCE reply's {@code sr_highest_slotid} and {@code sr_target_highest_slotid}: slots above the
     * smaller are no longer handed out; when the limit grows, waiters get the slots it frees. Slots above
     * {@code sr_highest_slotid} the server may drop (RFC 8881 section 2.10.6.1): they start again at sequence id 1.
     */
    void serverLimits(int highestSlotId, int targetHighestSlotId) {
        List<CompletableFuture<Slot>> woken = new ArrayList<>();
        List<Slot> given = new ArrayList<>();
        synchronized (this) {
            for (long i = Integer.toUnsignedLong(highestSlotId) + 1; i < slots.length; i++) {
                dropped[(int) i] = true;
            }
            int l = Math.max(0, Math.min(slots.length - 1, Math.min(highestSlotId, targetHighestSlotId)));
            boolean grew = l > limit;
            limit = l;
            if (grew) {
                while (!waiters.isEmpty()) {
                    Slot s = takeFree();
                    if (s == null) {
                        break;
                    }
                    woken.add(waiters.poll());
                    given.add(s);
                }
            }
        }
        for (int i = 0; i < woken.size(); i++) {
            complete(woken.get(i), given.get(i));
        }
    }

    /** {@code sa_highest_slotid}: the highest slot id in use now (at least the caller's, which is in use). */
    synchronized int highestSlotInUse() {
        for (int i = slots.length - 1; i > 0; i--) {
            if (busy[i]) {
                return i;
            }
        }
        return 0;
    }

    /** Marks the table unusable: waiters get null, releases are dropped. */
    void retire() {
        List<CompletableFuture<Slot>> all;
        synchronized (this) {
            if (retired) {
                return;
            }
            retired = true;
            all = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (CompletableFuture<Slot> f : all) {
            complete(f, null);
        }
    }

    synchronized boolean isRetired() {
        return retired;
    }

    /** Slots the table has (what CREATE_SESSION granted). */
    int size() {
        return slots.length;
    }

    /** The highest slot id handed out now. */
    synchronized int limit() {
        return limit;
    }

    /** Slots held by requests. */
    synchronized int inUse() {
        return inUse;
    }

    /** Callers waiting for a slot. */
    synchronized int waiting() {
        return waiters.size();
    }

    private void complete(CompletableFuture<Slot> f, Slot s) {
        try {
            handoff.execute(() -> f.complete(s));
        } catch (RuntimeException e) {
            f.complete(s); // the executor is shut down: complete here rather than lose the waiter
        }
    }
}

package org.rpcrdma4j.verbs.disni;

import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Flush completions made by the provider itself, for work requests it never handed to the device: receives posted
 * before the native queue pair existed whose connection then failed, and requests posted after the queue pair is known
 * to be broken. (Measured over siw: after an error completion or a TERMINATE, requests posted later may never
 * complete, so the SPI's promise that they complete with WR_FLUSH_ERR is kept here rather than left to the device.)
 * <p>
 * A fixed ring of preallocated completions, filled by posting threads and drained by the polling thread; a lock
 * guards it (this is the error path only). Allocates nothing.
 */
final class SyntheticCompletions {
    private final WorkCompletion[] ring;
    private int head;
    private volatile int count;

    SyntheticCompletions(int capacity) {
        ring = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new WorkCompletion();
        }
    }

    /** Adds a WR_FLUSH_ERR completion; false when the ring is full. */
    synchronized boolean addFlush(long wrId, WcOpcode opcode, int qpNum) {
        if (count == ring.length) {
            return false;
        }
        WorkCompletion wc = ring[(head + count) % ring.length].clear();
        wc.wrId = wrId;
        wc.status = WcStatus.WR_FLUSH_ERR;
        wc.opcode = opcode;
        wc.qpNum = qpNum;
        count++;
        return true;
    }

    /** Free room. */
    synchronized int room() {
        return ring.length - count;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Moves completions into {@code batch[from..)}, oldest first; returns how many. */
    synchronized int drainInto(WorkCompletion[] batch, int from) {
        int n = 0;
        while (count > 0 && from + n < batch.length) {
            batch[from + n++].copyFrom(ring[head]);
            head = (head + 1) % ring.length;
            count--;
        }
        return n;
    }
}

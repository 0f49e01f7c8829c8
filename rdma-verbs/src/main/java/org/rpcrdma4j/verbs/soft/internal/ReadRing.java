package org.rpcrdma4j.verbs.soft.internal;

/**
 * A FIFO of {@link ReadEntry} of fixed capacity (the ORQ or the IRQ of a queue pair). Responses are matched to the
 * head in order, as RDMAP requires. Engine thread only.
 */
final class ReadRing {
    private final ReadEntry[] entries;
    private int head;
    private int count;
    private int limit;

    ReadRing(int capacity) {
        entries = new ReadEntry[Math.max(1, capacity)];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new ReadEntry();
        }
    }

    /** Sets the negotiated depth (IRD or ORD), at most the capacity. */
    void limit(int depth) {
        limit = Math.min(depth, entries.length);
    }

    int limit() {
        return limit;
    }

    boolean isEmpty() {
        return count == 0;
    }

    boolean isFull() {
        return count >= limit;
    }

    ReadEntry head() {
        return count == 0 ? null : entries[head];
    }

    /** The next free entry, cleared; becomes part of the ring. Caller checked {@link #isFull()}. */
    ReadEntry push() {
        ReadEntry e = entries[(head + count) % entries.length];
        e.clear();
        count++;
        return e;
    }

    void pop() {
        entries[head].clear();
        head = (head + 1) % entries.length;
        count--;
    }

    void clear() {
        while (count > 0) {
            pop();
        }
    }
}

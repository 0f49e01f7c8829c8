package org.rpcrdma4j.xprt.server;

import java.util.Arrays;

/**
 * A byte sequence in registered memory, as scatter/gather entries {@code (lkey, address, length)} in order: the
 * source of an RDMA WRITE or of a Send. Adjacent entries in the same region are merged. Reusable and growable (it
 * keeps its largest size), one owner thread at a time.
 */
final class SgeList {
    private int[] lkeys = new int[4];
    private long[] addresses = new long[4];
    private int[] lengths = new int[4];
    private int count;
    private long total;
    /** Entries before this index are closed: a new entry never merges into them. */
    private int barrier;

    SgeList clear() {
        count = 0;
        total = 0;
        barrier = 0;
        return this;
    }

    /** Closes the entries so far: the next {@link #add} starts a new entry (a new work request begins). */
    SgeList barrier() {
        barrier = count;
        return this;
    }

    /** Appends {@code length} bytes at {@code address} under {@code lkey}; nothing for a zero length. */
    SgeList add(int lkey, long address, int length) {
        if (length == 0) {
            return this;
        }
        if (count > barrier && lkeys[count - 1] == lkey && addresses[count - 1] + lengths[count - 1] == address
                && (long) lengths[count - 1] + length <= Integer.MAX_VALUE) {
            lengths[count - 1] += length;
        } else {
            if (count == lkeys.length) {
                int grown = count * 2;
                lkeys = Arrays.copyOf(lkeys, grown);
                addresses = Arrays.copyOf(addresses, grown);
                lengths = Arrays.copyOf(lengths, grown);
            }
            lkeys[count] = lkey;
            addresses[count] = address;
            lengths[count] = length;
            count++;
        }
        total += length;
        return this;
    }

    int count() {
        return count;
    }

    long total() {
        return total;
    }

    int lkey(int i) {
        return lkeys[i];
    }

    long address(int i) {
        return addresses[i];
    }

    int length(int i) {
        return lengths[i];
    }
}

package org.rpcrdma4j.xprt.client;

import java.util.Arrays;

/**
 * The calls on the wire by xid: an open-addressing table (linear probing, deletion by backward shift) sized once for
 * every request slot, so nothing is allocated per call. Owned by the connection's agent thread.
 */
final class XidTable {
    private final int[] keys;
    private final RequestSlot[] values;
    private final int mask;
    private int size;

    XidTable(int slots) {
        int capacity = Integer.highestOneBit(Math.max(4, slots * 2 - 1)) << 1;
        keys = new int[capacity];
        values = new RequestSlot[capacity];
        mask = capacity - 1;
    }

    private int home(int xid) {
        int h = xid * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** Adds a slot under its xid; the xid must not be present. */
    void put(int xid, RequestSlot slot) {
        if (size * 2 >= keys.length) {
            throw new IllegalStateException("xid table full: " + size);
        }
        int i = home(xid);
        while (values[i] != null) {
            if (keys[i] == xid) {
                throw new IllegalStateException("xid 0x" + Integer.toHexString(xid) + " is already outstanding");
            }
            i = (i + 1) & mask;
        }
        keys[i] = xid;
        values[i] = slot;
        size++;
    }

    RequestSlot get(int xid) {
        int i = home(xid);
        while (values[i] != null) {
            if (keys[i] == xid) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** Removes and returns the slot under {@code xid}, or null. */
    RequestSlot remove(int xid) {
        int i = home(xid);
        while (values[i] != null) {
            if (keys[i] == xid) {
                RequestSlot found = values[i];
                shiftBack(i);
                size--;
                return found;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** Removes {@code slot} if it is present under {@code xid}. */
    boolean remove(int xid, RequestSlot slot) {
        if (get(xid) == slot) {
            remove(xid);
            return true;
        }
        return false;
    }

    private void shiftBack(int hole) {
        int i = hole;
        while (true) {
            values[hole] = null;
            i = (i + 1) & mask;
            if (values[i] == null) {
                return;
            }
            int h = home(keys[i]);
            // move entry i into the hole unless its home lies cyclically in (hole, i]
            boolean stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
            if (!stays) {
                keys[hole] = keys[i];
                values[hole] = values[i];
                hole = i;
            }
        }
    }

    int size() {
        return size;
    }

    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }
}

package org.rpcrdma4j.verbs.ffm;

import org.rpcrdma4j.verbs.Stag;

/**
 * A device's memory windows by STag index (a window keeps its index across bindings; only the 8-bit key changes), so
 * that the window a peer invalidated with a Send with Invalidate is found from the STag its receive completion names.
 * Open addressing over an array: finding allocates nothing. Windows come and go on setup paths only.
 */
final class FfmWindows {
    private FfmMemoryWindow[] slots = new FfmMemoryWindow[64];
    private int count;

    synchronized void add(FfmMemoryWindow window) {
        if (2 * (count + 1) > slots.length) {
            FfmMemoryWindow[] old = slots;
            slots = new FfmMemoryWindow[old.length * 2];
            for (FfmMemoryWindow w : old) {
                if (w != null) {
                    place(w);
                }
            }
        }
        place(window);
        count++;
    }

    private void place(FfmMemoryWindow window) {
        int mask = slots.length - 1;
        int i = hash(window.index()) & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = window;
    }

    synchronized void remove(FfmMemoryWindow window) {
        int mask = slots.length - 1;
        int i = hash(window.index()) & mask;
        while (slots[i] != null && slots[i] != window) {
            i = (i + 1) & mask;
        }
        if (slots[i] == null) {
            return;
        }
        slots[i] = null;
        count--;
        // put the rest of the cluster back, so that no lookup stops at the hole
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            FfmMemoryWindow w = slots[j];
            slots[j] = null;
            place(w);
        }
    }

    /** The window whose index {@code stag} names, or null. */
    synchronized FfmMemoryWindow byStag(int stag) {
        int index = Stag.index(stag);
        int mask = slots.length - 1;
        for (int i = hash(index) & mask; slots[i] != null; i = (i + 1) & mask) {
            if (slots[i].index() == index) {
                return slots[i];
            }
        }
        return null;
    }

    /** A peer's Send with Invalidate or a LOCAL_INV named {@code stag}: its window, when it is one, is invalid now. */
    void invalidated(int stag) {
        FfmMemoryWindow w = byStag(stag);
        if (w != null) {
            w.invalidated(stag);
        }
    }

    private static int hash(int index) {
        return index * 0x9E3779B9 >>> 7;
    }
}

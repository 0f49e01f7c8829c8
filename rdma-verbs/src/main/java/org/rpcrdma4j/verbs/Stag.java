package org.rpcrdma4j.verbs;

/**
 * An STag (iWARP) or L_Key/R_Key (InfiniBand): a 24-bit index naming the memory region in the device's table,
 * and an 8-bit key the consumer advances on every fast registration so that a stale key stops working.
 * <pre>
 *  31                              8 7          0
 * +---------------------------------+------------+
 * |          index (24 bits)        | key (8)    |
 * +---------------------------------+------------+
 * </pre>
 */
public final class Stag {
    private Stag() {
    }

    public static int index(int stag) {
        return stag >>> 8;
    }

    public static int key(int stag) {
        return stag & 0xFF;
    }

    public static int of(int index, int key) {
        if (index < 0 || index > 0xFF_FFFF) {
            throw new IllegalArgumentException("STag index out of range: " + index);
        }
        return index << 8 | (key & 0xFF);
    }

    /** The same index with the key advanced by one (wrapping). */
    public static int nextKey(int stag) {
        return of(index(stag), key(stag) + 1);
    }

    public static String toString(int stag) {
        return String.format("0x%08x", stag);
    }
}

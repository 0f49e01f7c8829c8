package org.rpcrdma4j.nfs;

/** {@code stable_how} (RFC 1813 WRITE): how durably the server must store written data before replying. */
public enum StableHow {
    /** The server may reply before the data is on stable storage; COMMIT makes it durable. */
    UNSTABLE,
    /** Data (and the metadata needed to retrieve it) on stable storage before the reply. */
    DATA_SYNC,
    /** Data and all metadata on stable storage before the reply. */
    FILE_SYNC;

    public int wireValue() {
        return ordinal();
    }

    /** The value with this wire number, or null when there is none. */
    public static StableHow fromWire(int value) {
        return value >= 0 && value <= 2 ? values()[value] : null;
    }

    /** True when data written this way needs no COMMIT. */
    public boolean isStable() {
        return this != UNSTABLE;
    }
}

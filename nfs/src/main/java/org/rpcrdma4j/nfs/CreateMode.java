package org.rpcrdma4j.nfs;

/** {@code createmode3} (RFC 1813 CREATE). */
public enum CreateMode {
    /** Create, or use the existing file (attributes are applied either way). */
    UNCHECKED,
    /** Create; fail with {@code NFS3ERR_EXIST} when the name exists. */
    GUARDED,
    /** Exclusive create keyed by an 8-byte verifier, so that a retransmitted CREATE succeeds. */
    EXCLUSIVE;

    public int wireValue() {
        return ordinal();
    }

    /** The mode with this wire number, or null when there is none. */
    public static CreateMode fromWire(int value) {
        return value >= 0 && value <= 2 ? values()[value] : null;
    }
}

package org.rpcrdma4j.nfs;

/** {@code ftype3} (RFC 1813 section 2.6) with its wire values. */
public enum FileType {
    REGULAR(1),
    DIRECTORY(2),
    BLOCK_DEVICE(3),
    CHAR_DEVICE(4),
    SYMLINK(5),
    SOCKET(6),
    FIFO(7);

    private final int value;

    FileType(int value) {
        this.value = value;
    }

    public int wireValue() {
        return value;
    }

    /** The type with this wire value, or null when there is none. */
    public static FileType fromWire(int value) {
        return value >= 1 && value <= 7 ? values()[value - 1] : null;
    }
}

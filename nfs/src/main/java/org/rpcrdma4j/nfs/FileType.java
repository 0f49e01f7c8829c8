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

    /** A character or block device. */
    public boolean isDevice() {
        return this == CHAR_DEVICE || this == BLOCK_DEVICE;
    }

    /** A FIFO, a socket or a device: what MKNOD makes (regular files, directories and links have calls of their own). */
    public boolean isSpecial() {
        return isDevice() || this == SOCKET || this == FIFO;
    }

    /** The type with this wire value, or null when there is none. */
    public static FileType fromWire(int value) {
        return value >= 1 && value <= 7 ? values()[value - 1] : null;
    }
}

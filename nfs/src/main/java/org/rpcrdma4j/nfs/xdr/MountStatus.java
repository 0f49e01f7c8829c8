package org.rpcrdma4j.nfs.xdr;

/** {@code mountstat3} (RFC 1813 appendix I) with its wire values. */
public enum MountStatus {
    MNT3_OK(0),
    MNT3ERR_PERM(1),
    MNT3ERR_NOENT(2),
    MNT3ERR_IO(5),
    MNT3ERR_ACCES(13),
    MNT3ERR_NOTDIR(20),
    MNT3ERR_INVAL(22),
    MNT3ERR_NAMETOOLONG(63),
    MNT3ERR_NOTSUPP(10004),
    MNT3ERR_SERVERFAULT(10006),
    UNKNOWN(-1);

    private final int value;

    MountStatus(int value) {
        this.value = value;
    }

    public int wireValue() {
        return value;
    }

    public static MountStatus fromWire(int value) {
        for (MountStatus s : values()) {
            if (s.value == value) {
                return s;
            }
        }
        return UNKNOWN;
    }
}

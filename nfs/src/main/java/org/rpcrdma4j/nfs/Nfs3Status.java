package org.rpcrdma4j.nfs;

/**
 * NFSv3 status codes ({@code nfsstat3}, RFC 1813 section 2.6), with their wire values. {@link #UNKNOWN} stands for
 * any value this enum does not name; {@link #wireValue()} then is -1 and the original value travels with the
 * {@link NfsException}.
 */
public enum Nfs3Status {
    NFS3_OK(0),
    NFS3ERR_PERM(1),
    NFS3ERR_NOENT(2),
    NFS3ERR_IO(5),
    NFS3ERR_NXIO(6),
    NFS3ERR_ACCES(13),
    NFS3ERR_EXIST(17),
    NFS3ERR_XDEV(18),
    NFS3ERR_NODEV(19),
    NFS3ERR_NOTDIR(20),
    NFS3ERR_ISDIR(21),
    NFS3ERR_INVAL(22),
    NFS3ERR_FBIG(27),
    NFS3ERR_NOSPC(28),
    NFS3ERR_ROFS(30),
    NFS3ERR_MLINK(31),
    NFS3ERR_NAMETOOLONG(63),
    NFS3ERR_NOTEMPTY(66),
    NFS3ERR_DQUOT(69),
    NFS3ERR_STALE(70),
    NFS3ERR_REMOTE(71),
    NFS3ERR_BADHANDLE(10001),
    NFS3ERR_NOT_SYNC(10002),
    NFS3ERR_BAD_COOKIE(10003),
    NFS3ERR_NOTSUPP(10004),
    NFS3ERR_TOOSMALL(10005),
    NFS3ERR_SERVERFAULT(10006),
    NFS3ERR_BADTYPE(10007),
    NFS3ERR_JUKEBOX(10008),
    /** A value not defined by RFC 1813. */
    UNKNOWN(-1);

    private final int value;

    Nfs3Status(int value) {
        this.value = value;
    }

    /** The {@code nfsstat3} value on the wire; -1 for {@link #UNKNOWN}. */
    public int wireValue() {
        return value;
    }

    /** The status with this wire value, or {@link #UNKNOWN}. */
    public static Nfs3Status fromWire(int value) {
        for (Nfs3Status s : values()) {
            if (s.value == value) {
                return s;
            }
        }
        return UNKNOWN;
    }
}

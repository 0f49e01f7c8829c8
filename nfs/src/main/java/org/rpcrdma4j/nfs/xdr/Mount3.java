package org.rpcrdma4j.nfs.xdr;

/** The MOUNT protocol version 3 (RFC 1813 appendix I): numbers and limits. */
public final class Mount3 {
    public static final int PROGRAM = 100005;
    public static final int VERSION = 3;

    public static final int NULL = 0;
    public static final int MNT = 1;
    public static final int DUMP = 2;
    public static final int UMNT = 3;
    public static final int UMNTALL = 4;
    public static final int EXPORT = 5;

    /** {@code MNTPATHLEN}. */
    public static final int MNTPATHLEN = 1024;
    /** {@code MNTNAMLEN}. */
    public static final int MNTNAMLEN = 255;
    /** {@code FHSIZE3}. */
    public static final int FHSIZE3 = 64;
    /** Most entries a DUMP or EXPORT reply decoder accepts. */
    public static final int DECODE_MAX_ENTRIES = 65536;

    private Mount3() {
    }
}

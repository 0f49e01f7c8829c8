package org.rpcrdma4j.nfs;

/**
 * The static file system information of FSINFO (RFC 1813 section 3.3.19). Sizes are in bytes.
 *
 * @param rtmax       largest READ count the server accepts
 * @param rtpref      preferred READ count
 * @param rtmult      suggested READ multiple
 * @param wtmax       largest WRITE count
 * @param wtpref      preferred WRITE count
 * @param wtmult      suggested WRITE multiple
 * @param dtpref      preferred READDIR count
 * @param maxFileSize largest file size
 * @param timeDelta   server time granularity
 * @param properties  {@code FSF3_*} bits
 */
public record FsInfo(int rtmax, int rtpref, int rtmult, int wtmax, int wtpref, int wtmult, int dtpref,
                     long maxFileSize, NfsTime timeDelta, int properties) {
    public static final int FSF3_LINK = 0x0001;
    public static final int FSF3_SYMLINK = 0x0002;
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    public static final int FSF3_CANSETTIME = 0x0010;

    /** The largest count both a READ and a WRITE may ask for; unbounded when the server gives neither maximum. */
    public int largestIo() {
        return Math.min(positiveOr(rtmax), positiveOr(wtmax));
    }

    private static int positiveOr(int max) {
        return max > 0 ? max : Integer.MAX_VALUE;
    }
}

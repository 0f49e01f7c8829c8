package org.rpcrdma4j.nfs.server;

/**
 * The sizes an NFS server offers in FSINFO and enforces.
 *
 * @param maxRead    largest READ count served (longer READs return this much); FSINFO rtmax and rtpref
 * @param maxWrite   largest WRITE written per call (longer WRITEs are short writes); FSINFO wtmax and wtpref
 * @param maxReaddir largest READDIR/READDIRPLUS reply; FSINFO dtpref
 */
public record ServerLimits(int maxRead, int maxWrite, int maxReaddir) {
    /** 1 MiB reads and writes, 64 KiB directory replies. */
    public static final ServerLimits DEFAULT = new ServerLimits(1 << 20, 1 << 20, 64 << 10);

    public ServerLimits {
        if (maxRead < 4096 || maxWrite < 4096 || maxReaddir < 1024) {
            throw new IllegalArgumentException("limits too small: " + maxRead + ", " + maxWrite + ", " + maxReaddir);
        }
        if (maxRead > (64 << 20) || maxWrite > (64 << 20)) {
            throw new IllegalArgumentException("read and write sizes are at most 64 MiB");
        }
    }
}

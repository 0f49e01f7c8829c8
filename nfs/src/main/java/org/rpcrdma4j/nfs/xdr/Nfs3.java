package org.rpcrdma4j.nfs.xdr;

/** NFS version 3 (RFC 1813): program and procedure numbers and the protocol's size limits. */
public final class Nfs3 {
    public static final int PROGRAM = 100003;
    public static final int VERSION = 3;

    public static final int NULL = 0;
    public static final int GETATTR = 1;
    public static final int SETATTR = 2;
    public static final int LOOKUP = 3;
    public static final int ACCESS = 4;
    public static final int READLINK = 5;
    public static final int READ = 6;
    public static final int WRITE = 7;
    public static final int CREATE = 8;
    public static final int MKDIR = 9;
    public static final int SYMLINK = 10;
    public static final int MKNOD = 11;
    public static final int REMOVE = 12;
    public static final int RMDIR = 13;
    public static final int RENAME = 14;
    public static final int LINK = 15;
    public static final int READDIR = 16;
    public static final int READDIRPLUS = 17;
    public static final int FSSTAT = 18;
    public static final int FSINFO = 19;
    public static final int PATHCONF = 20;
    public static final int COMMIT = 21;

    private static final String[] NAMES = {"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ",
        "WRITE", "CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS",
        "FSSTAT", "FSINFO", "PATHCONF", "COMMIT"};

    /** {@code NFS3_FHSIZE}. */
    public static final int FHSIZE = 64;
    /** Longest file name component this implementation serves (POSIX {@code NAME_MAX}). */
    public static final int MAXNAMLEN = 255;
    /** Longest path (symbolic link contents) this implementation serves ({@code MAXPATHLEN} of MOUNT). */
    public static final int MAXPATHLEN = 1024;
    /**
     * Longest name a decoder accepts at all. Names between {@link #MAXNAMLEN} and this decode, and the server
     * answers {@code NFS3ERR_NAMETOOLONG}; longer ones are garbage ({@code GARBAGE_ARGS}).
     */
    public static final int DECODE_MAX_NAME = 4096;
    /** Longest path a decoder accepts at all (see {@link #DECODE_MAX_NAME}). */
    public static final int DECODE_MAX_PATH = 4096;
    /** Largest READ/WRITE data item a decoder accepts; servers and clients enforce their own, smaller sizes. */
    public static final int DECODE_MAX_DATA = 64 << 20;
    /** Most directory entries a READDIR/READDIRPLUS reply decoder accepts. */
    public static final int DECODE_MAX_ENTRIES = 1 << 20;

    private Nfs3() {
    }

    /** The procedure's RFC 1813 name, or "PROC_n". */
    public static String procedureName(int procedure) {
        return procedure >= 0 && procedure < NAMES.length ? NAMES[procedure] : "PROC_" + procedure;
    }
}

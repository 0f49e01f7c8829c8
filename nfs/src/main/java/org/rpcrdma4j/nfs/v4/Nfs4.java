package org.rpcrdma4j.nfs.v4;

/**
 * Wire constants of NFS version 4 (RFC 7530 for minor version 0, RFC 8881 for 1, RFC 7862 and RFC 8276 for 2) that
 * the upper-layer binding needs: the program, the COMPOUND procedure, operation numbers, a few discriminants and
 * sizes, and the bounds the binding applies to variable-length items it walks over.
 */
public final class Nfs4 {
    public static final int PROGRAM = 100003;
    public static final int VERSION = 4;
    public static final int PROC_NULL = 0;
    public static final int PROC_COMPOUND = 1;
    /** Highest minor version the binding knows (NFSv4.2). */
    public static final int MAX_MINOR_VERSION = 2;

    public static final int NFS4_OK = 0;

    // ------------------------------------------------------------------------------------------- operations

    public static final int OP_ACCESS = 3;
    public static final int OP_CLOSE = 4;
    public static final int OP_COMMIT = 5;
    public static final int OP_CREATE = 6;
    public static final int OP_DELEGPURGE = 7;
    public static final int OP_DELEGRETURN = 8;
    public static final int OP_GETATTR = 9;
    public static final int OP_GETFH = 10;
    public static final int OP_LINK = 11;
    public static final int OP_LOCK = 12;
    public static final int OP_LOCKT = 13;
    public static final int OP_LOCKU = 14;
    public static final int OP_LOOKUP = 15;
    public static final int OP_LOOKUPP = 16;
    public static final int OP_NVERIFY = 17;
    public static final int OP_OPEN = 18;
    public static final int OP_OPENATTR = 19;
    public static final int OP_OPEN_CONFIRM = 20;
    public static final int OP_OPEN_DOWNGRADE = 21;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTPUBFH = 23;
    public static final int OP_PUTROOTFH = 24;
    public static final int OP_READ = 25;
    public static final int OP_READDIR = 26;
    public static final int OP_READLINK = 27;
    public static final int OP_REMOVE = 28;
    public static final int OP_RENAME = 29;
    public static final int OP_RENEW = 30;
    public static final int OP_RESTOREFH = 31;
    public static final int OP_SAVEFH = 32;
    public static final int OP_SECINFO = 33;
    public static final int OP_SETATTR = 34;
    public static final int OP_SETCLIENTID = 35;
    public static final int OP_SETCLIENTID_CONFIRM = 36;
    public static final int OP_VERIFY = 37;
    public static final int OP_WRITE = 38;
    public static final int OP_RELEASE_LOCKOWNER = 39;
    /** Last operation of minor version 0. */
    public static final int LAST_OP_V40 = OP_RELEASE_LOCKOWNER;
    public static final int OP_BACKCHANNEL_CTL = 40;
    public static final int OP_BIND_CONN_TO_SESSION = 41;
    public static final int OP_EXCHANGE_ID = 42;
    public static final int OP_CREATE_SESSION = 43;
    public static final int OP_DESTROY_SESSION = 44;
    public static final int OP_FREE_STATEID = 45;
    public static final int OP_GET_DIR_DELEGATION = 46;
    public static final int OP_GETDEVICEINFO = 47;
    public static final int OP_GETDEVICELIST = 48;
    public static final int OP_LAYOUTCOMMIT = 49;
    public static final int OP_LAYOUTGET = 50;
    public static final int OP_LAYOUTRETURN = 51;
    public static final int OP_SECINFO_NO_NAME = 52;
    public static final int OP_SEQUENCE = 53;
    public static final int OP_SET_SSV = 54;
    public static final int OP_TEST_STATEID = 55;
    public static final int OP_WANT_DELEGATION = 56;
    public static final int OP_DESTROY_CLIENTID = 57;
    public static final int OP_RECLAIM_COMPLETE = 58;
    /** Last operation of minor version 1. */
    public static final int LAST_OP_V41 = OP_RECLAIM_COMPLETE;
    public static final int OP_ALLOCATE = 59;
    public static final int OP_COPY = 60;
    public static final int OP_COPY_NOTIFY = 61;
    public static final int OP_DEALLOCATE = 62;
    public static final int OP_IO_ADVISE = 63;
    public static final int OP_LAYOUTERROR = 64;
    public static final int OP_LAYOUTSTATS = 65;
    public static final int OP_OFFLOAD_CANCEL = 66;
    public static final int OP_OFFLOAD_STATUS = 67;
    public static final int OP_READ_PLUS = 68;
    public static final int OP_SEEK = 69;
    public static final int OP_WRITE_SAME = 70;
    public static final int OP_CLONE = 71;
    /** RFC 8276 extended attributes, an extension of minor version 2. */
    public static final int OP_GETXATTR = 72;
    public static final int OP_SETXATTR = 73;
    public static final int OP_LISTXATTRS = 74;
    public static final int OP_REMOVEXATTR = 75;
    /** Last operation of minor version 2 (with RFC 8276). */
    public static final int LAST_OP_V42 = OP_REMOVEXATTR;
    public static final int OP_ILLEGAL = 10044;

    // ------------------------------------------------------------------------------------------ discriminants

    /** {@code nfs_ftype4} NF4BLK, NF4CHR, NF4LNK: the arms of {@code createtype4} that carry data. */
    public static final int NF4BLK = 3;
    public static final int NF4CHR = 4;
    public static final int NF4LNK = 5;

    // ------------------------------------------------------------------------------------------------ sizes

    /** {@code NFS4_FHSIZE}: most bytes in a file handle. */
    public static final int FHSIZE = 128;
    /** {@code NFS4_OPAQUE_LIMIT}: most bytes in a client or state owner. */
    public static final int OPAQUE_LIMIT = 1024;
    public static final int STATEID_SIZE = 16;
    public static final int SESSIONID_SIZE = 16;
    public static final int VERIFIER_SIZE = 8;
    public static final int DEVICEID_SIZE = 16;
    /** {@code nfstime4}: seconds (int64), nanoseconds (uint32). */
    public static final int NFSTIME_SIZE = 12;
    /** {@code change_info4}: atomic (bool), before, after (changeid4 each). */
    public static final int CHANGE_INFO_SIZE = 4 + 8 + 8;

    // ------------------------------------------------------------------------------------- decoding bounds

    /**
     * Most words the binding accepts in a {@code bitmap4} (256 attributes; NFSv4.2 with extended attributes defines
     * 83, which need 3).
     */
    public static final int DECODE_MAX_BITMAP_WORDS = 8;
    /** Most bytes accepted for a tag, a component name, or another UTF-8 string. */
    public static final int DECODE_MAX_NAME = 4096;
    /**
     * Most bytes accepted for a symbolic link's text ({@code linktext4}); also what the binding assumes a READLINK can
     * return (Linux's {@code PATH_MAX}; the protocol sets no limit).
     */
    public static final int DECODE_MAX_PATH = 4096;
    /** Most bytes accepted for WRITE or READ data. */
    public static final int DECODE_MAX_DATA = 64 << 20;
    /** Most bytes accepted for other opaque values: attribute lists, layout and device bodies, xattr values. */
    public static final int DECODE_MAX_OPAQUE = 1 << 20;

    /** The operations' names, from {@link #OP_ACCESS} (3) to {@link #LAST_OP_V42}, as RFC 8881 and 7862 name them. */
    private static final String[] OPERATION_NAMES = {
        "ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE", "DELEGRETURN", "GETATTR", "GETFH", "LINK", "LOCK",
        "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY", "OPEN", "OPENATTR", "OPEN_CONFIRM", "OPEN_DOWNGRADE",
        "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ", "READDIR", "READLINK", "REMOVE", "RENAME", "RENEW", "RESTOREFH",
        "SAVEFH", "SECINFO", "SETATTR", "SETCLIENTID", "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER",
        "BACKCHANNEL_CTL", "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION", "DESTROY_SESSION", "FREE_STATEID",
        "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST", "LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN",
        "SECINFO_NO_NAME", "SEQUENCE", "SET_SSV", "TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID",
        "RECLAIM_COMPLETE", "ALLOCATE", "COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE", "LAYOUTERROR",
        "LAYOUTSTATS", "OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK", "WRITE_SAME", "CLONE", "GETXATTR",
        "SETXATTR", "LISTXATTRS", "REMOVEXATTR"
    };

    private Nfs4() {
    }

    /** The name of operation {@code op} ({@code "LOOKUP"}, {@code "ILLEGAL"}), or {@code "operation <n>"}. */
    public static String operationName(int op) {
        if (op == OP_ILLEGAL) {
            return "ILLEGAL";
        }
        return op >= OP_ACCESS && op <= LAST_OP_V42 ? OPERATION_NAMES[op - OP_ACCESS] : "operation " + op;
    }

    /**
     * @param op           an operation number
     * @param minorVersion the COMPOUND's minor version
     * @return whether {@code op} is an operation of that minor version (ILLEGAL is in none)
     */
    public static boolean isOperationOf(int op, int minorVersion) {
        int last = switch (minorVersion) {
            case 0 -> LAST_OP_V40;
            case 1 -> LAST_OP_V41;
            case 2 -> LAST_OP_V42;
            default -> -1;
        };
        return op >= OP_ACCESS && op <= last;
    }
}

package org.rpcrdma4j.nfs.v4;

import java.util.Map;

/**
 * {@code nfsstat4} (RFC 8881 section 15.1, with the additions of RFC 7862 and RFC 8276): the status of a COMPOUND and
 * of each of its operations, as wire values. Plain constants because statuses travel as ints through the server's
 * operation loop and the client's result decoding; {@link #name(int)} spells one out for messages.
 */
public final class Nfs4Status {
    public static final int NFS4_OK = 0;
    public static final int NFS4ERR_PERM = 1;
    public static final int NFS4ERR_NOENT = 2;
    public static final int NFS4ERR_IO = 5;
    public static final int NFS4ERR_NXIO = 6;
    public static final int NFS4ERR_ACCESS = 13;
    public static final int NFS4ERR_EXIST = 17;
    public static final int NFS4ERR_XDEV = 18;
    public static final int NFS4ERR_NOTDIR = 20;
    public static final int NFS4ERR_ISDIR = 21;
    public static final int NFS4ERR_INVAL = 22;
    public static final int NFS4ERR_FBIG = 27;
    public static final int NFS4ERR_NOSPC = 28;
    public static final int NFS4ERR_ROFS = 30;
    public static final int NFS4ERR_MLINK = 31;
    public static final int NFS4ERR_NAMETOOLONG = 63;
    public static final int NFS4ERR_NOTEMPTY = 66;
    public static final int NFS4ERR_DQUOT = 69;
    public static final int NFS4ERR_STALE = 70;
    public static final int NFS4ERR_BADHANDLE = 10001;
    public static final int NFS4ERR_BAD_COOKIE = 10003;
    public static final int NFS4ERR_NOTSUPP = 10004;
    public static final int NFS4ERR_TOOSMALL = 10005;
    public static final int NFS4ERR_SERVERFAULT = 10006;
    public static final int NFS4ERR_BADTYPE = 10007;
    public static final int NFS4ERR_DELAY = 10008;
    public static final int NFS4ERR_SAME = 10009;
    public static final int NFS4ERR_DENIED = 10010;
    public static final int NFS4ERR_EXPIRED = 10011;
    public static final int NFS4ERR_LOCKED = 10012;
    public static final int NFS4ERR_GRACE = 10013;
    public static final int NFS4ERR_FHEXPIRED = 10014;
    public static final int NFS4ERR_SHARE_DENIED = 10015;
    public static final int NFS4ERR_WRONGSEC = 10016;
    public static final int NFS4ERR_CLID_INUSE = 10017;
    public static final int NFS4ERR_RESOURCE = 10018;
    public static final int NFS4ERR_MOVED = 10019;
    public static final int NFS4ERR_NOFILEHANDLE = 10020;
    public static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    public static final int NFS4ERR_STALE_CLIENTID = 10022;
    public static final int NFS4ERR_STALE_STATEID = 10023;
    public static final int NFS4ERR_OLD_STATEID = 10024;
    public static final int NFS4ERR_BAD_STATEID = 10025;
    public static final int NFS4ERR_BAD_SEQID = 10026;
    public static final int NFS4ERR_NOT_SAME = 10027;
    public static final int NFS4ERR_LOCK_RANGE = 10028;
    public static final int NFS4ERR_SYMLINK = 10029;
    public static final int NFS4ERR_RESTOREFH = 10030;
    public static final int NFS4ERR_LEASE_MOVED = 10031;
    public static final int NFS4ERR_ATTRNOTSUPP = 10032;
    public static final int NFS4ERR_NO_GRACE = 10033;
    public static final int NFS4ERR_RECLAIM_BAD = 10034;
    public static final int NFS4ERR_RECLAIM_CONFLICT = 10035;
    public static final int NFS4ERR_BADXDR = 10036;
    public static final int NFS4ERR_LOCKS_HELD = 10037;
    public static final int NFS4ERR_OPENMODE = 10038;
    public static final int NFS4ERR_BADOWNER = 10039;
    public static final int NFS4ERR_BADCHAR = 10040;
    public static final int NFS4ERR_BADNAME = 10041;
    public static final int NFS4ERR_BAD_RANGE = 10042;
    public static final int NFS4ERR_LOCK_NOTSUPP = 10043;
    public static final int NFS4ERR_OP_ILLEGAL = 10044;
    public static final int NFS4ERR_DEADLOCK = 10045;
    public static final int NFS4ERR_FILE_OPEN = 10046;
    public static final int NFS4ERR_ADMIN_REVOKED = 10047;
    public static final int NFS4ERR_CB_PATH_DOWN = 10048;
    public static final int NFS4ERR_BADIOMODE = 10049;
    public static final int NFS4ERR_BADLAYOUT = 10050;
    public static final int NFS4ERR_BAD_SESSION_DIGEST = 10051;
    public static final int NFS4ERR_BADSESSION = 10052;
    public static final int NFS4ERR_BADSLOT = 10053;
    public static final int NFS4ERR_COMPLETE_ALREADY = 10054;
    public static final int NFS4ERR_CONN_NOT_BOUND_TO_SESSION = 10055;
    public static final int NFS4ERR_DELEG_ALREADY_WANTED = 10056;
    public static final int NFS4ERR_BACK_CHAN_BUSY = 10057;
    public static final int NFS4ERR_LAYOUTTRYLATER = 10058;
    public static final int NFS4ERR_LAYOUTUNAVAILABLE = 10059;
    public static final int NFS4ERR_NOMATCHING_LAYOUT = 10060;
    public static final int NFS4ERR_RECALLCONFLICT = 10061;
    public static final int NFS4ERR_UNKNOWN_LAYOUTTYPE = 10062;
    public static final int NFS4ERR_SEQ_MISORDERED = 10063;
    public static final int NFS4ERR_SEQUENCE_POS = 10064;
    public static final int NFS4ERR_REQ_TOO_BIG = 10065;
    public static final int NFS4ERR_REP_TOO_BIG = 10066;
    public static final int NFS4ERR_REP_TOO_BIG_TO_CACHE = 10067;
    public static final int NFS4ERR_RETRY_UNCACHED_REP = 10068;
    public static final int NFS4ERR_UNSAFE_COMPOUND = 10069;
    public static final int NFS4ERR_TOO_MANY_OPS = 10070;
    public static final int NFS4ERR_OP_NOT_IN_SESSION = 10071;
    public static final int NFS4ERR_HASH_ALG_UNSUPP = 10072;
    public static final int NFS4ERR_CLIENTID_BUSY = 10074;
    public static final int NFS4ERR_PNFS_IO_HOLE = 10075;
    public static final int NFS4ERR_SEQ_FALSE_RETRY = 10076;
    public static final int NFS4ERR_BAD_HIGH_SLOT = 10077;
    public static final int NFS4ERR_DEADSESSION = 10078;
    public static final int NFS4ERR_ENCR_ALG_UNSUPP = 10079;
    public static final int NFS4ERR_PNFS_NO_LAYOUT = 10080;
    public static final int NFS4ERR_NOT_ONLY_OP = 10081;
    public static final int NFS4ERR_WRONG_CRED = 10082;
    public static final int NFS4ERR_WRONG_TYPE = 10083;
    public static final int NFS4ERR_DIRDELEG_UNAVAIL = 10084;
    public static final int NFS4ERR_REJECT_DELEG = 10085;
    public static final int NFS4ERR_RETURNCONFLICT = 10086;
    public static final int NFS4ERR_DELEG_REVOKED = 10087;
    public static final int NFS4ERR_PARTNER_NOTSUPP = 10088;
    public static final int NFS4ERR_PARTNER_NO_AUTH = 10089;
    public static final int NFS4ERR_UNION_NOTSUPP = 10090;
    public static final int NFS4ERR_OFFLOAD_DENIED = 10091;
    public static final int NFS4ERR_WRONG_LFS = 10092;
    public static final int NFS4ERR_BADLABEL = 10093;
    public static final int NFS4ERR_OFFLOAD_NO_REQS = 10094;
    public static final int NFS4ERR_NOXATTR = 10095;
    public static final int NFS4ERR_XATTR2BIG = 10096;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(NFS4_OK, "NFS4_OK"),
            Map.entry(NFS4ERR_PERM, "NFS4ERR_PERM"),
            Map.entry(NFS4ERR_NOENT, "NFS4ERR_NOENT"),
            Map.entry(NFS4ERR_IO, "NFS4ERR_IO"),
            Map.entry(NFS4ERR_NXIO, "NFS4ERR_NXIO"),
            Map.entry(NFS4ERR_ACCESS, "NFS4ERR_ACCESS"),
            Map.entry(NFS4ERR_EXIST, "NFS4ERR_EXIST"),
            Map.entry(NFS4ERR_XDEV, "NFS4ERR_XDEV"),
            Map.entry(NFS4ERR_NOTDIR, "NFS4ERR_NOTDIR"),
            Map.entry(NFS4ERR_ISDIR, "NFS4ERR_ISDIR"),
            Map.entry(NFS4ERR_INVAL, "NFS4ERR_INVAL"),
            Map.entry(NFS4ERR_FBIG, "NFS4ERR_FBIG"),
            Map.entry(NFS4ERR_NOSPC, "NFS4ERR_NOSPC"),
            Map.entry(NFS4ERR_ROFS, "NFS4ERR_ROFS"),
            Map.entry(NFS4ERR_MLINK, "NFS4ERR_MLINK"),
            Map.entry(NFS4ERR_NAMETOOLONG, "NFS4ERR_NAMETOOLONG"),
            Map.entry(NFS4ERR_NOTEMPTY, "NFS4ERR_NOTEMPTY"),
            Map.entry(NFS4ERR_DQUOT, "NFS4ERR_DQUOT"),
            Map.entry(NFS4ERR_STALE, "NFS4ERR_STALE"),
            Map.entry(NFS4ERR_BADHANDLE, "NFS4ERR_BADHANDLE"),
            Map.entry(NFS4ERR_BAD_COOKIE, "NFS4ERR_BAD_COOKIE"),
            Map.entry(NFS4ERR_NOTSUPP, "NFS4ERR_NOTSUPP"),
            Map.entry(NFS4ERR_TOOSMALL, "NFS4ERR_TOOSMALL"),
            Map.entry(NFS4ERR_SERVERFAULT, "NFS4ERR_SERVERFAULT"),
            Map.entry(NFS4ERR_BADTYPE, "NFS4ERR_BADTYPE"),
            Map.entry(NFS4ERR_DELAY, "NFS4ERR_DELAY"),
            Map.entry(NFS4ERR_SAME, "NFS4ERR_SAME"),
            Map.entry(NFS4ERR_DENIED, "NFS4ERR_DENIED"),
            Map.entry(NFS4ERR_EXPIRED, "NFS4ERR_EXPIRED"),
            Map.entry(NFS4ERR_LOCKED, "NFS4ERR_LOCKED"),
            Map.entry(NFS4ERR_GRACE, "NFS4ERR_GRACE"),
            Map.entry(NFS4ERR_FHEXPIRED, "NFS4ERR_FHEXPIRED"),
            Map.entry(NFS4ERR_SHARE_DENIED, "NFS4ERR_SHARE_DENIED"),
            Map.entry(NFS4ERR_WRONGSEC, "NFS4ERR_WRONGSEC"),
            Map.entry(NFS4ERR_CLID_INUSE, "NFS4ERR_CLID_INUSE"),
            Map.entry(NFS4ERR_RESOURCE, "NFS4ERR_RESOURCE"),
            Map.entry(NFS4ERR_MOVED, "NFS4ERR_MOVED"),
            Map.entry(NFS4ERR_NOFILEHANDLE, "NFS4ERR_NOFILEHANDLE"),
            Map.entry(NFS4ERR_MINOR_VERS_MISMATCH, "NFS4ERR_MINOR_VERS_MISMATCH"),
            Map.entry(NFS4ERR_STALE_CLIENTID, "NFS4ERR_STALE_CLIENTID"),
            Map.entry(NFS4ERR_STALE_STATEID, "NFS4ERR_STALE_STATEID"),
            Map.entry(NFS4ERR_OLD_STATEID, "NFS4ERR_OLD_STATEID"),
            Map.entry(NFS4ERR_BAD_STATEID, "NFS4ERR_BAD_STATEID"),
            Map.entry(NFS4ERR_BAD_SEQID, "NFS4ERR_BAD_SEQID"),
            Map.entry(NFS4ERR_NOT_SAME, "NFS4ERR_NOT_SAME"),
            Map.entry(NFS4ERR_LOCK_RANGE, "NFS4ERR_LOCK_RANGE"),
            Map.entry(NFS4ERR_SYMLINK, "NFS4ERR_SYMLINK"),
            Map.entry(NFS4ERR_RESTOREFH, "NFS4ERR_RESTOREFH"),
            Map.entry(NFS4ERR_LEASE_MOVED, "NFS4ERR_LEASE_MOVED"),
            Map.entry(NFS4ERR_ATTRNOTSUPP, "NFS4ERR_ATTRNOTSUPP"),
            Map.entry(NFS4ERR_NO_GRACE, "NFS4ERR_NO_GRACE"),
            Map.entry(NFS4ERR_RECLAIM_BAD, "NFS4ERR_RECLAIM_BAD"),
            Map.entry(NFS4ERR_RECLAIM_CONFLICT, "NFS4ERR_RECLAIM_CONFLICT"),
            Map.entry(NFS4ERR_BADXDR, "NFS4ERR_BADXDR"),
            Map.entry(NFS4ERR_LOCKS_HELD, "NFS4ERR_LOCKS_HELD"),
            Map.entry(NFS4ERR_OPENMODE, "NFS4ERR_OPENMODE"),
            Map.entry(NFS4ERR_BADOWNER, "NFS4ERR_BADOWNER"),
            Map.entry(NFS4ERR_BADCHAR, "NFS4ERR_BADCHAR"),
            Map.entry(NFS4ERR_BADNAME, "NFS4ERR_BADNAME"),
            Map.entry(NFS4ERR_BAD_RANGE, "NFS4ERR_BAD_RANGE"),
            Map.entry(NFS4ERR_LOCK_NOTSUPP, "NFS4ERR_LOCK_NOTSUPP"),
            Map.entry(NFS4ERR_OP_ILLEGAL, "NFS4ERR_OP_ILLEGAL"),
            Map.entry(NFS4ERR_DEADLOCK, "NFS4ERR_DEADLOCK"),
            Map.entry(NFS4ERR_FILE_OPEN, "NFS4ERR_FILE_OPEN"),
            Map.entry(NFS4ERR_ADMIN_REVOKED, "NFS4ERR_ADMIN_REVOKED"),
            Map.entry(NFS4ERR_CB_PATH_DOWN, "NFS4ERR_CB_PATH_DOWN"),
            Map.entry(NFS4ERR_BADIOMODE, "NFS4ERR_BADIOMODE"),
            Map.entry(NFS4ERR_BADLAYOUT, "NFS4ERR_BADLAYOUT"),
            Map.entry(NFS4ERR_BAD_SESSION_DIGEST, "NFS4ERR_BAD_SESSION_DIGEST"),
            Map.entry(NFS4ERR_BADSESSION, "NFS4ERR_BADSESSION"),
            Map.entry(NFS4ERR_BADSLOT, "NFS4ERR_BADSLOT"),
            Map.entry(NFS4ERR_COMPLETE_ALREADY, "NFS4ERR_COMPLETE_ALREADY"),
            Map.entry(NFS4ERR_CONN_NOT_BOUND_TO_SESSION, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION"),
            Map.entry(NFS4ERR_DELEG_ALREADY_WANTED, "NFS4ERR_DELEG_ALREADY_WANTED"),
            Map.entry(NFS4ERR_BACK_CHAN_BUSY, "NFS4ERR_BACK_CHAN_BUSY"),
            Map.entry(NFS4ERR_LAYOUTTRYLATER, "NFS4ERR_LAYOUTTRYLATER"),
            Map.entry(NFS4ERR_LAYOUTUNAVAILABLE, "NFS4ERR_LAYOUTUNAVAILABLE"),
            Map.entry(NFS4ERR_NOMATCHING_LAYOUT, "NFS4ERR_NOMATCHING_LAYOUT"),
            Map.entry(NFS4ERR_RECALLCONFLICT, "NFS4ERR_RECALLCONFLICT"),
            Map.entry(NFS4ERR_UNKNOWN_LAYOUTTYPE, "NFS4ERR_UNKNOWN_LAYOUTTYPE"),
            Map.entry(NFS4ERR_SEQ_MISORDERED, "NFS4ERR_SEQ_MISORDERED"),
            Map.entry(NFS4ERR_SEQUENCE_POS, "NFS4ERR_SEQUENCE_POS"),
            Map.entry(NFS4ERR_REQ_TOO_BIG, "NFS4ERR_REQ_TOO_BIG"),
            Map.entry(NFS4ERR_REP_TOO_BIG, "NFS4ERR_REP_TOO_BIG"),
            Map.entry(NFS4ERR_REP_TOO_BIG_TO_CACHE, "NFS4ERR_REP_TOO_BIG_TO_CACHE"),
            Map.entry(NFS4ERR_RETRY_UNCACHED_REP, "NFS4ERR_RETRY_UNCACHED_REP"),
            Map.entry(NFS4ERR_UNSAFE_COMPOUND, "NFS4ERR_UNSAFE_COMPOUND"),
            Map.entry(NFS4ERR_TOO_MANY_OPS, "NFS4ERR_TOO_MANY_OPS"),
            Map.entry(NFS4ERR_OP_NOT_IN_SESSION, "NFS4ERR_OP_NOT_IN_SESSION"),
            Map.entry(NFS4ERR_HASH_ALG_UNSUPP, "NFS4ERR_HASH_ALG_UNSUPP"),
            Map.entry(NFS4ERR_CLIENTID_BUSY, "NFS4ERR_CLIENTID_BUSY"),
            Map.entry(NFS4ERR_PNFS_IO_HOLE, "NFS4ERR_PNFS_IO_HOLE"),
            Map.entry(NFS4ERR_SEQ_FALSE_RETRY, "NFS4ERR_SEQ_FALSE_RETRY"),
            Map.entry(NFS4ERR_BAD_HIGH_SLOT, "NFS4ERR_BAD_HIGH_SLOT"),
            Map.entry(NFS4ERR_DEADSESSION, "NFS4ERR_DEADSESSION"),
            Map.entry(NFS4ERR_ENCR_ALG_UNSUPP, "NFS4ERR_ENCR_ALG_UNSUPP"),
            Map.entry(NFS4ERR_PNFS_NO_LAYOUT, "NFS4ERR_PNFS_NO_LAYOUT"),
            Map.entry(NFS4ERR_NOT_ONLY_OP, "NFS4ERR_NOT_ONLY_OP"),
            Map.entry(NFS4ERR_WRONG_CRED, "NFS4ERR_WRONG_CRED"),
            Map.entry(NFS4ERR_WRONG_TYPE, "NFS4ERR_WRONG_TYPE"),
            Map.entry(NFS4ERR_DIRDELEG_UNAVAIL, "NFS4ERR_DIRDELEG_UNAVAIL"),
            Map.entry(NFS4ERR_REJECT_DELEG, "NFS4ERR_REJECT_DELEG"),
            Map.entry(NFS4ERR_RETURNCONFLICT, "NFS4ERR_RETURNCONFLICT"),
            Map.entry(NFS4ERR_DELEG_REVOKED, "NFS4ERR_DELEG_REVOKED"),
            Map.entry(NFS4ERR_PARTNER_NOTSUPP, "NFS4ERR_PARTNER_NOTSUPP"),
            Map.entry(NFS4ERR_PARTNER_NO_AUTH, "NFS4ERR_PARTNER_NO_AUTH"),
            Map.entry(NFS4ERR_UNION_NOTSUPP, "NFS4ERR_UNION_NOTSUPP"),
            Map.entry(NFS4ERR_OFFLOAD_DENIED, "NFS4ERR_OFFLOAD_DENIED"),
            Map.entry(NFS4ERR_WRONG_LFS, "NFS4ERR_WRONG_LFS"),
            Map.entry(NFS4ERR_BADLABEL, "NFS4ERR_BADLABEL"),
            Map.entry(NFS4ERR_OFFLOAD_NO_REQS, "NFS4ERR_OFFLOAD_NO_REQS"),
            Map.entry(NFS4ERR_NOXATTR, "NFS4ERR_NOXATTR"),
            Map.entry(NFS4ERR_XATTR2BIG, "NFS4ERR_XATTR2BIG"));

    private Nfs4Status() {
    }

    /** @return the status's name ({@code NFS4ERR_NOENT}), or {@code nfsstat4 <value>} for one this class does not name */
    public static String name(int status) {
        String n = NAMES.get(status);
        return n != null ? n : "nfsstat4 " + status;
    }

    /**
     * The NFSv4 status for an {@code nfsstat3} a {@link org.rpcrdma4j.nfs.vfs.Vfs} reported: the values both versions
     * share are the same numbers; NODEV becomes NXIO, JUKEBOX is DELAY, and what NFSv4 has no word for (REMOTE,
     * NOT_SYNC, an unknown value) SERVERFAULT.
     */
    public static int fromNfs3(int nfs3) {
        switch (nfs3) {
            case 19: // NFS3ERR_NODEV
                return NFS4ERR_NXIO;
            case 71: // NFS3ERR_REMOTE
            case 10002: // NFS3ERR_NOT_SYNC
                return NFS4ERR_SERVERFAULT;
            default:
                return NAMES.containsKey(nfs3) && (nfs3 < 10009 || nfs3 == 0) ? nfs3 : NFS4ERR_SERVERFAULT;
        }
    }
}

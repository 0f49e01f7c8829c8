package org.rpcrdma4j.nfs.v4;

import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.padded;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readBitmapWords;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readCount;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readLength;

import java.util.Arrays;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * Upper bounds of COMPOUND results, computed from the call: for each operation the largest result any arm (success
 * or error) can take, or "unbounded" when the protocol sets no limit (a string, an ACL, a list the server chooses)
 * or the binding does not know the operation. The sum bounds the whole reply, so that a requester can leave out the
 * reply chunk when the reply is sure to fit inline.
 * <p>
 * Assumptions, shared with the walk itself: a server never returns a {@code bitmap4} of more than
 * {@link Nfs4#DECODE_MAX_BITMAP_WORDS} words (the binding refuses longer ones as malformed; NFSv4.2 needs 3), nor a
 * user or group name of more than {@link Nfs4#OPAQUE_LIMIT} bytes: the {@code owner} and {@code owner_group}
 * attributes and the {@code who} of the ACE that comes with a delegation (Linux's ID mapper names have at most 128).
 * Without the second, every GETATTR of the attributes a client needs (a file's owner among them) and every OPEN would
 * be unbounded, and a requester would register a Reply chunk as large as its largest reply for each.
 */
final class Nfs4ReplySizes {
    /** Unbounded or unknown. */
    static final long UNBOUNDED = -1;

    private static final int BITMAP_MAX = 4 + 4 * Nfs4.DECODE_MAX_BITMAP_WORDS;
    /** LOCK4denied: offset, length, lock type, lock owner (client id and an owner of at most 1024 bytes). */
    private static final int LOCK_DENIED_MAX = 8 + 8 + 4 + 8 + 4 + Nfs4.OPAQUE_LIMIT;
    /** nfsace4: type, flag, access mask, who (a name: see the class comment). */
    private static final int ACE_MAX = 4 + 4 + 4 + 4 + Nfs4.OPAQUE_LIMIT;
    /**
     * OPEN4resok: stateid, change_info4, rflags, attrset, and open_delegation4 at its largest (a write delegation:
     * type, stateid, recall, nfs_space_limit4, ACE).
     */
    private static final int OPEN_MAX = Nfs4.STATEID_SIZE + Nfs4.CHANGE_INFO_SIZE + 4 + BITMAP_MAX
            + 4 + Nfs4.STATEID_SIZE + 4 + 4 + 8 + ACE_MAX;
    /** Size of each attribute's value in a {@code fattr4}; -1 where it has no bound or the binding does not know it. */
    private static final int[] ATTRIBUTE_SIZE = attributeSizes();

    private Nfs4ReplySizes() {
    }

    private static int[] attributeSizes() {
        int[] s = new int[83];
        Arrays.fill(s, -1);
        int bool = 4;
        int u32 = 4;
        int u64 = 8;
        int time = Nfs4.NFSTIME_SIZE;
        s[0] = BITMAP_MAX; // supported_attrs
        s[1] = u32; // type
        s[2] = u32; // fh_expire_type
        s[3] = u64; // change
        s[4] = u64; // size
        s[5] = bool; // link_support
        s[6] = bool; // symlink_support
        s[7] = bool; // named_attr
        s[8] = 16; // fsid: major, minor
        s[9] = bool; // unique_handles
        s[10] = u32; // lease_time
        s[11] = u32; // rdattr_error
        s[13] = u32; // aclsupport
        for (int bit = 14; bit <= 18; bit++) {
            s[bit] = bool; // archive, cansettime, case_insensitive, case_preserving, chown_restricted
        }
        s[19] = 4 + Nfs4.FHSIZE; // filehandle
        for (int bit = 20; bit <= 23; bit++) {
            s[bit] = u64; // fileid, files_avail, files_free, files_total
        }
        s[25] = bool; // hidden
        s[26] = bool; // homogeneous
        s[27] = u64; // maxfilesize
        s[28] = u32; // maxlink
        s[29] = u32; // maxname
        s[30] = u64; // maxread
        s[31] = u64; // maxwrite
        s[33] = u32; // mode
        s[34] = bool; // no_trunc
        s[35] = u32; // numlinks
        s[36] = 4 + Nfs4.OPAQUE_LIMIT; // owner: see the class comment
        s[37] = 4 + Nfs4.OPAQUE_LIMIT; // owner_group
        for (int bit = 38; bit <= 40; bit++) {
            s[bit] = u64; // quota_avail_hard, quota_avail_soft, quota_used
        }
        s[41] = 8; // rawdev: specdata4
        for (int bit = 42; bit <= 45; bit++) {
            s[bit] = u64; // space_avail, space_free, space_total, space_used
        }
        s[46] = bool; // system
        s[47] = time; // time_access
        s[48] = 4 + time; // time_access_set: settime4
        for (int bit = 49; bit <= 53; bit++) {
            s[bit] = time; // time_backup, time_create, time_delta, time_metadata, time_modify
        }
        s[54] = 4 + time; // time_modify_set
        s[55] = u64; // mounted_on_fileid
        s[56] = time; // dir_notif_delay
        s[57] = time; // dirent_notif_delay
        s[60] = 16; // change_policy
        s[65] = u32; // layout_blksize
        s[66] = u32; // layout_alignment
        s[74] = 8; // mode_set_masked
        s[75] = BITMAP_MAX; // suppattr_exclcreat
        s[76] = u32; // fs_charset_cap
        s[77] = u32; // clone_blksize
        s[78] = u64; // space_freed
        s[79] = u32; // change_attr_type
        s[81] = 8; // mode_umask
        s[82] = bool; // xattr_support
        return s;
    }

    /**
     * The largest COMPOUND4res (status, tag, results) that the call can get, the bytes of its first DDP-eligible
     * result excepted (they travel in a write chunk; that result's length word is counted).
     *
     * @param c       at the start of COMPOUND4args
     * @param itemOut whether the call is reduced: its first DDP-eligible argument (WRITE data, {@code linktext4})
     *                travels apart, its length word here without its bytes
     * @return the bound in bytes, or {@link #UNBOUNDED}
     */
    static long compound(XdrCursor c, boolean itemOut) throws XdrFormatException {
        int tag = readLength(c, Nfs4.DECODE_MAX_NAME, "tag");
        c.skip(padded(tag));
        long total = 4 + 4 + padded(tag) + 4; // status, tag (echoed), result count
        int minor = c.readInt();
        if (minor < 0 || minor > Nfs4.MAX_MINOR_VERSION) {
            return total; // NFS4ERR_MINOR_VERS_MISMATCH with no results
        }
        int n = readCount(c, 4, "nfs_argop4");
        boolean itemSeen = false;
        for (int i = 0; i < n; i++) {
            int op = c.readInt();
            total += 8; // opcode and status of its result
            if (!Nfs4.isOperationOf(op, minor)) {
                return total; // answered with OP_ILLEGAL / NFS4ERR_OP_ILLEGAL, which ends the COMPOUND
            }
            long result;
            if (op == Nfs4.OP_READ) {
                c.skip(Nfs4.STATEID_SIZE + 8);
                long count = c.readUnsignedInt();
                result = 4 + 4 + (itemSeen ? padded(count) : 0); // eof, length; the data unless it is the item
                itemSeen = true;
            } else if (op == Nfs4.OP_READLINK) {
                result = itemSeen ? UNBOUNDED : 4;
                itemSeen = true;
            } else if (itemOut && (op == Nfs4.OP_WRITE || op == Nfs4.OP_CREATE)) {
                itemOut = !Nfs4Arguments.skipWithItem(c, op, false);
                result = fixedResult(op);
            } else {
                result = operation(c, op);
            }
            if (result < 0) {
                return UNBOUNDED;
            }
            total += result;
        }
        return total;
    }

    /** Reads {@code op}'s arguments and bounds its result body (after opcode and status). */
    private static long operation(XdrCursor c, int op) throws XdrFormatException {
        switch (op) {
            case Nfs4.OP_GETATTR:
                return getattr(c);
            case Nfs4.OP_READDIR: {
                c.skip(8 + Nfs4.VERIFIER_SIZE + 4);
                long maxcount = c.readUnsignedInt(); // bounds all of READDIR4resok (RFC 7530 section 16.24.4)
                Nfs4Xdr.skipBitmap(c);
                return maxcount;
            }
            case Nfs4.OP_TEST_STATEID: {
                int n = readCount(c, Nfs4.STATEID_SIZE, "stateid4");
                c.skip(n * Nfs4.STATEID_SIZE);
                return 4 + 4L * n;
            }
            default:
                break;
        }
        long result = fixedResult(op);
        if (result < 0 || !Nfs4Arguments.skip(c, op)) {
            return UNBOUNDED;
        }
        return result;
    }

    /** Bounds of results whose size does not depend on the arguments. */
    private static long fixedResult(int op) {
        return switch (op) {
            case Nfs4.OP_DELEGPURGE, Nfs4.OP_DELEGRETURN, Nfs4.OP_LOOKUP, Nfs4.OP_LOOKUPP, Nfs4.OP_NVERIFY,
                    Nfs4.OP_VERIFY, Nfs4.OP_OPENATTR, Nfs4.OP_PUTFH, Nfs4.OP_PUTPUBFH, Nfs4.OP_PUTROOTFH,
                    Nfs4.OP_RENEW, Nfs4.OP_RESTOREFH, Nfs4.OP_SAVEFH, Nfs4.OP_SETCLIENTID_CONFIRM,
                    Nfs4.OP_RELEASE_LOCKOWNER, Nfs4.OP_DESTROY_SESSION, Nfs4.OP_FREE_STATEID,
                    Nfs4.OP_DESTROY_CLIENTID, Nfs4.OP_RECLAIM_COMPLETE, Nfs4.OP_ALLOCATE, Nfs4.OP_DEALLOCATE,
                    Nfs4.OP_CLONE, Nfs4.OP_OFFLOAD_CANCEL, Nfs4.OP_LAYOUTERROR, Nfs4.OP_BACKCHANNEL_CTL -> 0;
            case Nfs4.OP_ACCESS, Nfs4.OP_COMMIT -> 8;
            case Nfs4.OP_SEEK -> 12;
            case Nfs4.OP_COPY -> 4 + Nfs4.STATEID_SIZE + 8 + 4 + Nfs4.VERIFIER_SIZE + 4 + 4; // a callback id at most
            case Nfs4.OP_CLOSE, Nfs4.OP_LOCKU, Nfs4.OP_OPEN_CONFIRM, Nfs4.OP_OPEN_DOWNGRADE, Nfs4.OP_WRITE,
                    Nfs4.OP_OFFLOAD_STATUS -> 16;
            case Nfs4.OP_LINK, Nfs4.OP_REMOVE, Nfs4.OP_LAYOUTRETURN, Nfs4.OP_SETXATTR, Nfs4.OP_REMOVEXATTR -> 20;
            case Nfs4.OP_LAYOUTCOMMIT -> 12;
            case Nfs4.OP_BIND_CONN_TO_SESSION -> Nfs4.SESSIONID_SIZE + 8;
            case Nfs4.OP_SEQUENCE -> Nfs4.SESSIONID_SIZE + 20;
            case Nfs4.OP_RENAME -> 2 * Nfs4.CHANGE_INFO_SIZE;
            case Nfs4.OP_SETATTR -> BITMAP_MAX; // returned with every status
            case Nfs4.OP_IO_ADVISE -> BITMAP_MAX; // the hints the server applies
            case Nfs4.OP_CREATE -> Nfs4.CHANGE_INFO_SIZE + BITMAP_MAX;
            case Nfs4.OP_GETFH -> 4 + Nfs4.FHSIZE;
            case Nfs4.OP_LOCK, Nfs4.OP_LOCKT -> LOCK_DENIED_MAX; // the NFS4ERR_DENIED arm is the largest
            case Nfs4.OP_OPEN -> OPEN_MAX;
            default -> UNBOUNDED; // SECINFO, SETCLIENTID, LAYOUTGET, ..., and the unknown
        };
    }

    /** GETATTR: a bitmap, then the values of (at most) the requested attributes. */
    private static long getattr(XdrCursor c) throws XdrFormatException {
        int words = readBitmapWords(c);
        long values = 0;
        boolean bounded = true;
        for (int w = 0; w < words; w++) {
            int bits = c.readInt();
            for (int b = 0; b < 32; b++) {
                if ((bits & (1 << b)) != 0) {
                    int attribute = 32 * w + b;
                    int size = attribute < ATTRIBUTE_SIZE.length ? ATTRIBUTE_SIZE[attribute] : -1;
                    if (size < 0) {
                        bounded = false; // keep reading: the walk must still end after the bitmap
                    }
                    values += size;
                }
            }
        }
        return bounded ? BITMAP_MAX + 4 + values : UNBOUNDED;
    }
}

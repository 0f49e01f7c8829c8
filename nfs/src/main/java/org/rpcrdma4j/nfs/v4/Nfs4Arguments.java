package org.rpcrdma4j.nfs.v4;

import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readBool;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readCount;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readEnum;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readLength;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipBitmap;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipFattr;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipFileHandle;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipName;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipOpaque;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipStateOwner;

import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The arguments of COMPOUND operations ({@code nfs_argop4} after the opcode): how many bytes each takes, by walking
 * its XDR exactly (RFC 7530 section 16, RFC 8881 section 18, RFC 7862 section 15, RFC 8276).
 * <p>
 * Operations whose arguments are not walked here (EXCHANGE_ID, CREATE_SESSION, SET_SSV, GET_DIR_DELEGATION,
 * WANT_DELEGATION, COPY, COPY_NOTIFY, LAYOUTSTATS, WRITE_SAME: never seen before a data item in practice) make
 * {@link #skip} answer false, and the binding stops there.
 */
final class Nfs4Arguments {
    /** {@code open_claim_type4}. */
    private static final int CLAIM_NULL = 0;
    private static final int CLAIM_PREVIOUS = 1;
    private static final int CLAIM_DELEGATE_CUR = 2;
    private static final int CLAIM_DELEGATE_PREV = 3;
    private static final int CLAIM_FH = 4;
    private static final int CLAIM_DELEG_CUR_FH = 5;
    private static final int CLAIM_DELEG_PREV_FH = 6;
    /** {@code layoutreturn_type4}. */
    private static final int LAYOUTRETURN4_FILE = 1;
    private static final int LAYOUTRETURN4_FSID = 2;
    private static final int LAYOUTRETURN4_ALL = 3;
    /** RPC auth flavors in {@code callback_sec_parms4}. */
    private static final int AUTH_NONE = 0;
    private static final int AUTH_SYS = 1;
    private static final int RPCSEC_GSS = 6;

    private Nfs4Arguments() {
    }

    /**
     * Skips the arguments of operation {@code op}; the cursor stands just after the opcode.
     *
     * @return false when the binding does not know {@code op}'s arguments (or an arm of them): the walk must stop,
     *         the cursor may stand anywhere inside them
     * @throws XdrFormatException when the arguments are truncated or malformed
     */
    static boolean skip(XdrCursor c, int op) throws XdrFormatException {
        switch (op) {
            case Nfs4.OP_GETFH, Nfs4.OP_LOOKUPP, Nfs4.OP_PUTPUBFH, Nfs4.OP_PUTROOTFH, Nfs4.OP_READLINK,
                    Nfs4.OP_RESTOREFH, Nfs4.OP_SAVEFH -> {
                // void
            }
            case Nfs4.OP_ACCESS, Nfs4.OP_OPENATTR, Nfs4.OP_SECINFO_NO_NAME, Nfs4.OP_RECLAIM_COMPLETE -> c.skip(4);
            case Nfs4.OP_DELEGPURGE, Nfs4.OP_RENEW, Nfs4.OP_DESTROY_CLIENTID -> c.skip(8); // clientid4
            case Nfs4.OP_COMMIT -> c.skip(8 + 4); // offset, count
            case Nfs4.OP_DELEGRETURN, Nfs4.OP_DESTROY_SESSION, Nfs4.OP_FREE_STATEID, Nfs4.OP_OFFLOAD_CANCEL,
                    Nfs4.OP_OFFLOAD_STATUS -> c.skip(16); // stateid4 or sessionid4
            case Nfs4.OP_SETCLIENTID_CONFIRM -> c.skip(8 + Nfs4.VERIFIER_SIZE);
            case Nfs4.OP_CLOSE, Nfs4.OP_OPEN_CONFIRM -> c.skip(4 + Nfs4.STATEID_SIZE); // seqid and stateid
            case Nfs4.OP_OPEN_DOWNGRADE -> c.skip(Nfs4.STATEID_SIZE + 4 + 4 + 4); // + share access, deny
            case Nfs4.OP_READ, Nfs4.OP_READ_PLUS -> c.skip(Nfs4.STATEID_SIZE + 8 + 4); // offset, count
            case Nfs4.OP_SEEK -> c.skip(Nfs4.STATEID_SIZE + 8 + 4); // offset, what
            case Nfs4.OP_ALLOCATE, Nfs4.OP_DEALLOCATE -> c.skip(Nfs4.STATEID_SIZE + 8 + 8); // offset, length
            case Nfs4.OP_CLONE -> c.skip(2 * Nfs4.STATEID_SIZE + 8 + 8 + 8); // src, dst offsets; count
            case Nfs4.OP_LOCKU -> c.skip(4 + 4 + Nfs4.STATEID_SIZE + 8 + 8); // type, seqid, stateid, range
            case Nfs4.OP_SEQUENCE -> c.skip(Nfs4.SESSIONID_SIZE + 4 + 4 + 4 + 4); // seq, slot, highest, cachethis
            case Nfs4.OP_BIND_CONN_TO_SESSION -> c.skip(Nfs4.SESSIONID_SIZE + 4 + 4); // dir, use rdma
            case Nfs4.OP_LAYOUTGET -> c.skip(4 + 4 + 4 + 8 + 8 + 8 + Nfs4.STATEID_SIZE + 4);
            case Nfs4.OP_GETDEVICELIST -> c.skip(4 + 4 + 8 + Nfs4.VERIFIER_SIZE); // type, max, cookie, verifier
            case Nfs4.OP_GETATTR -> skipBitmap(c);
            case Nfs4.OP_VERIFY, Nfs4.OP_NVERIFY -> skipFattr(c);
            case Nfs4.OP_SETATTR -> {
                c.skip(Nfs4.STATEID_SIZE);
                skipFattr(c);
            }
            case Nfs4.OP_PUTFH -> skipFileHandle(c);
            case Nfs4.OP_LOOKUP, Nfs4.OP_LINK, Nfs4.OP_REMOVE, Nfs4.OP_SECINFO, Nfs4.OP_GETXATTR,
                    Nfs4.OP_REMOVEXATTR -> skipName(c, "component4");
            case Nfs4.OP_RENAME -> {
                skipName(c, "component4");
                skipName(c, "component4");
            }
            case Nfs4.OP_READDIR -> {
                c.skip(8 + Nfs4.VERIFIER_SIZE + 4 + 4); // cookie, verifier, dircount, maxcount
                skipBitmap(c);
            }
            case Nfs4.OP_WRITE, Nfs4.OP_CREATE -> skipWithItem(c, op, true);
            case Nfs4.OP_OPEN -> skipOpen(c);
            case Nfs4.OP_LOCK -> {
                readEnum(c, 1, 4, "nfs_lock_type4");
                readBool(c); // reclaim
                c.skip(8 + 8);
                if (readBool(c)) { // open_to_lock_owner4
                    c.skip(4 + Nfs4.STATEID_SIZE + 4);
                    skipStateOwner(c);
                } else { // exist_lock_owner4
                    c.skip(Nfs4.STATEID_SIZE + 4);
                }
            }
            case Nfs4.OP_LOCKT -> {
                readEnum(c, 1, 4, "nfs_lock_type4");
                c.skip(8 + 8);
                skipStateOwner(c);
            }
            case Nfs4.OP_RELEASE_LOCKOWNER -> skipStateOwner(c);
            case Nfs4.OP_SETCLIENTID -> {
                c.skip(Nfs4.VERIFIER_SIZE);
                skipOpaque(c, Nfs4.OPAQUE_LIMIT, "nfs_client_id4 id");
                c.skip(4); // cb_program
                skipName(c, "netid");
                skipName(c, "universal address");
                c.skip(4); // callback_ident
            }
            case Nfs4.OP_BACKCHANNEL_CTL -> {
                c.skip(4); // cb_program
                return skipCallbackSecParms(c);
            }
            case Nfs4.OP_TEST_STATEID -> c.skip(Nfs4.STATEID_SIZE * readCount(c, Nfs4.STATEID_SIZE, "stateid4"));
            case Nfs4.OP_LAYOUTCOMMIT -> {
                c.skip(8 + 8);
                readBool(c); // reclaim
                c.skip(Nfs4.STATEID_SIZE);
                if (readBool(c)) { // newoffset4
                    c.skip(8);
                }
                if (readBool(c)) { // newtime4
                    c.skip(Nfs4.NFSTIME_SIZE);
                }
                c.skip(4); // layoutupdate4: type, then body
                skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "layoutupdate4 body");
            }
            case Nfs4.OP_LAYOUTRETURN -> {
                readBool(c); // reclaim
                c.skip(4 + 4); // layout type, iomode
                int type = c.readInt();
                if (type == LAYOUTRETURN4_FILE) {
                    c.skip(8 + 8 + Nfs4.STATEID_SIZE);
                    skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "layoutreturn_file4 body");
                } else if (type != LAYOUTRETURN4_FSID && type != LAYOUTRETURN4_ALL) {
                    throw new XdrFormatException("layoutreturn_type4 out of range: " + type, c.offset() - 4);
                }
            }
            case Nfs4.OP_GETDEVICEINFO -> {
                c.skip(Nfs4.DEVICEID_SIZE + 4 + 4); // deviceid, type, maxcount
                skipBitmap(c); // notify types
            }
            case Nfs4.OP_IO_ADVISE -> {
                c.skip(Nfs4.STATEID_SIZE + 8 + 8);
                skipBitmap(c); // hints
            }
            case Nfs4.OP_LAYOUTERROR -> {
                c.skip(8 + 8 + Nfs4.STATEID_SIZE);
                int n = readCount(c, Nfs4.DEVICEID_SIZE + 8, "device_error4");
                c.skip(n * (Nfs4.DEVICEID_SIZE + 8)); // deviceid, status, opnum
            }
            case Nfs4.OP_SETXATTR -> {
                readEnum(c, 0, 2, "setxattr_option4");
                skipName(c, "xattrkey4");
                skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "xattrvalue4");
            }
            case Nfs4.OP_LISTXATTRS -> c.skip(8 + 4); // cookie, maxcount
            case Nfs4.OP_COPY -> {
                c.skip(2 * Nfs4.STATEID_SIZE + 8 + 8 + 8); // stateids, offsets, count
                readBool(c); // ca_consecutive
                readBool(c); // ca_synchronous
                int n = readCount(c, 8, "netloc4");
                for (int i = 0; i < n; i++) {
                    if (readEnum(c, 1, 3, "netloc_type4") == 3) { // NL4_NETADDR: netid, address
                        skipOpaque(c, Nfs4.OPAQUE_LIMIT, "na_r_netid");
                    }
                    skipOpaque(c, Nfs4.OPAQUE_LIMIT, "netloc4");
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Skips the arguments of a WRITE or a CREATE, the operations that may carry a DDP-eligible argument (WRITE data, a
     * symbolic link's {@code linktext4}). With {@code bytesInline} the item's bytes are in the message and skipped;
     * without, the call is reduced (the item travels apart from the message) and only its length word is read.
     *
     * @param op {@link Nfs4#OP_WRITE} or {@link Nfs4#OP_CREATE}
     * @return whether {@code op} carried an item (a CREATE of another type does not)
     */
    static boolean skipWithItem(XdrCursor c, int op, boolean bytesInline) throws XdrFormatException {
        boolean item;
        if (op == Nfs4.OP_WRITE) {
            c.skip(Nfs4.STATEID_SIZE + 8);
            readEnum(c, 0, 2, "stable_how4");
            skipItem(c, Nfs4.DECODE_MAX_DATA, "WRITE data", bytesInline);
            item = true;
        } else if (op == Nfs4.OP_CREATE) {
            int type = c.readInt();
            item = type == Nfs4.NF4LNK;
            if (item) {
                skipItem(c, Nfs4.DECODE_MAX_PATH, "linktext4", bytesInline);
            } else if (type == Nfs4.NF4BLK || type == Nfs4.NF4CHR) {
                c.skip(8); // specdata4
            }
            skipCreateRest(c);
        } else {
            throw new IllegalArgumentException("operation " + op + " has no DDP-eligible argument");
        }
        return item;
    }

    private static void skipItem(XdrCursor c, int max, String what, boolean bytesInline) throws XdrFormatException {
        if (bytesInline) {
            skipOpaque(c, max, what);
        } else {
            readLength(c, max, what);
        }
    }

    /** The rest of CREATE4args after {@code objtype}: the name and the attributes. */
    static void skipCreateRest(XdrCursor c) throws XdrFormatException {
        skipName(c, "component4");
        skipFattr(c);
    }

    /** OPEN4args: seqid, share access and deny, owner, openflag4, open_claim4. */
    private static void skipOpen(XdrCursor c) throws XdrFormatException {
        c.skip(4 + 4 + 4);
        skipStateOwner(c);
        if (readEnum(c, 0, 1, "opentype4") == 1) { // OPEN4_CREATE: createhow4
            switch (readEnum(c, 0, 3, "createmode4")) {
                case 0, 1 -> skipFattr(c); // UNCHECKED4, GUARDED4
                case 2 -> c.skip(Nfs4.VERIFIER_SIZE); // EXCLUSIVE4
                default -> { // EXCLUSIVE4_1
                    c.skip(Nfs4.VERIFIER_SIZE);
                    skipFattr(c);
                }
            }
        }
        int claim = c.readInt();
        switch (claim) {
            case CLAIM_NULL, CLAIM_DELEGATE_PREV -> skipName(c, "component4");
            case CLAIM_PREVIOUS -> c.skip(4); // open_delegation_type4
            case CLAIM_DELEGATE_CUR -> {
                c.skip(Nfs4.STATEID_SIZE);
                skipName(c, "component4");
            }
            case CLAIM_FH, CLAIM_DELEG_PREV_FH -> {
                // void
            }
            case CLAIM_DELEG_CUR_FH -> c.skip(Nfs4.STATEID_SIZE);
            default -> throw new XdrFormatException("open_claim_type4 out of range: " + claim, c.offset() - 4);
        }
    }

    /** {@code callback_sec_parms4<>}; false for a flavor whose parameters are unknown. */
    private static boolean skipCallbackSecParms(XdrCursor c) throws XdrFormatException {
        int n = readCount(c, 4, "callback_sec_parms4");
        for (int i = 0; i < n; i++) {
            int flavor = c.readInt();
            switch (flavor) {
                case AUTH_NONE -> {
                    // void
                }
                case AUTH_SYS -> { // authsys_parms: stamp, machine name, uid, gid, gids<16>
                    c.skip(4);
                    skipOpaque(c, 255, "machinename");
                    c.skip(8);
                    c.skip(4 * readLength(c, 16, "gids"));
                }
                case RPCSEC_GSS -> { // gss_cb_handles4: service, handle from server, handle from client
                    c.skip(4);
                    skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "gss handle");
                    skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "gss handle");
                }
                default -> {
                    return false;
                }
            }
        }
        return true;
    }
}

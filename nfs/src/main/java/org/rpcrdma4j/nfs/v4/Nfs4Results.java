package org.rpcrdma4j.nfs.v4;

import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readBool;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readCount;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipAce;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipBitmap;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipFattr;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipFileHandle;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipName;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipOpaque;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipSecinfoList;

import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The successful results of COMPOUND operations ({@code nfs_resop4} after the opcode and an NFS4_OK status): how
 * many bytes each takes (RFC 7530 section 16, RFC 8881 section 18, RFC 7862 section 15, RFC 8276). Error
 * arms are never needed: a COMPOUND reply ends with the first operation that failed.
 * <p>
 * Results not walked here (EXCHANGE_ID, CREATE_SESSION, SET_SSV, GET_DIR_DELEGATION, WANT_DELEGATION,
 * COPY_NOTIFY, LAYOUTSTATS, WRITE_SAME, and the data-item results READ and READLINK, which the binding handles)
 * make {@link #skipOk} answer false, and the binding stops there.
 */
final class Nfs4Results {
    /** {@code open_delegation_type4}. */
    private static final int OPEN_DELEGATE_NONE = 0;
    private static final int OPEN_DELEGATE_READ = 1;
    private static final int OPEN_DELEGATE_WRITE = 2;
    private static final int OPEN_DELEGATE_NONE_EXT = 3;
    /** {@code why_no_delegation4} arms that carry a bool. */
    private static final int WND4_CONTENTION = 1;
    private static final int WND4_RESOURCE = 2;
    /** {@code limit_by4}. */
    private static final int NFS_LIMIT_SIZE = 1;
    private static final int NFS_LIMIT_BLOCKS = 2;
    /** {@code data_content4} of READ_PLUS. */
    private static final int NFS4_CONTENT_DATA = 0;
    private static final int NFS4_CONTENT_HOLE = 1;

    private Nfs4Results() {
    }

    /**
     * Skips the result body of a successful operation {@code op}; the cursor stands just after its NFS4_OK status.
     *
     * @return false when the binding does not know {@code op}'s result (or an arm of it): the walk must stop
     * @throws XdrFormatException when the result is truncated or malformed
     */
    static boolean skipOk(XdrCursor c, int op) throws XdrFormatException {
        switch (op) {
            case Nfs4.OP_DELEGPURGE, Nfs4.OP_DELEGRETURN, Nfs4.OP_LOCKT, Nfs4.OP_LOOKUP, Nfs4.OP_LOOKUPP,
                    Nfs4.OP_NVERIFY, Nfs4.OP_OPENATTR, Nfs4.OP_PUTFH, Nfs4.OP_PUTPUBFH, Nfs4.OP_PUTROOTFH,
                    Nfs4.OP_RENEW, Nfs4.OP_RESTOREFH, Nfs4.OP_SAVEFH, Nfs4.OP_SETCLIENTID_CONFIRM, Nfs4.OP_VERIFY,
                    Nfs4.OP_RELEASE_LOCKOWNER, Nfs4.OP_BACKCHANNEL_CTL, Nfs4.OP_DESTROY_SESSION,
                    Nfs4.OP_FREE_STATEID, Nfs4.OP_DESTROY_CLIENTID, Nfs4.OP_RECLAIM_COMPLETE, Nfs4.OP_ALLOCATE,
                    Nfs4.OP_DEALLOCATE, Nfs4.OP_LAYOUTERROR, Nfs4.OP_OFFLOAD_CANCEL, Nfs4.OP_CLONE -> {
                // void
            }
            case Nfs4.OP_ACCESS, Nfs4.OP_COMMIT -> c.skip(8); // supported + access; verifier
            case Nfs4.OP_CLOSE, Nfs4.OP_LOCK, Nfs4.OP_LOCKU, Nfs4.OP_OPEN_CONFIRM, Nfs4.OP_OPEN_DOWNGRADE ->
                    c.skip(Nfs4.STATEID_SIZE);
            case Nfs4.OP_SEEK -> c.skip(4 + 8); // eof, offset
            case Nfs4.OP_WRITE -> c.skip(4 + 4 + Nfs4.VERIFIER_SIZE); // count, committed, verifier
            case Nfs4.OP_SETCLIENTID -> c.skip(8 + Nfs4.VERIFIER_SIZE); // clientid, confirm verifier
            case Nfs4.OP_LINK, Nfs4.OP_REMOVE, Nfs4.OP_SETXATTR, Nfs4.OP_REMOVEXATTR -> c.skip(Nfs4.CHANGE_INFO_SIZE);
            case Nfs4.OP_RENAME -> c.skip(2 * Nfs4.CHANGE_INFO_SIZE);
            case Nfs4.OP_SEQUENCE -> c.skip(Nfs4.SESSIONID_SIZE + 5 * 4); // seq, slot, highest, target, flags
            case Nfs4.OP_BIND_CONN_TO_SESSION -> c.skip(Nfs4.SESSIONID_SIZE + 4 + 4);
            case Nfs4.OP_CREATE -> {
                c.skip(Nfs4.CHANGE_INFO_SIZE);
                skipBitmap(c); // attrset
            }
            case Nfs4.OP_GETATTR -> skipFattr(c);
            case Nfs4.OP_GETFH -> skipFileHandle(c);
            case Nfs4.OP_SETATTR, Nfs4.OP_IO_ADVISE -> skipBitmap(c); // attrsset; hints
            case Nfs4.OP_SECINFO, Nfs4.OP_SECINFO_NO_NAME -> skipSecinfoList(c);
            case Nfs4.OP_OPEN -> {
                return skipOpen(c);
            }
            case Nfs4.OP_READDIR -> skipReaddir(c);
            case Nfs4.OP_TEST_STATEID -> c.skip(4 * readCount(c, 4, "nfsstat4"));
            case Nfs4.OP_LAYOUTGET -> {
                readBool(c); // return on close
                c.skip(Nfs4.STATEID_SIZE);
                int n = readCount(c, 8 + 8 + 4 + 4 + 4, "layout4");
                for (int i = 0; i < n; i++) {
                    c.skip(8 + 8 + 4 + 4); // offset, length, iomode, layout_content4 type
                    skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "layout body");
                }
            }
            case Nfs4.OP_LAYOUTRETURN -> {
                if (readBool(c)) {
                    c.skip(Nfs4.STATEID_SIZE);
                }
            }
            case Nfs4.OP_LAYOUTCOMMIT -> {
                if (readBool(c)) { // newsize4
                    c.skip(8);
                }
            }
            case Nfs4.OP_GETDEVICEINFO -> {
                c.skip(4); // device_addr4: layout type, body
                skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "device address body");
                skipBitmap(c); // notification
            }
            case Nfs4.OP_GETDEVICELIST -> {
                c.skip(8 + Nfs4.VERIFIER_SIZE); // cookie, verifier
                c.skip(Nfs4.DEVICEID_SIZE * readCount(c, Nfs4.DEVICEID_SIZE, "deviceid4"));
                readBool(c); // eof
            }
            case Nfs4.OP_OFFLOAD_STATUS -> {
                c.skip(8); // count
                long n = c.readUnsignedInt(); // nfsstat4 osr_complete<1>
                if (n > 1) {
                    throw new XdrFormatException("osr_complete of " + n + " entries exceeds its bound 1",
                            c.offset() - 4);
                }
                c.skip(4 * (int) n);
            }
            case Nfs4.OP_READ_PLUS -> skipReadPlus(c);
            case Nfs4.OP_COPY -> {
                long n = c.readUnsignedInt(); // write_response4's wr_callback_id<1>
                if (n > 1) {
                    throw new XdrFormatException("wr_callback_id of " + n + " entries exceeds its bound 1",
                            c.offset() - 4);
                }
                c.skip(Nfs4.STATEID_SIZE * (int) n + 8 + 4 + Nfs4.VERIFIER_SIZE); // count, committed, verifier
                readBool(c); // cr_consecutive
                readBool(c); // cr_synchronous
            }
            case Nfs4.OP_GETXATTR -> skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "xattrvalue4");
            case Nfs4.OP_LISTXATTRS -> {
                c.skip(8); // cookie
                int n = readCount(c, 4, "xattrkey4");
                for (int i = 0; i < n; i++) {
                    skipName(c, "xattrkey4");
                }
                readBool(c); // eof
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** OPEN4resok: stateid, cinfo, rflags, attrset, then the {@code open_delegation4} union. */
    private static boolean skipOpen(XdrCursor c) throws XdrFormatException {
        c.skip(Nfs4.STATEID_SIZE + Nfs4.CHANGE_INFO_SIZE + 4);
        skipBitmap(c);
        int type = c.readInt();
        switch (type) {
            case OPEN_DELEGATE_NONE -> {
                // void
            }
            case OPEN_DELEGATE_READ -> {
                c.skip(Nfs4.STATEID_SIZE);
                readBool(c); // recall
                skipAce(c);
            }
            case OPEN_DELEGATE_WRITE -> {
                c.skip(Nfs4.STATEID_SIZE);
                readBool(c); // recall
                int limitBy = c.readInt();
                if (limitBy != NFS_LIMIT_SIZE && limitBy != NFS_LIMIT_BLOCKS) {
                    throw new XdrFormatException("limit_by4 out of range: " + limitBy, c.offset() - 4);
                }
                c.skip(8); // filesize, or num_blocks + bytes_per_block
                skipAce(c);
            }
            case OPEN_DELEGATE_NONE_EXT -> {
                int why = c.readInt();
                if (why == WND4_CONTENTION || why == WND4_RESOURCE) {
                    readBool(c);
                }
            }
            default -> {
                return false; // a delegation type from a later extension
            }
        }
        return true;
    }

    /** READDIR4resok: cookie verifier, then {@code entry4} items (cookie, name, attributes), then eof. */
    private static void skipReaddir(XdrCursor c) throws XdrFormatException {
        c.skip(Nfs4.VERIFIER_SIZE);
        while (readBool(c)) { // each round consumes at least 24 bytes, so the message bounds the loop
            c.skip(8);
            skipName(c, "component4");
            skipFattr(c);
        }
        readBool(c); // eof
    }

    /** READ_PLUS4resok: eof, then {@code read_plus_content<>}. */
    private static void skipReadPlus(XdrCursor c) throws XdrFormatException {
        readBool(c);
        int n = readCount(c, 4, "read_plus_content");
        for (int i = 0; i < n; i++) {
            int what = c.readInt();
            if (what == NFS4_CONTENT_DATA) {
                c.skip(8);
                skipOpaque(c, Nfs4.DECODE_MAX_DATA, "READ_PLUS data");
            } else if (what == NFS4_CONTENT_HOLE) {
                c.skip(8 + 8);
            }
        }
    }
}

package org.rpcrdma4j.nfs.binding;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The NFS version 3 upper-layer binding (RFC 8267 section 3.1): WRITE data and SYMLINK path are the DDP-eligible
 * arguments, READ data and READLINK path the DDP-eligible results; nothing else is.
 * <p>
 * The binding walks the XDR with an {@link XdrCursor}, never trusting a length: handles are bounded by
 * {@link Nfs3#FHSIZE}, names and paths by {@link Nfs3#DECODE_MAX_NAME} / {@link Nfs3#DECODE_MAX_PATH} (the same
 * bounds as the codecs, so that anything the server can decode the binding can locate), discriminants must have an
 * arm, and a located item must lie wholly in the region (with its XDR padding). Truncated or malformed input throws
 * {@link XdrFormatException}; it never yields an offset.
 * <p>
 * Stateless and thread-safe; the cursor is per thread, so no call allocates.
 */
public final class Nfs3UpperLayerBinding implements UpperLayerBinding {
    /** The one instance. */
    public static final Nfs3UpperLayerBinding INSTANCE = new Nfs3UpperLayerBinding();

    /**
     * Largest RPC reply header up to and including {@code accept_stat}: xid, message type, reply status, verifier
     * (flavor, length, at most 400 body bytes, RFC 5531 {@code opaque_auth}), accept status.
     */
    public static final int MAX_REPLY_HEADER = 4 + 4 + 4 + 4 + 4 + 400 + 4;

    private static final int POST_OP_ATTR = 4 + Nfs3Xdr.FATTR3_SIZE;
    private static final int WCC_DATA = 4 + Nfs3Xdr.WCC_ATTR_SIZE + POST_OP_ATTR;
    private static final int POST_OP_FH = 4 + 4 + Nfs3.FHSIZE;

    private static final ThreadLocal<XdrCursor> CURSOR = ThreadLocal.withInitial(XdrCursor::new);

    private Nfs3UpperLayerBinding() {
    }

    @Override
    public int program() {
        return Nfs3.PROGRAM;
    }

    @Override
    public boolean supportsVersion(int version) {
        return version == Nfs3.VERSION;
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        if (version != Nfs3.VERSION) {
            return false;
        }
        XdrCursor c;
        switch (procedure) {
            case Nfs3.WRITE -> {
                c = CURSOR.get().wrap(args);
                skipFileHandle(c);
                c.skip(8 + 4); // offset, count
                int stable = c.readInt();
                if (stable < 0 || stable > 2) {
                    throw new XdrFormatException("stable_how out of range: " + stable, c.offset() - 4);
                }
                return locateOpaque(c, Nfs3.DECODE_MAX_DATA, true, out);
            }
            case Nfs3.SYMLINK -> {
                c = CURSOR.get().wrap(args);
                skipFileHandle(c);
                skipOpaque(c, Nfs3.DECODE_MAX_NAME, "filename3");
                skipSattr(c);
                return locateOpaque(c, Nfs3.DECODE_MAX_PATH, true, out);
            }
            default -> {
                return false;
            }
        }
    }

    @Override
    public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        return locateResult(version, procedure, results, out, true);
    }

    @Override
    public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        return locateResult(version, procedure, results, out, false);
    }

    private static boolean locateResult(int version, int procedure, ByteBuf results, DataItem out, boolean bytesInline)
            throws XdrFormatException {
        if (version != Nfs3.VERSION || (procedure != Nfs3.READ && procedure != Nfs3.READLINK)) {
            return false;
        }
        XdrCursor c = CURSOR.get().wrap(results);
        if (c.readInt() != 0) {
            return false; // an error arm carries no data item
        }
        skipPostOpAttr(c);
        if (procedure == Nfs3.READ) {
            c.skip(4); // count
            c.readBoolean(); // eof
            return locateOpaque(c, Nfs3.DECODE_MAX_DATA, bytesInline, out);
        }
        return locateOpaque(c, Nfs3.DECODE_MAX_PATH, bytesInline, out);
    }

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        if (version != Nfs3.VERSION) {
            return -1;
        }
        if (procedure == Nfs3.READ) {
            XdrCursor c = CURSOR.get().wrap(args);
            skipFileHandle(c);
            c.skip(8); // offset
            return c.readUnsignedInt();
        }
        if (procedure == Nfs3.READLINK) {
            skipFileHandle(CURSOR.get().wrap(args));
            return Nfs3.MAXPATHLEN;
        }
        return -1;
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
        if (version != Nfs3.VERSION) {
            return -1;
        }
        long results = switch (procedure) {
            case Nfs3.NULL -> 0;
            case Nfs3.GETATTR -> 4 + Nfs3Xdr.FATTR3_SIZE;
            case Nfs3.SETATTR, Nfs3.REMOVE, Nfs3.RMDIR -> 4 + WCC_DATA;
            case Nfs3.LOOKUP -> 4 + 4 + Nfs3.FHSIZE + POST_OP_ATTR + POST_OP_ATTR;
            case Nfs3.ACCESS -> 4 + POST_OP_ATTR + 4;
            case Nfs3.READLINK -> 4 + POST_OP_ATTR + 4;
            case Nfs3.READ -> 4 + POST_OP_ATTR + 4 + 4 + 4;
            case Nfs3.WRITE -> 4 + WCC_DATA + 4 + 4 + 8;
            case Nfs3.CREATE, Nfs3.MKDIR, Nfs3.SYMLINK, Nfs3.MKNOD -> 4 + POST_OP_FH + POST_OP_ATTR + WCC_DATA;
            case Nfs3.RENAME -> 4 + WCC_DATA + WCC_DATA;
            case Nfs3.LINK -> 4 + POST_OP_ATTR + WCC_DATA;
            case Nfs3.READDIR, Nfs3.READDIRPLUS -> 4 + Math.max(POST_OP_ATTR, readdirMaxCount(procedure, args));
            case Nfs3.FSSTAT -> 4 + POST_OP_ATTR + 6 * 8 + 4;
            case Nfs3.FSINFO -> 4 + POST_OP_ATTR + 7 * 4 + 8 + 8 + 4;
            case Nfs3.PATHCONF -> 4 + POST_OP_ATTR + 6 * 4;
            case Nfs3.COMMIT -> 4 + WCC_DATA + 8;
            default -> -1;
        };
        return results < 0 ? -1 : MAX_REPLY_HEADER + results;
    }

    /** READDIR {@code count} / READDIRPLUS {@code maxcount}: the most bytes the resok arm may take. */
    private static long readdirMaxCount(int procedure, ByteBuf args) throws XdrFormatException {
        XdrCursor c = CURSOR.get().wrap(args);
        skipFileHandle(c);
        c.skip(8 + 8); // cookie, cookieverf
        if (procedure == Nfs3.READDIRPLUS) {
            c.skip(4); // dircount
        }
        return c.readUnsignedInt();
    }

    private static boolean locateOpaque(XdrCursor c, int max, boolean bytesInline, DataItem out)
            throws XdrFormatException {
        int length = readLength(c, max, "data item");
        int offset = c.offset();
        if (bytesInline) {
            c.skip(padded(length));
        }
        out.set(offset, length);
        return true;
    }

    /**
     * Skips a variable-length opaque of at most {@code max} bytes. (Not {@link XdrCursor#skipVariableOpaque}: that
     * builds its error message on every call, and the binding must not allocate.)
     */
    private static void skipOpaque(XdrCursor c, int max, String what) throws XdrFormatException {
        c.skip(padded(readLength(c, max, what)));
    }

    private static int readLength(XdrCursor c, int max, String what) throws XdrFormatException {
        long length = c.readUnsignedInt();
        if (length > max) {
            throw new XdrFormatException(what + " of " + length + " bytes exceeds its bound " + max, c.offset() - 4);
        }
        return (int) length;
    }

    private static int padded(int length) {
        return (length + 3) & ~3;
    }

    private static void skipFileHandle(XdrCursor c) throws XdrFormatException {
        skipOpaque(c, Nfs3.FHSIZE, "nfs_fh3");
    }

    private static void skipPostOpAttr(XdrCursor c) throws XdrFormatException {
        if (c.readBoolean()) {
            int type = c.readInt();
            if (type < 1 || type > 7) {
                throw new XdrFormatException("ftype3 out of range: " + type, c.offset() - 4);
            }
            c.skip(Nfs3Xdr.FATTR3_SIZE - 4);
        }
    }

    private static void skipSattr(XdrCursor c) throws XdrFormatException {
        for (int i = 0; i < 3; i++) { // mode, uid, gid
            if (c.readBoolean()) {
                c.skip(4);
            }
        }
        if (c.readBoolean()) { // size
            c.skip(8);
        }
        for (int i = 0; i < 2; i++) { // atime, mtime
            int how = c.readInt();
            if (how == 2) {
                c.skip(8);
            } else if (how != 0 && how != 1) {
                throw new XdrFormatException("time_how out of range: " + how, c.offset() - 4);
            }
        }
    }
}

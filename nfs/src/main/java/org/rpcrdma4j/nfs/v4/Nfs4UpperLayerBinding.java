package org.rpcrdma4j.nfs.v4;

import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.padded;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readCount;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readEnum;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.readLength;
import static org.rpcrdma4j.nfs.v4.Nfs4Xdr.skipName;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The NFS version 4 upper-layer binding of RFC 8267, for minor versions 0, 1 and 2: in a COMPOUND
 * call, {@code WRITE4args.data} and the {@code linkdata} of a CREATE of a symbolic link are DDP-eligible; in a
 * COMPOUND reply, {@code READ4resok.data} and {@code READLINK4resok.link}. With RFC 8267's default chunk list
 * complexity, only the first such item of a COMPOUND moves into a chunk (one Read chunk for the call, one Write
 * chunk for the reply); everything else goes inline, or the whole message in a position-zero Read chunk or the
 * Reply chunk.
 * <p>
 * <b>The walk.</b> A COMPOUND is walked operation by operation: the tag, the minor version (0 to 2; any other gets
 * NFS4ERR_MINOR_VERS_MISMATCH and no results, so no item), the operation count, then each operation's arguments
 * ({@link Nfs4Arguments}) or, in a reply, each result's status and, while it is NFS4_OK, its body
 * ({@link Nfs4Results}); the first failed result ends a reply. An operation that is not part of the call's minor
 * version, or whose arguments or result the binding does not know, ends the walk with "no item": never a guess.
 * Every length is bounded ({@link Nfs4}'s {@code DECODE_MAX_*}: file handles 128 bytes, owners 1024, names and link
 * text 4096, data 64 MiB, bitmaps 8 words), every count checked against the bytes left, every discriminant against
 * its arms, and the {@link XdrCursor} never reads past the message: truncated or malformed input throws
 * {@link XdrFormatException} and never yields an offset.
 * <p>
 * <b>Reduced messages.</b> {@link #locateCallItem} and {@link #locateReplyItem} read unreduced messages: the item's
 * bytes and XDR pad must be there. {@link #locateReducedReplyItem} and {@link #locateReducedCallItem} read messages
 * whose item was moved to a chunk: its length word is the last thing read, its bytes are not looked for. Since only
 * the first item moves and it is the last thing the walk reads, a reduced and an unreduced message give the same
 * offset.
 * <p>
 * <b>Sizes.</b> {@link #maxReplyItemLength} is the count of the call's first READ (or, for a READLINK,
 * {@link Nfs4#DECODE_MAX_PATH}); {@link #maxInlineReplySize} bounds the reply when every operation's result is
 * bounded by the protocol (see {@link Nfs4ReplySizes}), else -1.
 * <p>
 * Stateless and thread-safe; the cursor is per thread, so no call allocates.
 */
public final class Nfs4UpperLayerBinding implements UpperLayerBinding {
    /** The one instance. */
    public static final Nfs4UpperLayerBinding INSTANCE = new Nfs4UpperLayerBinding();

    private static final ThreadLocal<XdrCursor> CURSOR = ThreadLocal.withInitial(XdrCursor::new);

    private Nfs4UpperLayerBinding() {
    }

    @Override
    public int program() {
        return Nfs4.PROGRAM;
    }

    @Override
    public boolean supportsVersion(int version) {
        return version == Nfs4.VERSION;
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        return locateCall(version, procedure, args, out, true);
    }

    /**
     * Finds, in a call whose DDP-eligible argument was moved into a Read chunk (reduced: the item's length word stays
     * inline, its bytes and their padding are gone, the next operation follows), the offset just after that length
     * word: the position the Read chunk must carry, relative to the arguments. A responder can compare it with the
     * position a requester sent before it puts the chunk's data back.
     *
     * @param args the reduced call's arguments, beginning just after the RPC call header's verifier. Borrowed.
     * @return true when the call has such an item (and {@code out} is set, with the length word's value)
     */
    public boolean locateReducedCallItem(int version, int procedure, ByteBuf args, DataItem out)
            throws XdrFormatException {
        return locateCall(version, procedure, args, out, false);
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

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        return maxReplyItem(version, procedure, args, false);
    }

    @Override
    public long maxReplyItemLengthReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        return maxReplyItem(version, procedure, reducedArgs, true);
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
        return maxInlineReply(version, procedure, args, false);
    }

    @Override
    public long maxInlineReplySizeReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        return maxInlineReply(version, procedure, reducedArgs, true);
    }

    /** With {@code itemOut}, the call's first DDP-eligible argument has no bytes in {@code args}. */
    private static long maxReplyItem(int version, int procedure, ByteBuf args, boolean itemOut)
            throws XdrFormatException {
        if (version != Nfs4.VERSION || procedure != Nfs4.PROC_COMPOUND) {
            return -1;
        }
        XdrCursor c = CURSOR.get().wrap(args);
        int minor = compoundHeader(c);
        if (minor < 0) {
            return -1;
        }
        for (int i = 0, n = readCount(c, 4, "nfs_argop4"); i < n; i++) {
            int op = c.readInt();
            if (!Nfs4.isOperationOf(op, minor)) {
                return -1;
            }
            if (op == Nfs4.OP_READ) {
                c.skip(Nfs4.STATEID_SIZE + 8); // stateid, offset
                return c.readUnsignedInt(); // count
            }
            if (op == Nfs4.OP_READLINK) {
                return Nfs4.DECODE_MAX_PATH;
            }
            if (itemOut && (op == Nfs4.OP_WRITE || op == Nfs4.OP_CREATE)) {
                itemOut = !Nfs4Arguments.skipWithItem(c, op, false);
            } else if (!Nfs4Arguments.skip(c, op)) {
                return -1;
            }
        }
        return -1;
    }

    private static long maxInlineReply(int version, int procedure, ByteBuf args, boolean itemOut)
            throws XdrFormatException {
        if (version != Nfs4.VERSION) {
            return -1;
        }
        if (procedure == Nfs4.PROC_NULL) {
            return Nfs3UpperLayerBinding.MAX_REPLY_HEADER;
        }
        if (procedure != Nfs4.PROC_COMPOUND) {
            return -1;
        }
        long results = Nfs4ReplySizes.compound(CURSOR.get().wrap(args), itemOut);
        return results < 0 ? -1 : Nfs3UpperLayerBinding.MAX_REPLY_HEADER + results;
    }

    // ------------------------------------------------------------------------------------------------ walks

    private static boolean locateCall(int version, int procedure, ByteBuf args, DataItem out, boolean bytesInline)
            throws XdrFormatException {
        if (version != Nfs4.VERSION || procedure != Nfs4.PROC_COMPOUND) {
            return false;
        }
        XdrCursor c = CURSOR.get().wrap(args);
        int minor = compoundHeader(c);
        if (minor < 0) {
            return false;
        }
        for (int i = 0, n = readCount(c, 4, "nfs_argop4"); i < n; i++) {
            int op = c.readInt();
            if (!Nfs4.isOperationOf(op, minor)) {
                return false; // the server answers OP_ILLEGAL and stops here
            }
            if (op == Nfs4.OP_WRITE) {
                c.skip(Nfs4.STATEID_SIZE + 8); // stateid, offset
                readEnum(c, 0, 2, "stable_how4");
                return item(c, Nfs4.DECODE_MAX_DATA, bytesInline, out, "WRITE data");
            }
            if (op == Nfs4.OP_CREATE) {
                int type = c.readInt();
                if (type == Nfs4.NF4LNK) {
                    return item(c, Nfs4.DECODE_MAX_PATH, bytesInline, out, "linktext4");
                }
                if (type == Nfs4.NF4BLK || type == Nfs4.NF4CHR) {
                    c.skip(8); // specdata4
                }
                Nfs4Arguments.skipCreateRest(c);
            } else if (!Nfs4Arguments.skip(c, op)) {
                return false;
            }
        }
        return false;
    }

    private static boolean locateResult(int version, int procedure, ByteBuf results, DataItem out,
                                        boolean bytesInline) throws XdrFormatException {
        if (version != Nfs4.VERSION || procedure != Nfs4.PROC_COMPOUND) {
            return false;
        }
        XdrCursor c = CURSOR.get().wrap(results);
        c.skip(4); // the COMPOUND's status: the results up to the first failure are there either way
        skipName(c, "tag");
        for (int i = 0, n = readCount(c, 8, "nfs_resop4"); i < n; i++) {
            int op = c.readInt();
            if (c.readInt() != Nfs4.NFS4_OK) {
                return false; // the last result of the reply
            }
            if (op == Nfs4.OP_READ) {
                c.readBoolean(); // eof
                return item(c, Nfs4.DECODE_MAX_DATA, bytesInline, out, "READ data");
            }
            if (op == Nfs4.OP_READLINK) {
                return item(c, Nfs4.DECODE_MAX_PATH, bytesInline, out, "linktext4");
            }
            if (!Nfs4Results.skipOk(c, op)) {
                return false;
            }
        }
        return false;
    }

    /** Reads the tag and the minor version; returns the minor version, or -1 for one the binding does not know. */
    private static int compoundHeader(XdrCursor c) throws XdrFormatException {
        skipName(c, "tag");
        int minor = c.readInt();
        return minor >= 0 && minor <= Nfs4.MAX_MINOR_VERSION ? minor : -1;
    }

    /**
     * Reads the item's length word; with {@code bytesInline}, its bytes and pad must follow within the message.
     */
    private static boolean item(XdrCursor c, int max, boolean bytesInline, DataItem out, String what)
            throws XdrFormatException {
        int length = readLength(c, max, what);
        int offset = c.offset();
        if (bytesInline) {
            c.skip(padded(length));
        }
        out.set(offset, length);
        return true;
    }
}

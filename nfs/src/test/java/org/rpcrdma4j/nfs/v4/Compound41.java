package org.rpcrdma4j.nfs.v4;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * The arguments of an NFSv4.1 COMPOUND (RFC 8881 section 16.2) made of the few operations the end-to-end tests and
 * {@link MemoryNfs41Program} use: SEQUENCE, PUTFH, WRITE, READ, GETATTR, and WANT_DELEGATION, an operation the
 * upper-layer binding does not walk, plus CREATE of a symbolic link, GETFH and READLINK. Encoded by the client, decoded by the program; the decoder stops at the first
 * operation it does not know (its arguments cannot be skipped), which the program then answers with an error.
 * <p>
 * {@link #itemOffset()} computes, from the XDR sizes of RFC 8881 alone, where the first WRITE's data (or symbolic link
 * CREATE's link text) starts relative
 * to the start of the arguments: the offset the binding must find, and (after the RPC header) the Read chunk's
 * position.
 */
final class Compound41 implements XdrAble {
    static final int ATTR_TYPE = 1;
    static final int ATTR_CHANGE = 3;
    static final int ATTR_SIZE = 4;
    static final int NF4REG = 1;
    static final int NF4DIR = 2;
    static final int FILE_SYNC4 = 2;
    /** {@code OPEN4_SHARE_ACCESS_WANT_NO_DELEG}. */
    static final int WANT_NO_DELEG = 0x0400;
    /** {@code open_claim_type4} CLAIM_FH. */
    static final int CLAIM_FH = 4;

    /** One operation's arguments. */
    sealed interface Op permits Sequence, PutFh, Write, Read, GetAttr, WantDelegation, CreateSymlink, GetFh,
            ReadLink, Unknown {
        int opcode();

        /** Bytes of the arguments after the opcode. */
        int size();

        void encode(XdrEncodingStream xdr) throws OncRpcException, IOException;
    }

    record Sequence(byte[] sessionId, int sequenceId, int slot) implements Op {
        public int opcode() {
            return Nfs4.OP_SEQUENCE;
        }

        public int size() {
            return Nfs4.SESSIONID_SIZE + 16;
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeOpaque(sessionId, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(sequenceId);
            xdr.xdrEncodeInt(slot);
            xdr.xdrEncodeInt(slot); // highest slot
            xdr.xdrEncodeBoolean(false); // cachethis
        }
    }

    record PutFh(byte[] handle) implements Op {
        public int opcode() {
            return Nfs4.OP_PUTFH;
        }

        public int size() {
            return 4 + padded(handle.length);
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(handle);
        }
    }

    /** WRITE with the anonymous stateid, FILE_SYNC4. */
    record Write(long offset, byte[] data) implements Op {
        public int opcode() {
            return Nfs4.OP_WRITE;
        }

        /** Bytes before the data's length word. */
        static int beforeData() {
            return Nfs4.STATEID_SIZE + 8 + 4;
        }

        public int size() {
            return beforeData() + 4 + padded(data.length);
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeOpaque(new byte[Nfs4.STATEID_SIZE], Nfs4.STATEID_SIZE);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(FILE_SYNC4);
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    record Read(long offset, int count) implements Op {
        public int opcode() {
            return Nfs4.OP_READ;
        }

        public int size() {
            return Nfs4.STATEID_SIZE + 8 + 4;
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeOpaque(new byte[Nfs4.STATEID_SIZE], Nfs4.STATEID_SIZE);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(count);
        }
    }

    /** GETATTR of attributes in the first bitmap word. */
    record GetAttr(int bitmap) implements Op {
        public int opcode() {
            return Nfs4.OP_GETATTR;
        }

        public int size() {
            return 8;
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(1);
            xdr.xdrEncodeInt(bitmap);
        }
    }

    /** WANT_DELEGATION (RFC 8881 section 18.49) for the current file: no delegation wanted. */
    record WantDelegation() implements Op {
        public int opcode() {
            return Nfs4.OP_WANT_DELEGATION;
        }

        public int size() {
            return 8;
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(WANT_NO_DELEG);
            xdr.xdrEncodeInt(CLAIM_FH);
        }
    }

    /** CREATE of a symbolic link (createtype4 NF4LNK with its linkdata) named {@code name}, with no attributes. */
    record CreateSymlink(byte[] linkdata, String name) implements Op {
        public int opcode() {
            return Nfs4.OP_CREATE;
        }

        public int size() {
            return 4 + 4 + padded(linkdata.length) + 4 + padded(name.length()) + 4 + 4;
        }

        public void encode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(Nfs4.NF4LNK);
            xdr.xdrEncodeDynamicOpaque(linkdata);
            xdr.xdrEncodeString(name);
            xdr.xdrEncodeInt(0); // createattrs: an empty bitmap4...
            xdr.xdrEncodeInt(0); // ...and an empty attrlist4
        }
    }

    record GetFh() implements Op {
        public int opcode() {
            return Nfs4.OP_GETFH;
        }

        public int size() {
            return 0;
        }

        public void encode(XdrEncodingStream xdr) {
        }
    }

    record ReadLink() implements Op {
        public int opcode() {
            return Nfs4.OP_READLINK;
        }

        public int size() {
            return 0;
        }

        public void encode(XdrEncodingStream xdr) {
        }
    }

    /** An operation the decoder does not know: decoding stops at it. */
    record Unknown(int opcode) implements Op {
        public int size() {
            throw new UnsupportedOperationException();
        }

        public void encode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("operation " + opcode + " has no encoder");
        }
    }

    String tag = "";
    int minorVersion = 1;
    final List<Op> ops = new ArrayList<>();

    /** The arguments of a COMPOUND of minor version 1. */
    static Compound41 of(Op... ops) {
        Compound41 c = new Compound41();
        c.ops.addAll(List.of(ops));
        return c;
    }

    static int padded(int n) {
        return (n + 3) & ~3;
    }

    static int bitmap(int... attributes) {
        int b = 0;
        for (int a : attributes) {
            b |= 1 << a;
        }
        return b;
    }

    /** Bytes of the encoded arguments. */
    int size() {
        int n = 4 + padded(tag.length()) + 4 + 4;
        for (Op op : ops) {
            n += 4 + op.size();
        }
        return n;
    }

    /**
     * Offset of the first WRITE's data or symbolic link's text relative to the start of the arguments, or -1 without
     * either.
     */
    int itemOffset() {
        int n = 4 + padded(tag.length()) + 4 + 4;
        for (Op op : ops) {
            if (op instanceof Write) {
                return n + 4 + Write.beforeData() + 4;
            }
            if (op instanceof CreateSymlink) {
                return n + 4 + 4 + 4; // opcode, type, length
            }
            n += 4 + op.size();
        }
        return -1;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeString(tag);
        xdr.xdrEncodeInt(minorVersion);
        xdr.xdrEncodeInt(ops.size());
        for (Op op : ops) {
            xdr.xdrEncodeInt(op.opcode());
            op.encode(xdr);
        }
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        tag = xdr.xdrDecodeString();
        minorVersion = xdr.xdrDecodeInt();
        int n = xdr.xdrDecodeInt();
        if (n < 0 || n > 64) {
            throw new IOException("COMPOUND of " + n + " operations");
        }
        ops.clear();
        for (int i = 0; i < n; i++) {
            int opcode = xdr.xdrDecodeInt();
            Op op = switch (opcode) {
                case Nfs4.OP_SEQUENCE -> {
                    byte[] session = xdr.xdrDecodeOpaque(Nfs4.SESSIONID_SIZE);
                    int sequence = xdr.xdrDecodeInt();
                    int slot = xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt(); // highest slot
                    xdr.xdrDecodeBoolean(); // cachethis
                    yield new Sequence(session, sequence, slot);
                }
                case Nfs4.OP_PUTFH -> new PutFh(xdr.xdrDecodeDynamicOpaque());
                case Nfs4.OP_WRITE -> {
                    xdr.xdrDecodeOpaque(Nfs4.STATEID_SIZE);
                    long offset = xdr.xdrDecodeLong();
                    xdr.xdrDecodeInt(); // stable_how4: every write here is FILE_SYNC4
                    yield new Write(offset, xdr.xdrDecodeDynamicOpaque());
                }
                case Nfs4.OP_READ -> {
                    xdr.xdrDecodeOpaque(Nfs4.STATEID_SIZE);
                    yield new Read(xdr.xdrDecodeLong(), xdr.xdrDecodeInt());
                }
                case Nfs4.OP_GETATTR -> {
                    int words = xdr.xdrDecodeInt();
                    int first = 0;
                    for (int w = 0; w < words; w++) {
                        int bits = xdr.xdrDecodeInt();
                        first = w == 0 ? bits : first;
                    }
                    yield new GetAttr(first);
                }
                case Nfs4.OP_CREATE -> {
                    if (xdr.xdrDecodeInt() != Nfs4.NF4LNK) {
                        yield new Unknown(opcode); // only symbolic links are created here
                    }
                    byte[] linkdata = xdr.xdrDecodeDynamicOpaque();
                    String name = xdr.xdrDecodeString();
                    if (xdr.xdrDecodeInt() != 0 || xdr.xdrDecodeInt() != 0) {
                        yield new Unknown(opcode); // attributes at creation are not served here
                    }
                    yield new CreateSymlink(linkdata, name);
                }
                case Nfs4.OP_GETFH -> new GetFh();
                case Nfs4.OP_READLINK -> new ReadLink();
                case Nfs4.OP_WANT_DELEGATION -> {
                    xdr.xdrDecodeInt(); // want
                    int claim = xdr.xdrDecodeInt();
                    if (claim != CLAIM_FH) {
                        yield new Unknown(opcode); // the other claims are not served here
                    }
                    yield new WantDelegation();
                }
                default -> new Unknown(opcode);
            };
            ops.add(op);
            if (op instanceof Unknown) {
                return;
            }
        }
    }
}

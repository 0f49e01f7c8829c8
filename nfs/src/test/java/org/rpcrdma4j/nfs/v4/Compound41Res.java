package org.rpcrdma4j.nfs.v4;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * The results of a {@link Compound41} (COMPOUND4res, RFC 8881 section 16.2): encoded by {@link MemoryNfs41Program},
 * decoded by the tests' client. A result whose status is not NFS4_OK is the last one.
 */
final class Compound41Res implements XdrAble {
    static final int NFS4ERR_NOENT = 2;
    static final int NFS4ERR_NOTDIR = 20;
    static final int NFS4ERR_INVAL = 22;
    static final int NFS4ERR_BADHANDLE = 10001;
    static final int NFS4ERR_NOTSUPP = 10004;
    static final int NFS4ERR_NOFILEHANDLE = 10020;
    static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    static final int NFS4ERR_BADSESSION = 10052;
    static final int NFS4ERR_OP_NOT_IN_SESSION = 10071;
    static final int NFS4ERR_OP_ILLEGAL = 10044;
    /** {@code open_delegation_type4} OPEN_DELEGATE_NONE_EXT and {@code why_no_delegation4} WND4_NOT_WANTED. */
    static final int OPEN_DELEGATE_NONE_EXT = 3;
    static final int WND4_NOT_WANTED = 0;

    /** One operation's result. */
    sealed interface Result permits SequenceOk, PutFhOk, WriteOk, ReadOk, GetAttrOk, WantDelegationOk, CreateOk,
            GetFhOk, ReadLinkOk, Failed {
        int opcode();

        default int status() {
            return Nfs4.NFS4_OK;
        }

        default void encodeBody(XdrEncodingStream xdr) throws OncRpcException, IOException {
        }
    }

    record SequenceOk(byte[] sessionId, int sequenceId, int slot) implements Result {
        public int opcode() {
            return Nfs4.OP_SEQUENCE;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(sequenceId);
            xdr.xdrEncodeInt(slot);
            xdr.xdrEncodeInt(slot); // highest slot
            xdr.xdrEncodeInt(63); // target highest slot
            xdr.xdrEncodeInt(0); // status flags
        }
    }

    record PutFhOk() implements Result {
        public int opcode() {
            return Nfs4.OP_PUTFH;
        }
    }

    record WriteOk(int count, int committed, long verifier) implements Result {
        public int opcode() {
            return Nfs4.OP_WRITE;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(count);
            xdr.xdrEncodeInt(committed);
            xdr.xdrEncodeLong(verifier);
        }
    }

    /**
     * READ4resok. Encoded from {@code data} by reference (the server's registered memory, for zero copy) when it is
     * set, else from {@code bytes}; decoded into {@code bytes}.
     */
    record ReadOk(boolean eof, byte[] bytes, ByteBuffer data) implements Result {
        public int opcode() {
            return Nfs4.OP_READ;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(eof);
            if (data != null) {
                ((Xdr) xdr).xdrEncodeShallowByteBuffer(data.duplicate());
            } else {
                xdr.xdrEncodeDynamicOpaque(bytes);
            }
        }
    }

    /** GETATTR of type, change and size (whichever were asked for). */
    record GetAttrOk(int bitmap, int type, long change, long size) implements Result {
        public int opcode() {
            return Nfs4.OP_GETATTR;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(1);
            xdr.xdrEncodeInt(bitmap);
            int length = ((bitmap & (1 << Compound41.ATTR_TYPE)) != 0 ? 4 : 0)
                    + ((bitmap & (1 << Compound41.ATTR_CHANGE)) != 0 ? 8 : 0)
                    + ((bitmap & (1 << Compound41.ATTR_SIZE)) != 0 ? 8 : 0);
            xdr.xdrEncodeInt(length); // attrlist4
            if ((bitmap & (1 << Compound41.ATTR_TYPE)) != 0) {
                xdr.xdrEncodeInt(type);
            }
            if ((bitmap & (1 << Compound41.ATTR_CHANGE)) != 0) {
                xdr.xdrEncodeLong(change);
            }
            if ((bitmap & (1 << Compound41.ATTR_SIZE)) != 0) {
                xdr.xdrEncodeLong(size);
            }
        }
    }

    /** WANT_DELEGATION4resok: no delegation, none wanted. */
    record WantDelegationOk() implements Result {
        public int opcode() {
            return Nfs4.OP_WANT_DELEGATION;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(OPEN_DELEGATE_NONE_EXT);
            xdr.xdrEncodeInt(WND4_NOT_WANTED);
        }
    }

    /** CREATE4resok: change_info4 of the directory, no attributes set. */
    record CreateOk(long before, long after) implements Result {
        public int opcode() {
            return Nfs4.OP_CREATE;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(true); // atomic
            xdr.xdrEncodeLong(before);
            xdr.xdrEncodeLong(after);
            xdr.xdrEncodeInt(0); // attrset: an empty bitmap4
        }
    }

    record GetFhOk(byte[] handle) implements Result {
        public int opcode() {
            return Nfs4.OP_GETFH;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(handle);
        }
    }

    record ReadLinkOk(byte[] link) implements Result {
        public int opcode() {
            return Nfs4.OP_READLINK;
        }

        public void encodeBody(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(link);
        }
    }

    /** A failed operation (no body: none of the operations here has an error arm with one). */
    record Failed(int opcode, int status) implements Result {
    }

    int status;
    String tag = "";
    final List<Result> results = new ArrayList<>();

    /** The result of the operation at {@code index}, which must be of type {@code type}. */
    <R extends Result> R result(int index, Class<R> type) {
        Result r = results.get(index);
        if (!type.isInstance(r)) {
            throw new AssertionError("result " + index + " is " + r + ", not a " + type.getSimpleName());
        }
        return type.cast(r);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeInt(status);
        xdr.xdrEncodeString(tag);
        xdr.xdrEncodeInt(results.size());
        for (Result r : results) {
            xdr.xdrEncodeInt(r.opcode());
            xdr.xdrEncodeInt(r.status());
            r.encodeBody(xdr);
        }
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        status = xdr.xdrDecodeInt();
        tag = xdr.xdrDecodeString();
        int n = xdr.xdrDecodeInt();
        results.clear();
        for (int i = 0; i < n; i++) {
            int opcode = xdr.xdrDecodeInt();
            int opStatus = xdr.xdrDecodeInt();
            if (opStatus != Nfs4.NFS4_OK) {
                results.add(new Failed(opcode, opStatus));
                return;
            }
            results.add(switch (opcode) {
                case Nfs4.OP_SEQUENCE -> {
                    byte[] session = xdr.xdrDecodeOpaque(Nfs4.SESSIONID_SIZE);
                    int sequence = xdr.xdrDecodeInt();
                    int slot = xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt();
                    yield new SequenceOk(session, sequence, slot);
                }
                case Nfs4.OP_PUTFH -> new PutFhOk();
                case Nfs4.OP_WRITE -> new WriteOk(xdr.xdrDecodeInt(), xdr.xdrDecodeInt(), xdr.xdrDecodeLong());
                case Nfs4.OP_READ -> new ReadOk(xdr.xdrDecodeBoolean(), xdr.xdrDecodeDynamicOpaque(), null);
                case Nfs4.OP_GETATTR -> decodeGetAttr(xdr);
                case Nfs4.OP_CREATE -> {
                    xdr.xdrDecodeBoolean();
                    CreateOk c = new CreateOk(xdr.xdrDecodeLong(), xdr.xdrDecodeLong());
                    if (xdr.xdrDecodeInt() != 0) {
                        throw new IOException("CREATE set attributes");
                    }
                    yield c;
                }
                case Nfs4.OP_GETFH -> new GetFhOk(xdr.xdrDecodeDynamicOpaque());
                case Nfs4.OP_READLINK -> new ReadLinkOk(xdr.xdrDecodeDynamicOpaque());
                case Nfs4.OP_WANT_DELEGATION -> {
                    int type = xdr.xdrDecodeInt();
                    int why = xdr.xdrDecodeInt();
                    if (type != OPEN_DELEGATE_NONE_EXT || why != WND4_NOT_WANTED) {
                        throw new IOException("unexpected WANT_DELEGATION result " + type + "/" + why);
                    }
                    yield new WantDelegationOk();
                }
                default -> throw new IOException("no decoder for the result of operation " + opcode);
            });
        }
    }

    private static GetAttrOk decodeGetAttr(XdrDecodingStream xdr) throws IOException {
        int words = xdr.xdrDecodeInt();
        if (words != 1) {
            throw new IOException("a GETATTR bitmap of " + words + " words");
        }
        int bitmap = xdr.xdrDecodeInt();
        int length = xdr.xdrDecodeInt();
        int type = -1;
        long change = -1;
        long size = -1;
        int read = 0;
        if ((bitmap & (1 << Compound41.ATTR_TYPE)) != 0) {
            type = xdr.xdrDecodeInt();
            read += 4;
        }
        if ((bitmap & (1 << Compound41.ATTR_CHANGE)) != 0) {
            change = xdr.xdrDecodeLong();
            read += 8;
        }
        if ((bitmap & (1 << Compound41.ATTR_SIZE)) != 0) {
            size = xdr.xdrDecodeLong();
            read += 8;
        }
        if (read != length) {
            throw new IOException("attrlist4 of " + length + " bytes, " + read + " decoded");
        }
        return new GetAttrOk(bitmap, type, change, size);
    }
}

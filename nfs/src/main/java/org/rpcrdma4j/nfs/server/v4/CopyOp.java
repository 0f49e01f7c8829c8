package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * COPY within this server (RFC 7862 section 15.2): from the saved file, the source, to the current file, the
 * destination, both of one export. Every copy is done before the reply, whatever {@code ca_synchronous} asked (the
 * RFC lets a server do so): the reply has no callback id, its requirements say consecutive and synchronous, and the
 * bytes are as stable as a FILE_SYNC write. One call copies at most {@link #MAX_PER_CALL} bytes, so no COPY holds a
 * worker for long; the client sees the count and asks again, as for a short write. A count of 0 copies to the end of
 * the source. Copies from another server ({@code ca_source_server} not empty) are NFS4ERR_NOTSUPP.
 * <p>
 * Where Linux's server departs from RFC 7862, this server does as Linux's does, which is what Linux's client expects:
 * a source range past the end copies what there is (nothing from beyond the end) instead of NFS4ERR_INVAL, and two
 * ranges of one file may be copied between unless they overlap (NFS4ERR_INVAL). Files that are not regular are
 * NFS4ERR_WRONG_TYPE.
 */
final class CopyOp extends Op {
    /** The most one COPY moves. */
    static final long MAX_PER_CALL = 16L << 20;
    /** Most source servers a call may name: the RFC's netloc4 list, which this server only reads past. */
    private static final int MAX_SOURCES = 16;

    private Stateid srcStateid;
    private Stateid dstStateid;
    private long srcOffset;
    private long dstOffset;
    private long count;
    private int sources;
    private long copied;
    private long verifier;

    CopyOp() {
        super(Nfs4.OP_COPY);
    }

    @Override
    void decode(XdrDecodingStream xdr) throws BadXdrException {
        Range r = Range.decode(xdr);
        srcStateid = r.srcStateid();
        dstStateid = r.dstStateid();
        srcOffset = r.srcOffset();
        dstOffset = r.dstOffset();
        count = r.count();
        Nfs3Xdr.decodeInt(xdr); // ca_consecutive: every copy here is
        Nfs3Xdr.decodeInt(xdr); // ca_synchronous: every copy here is
        sources = Nfs3Xdr.decodeInt(xdr);
        if (sources < 0 || sources > MAX_SOURCES) {
            throw new BadXdrException("ca_source_server of " + Integer.toUnsignedString(sources) + " entries");
        }
        for (int i = 0; i < sources; i++) {
            int type = Nfs3Xdr.decodeInt(xdr);
            switch (type) {
                case 1, 2 -> Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "netloc4 name"); // NL4_NAME, NL4_URL
                case 3 -> { // NL4_NETADDR
                    Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "na_r_netid");
                    Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "na_r_addr");
                }
                default -> throw new BadXdrException("netloc_type4 " + type);
            }
        }
    }

    @Override
    void execute(Compound c) throws Nfs4Exception {
        if (sources != 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOTSUPP, "a copy from another server");
        }
        Endpoints ends = endpoints(c, srcStateid, dstStateid);
        ExportTable.Target src = ends.src();
        ExportTable.Target dst = ends.dst();
        if (srcOffset < 0 || dstOffset < 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "offset beyond 2^63");
        }
        // 0 is "to the end of the source", and so is a count beyond 2^63
        long n = count <= 0 ? MAX_PER_CALL : Math.min(count, MAX_PER_CALL);
        try {
            copied = src.export().vfs().copy(src.fh(), srcOffset, dst.fh(), dstOffset, n);
            c.server.bytesCopied.add(copied);
            verifier = dst.export().vfs().writeVerifier();
        } catch (NfsException e) {
            throw Compound.of(e);
        }
    }

    /** The arguments COPY and CLONE begin with: the two stateids, the two offsets, and the count. */
    record Range(Stateid srcStateid, Stateid dstStateid, long srcOffset, long dstOffset, long count) {
        static Range decode(XdrDecodingStream xdr) throws BadXdrException {
            return new Range(StateOps.decodeStateid(xdr), StateOps.decodeStateid(xdr), Nfs3Xdr.decodeLong(xdr),
                    Nfs3Xdr.decodeLong(xdr), Nfs3Xdr.decodeLong(xdr));
        }
    }

    /** The source (the saved file) and destination (the current file) of a COPY or CLONE. */
    record Endpoints(ExportTable.Target src, ExportTable.Target dst) {
    }

    /**
     * The saved file as the source and the current file as the destination, each with the stateid that names its
     * open (for reading, for writing): regular files (NFS4ERR_WRONG_TYPE) of one export (NFS4ERR_XDEV), the
     * destination's export writable.
     */
    static Endpoints endpoints(Compound c, Stateid srcStateid, Stateid dstStateid) throws Nfs4Exception {
        if (c.saved == null) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOFILEHANDLE, "no saved file handle (the source)");
        }
        Compound.Obj source = c.object(c.saved);
        if (source.target() == null || !source.attributes().isRegularFile()
                || !c.currentObject().attributes().isRegularFile()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_WRONG_TYPE, "between regular files only");
        }
        ExportTable.Target dst = c.writableTarget();
        ExportTable.Target src = source.target();
        if (src.export() != dst.export()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_XDEV, "source and destination in different exports");
        }
        StateOps.checkIo(c, srcStateid, c.saved, false);
        StateOps.checkIo(c, dstStateid, true);
        return new Endpoints(src, dst);
    }

    @Override
    void encodeOk(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(0); // wr_callback_id: none, the copy is done
        xdr.xdrEncodeLong(copied);
        xdr.xdrEncodeInt(StableHow.FILE_SYNC.wireValue());
        xdr.xdrEncodeOpaque(IoOps.verifier(verifier), 0, 8);
        xdr.xdrEncodeBoolean(true); // cr_consecutive
        xdr.xdrEncodeBoolean(true); // cr_synchronous
    }
}

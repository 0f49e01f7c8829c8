package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * NFSv4.2's operations on the layout of a file's bytes (RFC 7862 sections 15.1, 15.4, 15.11): ALLOCATE and
 * DEALLOCATE, as fallocate(2) with mode 0 and with a hole punched (the size kept), and SEEK, as lseek(2)'s SEEK_DATA
 * and SEEK_HOLE. Each names an open of the current file with its stateid, for writing (ALLOCATE, DEALLOCATE) or
 * reading (SEEK), and asks the export's VFS, whose NFS3ERR_NOTSUPP the client sees as NFS4ERR_NOTSUPP. As in Linux's
 * server, a SEEK from the end of the file or beyond, or for data in the hole that ends it, is NFS4ERR_NXIO, and
 * {@code sr_eof} says the offset found is the end of the file.
 */
final class SpaceOps {
    /** {@code data_content4}. */
    static final int NFS4_CONTENT_DATA = 0;
    static final int NFS4_CONTENT_HOLE = 1;

    private SpaceOps() {
    }

    /** ALLOCATE or DEALLOCATE: {@code stateid4, offset4, length4}; the result is the status alone. */
    static final class Extent extends Op {
        private Stateid stateid;
        private long offset;
        private long length;

        Extent(int opcode) {
            super(opcode);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = StateOps.decodeStateid(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            length = Nfs3Xdr.decodeLong(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            ExportTable.Target t = IoOps.regularFile(c, true);
            StateOps.checkIo(c, stateid, true);
            if (length == 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "a length of 0");
            }
            if (offset < 0 || length < 0 || offset + length < 0) {
                // the range passes 2^63, beyond any file this server keeps (Linux's server says FBIG too)
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_FBIG, "range beyond 2^63");
            }
            try {
                if (opcode == Nfs4.OP_ALLOCATE) {
                    t.export().vfs().allocate(t.fh(), offset, length);
                } else {
                    t.export().vfs().deallocate(t.fh(), offset, length);
                }
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }
    }

    /** SEEK: {@code stateid4, offset4, data_content4}; the result {@code seek_res4}. */
    static final class Seek extends Op {
        private Stateid stateid;
        private long offset;
        private int what;
        private boolean eof;
        private long found;

        Seek() {
            super(Nfs4.OP_SEEK);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = StateOps.decodeStateid(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            what = Nfs3Xdr.decodeInt(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            ExportTable.Target t = IoOps.regularFile(c, false);
            StateOps.checkIo(c, stateid, false);
            if (what != NFS4_CONTENT_DATA && what != NFS4_CONTENT_HOLE) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_UNION_NOTSUPP, "data_content4 " + what);
            }
            if (offset < 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_NXIO, "offset beyond 2^63");
            }
            try {
                found = t.export().vfs().seek(t.fh(), offset, what == NFS4_CONTENT_DATA);
                eof = found >= t.export().vfs().getattr(t.fh()).size();
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(eof);
            xdr.xdrEncodeLong(found);
        }
    }
}

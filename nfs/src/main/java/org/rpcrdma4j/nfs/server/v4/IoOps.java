package org.rpcrdma4j.nfs.server.v4;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Permissions;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.nfs.vfs.LentRange;
import org.rpcrdma4j.nfs.vfs.ReadResult;
import org.rpcrdma4j.nfs.vfs.WriteResult;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * READ, WRITE and COMMIT (RFC 8881 sections 18.22, 18.32, 18.3). READ and WRITE name their open with a stateid,
 * checked by the state layer ({@link StateOps#checkIo}); the data of a WRITE is a view of the call's buffer, handed
 * to the VFS as it is. READ data goes out by reference, as NFSv3's does: the VFS's own memory when it lends it, else a
 * buffer of the server's READ allocator (registered memory for a call that came over RDMA, so the transport RDMA
 * WRITEs it without a copy), given back once the reply is sent. A READ or WRITE larger than the server's limit moves the limit's worth (the client sees the
 * count).
 */
final class IoOps {
    private IoOps() {
    }

    /** The current handle as a regular file of an export: NFS4ERR_ISDIR, NFS4ERR_SYMLINK or NFS4ERR_INVAL else. */
    static ExportTable.Target regularFile(Compound c, boolean write) throws Nfs4Exception {
        Compound.Obj o = c.currentObject();
        FileAttributes a = o.attributes();
        if (a.isDirectory()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ISDIR, "a directory");
        }
        if (a.isSymlink()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_SYMLINK, "a symbolic link");
        }
        if (!a.isRegularFile()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "not a regular file");
        }
        return write ? c.writableTarget() : o.target();
    }

    static byte[] verifier(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static final class Read extends Op {
        private Stateid stateid;
        private long offset;
        private long count;
        private boolean eof;
        private ByteBuffer data;
        private ByteBuffer[] pieces;

        Read() {
            super(Nfs4.OP_READ);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = StateOps.decodeStateid(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            count = Nfs3Xdr.decodeUint(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            ExportTable.Target t = regularFile(c, false);
            StateOps.checkIo(c, stateid, false);
            if (offset < 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "offset beyond 2^63");
            }
            int n = (int) Math.min(count, c.server.limits.maxRead());
            // the reply the session allows bounds the data too (opcode, status, eof and length come first)
            long room = c.replyRoom() - 16;
            if (room < ((n + 3) & ~3L)) {
                long fits = room & ~3L; // the data and its XDR pad
                // no room for data is no answer but at the end, where no data and eof is one
                if (fits < 0 || (fits == 0 && count > 0 && offset < c.currentObject().attributes().size())) {
                    throw c.replyTooBig("READ's result");
                }
                n = (int) fits;
            }
            try {
                LentRange range = t.export().vfs().lend(t.fh(), offset, n);
                if (range != null) {
                    // the VFS's own memory goes out by reference
                    c.releases.add(range.data()::release);
                    pieces = range.pieces();
                    eof = range.eof();
                    return;
                }
                // memory the transport can send from (registered memory for a call that came over RDMA)
                ByteBuf buffer = c.server.readBuffers.allocate(c.call, n);
                c.releases.add(buffer::release);
                data = buffer.nioBuffer(0, n);
                ReadResult r = t.export().vfs().read(t.fh(), offset, data);
                data.flip();
                if (data.remaining() != r.count()) {
                    data.limit(r.count());
                }
                eof = r.eof();
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        @Override
        long resultSize(EncodedSize size) {
            if (status != Nfs4Status.NFS4_OK) {
                return 8;
            }
            long length = 0;
            if (pieces != null) {
                for (ByteBuffer p : pieces) {
                    length += p.remaining();
                }
            } else {
                length = data.remaining();
            }
            return 16 + ((length + 3) & ~3L);
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(eof);
            if (pieces != null) {
                Nfs3Xdr.encodeDataShallow(xdr, pieces);
            } else {
                Nfs3Xdr.encodeDataShallow(xdr, data);
            }
        }
    }

    static final class Write extends Op {
        private Stateid stateid;
        private long offset;
        private int stable;
        private ByteBuffer data;
        private WriteResult result;
        private long verifier;

        Write() {
            super(Nfs4.OP_WRITE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            stateid = StateOps.decodeStateid(xdr);
            offset = Nfs3Xdr.decodeLong(xdr);
            stable = Nfs3Xdr.decodeInt(xdr);
            data = Nfs3Xdr.decodeDataView(xdr, Nfs4.DECODE_MAX_DATA, "WRITE data");
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            StableHow how = StableHow.fromWire(stable);
            if (how == null) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "stable_how4 " + stable);
            }
            ExportTable.Target t = regularFile(c, true);
            StateOps.checkIo(c, stateid, true);
            if (offset < 0 || offset + data.remaining() < 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_FBIG, "beyond 2^63");
            }
            ByteBuffer src = data.duplicate();
            if (src.remaining() > c.server.limits.maxWrite()) {
                src.limit(src.position() + c.server.limits.maxWrite());
            }
            Caller caller = c.caller(t);
            Integer cleared = caller.isRoot() ? null
                    : Permissions.clearedAfterWrite(caller, c.currentObject().attributes());
            try {
                verifier = t.export().vfs().writeVerifier(); // from before the write: see Nfs3Program's WRITE
                result = t.export().vfs().write(t.fh(), offset, src, how);
                if (cleared != null) {
                    // a write by a caller that is not root clears setuid, as in Linux
                    t.export().vfs().setattr(t.fh(), SetAttributes.NONE.withMode(cleared), null);
                }
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(result.count());
            xdr.xdrEncodeInt(result.committed().wireValue());
            xdr.xdrEncodeOpaque(verifier(verifier), 0, 8);
        }
    }

    static final class Commit extends Op {
        private long offset;
        private long count;
        private long verifier;

        Commit() {
            super(Nfs4.OP_COMMIT);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            offset = Nfs3Xdr.decodeLong(xdr);
            count = Nfs3Xdr.decodeUint(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            ExportTable.Target t = regularFile(c, true); // COMMIT asks for write access, as in Linux's server
            Caller caller = c.caller(t);
            if (!caller.isRoot()) {
                FileAttributes a = c.currentObject().attributes();
                Compound.check(() -> Permissions.requireWrite(caller, a));
            }
            try {
                t.export().vfs().commit(t.fh(), offset, count);
                verifier = t.export().vfs().writeVerifier();
            } catch (NfsException e) {
                throw Compound.of(e);
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(verifier(verifier), 0, 8);
        }
    }
}

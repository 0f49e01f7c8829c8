package org.rpcrdma4j.nfs.client.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * The client's NFSv4.2 operations on a file's space and copies (RFC 7862): ALLOCATE and DEALLOCATE, SEEK, COPY
 * within one server (always asked to be synchronous), and CLONE. Each takes its stateids at every attempt, as READ and WRITE do.
 */
final class Nfs42Ops {
    private Nfs42Ops() {
    }

    /** ALLOCATE or DEALLOCATE of a range; the result is the status alone. */
    static final class Extent extends Op.WithStateid {
        private final long offset;
        private final long length;

        Extent(int opcode, StateidSource state, long offset, long length) {
            super(opcode, state);
            this.offset = offset;
            this.length = length;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            stateid.encode(xdr);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeLong(length);
        }

        @Override
        boolean mutating() {
            return true;
        }
    }

    /** SEEK for data or for a hole; the result a {@link SeekReply}. */
    static final class Seek extends Op.WithStateid {
        private final long offset;
        private final SeekReply.Content what;

        Seek(StateidSource state, long offset, SeekReply.Content what) {
            super(Nfs4.OP_SEEK, state);
            this.offset = offset;
            this.what = what;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            stateid.encode(xdr);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(what.wireValue());
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            boolean eof = Nfs3Xdr.decodeBool(xdr);
            long found = Nfs3Xdr.decodeLong(xdr);
            if (found < offset) {
                throw new BadXdrException("SEEK from " + offset + " answered " + Long.toUnsignedString(found));
            }
            return new SeekReply(found, eof);
        }
    }

    /**
     * COPY from the saved file to the current one, asked to be synchronous and consecutive: the reply says how many
     * bytes were copied. A server that answers with a callback id (an asynchronous copy, which the client did not ask
     * for) sent a reply that makes no sense here.
     */
    static final class Copy extends BetweenFiles {
        Copy(StateidSource source, StateidSource destination, long srcOffset, long dstOffset, long count) {
            super(Nfs4.OP_COPY, source, destination, srcOffset, dstOffset, count);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            super.encode(xdr);
            xdr.xdrEncodeBoolean(true); // ca_consecutive
            xdr.xdrEncodeBoolean(true); // ca_synchronous
            xdr.xdrEncodeInt(0); // ca_source_server: this server
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            int callbacks = Nfs3Xdr.decodeInt(xdr);
            if (callbacks != 0) {
                throw new BadXdrException("an asynchronous copy (" + Integer.toUnsignedString(callbacks)
                        + " callback ids) though a synchronous one was asked");
            }
            long copied = Nfs3Xdr.decodeLong(xdr);
            int how = Nfs3Xdr.decodeInt(xdr);
            long verifier = Ops.decodeVerifier(xdr);
            Nfs3Xdr.decodeBool(xdr); // cr_consecutive
            Nfs3Xdr.decodeBool(xdr); // cr_synchronous
            StableHow committed = StableHow.fromWire(how);
            if (committed == null) {
                throw new BadXdrException("stable_how4 out of range: " + how);
            }
            if (copied < 0 || count != 0 && copied > count) {
                throw new BadXdrException("COPY of " + count + " bytes answered count " + Long.toUnsignedString(copied));
            }
            return new CopyReply(copied, committed, verifier);
        }

        @Override
        void decodeError(XdrDecodingStream xdr, int status) throws BadXdrException {
            if (status == Nfs4Status.NFS4ERR_OFFLOAD_NO_REQS) {
                Nfs3Xdr.decodeBool(xdr); // cr_consecutive
                Nfs3Xdr.decodeBool(xdr); // cr_synchronous
            }
        }
    }

    /** CLONE of the saved file's range into the current one's; the result is the status alone. */
    static final class Clone extends BetweenFiles {
        Clone(StateidSource source, StateidSource destination, long srcOffset, long dstOffset, long count) {
            super(Nfs4.OP_CLONE, source, destination, srcOffset, dstOffset, count);
        }
    }

    /**
     * An operation from the saved file to the current one (COPY, CLONE): each file's stateid, taken at every attempt,
     * then the source's offset, the destination's, and the count.
     */
    abstract static class BetweenFiles extends Op {
        private final StateidSource source;
        private final StateidSource destination;
        private final long srcOffset;
        private final long dstOffset;
        final long count;
        private Stateid4 srcStateid;
        private Stateid4 dstStateid;

        BetweenFiles(int opcode, StateidSource source, StateidSource destination, long srcOffset, long dstOffset,
                     long count) {
            super(opcode);
            this.source = source;
            this.destination = destination;
            this.srcOffset = srcOffset;
            this.dstOffset = dstOffset;
            this.count = count;
        }

        @Override
        void prepare(long clientId) {
            srcStateid = source.stateid();
            dstStateid = destination.stateid();
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            srcStateid.encode(xdr);
            dstStateid.encode(xdr);
            xdr.xdrEncodeLong(srcOffset);
            xdr.xdrEncodeLong(dstOffset);
            xdr.xdrEncodeLong(count);
        }

        @Override
        boolean mutating() {
            return true;
        }
    }
}

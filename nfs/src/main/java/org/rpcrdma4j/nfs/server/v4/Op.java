package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * One operation of a COMPOUND (RFC 8881 section 16.2): its arguments, decoded from the call; what it does to the
 * COMPOUND's state and the exports; its result ({@code nfs_resop4}: the operation number, the status, and on success
 * the operation's own result). An operation that fails throws {@link Nfs4Exception}; its status ends the COMPOUND.
 * One object serves one request on one thread.
 */
abstract class Op {
    final int opcode;
    int status = Nfs4Status.NFS4_OK;

    Op(int opcode) {
        this.opcode = opcode;
    }

    /** Reads the operation's arguments. */
    abstract void decode(XdrDecodingStream xdr) throws BadXdrException;

    /** Does the operation; its results stay in this object for {@link #encodeOk}. */
    abstract void execute(Compound c) throws Nfs4Exception;

    /** Writes the result that follows {@code NFS4_OK}; nothing by default. */
    void encodeOk(XdrEncodingStream xdr) {
    }

    /** Writes what follows an error status; nothing but for the few results whose error arm carries data. */
    void encodeError(XdrEncodingStream xdr) {
    }

    /** Writes {@code nfs_resop4}. */
    final void encodeResult(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(opcode);
        xdr.xdrEncodeInt(status);
        if (status == Nfs4Status.NFS4_OK) {
            encodeOk(xdr);
        } else {
            encodeError(xdr);
        }
    }

    /**
     * The size of {@link #encodeResult}'s output, for the room a session's reply has left: counted by encoding into
     * {@code size}, which keeps nothing. An operation whose result carries data by reference says it itself.
     */
    long resultSize(EncodedSize size) {
        size.reset();
        encodeResult(size);
        return size.bytes();
    }

    /** An operation with no arguments. */
    abstract static class NoArgs extends Op {
        NoArgs(int opcode) {
            super(opcode);
        }

        @Override
        final void decode(XdrDecodingStream xdr) {
        }
    }

    /**
     * An operation this server knows but does not do, or one that ends decoding: it answers with a fixed status and
     * is the COMPOUND's last. Its arguments are not read (nothing after it runs).
     */
    static final class Refused extends Op {
        private final int refusal;
        private final String why;

        Refused(int opcode, int refusal, String why) {
            super(opcode);
            this.refusal = refusal;
            this.why = why;
        }

        @Override
        void decode(XdrDecodingStream xdr) {
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            throw new Nfs4Exception(refusal, why);
        }
    }
}

package org.rpcrdma4j.nfs.client.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * One operation of a client COMPOUND: its arguments ({@link #encode}, after the operation number) and the decoding of
 * its result ({@link #decodeOk} after NFS4_OK, {@link #decodeError} after any other status). An operation object
 * belongs to one COMPOUND and may be encoded several times (each attempt, and each retransmission of an attempt);
 * {@link #prepare} runs once before every attempt, so that what may change between attempts (a stateid, the client
 * ID) is fixed for all retransmissions of that attempt.
 */
abstract class Op {
    final int opcode;

    Op(int opcode) {
        this.opcode = opcode;
    }

    /** Writes the arguments that follow the operation number. */
    abstract void encode(XdrEncodingStream xdr);

    /**
     * Reads the result that follows NFS4_OK.
     *
     * @return the decoded result, or null for operations without one
     */
    Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
        return null;
    }

    /** Reads what follows an error status: nothing but for the results whose error arm carries data (SETATTR). */
    void decodeError(XdrDecodingStream xdr) throws BadXdrException {
    }

    /** Reads what follows the error {@code status}; {@link #decodeError(XdrDecodingStream)} unless overridden. */
    void decodeError(XdrDecodingStream xdr, int status) throws BadXdrException {
        decodeError(xdr);
    }

    /** Whether the operation changes state on the server (a COMPOUND with one asks the server to cache its reply). */
    boolean mutating() {
        return false;
    }

    /** Fixes the per-attempt values; {@code clientId} is the client ID of the session the attempt goes out on. */
    void prepare(long clientId) {
    }

    @Override
    public String toString() {
        return Nfs4Ops.name(opcode);
    }

    /**
     * An operation that names an open (or a lock) with a stateid taken from its source at every attempt, so that an
     * open reclaimed or made again between attempts is named as it is now.
     */
    abstract static class WithStateid extends Op {
        private final StateidSource state;
        /** The stateid of this attempt. */
        Stateid4 stateid;

        WithStateid(int opcode, StateidSource state) {
            super(opcode);
            this.state = state;
        }

        @Override
        void prepare(long clientId) {
            stateid = state.stateid();
        }
    }

    /**
     * How a reply is being decoded: flat (the data of a READ is in the message), or reduced (RPC-over-RDMA placed the
     * first DDP-eligible result, the data of the first READ, into the caller's buffer; its length word is in the
     * message, its bytes are not).
     */
    static final class ReplyDecoding {
        static final ReplyDecoding FLAT = new ReplyDecoding(false, -1);

        final boolean reduced;
        final long placedBytes;
        boolean itemTaken;

        ReplyDecoding(boolean reduced, long placedBytes) {
            this.reduced = reduced;
            this.placedBytes = placedBytes;
        }

        /** Whether the next DDP-eligible result is the one that was placed (and marks it taken). */
        boolean takeItem() {
            if (!reduced || itemTaken) {
                return false;
            }
            itemTaken = true;
            return true;
        }
    }
}

package org.rpcrdma4j.nfs.client.v4;

import java.util.Arrays;
import java.util.HexFormat;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/** {@code stateid4}: a sequence id and 12 opaque bytes naming a piece of state on the server. Immutable. */
record Stateid4(int seqid, byte[] other) {
    static final int OTHER_SIZE = 12;
    /** The anonymous special stateid (all zeros): I/O without an open. */
    static final Stateid4 ANONYMOUS = new Stateid4(0, new byte[OTHER_SIZE]);

    Stateid4 {
        if (other.length != OTHER_SIZE) {
            throw new IllegalArgumentException("stateid other of " + other.length + " bytes");
        }
    }

    /** The same state with seqid 0: "whatever its current seqid is" (RFC 8881 section 8.2.2). */
    Stateid4 current() {
        return seqid == 0 ? this : new Stateid4(0, other);
    }

    void encode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(seqid);
        xdr.xdrEncodeOpaque(other, 0, OTHER_SIZE);
    }

    static Stateid4 decode(XdrDecodingStream xdr) throws BadXdrException {
        int seqid = Nfs3Xdr.decodeInt(xdr);
        return new Stateid4(seqid, Nfs3Xdr.decodeFixedOpaque(xdr, OTHER_SIZE));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Stateid4 s && s.seqid == seqid && Arrays.equals(s.other, other);
    }

    @Override
    public int hashCode() {
        return 31 * seqid + Arrays.hashCode(other);
    }

    @Override
    public String toString() {
        return "stateid(" + Integer.toUnsignedString(seqid) + ", " + HexFormat.of().formatHex(other) + ")";
    }
}

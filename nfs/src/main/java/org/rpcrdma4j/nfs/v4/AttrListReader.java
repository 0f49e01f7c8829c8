package org.rpcrdma4j.nfs.v4;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * Reads the values of an {@code attrlist4} straight from the stream, counting them against the list's length: a
 * value that would reach past the list, or a list with bytes left after its last value, is a
 * {@link BadXdrException}. Nothing is copied out of the stream but the values themselves.
 */
final class AttrListReader {
    private final XdrDecodingStream xdr;
    private int remaining;

    private AttrListReader(XdrDecodingStream xdr, int length) {
        this.xdr = xdr;
        this.remaining = length;
    }

    /**
     * Reads the {@code attrlist4} length word (at most {@link Nfs4#DECODE_MAX_OPAQUE}, a multiple of 4 since every
     * attribute value is) and returns a reader for the values that follow.
     */
    static AttrListReader begin(XdrDecodingStream xdr) throws BadXdrException {
        int length = Nfs3Xdr.decodeLength(xdr, Nfs4.DECODE_MAX_OPAQUE, "attrlist4");
        if ((length & 3) != 0) {
            throw new BadXdrException("attrlist4 of " + length + " bytes cannot hold whole XDR values");
        }
        return new AttrListReader(xdr, length);
    }

    /** Checks that the values read used up the list exactly. */
    void end() throws BadXdrException {
        if (remaining != 0) {
            throw new BadXdrException("attrlist4 has " + remaining + " bytes after the values of its attributes");
        }
    }

    private void take(long bytes, String what) throws BadXdrException {
        if (bytes > remaining) {
            throw new BadXdrException("attrlist4 ends inside " + what + " (" + bytes + " bytes needed, " + remaining
                    + " left)");
        }
        remaining -= (int) bytes;
    }

    int uint32(String what) throws BadXdrException {
        take(4, what);
        return Nfs3Xdr.decodeInt(xdr);
    }

    long uint64(String what) throws BadXdrException {
        take(8, what);
        return Nfs3Xdr.decodeLong(xdr);
    }

    boolean bool(String what) throws BadXdrException {
        take(4, what);
        int v = Nfs3Xdr.decodeInt(xdr);
        if (v != 0 && v != 1) {
            throw new BadXdrException(what + ": bool must be 0 or 1, got " + v);
        }
        return v == 1;
    }

    /** A variable-length opaque of at most {@code max} bytes, its padding counted. */
    byte[] opaque(int max, String what) throws BadXdrException {
        take(4, what);
        int length = Nfs3Xdr.decodeLength(xdr, max, what);
        take(Nfs3Xdr.opaqueSize(length) - 4L, what);
        return Nfs3Xdr.decodeFixedOpaque(xdr, length);
    }

    /** A UTF-8 string of at most {@link Nfs4#DECODE_MAX_NAME} bytes. */
    String utf8(String what) throws BadXdrException {
        byte[] bytes = opaque(Nfs4.DECODE_MAX_NAME, what);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new BadXdrException(what + " is not UTF-8");
        }
    }

    Bitmap4 bitmap(String what) throws BadXdrException {
        take(4, what);
        int count = Bitmap4.decodeCount(xdr);
        take(4L * count, what);
        return Bitmap4.decodeWords(xdr, count);
    }

    /** {@code nfstime4} seconds (int64); the nanoseconds follow and are read by {@link #nseconds}. */
    long seconds(String what) throws BadXdrException {
        return uint64(what);
    }

    /** {@code nfstime4} nanoseconds: at most 999,999,999. */
    int nseconds(String what) throws BadXdrException {
        long ns = uint32(what) & 0xFFFFFFFFL;
        if (ns > 999_999_999L) {
            throw new BadXdrException(what + ": nseconds out of range: " + ns);
        }
        return (int) ns;
    }

    /**
     * An {@code nfstime4} as an {@link NfsTime}, seconds outside its unsigned 32-bit range clamped to its ends (before
     * 1970 to {@link NfsTime#ZERO}, after 2106 to its last nanosecond).
     */
    NfsTime time(String what) throws BadXdrException {
        long s = seconds(what);
        int ns = nseconds(what);
        if (s < 0) {
            return NfsTime.ZERO;
        }
        if (s > 0xFFFFFFFFL) {
            return new NfsTime(0xFFFFFFFFL, 999_999_999);
        }
        return new NfsTime(s, ns);
    }
}

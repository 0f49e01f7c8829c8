package org.rpcrdma4j.nfs.v4;

import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * Skipping the shared NFSv4 XDR types with an {@link XdrCursor}: every length is checked against its bound and
 * against the bytes that remain (the cursor's job) before it moves; every count is checked against the bytes its
 * elements need at the least. Nothing here allocates, except the message of an exception.
 */
final class Nfs4Xdr {

    private Nfs4Xdr() {
    }

    static int padded(long length) {
        return (int) ((length + 3) & ~3L);
    }

    /** Reads a length word of at most {@code max}. */
    static int readLength(XdrCursor c, int max, String what) throws XdrFormatException {
        long length = c.readUnsignedInt();
        if (length > max) {
            throw new XdrFormatException(what + " of " + length + " bytes exceeds its bound " + max, c.offset() - 4);
        }
        return (int) length;
    }

    /** Skips a variable-length opaque (or string) of at most {@code max} bytes. */
    static void skipOpaque(XdrCursor c, int max, String what) throws XdrFormatException {
        c.skip(padded(readLength(c, max, what)));
    }

    /**
     * Reads the count of a counted array whose elements take at least {@code minElementSize} bytes, refusing a count
     * the remaining bytes cannot hold.
     */
    static int readCount(XdrCursor c, int minElementSize, String what) throws XdrFormatException {
        long count = c.readUnsignedInt();
        if (count > c.remaining() / minElementSize) {
            throw new XdrFormatException(what + " count " + count + " exceeds what the message holds", c.offset() - 4);
        }
        return (int) count;
    }

    /** {@code utf8str_cs}, {@code utf8str_cis}, {@code component4}, {@code utf8str_mixed}. */
    static void skipName(XdrCursor c, String what) throws XdrFormatException {
        skipOpaque(c, Nfs4.DECODE_MAX_NAME, what);
    }

    /** {@code nfs_fh4}. */
    static void skipFileHandle(XdrCursor c) throws XdrFormatException {
        skipOpaque(c, Nfs4.FHSIZE, "nfs_fh4");
    }

    /** {@code bitmap4}: a counted array of words. */
    static void skipBitmap(XdrCursor c) throws XdrFormatException {
        c.skip(4 * readBitmapWords(c));
    }

    /** Reads a {@code bitmap4}'s word count (at most {@link Nfs4#DECODE_MAX_BITMAP_WORDS}); the words follow. */
    static int readBitmapWords(XdrCursor c) throws XdrFormatException {
        long words = c.readUnsignedInt();
        if (words > Nfs4.DECODE_MAX_BITMAP_WORDS) {
            throw new XdrFormatException("bitmap4 of " + words + " words exceeds its bound "
                    + Nfs4.DECODE_MAX_BITMAP_WORDS, c.offset() - 4);
        }
        return (int) words;
    }

    /** {@code fattr4}: a {@code bitmap4}, then the attribute values as an opaque {@code attrlist4}. */
    static void skipFattr(XdrCursor c) throws XdrFormatException {
        skipBitmap(c);
        skipOpaque(c, Nfs4.DECODE_MAX_OPAQUE, "attrlist4");
    }

    /** {@code state_owner4} (open and lock owners): a client id, then an opaque of at most 1024 bytes. */
    static void skipStateOwner(XdrCursor c) throws XdrFormatException {
        c.skip(8);
        skipOpaque(c, Nfs4.OPAQUE_LIMIT, "state owner");
    }

    /** {@code nfsace4}: type, flag, access mask, who. */
    static void skipAce(XdrCursor c) throws XdrFormatException {
        c.skip(12);
        skipName(c, "ace who");
    }

    /** A {@code bool}, checked to be 0 or 1. */
    static boolean readBool(XdrCursor c) throws XdrFormatException {
        return c.readBoolean();
    }

    /** Reads an enum word that must lie in {@code [low, high]}. */
    static int readEnum(XdrCursor c, int low, int high, String what) throws XdrFormatException {
        int v = c.readInt();
        if (v < low || v > high) {
            throw new XdrFormatException(what + " out of range: " + v, c.offset() - 4);
        }
        return v;
    }

    /** {@code secinfo4<>}: flavors, with the RPCSEC_GSS arm's oid, qop and service. */
    static void skipSecinfoList(XdrCursor c) throws XdrFormatException {
        int n = readCount(c, 4, "secinfo4");
        for (int i = 0; i < n; i++) {
            if (c.readInt() == 6) { // RPCSEC_GSS: rpcsec_gss_info
                skipOpaque(c, Nfs4.DECODE_MAX_NAME, "sec_oid4");
                c.skip(8); // qop, service
            }
        }
    }
}

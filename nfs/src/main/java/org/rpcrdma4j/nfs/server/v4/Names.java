package org.rpcrdma4j.nfs.server.v4;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * {@code component4}: a name's bytes are decoded as they came (bounded) and judged when the operation runs, so that a
 * bad name is the operation's status (RFC 8881 section 14.2) rather than garbage: empty or not UTF-8
 * NFS4ERR_INVAL, "." or ".." NFS4ERR_BADNAME, a '/' or NUL NFS4ERR_BADCHAR, over 255 bytes NFS4ERR_NAMETOOLONG.
 */
final class Names {
    static final int MAX_NAME = 255;

    private Names() {
    }

    static byte[] decode(XdrDecodingStream xdr) throws BadXdrException {
        return Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "component4");
    }

    /** The name, checked. */
    static String check(byte[] name) throws Nfs4Exception {
        if (name.length == 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "empty name");
        }
        if (name.length > MAX_NAME) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NAMETOOLONG, "name of " + name.length + " bytes");
        }
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(name)).toString();
        } catch (CharacterCodingException e) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "name is not UTF-8");
        }
        if (s.equals(".") || s.equals("..")) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BADNAME, "name " + s);
        }
        if (s.indexOf('/') >= 0 || s.indexOf('\0') >= 0) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BADCHAR, "name with '/' or NUL");
        }
        return s;
    }
}

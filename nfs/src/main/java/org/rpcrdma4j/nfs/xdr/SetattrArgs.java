package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;

/** SETATTR3args: object, new attributes, and an optional ctime guard ({@code sattrguard3}). */
public final class SetattrArgs implements XdrAble {
    public FileHandle object;
    public SetAttributes attributes;
    /** When set, the server applies the change only if the object's ctime equals this; else NFS3ERR_NOT_SYNC. */
    public NfsTime guardCtime;

    public SetattrArgs() {
    }

    public SetattrArgs(FileHandle object, SetAttributes attributes, NfsTime guardCtime) {
        this.object = object;
        this.attributes = attributes;
        this.guardCtime = guardCtime;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        object = Nfs3Xdr.decodeFileHandle(xdr);
        attributes = Nfs3Xdr.decodeSattr(xdr);
        guardCtime = Nfs3Xdr.decodeBool(xdr) ? Nfs3Xdr.decodeTime(xdr) : null;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, object);
        Nfs3Xdr.encodeSattr(xdr, attributes);
        xdr.xdrEncodeBoolean(guardCtime != null);
        if (guardCtime != null) {
            Nfs3Xdr.encodeTime(xdr, guardCtime);
        }
    }
}

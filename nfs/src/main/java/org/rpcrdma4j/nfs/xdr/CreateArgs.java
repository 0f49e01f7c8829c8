package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;

/** CREATE3args: where, and {@code createhow3} (attributes for UNCHECKED/GUARDED, a verifier for EXCLUSIVE). */
public final class CreateArgs implements XdrAble {
    public FileHandle dir;
    public String name;
    public CreateMode mode;
    /** UNCHECKED and GUARDED. */
    public SetAttributes attributes;
    /** EXCLUSIVE: {@code createverf3}. */
    public long verifier;

    public CreateArgs() {
    }

    public CreateArgs(FileHandle dir, String name, CreateMode mode, SetAttributes attributes, long verifier) {
        this.dir = dir;
        this.name = name;
        this.mode = mode;
        this.attributes = attributes;
        this.verifier = verifier;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
        int how = Nfs3Xdr.decodeInt(xdr);
        mode = CreateMode.fromWire(how);
        if (mode == null) {
            throw new BadXdrException("createmode3 out of range: " + how);
        }
        if (mode == CreateMode.EXCLUSIVE) {
            verifier = Nfs3Xdr.decodeLong(xdr);
            attributes = SetAttributes.NONE;
        } else {
            attributes = Nfs3Xdr.decodeSattr(xdr);
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
        xdr.xdrEncodeInt(mode.wireValue());
        if (mode == CreateMode.EXCLUSIVE) {
            xdr.xdrEncodeLong(verifier);
        } else {
            Nfs3Xdr.encodeSattr(xdr, attributes);
        }
    }
}

package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;

/** SYMLINK3args: where, the link's attributes and its contents; the contents ({@code nfspath3}) are DDP-eligible. */
public final class SymlinkArgs implements DdpArgument {
    public FileHandle dir;
    public String name;
    public SetAttributes attributes;
    public String target;

    public SymlinkArgs() {
    }

    public SymlinkArgs(FileHandle dir, String name, SetAttributes attributes, String target) {
        this.dir = dir;
        this.name = name;
        this.attributes = attributes;
        this.target = target;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
        attributes = Nfs3Xdr.decodeSattr(xdr);
        target = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_PATH, "nfspath3");
    }

    @Override
    public void encodeBeforeItem(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
        Nfs3Xdr.encodeSattr(xdr, attributes);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        encodeBeforeItem(xdr);
        Nfs3Xdr.encodeString(xdr, target);
    }

    @Override
    public ByteBuf item() {
        return Unpooled.wrappedBuffer(Nfs3Xdr.utf8(target));
    }
}

package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;

/**
 * WRITE3args. The data is the DDP-eligible item. A client sets {@link #src} (borrowed: its readable bytes are sent
 * and must not change until the call completes); a server gets {@link #data}, a view of the request's buffer that is
 * valid only while the call is being dispatched (the reply is later encoded into the same buffer).
 */
public final class WriteArgs implements DdpArgument {
    public FileHandle file;
    public long offset;
    /** Unsigned 32-bit count of bytes to write. */
    public long count;
    public StableHow stable;
    /** Client side: the bytes to write. */
    public ByteBuf src;
    /** Server side: the decoded data, a view of the request. */
    public ByteBuffer data;

    public WriteArgs() {
    }

    public WriteArgs(FileHandle file, long offset, StableHow stable, ByteBuf src) {
        this.file = file;
        this.offset = offset;
        this.count = src.readableBytes();
        this.stable = stable;
        this.src = src;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        file = Nfs3Xdr.decodeFileHandle(xdr);
        offset = Nfs3Xdr.decodeLong(xdr);
        count = Nfs3Xdr.decodeUint(xdr);
        int how = Nfs3Xdr.decodeInt(xdr);
        stable = StableHow.fromWire(how);
        if (stable == null) {
            throw new BadXdrException("stable_how out of range: " + how);
        }
        data = Nfs3Xdr.decodeDataView(xdr, Nfs3.DECODE_MAX_DATA, "WRITE data");
    }

    @Override
    public void encodeBeforeItem(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, file);
        xdr.xdrEncodeLong(offset);
        xdr.xdrEncodeInt((int) count);
        xdr.xdrEncodeInt(stable.wireValue());
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        encodeBeforeItem(xdr);
        if (src != null) {
            Nfs3Xdr.encodeDataShallow(xdr, src);
        } else {
            Nfs3Xdr.encodeDataShallow(xdr, data);
        }
    }

    @Override
    public ByteBuf item() {
        return src != null ? src : Unpooled.wrappedBuffer(data.duplicate());
    }
}

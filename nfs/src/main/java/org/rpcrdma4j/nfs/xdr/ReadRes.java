package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;

/**
 * READ3res. The data is the DDP-eligible item. A server sets {@link #data}: the bytes between its position and
 * limit are sent without a copy (borrowed until the reply has been sent). A client sets {@link #sink} before
 * decoding: the data is written at its writer index, at most its writable bytes (borrowed, not retained).
 */
public final class ReadRes extends Nfs3Result implements DdpResult {
    public FileAttributes attributes;
    /** Unsigned 32-bit count of bytes returned. */
    public long count;
    public boolean eof;
    /** Server side: the bytes read (when {@link #pieces} is null). */
    public ByteBuffer data;
    /**
     * Server side, instead of {@link #data}: the bytes as several buffers in order (none for no bytes), each from its
     * position to its limit; sent by reference like {@link #data}.
     */
    public ByteBuffer[] pieces;
    /** Client side: where the bytes go. */
    public ByteBuf sink;

    public ReadRes() {
    }

    /** A client's result that decodes the data into {@code sink}. */
    public ReadRes(ByteBuf sink) {
        this.sink = sink;
    }

    @Override
    public ByteBuf sink() {
        return sink;
    }

    private void decodeHead(XdrDecodingStream xdr) throws BadXdrException {
        status = Nfs3Xdr.decodeInt(xdr);
        attributes = Nfs3Xdr.decodePostOpAttr(xdr);
        if (isOk()) {
            count = Nfs3Xdr.decodeUint(xdr);
            eof = Nfs3Xdr.decodeBool(xdr);
        }
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        decodeHead(xdr);
        if (!isOk()) {
            return;
        }
        int max = sink == null ? Nfs3.DECODE_MAX_DATA : Math.min(Nfs3.DECODE_MAX_DATA, sink.writableBytes());
        ByteBuffer view = Nfs3Xdr.decodeDataView(xdr, max, "READ data");
        if (view.remaining() != count) {
            throw new BadXdrException("READ count " + count + " differs from the data's " + view.remaining());
        }
        if (sink != null) {
            sink.writeBytes(view);
        } else {
            data = view;
        }
    }

    @Override
    public void decodeReduced(XdrDecodingStream xdr, long placedBytes) throws BadXdrException {
        decodeHead(xdr);
        if (!isOk()) {
            return;
        }
        long length = Nfs3Xdr.decodeUint(xdr);
        if (length != count || length != placedBytes || length > sink.writableBytes()) {
            throw new BadXdrException("READ data of " + length + " bytes (count " + count + ") but " + placedBytes
                    + " placed into a sink with room for " + sink.writableBytes());
        }
        sink.writerIndex(sink.writerIndex() + (int) length);
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        xdr.xdrEncodeInt(status);
        Nfs3Xdr.encodePostOpAttr(xdr, attributes);
        if (isOk()) {
            xdr.xdrEncodeInt((int) count);
            xdr.xdrEncodeBoolean(eof);
            if (pieces != null) {
                Nfs3Xdr.encodeDataShallow(xdr, pieces);
            } else {
                Nfs3Xdr.encodeDataShallow(xdr, data);
            }
        }
    }
}

package org.rpcrdma4j.nfs.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;

/** Encodes and decodes XDR carriers through oncrpc4j's {@link Xdr}, for tests. */
public final class XdrBytes {
    private XdrBytes() {
    }

    public static byte[] encode(XdrAble value) {
        try (Xdr xdr = new Xdr(64)) {
            xdr.beginEncoding();
            value.xdrEncode(xdr);
            xdr.endEncoding();
            return xdr.getBytes();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    public static ByteBuf encodeToBuf(XdrAble value) {
        return Unpooled.wrappedBuffer(encode(value));
    }

    public static <T extends XdrAble> T decode(byte[] bytes, T into) throws IOException {
        Xdr xdr = new Xdr(bytes);
        xdr.beginDecoding();
        into.xdrDecode(xdr);
        xdr.endDecoding();
        return into;
    }
}

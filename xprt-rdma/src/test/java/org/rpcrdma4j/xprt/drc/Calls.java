package org.rpcrdma4j.xprt.drc;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.glassfish.grizzly.Buffer;

/** Encoded ONC RPC calls for tests, and calls accepted from them as a server hands them to a program. */
public final class Calls {
    public static final int REPLY_HEADER = 24;

    private Calls() {
    }

    public static RpcAuth unix(int uid) {
        return new RpcAuthTypeUnix(uid, 100, new int[] {100, 200}, 7, "client.example");
    }

    public static RpcAuth none() {
        return new RpcAuthTypeNone();
    }

    /** A complete call message (no record mark): header, credential, verifier, arguments. */
    public static byte[] call(int xid, int program, int version, int procedure, RpcAuth credential, XdrAble args) {
        try {
            Xdr xdr = new Xdr(256);
            xdr.beginEncoding();
            xdr.xdrEncodeInt(xid);
            xdr.xdrEncodeInt(0); // CALL
            xdr.xdrEncodeInt(2);
            xdr.xdrEncodeInt(program);
            xdr.xdrEncodeInt(version);
            xdr.xdrEncodeInt(procedure);
            credential.xdrEncode(xdr);
            args.xdrEncode(xdr);
            xdr.endEncoding();
            return bytes(xdr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The call in {@code message} (copied) decoded up to its arguments, bound to {@code transport}. */
    public static RpcCall accepted(byte[] message, RpcTransport transport) throws IOException {
        Xdr xdr = new Xdr(message.clone());
        xdr.beginDecoding();
        int xid = xdr.xdrDecodeInt();
        xdr.xdrDecodeInt();
        RpcCall call = new RpcCall(xid, xdr, transport);
        call.accept();
        return call;
    }

    /** An encoded message's bytes, position to limit; the stream is not moved. */
    public static byte[] bytes(Xdr xdr) {
        Buffer b = xdr.asBuffer();
        byte[] out = new byte[b.remaining()];
        int p = b.position();
        b.get(out);
        b.position(p);
        return out;
    }

    public static int intAt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }
}

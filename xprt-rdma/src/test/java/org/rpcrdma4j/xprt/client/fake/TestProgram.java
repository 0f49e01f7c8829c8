package org.rpcrdma4j.xprt.client.fake;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;
import org.rpcrdma4j.xprt.internal.RpcHeader;

/**
 * A small RPC program for transport tests, its upper-layer binding, and its server side for the fake server:
 * <pre>
 *   0 NULL  void -&gt; void
 *   1 ECHO  opaque&lt;&gt; -&gt; the same opaque&lt;&gt;                      (nothing DDP-eligible)
 *   2 PUT   unsigned tag, opaque data&lt;&gt; -&gt; unsigned length, unsigned crc32(data), unsigned tag
 *                                                              (data is a DDP-eligible argument)
 *   3 GET   unsigned count, unsigned seed -&gt; opaque data&lt;&gt;  (count bytes of {@link #pattern}; DDP-eligible result)
 * </pre>
 */
public final class TestProgram {
    public static final int PROGRAM = 0x2000_4242;
    public static final int VERSION = 1;
    public static final int NULL = 0;
    public static final int ECHO = 1;
    public static final int PUT = 2;
    public static final int GET = 3;
    /** Largest reply header up to accept_stat (a verifier of up to 400 bytes). */
    public static final int MAX_REPLY_HEADER = 4 + 4 + 4 + 4 + 4 + 400 + 4;

    private TestProgram() {
    }

    /** {@code count} bytes that depend on {@code seed} and the position. */
    public static byte[] pattern(int seed, int count) {
        byte[] b = new byte[count];
        int x = seed * 0x9E3779B9 | 1;
        for (int i = 0; i < count; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) x;
        }
        return b;
    }

    public static long crc(byte[] data, int from, int length) {
        CRC32 c = new CRC32();
        c.update(data, from, length);
        return c.getValue();
    }

    // ------------------------------------------------------------------ server side

    /** Answers a call as a correct server of this program would. */
    public static Reply serve(ReceivedCall received) throws XdrFormatException {
        byte[] call = received.call();
        ByteBuf in = Unpooled.wrappedBuffer(call);
        RpcHeader h = new RpcHeader().parse(in, 0, call.length);
        ByteBuf out = Unpooled.buffer(64 + call.length);
        out.writeInt(h.xid()).writeInt(RpcHeader.REPLY).writeInt(RpcHeader.MSG_ACCEPTED).writeInt(0).writeInt(0);
        if (h.program() != PROGRAM) {
            out.writeInt(1); // PROG_UNAVAIL
            return Reply.of(bytes(out), -1, 0);
        }
        int at = h.bodyOffset();
        switch (h.procedure()) {
            case NULL:
                out.writeInt(0);
                return Reply.of(bytes(out), -1, 0);
            case ECHO: {
                int len = in.getInt(at);
                out.writeInt(0).writeInt(len).writeBytes(call, at + 4, len).writeZero(pad(len));
                return Reply.of(bytes(out), -1, 0);
            }
            case PUT: {
                int tag = in.getInt(at);
                int len = in.getInt(at + 4);
                out.writeInt(0).writeInt(len).writeInt((int) crc(call, at + 8, len)).writeInt(tag);
                return Reply.of(bytes(out), -1, 0);
            }
            case GET: {
                int count = in.getInt(at);
                int seed = in.getInt(at + 4);
                out.writeInt(0).writeInt(count);
                int itemOffset = out.writerIndex();
                out.writeBytes(pattern(seed, count)).writeZero(pad(count));
                return Reply.of(bytes(out), itemOffset, count);
            }
            default:
                out.writeInt(3); // PROC_UNAVAIL
                return Reply.of(bytes(out), -1, 0);
        }
    }

    static int pad(int n) {
        return (4 - (n & 3)) & 3;
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    // ------------------------------------------------------------------ client side: encoded calls

    /** Writes the call header (AUTH_NONE) of {@code procedure} into {@code out}. */
    public static ByteBuf header(ByteBuf out, int xid, int procedure) {
        return out.writeInt(xid).writeInt(RpcHeader.CALL).writeInt(RpcHeader.RPC_VERSION).writeInt(PROGRAM)
                .writeInt(VERSION).writeInt(procedure).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
    }

    /** The reply's results start (accept status SUCCESS checked): its offset in {@code reply}. */
    public static int results(ByteBuf reply) throws XdrFormatException {
        RpcHeader h = new RpcHeader().parse(reply, reply.readerIndex(), reply.writerIndex());
        if (!h.isSuccessfulReply()) {
            throw new XdrFormatException("not a successful reply: stat " + h.replyStat() + "/" + h.acceptStat(), 0);
        }
        return reply.readerIndex() + h.bodyOffset();
    }

    // ------------------------------------------------------------------ oncrpc4j argument and result types

    /** An opaque&lt;&gt; for ECHO. */
    public static final class Opaque implements XdrAble {
        public byte[] data = new byte[0];

        public Opaque() {
        }

        public Opaque(byte[] data) {
            this.data = data;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(data);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            data = xdr.xdrDecodeDynamicOpaque();
        }
    }

    /** PUT's arguments. */
    public static final class PutArgs implements XdrAble {
        public int tag;
        public byte[] data;

        public PutArgs(int tag, byte[] data) {
            this.tag = tag;
            this.data = data;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(tag);
            xdr.xdrEncodeDynamicOpaque(data);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            tag = xdr.xdrDecodeInt();
            data = xdr.xdrDecodeDynamicOpaque();
        }
    }

    /** PUT's results. */
    public static final class PutRes implements XdrAble {
        public int length;
        public int crc;
        public int tag;

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(length);
            xdr.xdrEncodeInt(crc);
            xdr.xdrEncodeInt(tag);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            length = xdr.xdrDecodeInt();
            crc = xdr.xdrDecodeInt();
            tag = xdr.xdrDecodeInt();
        }
    }

    /** GET's arguments. */
    public static final class GetArgs implements XdrAble {
        public int count;
        public int seed;

        public GetArgs(int count, int seed) {
            this.count = count;
            this.seed = seed;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(count);
            xdr.xdrEncodeInt(seed);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            count = xdr.xdrDecodeInt();
            seed = xdr.xdrDecodeInt();
        }
    }

    // ------------------------------------------------------------------ the binding

    /** The program's upper-layer binding (PUT data and GET data are DDP-eligible). */
    public static final UpperLayerBinding BINDING = new UpperLayerBinding() {
        @Override
        public int program() {
            return PROGRAM;
        }

        @Override
        public boolean supportsVersion(int version) {
            return version == VERSION;
        }

        @Override
        public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out)
                throws XdrFormatException {
            if (procedure != PUT) {
                return false;
            }
            XdrCursor c = new XdrCursor().wrap(args);
            c.readInt();
            long len = c.readUnsignedInt();
            int offset = c.offset();
            c.skipOpaque(len);
            out.set(offset, len);
            return true;
        }

        @Override
        public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
                throws XdrFormatException {
            return locate(procedure, results, out, true);
        }

        @Override
        public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
                throws XdrFormatException {
            return locate(procedure, results, out, false);
        }

        private boolean locate(int procedure, ByteBuf results, DataItem out, boolean inline)
                throws XdrFormatException {
            if (procedure != GET) {
                return false;
            }
            XdrCursor c = new XdrCursor().wrap(results);
            long len = c.readUnsignedInt();
            int offset = c.offset();
            if (inline) {
                c.skipOpaque(len);
            }
            out.set(offset, len);
            return true;
        }

        @Override
        public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
            if (procedure != GET) {
                return -1;
            }
            return new XdrCursor().wrap(args).readUnsignedInt();
        }

        @Override
        public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
            switch (procedure) {
                case NULL:
                    return MAX_REPLY_HEADER;
                case ECHO:
                    long len = new XdrCursor().wrap(args).readUnsignedInt();
                    return MAX_REPLY_HEADER + 4 + ((len + 3) & ~3L);
                case PUT:
                    return MAX_REPLY_HEADER + 12;
                case GET:
                    return MAX_REPLY_HEADER + 4;
                default:
                    return MAX_REPLY_HEADER;
            }
        }
    };

    /** A big-endian int at {@code index} of {@code bytes}. */
    public static int intAt(byte[] bytes, int index) {
        return ByteBuffer.wrap(bytes).getInt(index);
    }
}

package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.xprt.drc.Calls;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.drc.RpcTcpClient;

/**
 * A scripted NFSv4.1 client for the server's tests: COMPOUNDs written word by word ({@link Args}), sent over one TCP
 * connection with AUTH_SYS uid 0, and their replies read word by word ({@link Res}). It knows nothing the server's
 * code knows: every encoding here follows RFC 8881's XDR directly.
 */
final class V4Script implements AutoCloseable {
    private final RpcTcpClient tcp;
    private final RdmaClientTransport rdma;
    private int xid = 0x4100;

    V4Script(InetSocketAddress server) throws IOException {
        this.tcp = RpcTcpClient.connect(server);
        this.rdma = null;
    }

    /**
     * Over RPC-over-RDMA: COMPOUNDs go as unmodified oncrpc4j calls over {@code transport}, whose NFSv4 binding moves
     * WRITE data into Read chunks and READ data into Write chunks (the script still sees flat messages). The
     * transport stays the caller's.
     */
    V4Script(RdmaClientTransport transport) {
        this.tcp = null;
        this.rdma = transport;
    }

    /** Sends {@code args}; returns the reply past the RPC header, checked to be an accepted SUCCESS. */
    Res call(Args args) throws IOException {
        return new Res(callRaw(args.bytes(), ++xid));
    }

    /** Sends a COMPOUND's bytes with {@code withXid}; returns the reply's bytes past the RPC header. */
    byte[] callRaw(byte[] compound, int withXid) throws IOException {
        if (rdma != null) {
            RawReply reply = new RawReply();
            try {
                new RpcCall(Nfs4.PROGRAM, Nfs4.VERSION, Calls.unix(0), rdma).call(Nfs4.PROC_COMPOUND,
                        new Nfs4Program.Raw(compound), reply, 30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new IOException(e);
            }
            return reply.bytes;
        }
        byte[] reply = tcp.call(Calls.call(withXid, Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, Calls.unix(0),
                new Nfs4Program.Raw(compound)));
        assertThat(Calls.intAt(reply, 20)).as("accept_stat").isZero();
        byte[] body = new byte[reply.length - Calls.REPLY_HEADER];
        System.arraycopy(reply, Calls.REPLY_HEADER, body, 0, body.length);
        return body;
    }

    int nextXid() {
        return ++xid;
    }

    /** Sends a whole RPC message (one record). */
    void send(byte[] message) throws IOException {
        tcp.send(message);
    }

    /** The next RPC message that arrives (a reply, or a call of the server's back channel). */
    byte[] receive() throws IOException {
        return tcp.receive();
    }

    /** Whether a message (or part of one) arrived that {@link #receive()} has not read. */
    boolean pending() throws IOException {
        return tcp.pending();
    }

    /** The RPC call a COMPOUND goes in. */
    static byte[] compoundCall(int xid, byte[] compound) {
        return Calls.call(xid, Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, Calls.unix(0), new Nfs4Program.Raw(compound));
    }

    @Override
    public void close() throws IOException {
        if (tcp != null) {
            tcp.close();
        }
    }

    /** COMPOUND4args, word by word. */
    static final class Args {
        private final ByteBuf b = Unpooled.buffer(256);
        private final int countAt;
        private int count;

        Args(int minorVersion) {
            b.writeInt(0); // tag
            b.writeInt(minorVersion);
            countAt = b.writerIndex();
            b.writeInt(0);
        }

        Args op(int opcode) {
            count++;
            b.setInt(countAt, count);
            return word(opcode);
        }

        /** An operation already encoded: its opcode, then its arguments. */
        Args encodedOp(byte[] opcodeAndArguments) {
            count++;
            b.setInt(countAt, count);
            b.writeBytes(opcodeAndArguments);
            return this;
        }

        Args word(int v) {
            b.writeInt(v);
            return this;
        }

        Args hyper(long v) {
            b.writeLong(v);
            return this;
        }

        Args fixed(byte[] bytes) {
            b.writeBytes(bytes).writeZero((4 - (bytes.length & 3)) & 3);
            return this;
        }

        Args opaque(byte[] bytes) {
            return word(bytes.length).fixed(bytes);
        }

        Args string(String s) {
            return opaque(s.getBytes(StandardCharsets.UTF_8));
        }

        /** A bitmap4 of {@code attributes}. */
        Args bitmap(int... attributes) {
            int words = 0;
            for (int a : attributes) {
                words = Math.max(words, a / 32 + 1);
            }
            int[] w = new int[words];
            for (int a : attributes) {
                w[a / 32] |= 1 << (a % 32);
            }
            word(words);
            for (int x : w) {
                word(x);
            }
            return this;
        }

        Args sequence(byte[] session, int seqid, int slot, boolean cacheThis) {
            return op(Nfs4.OP_SEQUENCE).fixed(session).word(seqid).word(slot).word(slot).word(cacheThis ? 1 : 0);
        }

        Args putfh(byte[] fh) {
            return op(Nfs4.OP_PUTFH).opaque(fh);
        }

        Args stateid(byte[] stateid) {
            return fixed(stateid);
        }

        byte[] bytes() {
            return ByteBufUtil.getBytes(b);
        }
    }

    /** COMPOUND4res, read in order. */
    static final class Res {
        final ByteBuffer in;
        final int status;
        final int count;

        Res(byte[] body) {
            in = ByteBuffer.wrap(body);
            status = in.getInt();
            skip(in.getInt()); // tag
            count = in.getInt();
        }

        /** The next result's header: checks the operation number, returns its status. */
        int next(int opcode) {
            assertThat(in.getInt()).as("result's operation").isEqualTo(opcode);
            return in.getInt();
        }

        /** The next result, which must be NFS4_OK. */
        Res ok(int opcode) {
            assertThat(next(opcode)).as("status of operation %d", opcode).isZero();
            return this;
        }

        int word() {
            return in.getInt();
        }

        long hyper() {
            return in.getLong();
        }

        byte[] fixed(int n) {
            byte[] b = new byte[n];
            in.get(b);
            in.position(in.position() + ((4 - (n & 3)) & 3));
            return b;
        }

        byte[] opaque() {
            return fixed(in.getInt());
        }

        void skip(int n) {
            in.position(in.position() + ((n + 3) & ~3));
        }

        /** Skips a bitmap4 and returns its words. */
        int[] bitmap() {
            int[] w = new int[in.getInt()];
            for (int i = 0; i < w.length; i++) {
                w[i] = in.getInt();
            }
            return w;
        }

        /** Skips SEQUENCE4resok. */
        Res sequenceOk() {
            ok(Nfs4.OP_SEQUENCE);
            fixed(Nfs4.SESSIONID_SIZE);
            for (int i = 0; i < 5; i++) {
                word();
            }
            return this;
        }
    }

    /** The reply's body as it is: every byte after the RPC reply header. */
    static final class RawReply implements XdrAble {
        byte[] bytes;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            org.glassfish.grizzly.Buffer b = ((Xdr) xdr).asBuffer();
            bytes = new byte[b.remaining()];
            b.get(bytes);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }
}

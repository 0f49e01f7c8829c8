package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.xdr.DdpArgument;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/** {@code COMPOUND4args} of one attempt: tag, minor version, the operations. Encoding only. */
class CompoundArgs implements XdrAble, CompoundCall {
    final String operation;
    final byte[] tag;
    final int minorVersion;
    final List<Op> ops;

    CompoundArgs(String operation, byte[] tag, int minorVersion, List<Op> ops) {
        this.operation = operation;
        this.tag = tag;
        this.minorVersion = minorVersion;
        this.ops = ops;
    }

    @Override
    public String operation() {
        return operation;
    }

    void encodeHead(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeOpaque(xdr, tag);
        xdr.xdrEncodeInt(minorVersion);
        xdr.xdrEncodeInt(ops.size());
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        encodeHead(xdr);
        for (Op op : ops) {
            xdr.xdrEncodeInt(op.opcode);
            op.encode(xdr);
        }
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) {
        throw new UnsupportedOperationException("client arguments are not decoded");
    }

    /**
     * A COMPOUND ending with a WRITE: its data is the call's DDP-eligible item (RFC 8267), the last thing in the
     * message, so an RDMA transport sends it as a Read chunk from the caller's buffer.
     */
    static final class WithData extends CompoundArgs implements DdpArgument {
        private final Ops.Write write;

        WithData(String operation, byte[] tag, int minorVersion, List<Op> ops, Ops.Write write) {
            super(operation, tag, minorVersion, ops);
            this.write = write;
            if (ops.get(ops.size() - 1) != write) {
                throw new IllegalArgumentException("the WRITE must be the last operation");
            }
        }

        @Override
        public void encodeBeforeItem(XdrEncodingStream xdr) {
            encodeHead(xdr);
            for (int i = 0; i < ops.size() - 1; i++) {
                Op op = ops.get(i);
                xdr.xdrEncodeInt(op.opcode);
                op.encode(xdr);
            }
            xdr.xdrEncodeInt(write.opcode);
            write.encodeBeforeData(xdr);
        }

        @Override
        public ByteBuf item() {
            return write.data;
        }
    }
}

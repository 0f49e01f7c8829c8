package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * A device may offer as few as two SGEs per work request (the server refuses fewer). An inline reply whose
 * DDP-eligible result goes to a write chunk leaves two pieces of the reply inline, around the result; its Send still
 * takes two SGEs: the transport header ends where the reply's slot copy begins, so header and head are one.
 */
class ReplyMarshalerTest {
    private static final int HEADER_AREA = 4096;
    private static final int LKEY = 0x77;
    private static final long IOVA = 0x10_0000L;

    /** The result: an opaque at the start of the results, followed by one more word. */
    private static final UpperLayerBinding OPAQUE_THEN_WORD = new UpperLayerBinding() {
        @Override
        public int program() {
            return 1;
        }

        @Override
        public boolean supportsVersion(int version) {
            return true;
        }

        @Override
        public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) {
            return false;
        }

        @Override
        public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
            out.set(4, results.getInt(results.readerIndex()));
            return true;
        }

        @Override
        public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
            out.set(4, results.getInt(results.readerIndex()));
            return true;
        }

        @Override
        public long maxReplyItemLength(int version, int procedure, ByteBuf args) {
            return -1;
        }

        @Override
        public long maxInlineReplySize(int version, int procedure, ByteBuf args) {
            return -1;
        }
    };

    @Test
    void anInlineReplyAroundAWriteChunkTakesTwoSges() throws Exception {
        ByteBuf slot = Unpooled.directBuffer(2 * HEADER_AREA, 2 * HEADER_AREA).writerIndex(2 * HEADER_AREA);
        ReplyBytes bytes = new ReplyBytes(slot, LKEY, IOVA, HEADER_AREA, HEADER_AREA, new RegisteredMemoryIndex(),
                null);
        // xid | REPLY | MSG_ACCEPTED | AUTH_NONE verifier | SUCCESS | opaque<> of 8 bytes | one more word
        ByteBuf reply = Rpc.ints(0x42, 1, 0, 0, 0, 0, 8, 0x01020304, 0x05060708, 0xCAFE);
        int length = reply.readableBytes();
        slot.setBytes(HEADER_AREA, reply, 0, length);
        reply.release();
        bytes.loadInSlot(length);
        RpcRdmaHeader call = new RpcRdmaHeader().xid(0x42).beginWriteChunk().addWriteSegment(5, 4096, 0x9000);
        ReplyMarshaler marshaler = new ReplyMarshaler(new RpcRdmaHeader(), slot, LKEY, IOVA, HEADER_AREA, 2);

        assertThat(marshaler.marshal(call, bytes, OPAQUE_THEN_WORD, 1, 1, 1024, 32, false))
                .isEqualTo(ReplyMarshaler.Kind.INLINE);

        assertThat(marshaler.writeChunkBytes()).isEqualTo(8);
        SgeList send = marshaler.sendSges();
        assertThat(send.count()).as("SGEs of the Send").isEqualTo(2);
        // the header and the reply's head (its RPC header and the result's length word) in one, then the tail
        int head = 28;
        assertThat(send.address(0) + send.length(0)).isEqualTo(IOVA + HEADER_AREA + head);
        assertThat(send.address(1)).isEqualTo(IOVA + HEADER_AREA + head + 8);
        assertThat(send.length(1)).isEqualTo(4);
        assertThat(slot.getInt(HEADER_AREA + head + 8)).isEqualTo(0xCAFE);
        slot.release();
    }
}

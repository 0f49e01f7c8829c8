package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * A header keeps its chunk lists as a wire image of its own: decoded values must not depend on the receive buffer
 * after the call, a reused header must not show a previous message's segments, and builder calls in any order must
 * give the bytes a header built in wire order gives.
 */
class RpcRdmaWireImageTest {

    private static RpcRdmaHeader twelveSegments() {
        return new RpcRdmaHeader().xid(0x1234).credits(128)
                .addReadSegment(132, 0x1001, 4096, 0x7f0000001000L).addReadSegment(132, 0x1002, 4096, 0x7f0000002000L)
                .addReadSegment(260, 0x1003, 1000, 0x7f0000003000L)
                .beginWriteChunk().addWriteSegment(0x2001, 4096, 0x7f0000010000L)
                .addWriteSegment(0x2002, 4096, 0x7f0000011000L).addWriteSegment(0x2003, 4096, 0x7f0000012000L)
                .beginWriteChunk().addWriteSegment(0x3001, 4096, 0x7f0000020000L)
                .addWriteSegment(0x3002, 4096, 0x7f0000021000L).addWriteSegment(0x3003, 4096, 0x7f0000022000L)
                .beginReplyChunk().addReplySegment(0x4001, 4096, 0x7f0000030000L)
                .addReplySegment(0x4002, 4096, 0x7f0000031000L).addReplySegment(0x4003, 4096, 0x7f0000032000L);
    }

    private static byte[] encoded(RpcRdmaHeader header) {
        ByteBuf out = Unpooled.buffer();
        RpcRdmaEncoder.encode(out, header);
        return ByteBufUtil.getBytes(out);
    }

    private static RpcRdmaHeader decode(byte[] bytes, RpcRdmaHeader into) throws RpcRdmaDecodeException {
        RpcRdmaDecoder.decode(Unpooled.wrappedBuffer(bytes), into);
        return into;
    }

    @Test
    void decodedValuesOutliveTheReceiveBuffer() throws Exception {
        RpcRdmaHeader sent = twelveSegments();
        byte[] wire = encoded(sent);
        ByteBuf receive = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        receive.writeBytes(wire).writeBytes(new byte[100]); // an RPC message follows the header
        RpcRdmaHeader received = new RpcRdmaHeader();

        assertThat(RpcRdmaDecoder.decodeAt(receive, 0, receive.writerIndex(), received)).isEqualTo(wire.length);
        // the receive buffer is reposted and overwritten, then released
        receive.setZero(0, receive.capacity());
        receive.setBytes(0, new byte[wire.length]);
        receive.release();

        assertThat(received.contentEquals(sent)).isTrue();
        assertThat(received.toString()).isEqualTo(sent.toString());
        assertThat(received.readHandle(2)).isEqualTo(0x1003);
        assertThat(received.readPosition(2)).isEqualTo(260);
        assertThat(received.readOffset(1)).isEqualTo(0x7f0000002000L);
        assertThat(received.readChunkCount()).isEqualTo(2);
        assertThat(received.readChunkLength(0)).isEqualTo(8192);
        assertThat(received.writeHandle(1, 2)).isEqualTo(0x3003);
        assertThat(received.writeOffset(1, 0)).isEqualTo(0x7f0000020000L);
        assertThat(received.writeChunkLength(0)).isEqualTo(3 * 4096);
        assertThat(received.replyLength(1)).isEqualTo(4096);
        assertThat(received.replyOffset(2)).isEqualTo(0x7f0000032000L);
        assertThat(received.soleHandle()).isEqualTo(-1);
        assertThat(encoded(received)).isEqualTo(wire);
    }

    @Test
    void aReusedHeaderShowsOnlyTheLastMessage() throws Exception {
        RpcRdmaHeader big = twelveSegments();
        RpcRdmaHeader small = new RpcRdmaHeader().xid(7).credits(32).beginWriteChunk()
                .addWriteSegment(0x5001, 1 << 20, 0x100000L);
        RpcRdmaHeader replyOnly = new RpcRdmaHeader().xid(8).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .beginReplyChunk().addReplySegment(0x6001, 300, 0x200000L);
        RpcRdmaHeader error = new RpcRdmaHeader().xid(9).credits(1).errorVers(1, 1);
        RpcRdmaHeader empty = new RpcRdmaHeader().xid(10).credits(5);
        RpcRdmaHeader received = new RpcRdmaHeader();

        for (RpcRdmaHeader sent : new RpcRdmaHeader[] {big, small, error, big, replyOnly, empty, big, big}) {
            byte[] wire = encoded(sent);
            decode(wire, received);
            assertThat(received.contentEquals(sent)).as("%s", sent).isTrue();
            assertThat(received.toString()).isEqualTo(sent.toString());
            assertThat(received.totalSegmentCount()).isEqualTo(sent.totalSegmentCount());
            assertThat(encoded(received)).isEqualTo(wire);
        }
        decode(encoded(small), received);
        assertThat(received.soleHandle()).isEqualTo(0x5001);
        assertThat(received.readSegmentCount()).isZero();
        assertThat(received.hasReplyChunk()).isFalse();
    }

    @Test
    void builderCallsOutOfWireOrderGiveTheSameBytes() {
        RpcRdmaHeader inOrder = twelveSegments();
        // the Reply chunk first, then the Write list, then the Read list: every later call moves the lists after it
        RpcRdmaHeader outOfOrder = new RpcRdmaHeader().xid(0x1234).credits(128)
                .beginReplyChunk().addReplySegment(0x4001, 4096, 0x7f0000030000L)
                .beginWriteChunk().addWriteSegment(0x2001, 4096, 0x7f0000010000L)
                .addReplySegment(0x4002, 4096, 0x7f0000031000L)
                .addWriteSegment(0x2002, 4096, 0x7f0000011000L).addWriteSegment(0x2003, 4096, 0x7f0000012000L)
                .addReadSegment(132, 0x1001, 4096, 0x7f0000001000L)
                .beginWriteChunk().addWriteSegment(0x3001, 4096, 0x7f0000020000L)
                .addReadSegment(132, 0x1002, 4096, 0x7f0000002000L)
                .addWriteSegment(0x3002, 4096, 0x7f0000021000L).addWriteSegment(0x3003, 4096, 0x7f0000022000L)
                .addReplySegment(0x4003, 4096, 0x7f0000032000L)
                .addReadSegment(260, 0x1003, 1000, 0x7f0000003000L);

        assertThat(outOfOrder.contentEquals(inOrder)).isTrue();
        assertThat(encoded(outOfOrder)).isEqualTo(encoded(inOrder));
        assertThat(new RpcRdmaHeader().copyFrom(outOfOrder).contentEquals(inOrder)).isTrue();
        assertThat(encoded(new RpcRdmaHeader().copyFrom(outOfOrder))).isEqualTo(encoded(inOrder));
    }

    @Test
    void replacingTheWriteListMovesTheReplyChunk() throws Exception {
        RpcRdmaHeader call = decode(encoded(twelveSegments()), new RpcRdmaHeader());
        RpcRdmaHeader reply = new RpcRdmaHeader().xid(0x1234).credits(32)
                .addReadSegment(0, 0x99, 8, 0x10L)
                .beginWriteChunk().addWriteSegment(0x98, 1, 2)
                .beginReplyChunk().addReplySegment(0x97, 3, 4);

        reply.copyWriteListFrom(call).setWriteChunkBytesWritten(0, 5000).setWriteChunkBytesWritten(1, 0);

        RpcRdmaHeader expected = new RpcRdmaHeader().xid(0x1234).credits(32)
                .addReadSegment(0, 0x99, 8, 0x10L)
                .beginWriteChunk().addWriteSegment(0x2001, 4096, 0x7f0000010000L)
                .addWriteSegment(0x2002, 904, 0x7f0000011000L).addWriteSegment(0x2003, 0, 0x7f0000012000L)
                .beginWriteChunk().addWriteSegment(0x3001, 0, 0x7f0000020000L)
                .addWriteSegment(0x3002, 0, 0x7f0000021000L).addWriteSegment(0x3003, 0, 0x7f0000022000L)
                .beginReplyChunk().addReplySegment(0x97, 3, 4);
        assertThat(reply.toString()).isEqualTo(expected.toString());
        assertThat(encoded(reply)).isEqualTo(encoded(expected));
        // the call it was copied from is not changed
        assertThat(call.contentEquals(twelveSegments())).isTrue();

        // and back to a shorter Write list
        reply.copyWriteListFrom(new RpcRdmaHeader());
        assertThat(encoded(reply)).isEqualTo(encoded(new RpcRdmaHeader().xid(0x1234).credits(32)
                .addReadSegment(0, 0x99, 8, 0x10L).beginReplyChunk().addReplySegment(0x97, 3, 4)));
    }

    @Test
    void aDecodedHeaderCanBeChangedAndEncodedAgain() throws Exception {
        RpcRdmaHeader received = decode(encoded(twelveSegments()), new RpcRdmaHeader());

        received.setReplyChunkBytesWritten(5000).setWriteSegmentLength(1, 1, 17).xid(0x4321)
                .beginWriteChunk().addWriteSegment(0x7001, 1, 2)
                .addReadSegment(300, 0x1004, 8, 0x7f0000004000L);

        RpcRdmaHeader expected = twelveSegments().xid(0x4321).setReplyChunkBytesWritten(5000)
                .setWriteSegmentLength(1, 1, 17).beginWriteChunk().addWriteSegment(0x7001, 1, 2)
                .addReadSegment(300, 0x1004, 8, 0x7f0000004000L);
        assertThat(received.contentEquals(expected)).isTrue();
        assertThat(encoded(received)).isEqualTo(encoded(expected));
        assertThat(received.replyLength(0)).isEqualTo(4096);
        assertThat(received.replyLength(1)).isEqualTo(904);
        assertThat(received.replyLength(2)).isZero();
    }
}

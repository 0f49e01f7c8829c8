package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

class StreamLayoutTest {
    private final StreamLayout layout = new StreamLayout();

    /** The layout as text: I(offset,len) R(segment,offset,len) Z(len). */
    private List<String> extents() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < layout.extentCount(); i++) {
            switch (layout.kind(i)) {
                case StreamLayout.INLINE -> out.add("I" + layout.source(i) + "," + layout.length(i));
                case StreamLayout.REMOTE -> out.add("R" + layout.source(i) + "," + layout.segmentOffset(i) + ","
                        + layout.length(i));
                default -> out.add("Z" + layout.length(i));
            }
        }
        return out;
    }

    private static RpcRdmaHeader msg() {
        return new RpcRdmaHeader().xid(1).proc(RpcRdmaProc.RDMA_MSG);
    }

    @Test
    void inlineOnly() {
        assertThat(layout.layOutCall(msg(), 100, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("I0,100");
        assertThat(layout.needsRead()).isFalse();
        assertThat(layout.totalLength()).isEqualTo(100);
    }

    @Test
    void positionZeroChunkIsTheWholeCall() {
        RpcRdmaHeader h = new RpcRdmaHeader().proc(RpcRdmaProc.RDMA_NOMSG).addReadSegment(0, 5, 4096, 0)
                .addReadSegment(0, 6, 1000, 0);
        assertThat(layout.layOutCall(h, 0, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("R0,0,4096", "R1,0,1000");
        assertThat(layout.totalLength()).isEqualTo(5096);
        assertThat(layout.remoteBytes()).isEqualTo(5096);
        assertThat(layout.chunkCount()).isEqualTo(1);
    }

    @Test
    void dataItemChunkIsInsertedAtItsPositionWithPad() {
        RpcRdmaHeader h = msg().addReadSegment(44, 5, 10_001, 0);
        assertThat(layout.layOutCall(h, 60, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("I0,44", "R0,0,10001", "Z3", "I44,16");
        assertThat(layout.totalLength()).isEqualTo(60 + 10_004);
        // a chunk that carries its pad: no zeros added
        h = msg().addReadSegment(44, 5, 10_004, 0);
        assertThat(layout.layOutCall(h, 60, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("I0,44", "R0,0,10004", "I44,16");
    }

    @Test
    void dataItemInsidePositionZeroChunk() {
        // the base stream is the position-zero chunk (two segments of 30 and 70 bytes); the data item at 40
        RpcRdmaHeader h = new RpcRdmaHeader().proc(RpcRdmaProc.RDMA_NOMSG).addReadSegment(0, 1, 30, 0)
                .addReadSegment(0, 2, 70, 0).addReadSegment(40, 3, 6, 0);
        assertThat(layout.layOutCall(h, 0, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("R0,0,30", "R1,0,10", "R2,0,6", "Z2", "R1,10,60");
        assertThat(layout.totalLength()).isEqualTo(108);
        assertThat(layout.chunkCount()).isEqualTo(2);
    }

    @Test
    void malformedLayoutsAreRefused() {
        assertThat(layout.layOutCall(new RpcRdmaHeader().proc(RpcRdmaProc.RDMA_NOMSG), 0, 2, 1 << 20, 1 << 20))
                .contains("position-zero");
        assertThat(layout.layOutCall(msg().addReadSegment(0, 1, 10, 0), 40, 2, 1 << 20, 1 << 20))
                .contains("position-zero");
        assertThat(layout.layOutCall(msg().addReadSegment(48, 1, 10, 0), 44, 2, 1 << 20, 1 << 20)).contains("beyond");
        // the second item's position falls inside the first item's bytes
        assertThat(layout.layOutCall(msg().addReadSegment(8, 1, 100, 0).addReadSegment(12, 2, 4, 0), 40, 2, 1 << 20,
                1 << 20)).contains("overlaps");
        assertThat(layout.layOutCall(msg().addReadSegment(4, 1, 4, 0).addReadSegment(8, 1, 4, 0)
                .addReadSegment(12, 1, 4, 0), 40, 2, 1 << 20, 1 << 20)).contains("3 read chunks");
        assertThat(layout.layOutCall(msg().addReadSegment(4, 1, 600, 0).addReadSegment(4, 1, 600, 0), 40, 2, 1000,
                1 << 20)).contains("1200 bytes");
        assertThat(layout.layOutCall(msg().addReadSegment(4, 1, -1, 0), 40, 2, Long.MAX_VALUE, 1 << 20))
                .contains("exceeds");
        assertThat(layout.layOutCall(msg(), 100, 2, 1 << 20, 99)).contains("exceeds");
    }

    @Test
    void zeroLengthSegmentsAddNothing() {
        RpcRdmaHeader h = msg().addReadSegment(4, 1, 0, 0).addReadSegment(4, 2, 8, 0);
        assertThat(layout.layOutCall(h, 8, 2, 1 << 20, 1 << 20)).isNull();
        assertThat(extents()).containsExactly("I0,4", "R1,0,8", "I4,4");
    }

    @Test
    void replyWithItsWriteChunkBytesPutBackAtTheItemsPlace() {
        // reduced reply: 12 bytes of header, the item's length word (5), then 8 bytes of tail; 5 bytes were placed
        ByteBuf inline = Unpooled.buffer().writeInt(1).writeInt(2).writeInt(3).writeInt(5).writeInt(7).writeInt(8);
        ByteBuf chunk = Unpooled.buffer().writeZero(3).writeBytes(new byte[] {10, 11, 12, 13, 14}).writeZero(9);
        layout.layOutReply(24, 16, 5);
        assertThat(extents()).containsExactly("I0,16", "R0,0,5", "Z3", "I16,8");
        assertThat(layout.totalLength()).isEqualTo(32);
        assertThat(layout.remoteBytes()).isEqualTo(5);
        ByteBuf target = Unpooled.buffer(4);
        layout.appendTo(target, inline, 0, chunk, 3);
        ByteBuf expected = Unpooled.buffer().writeInt(1).writeInt(2).writeInt(3).writeInt(5)
                .writeBytes(new byte[] {10, 11, 12, 13, 14, 0, 0, 0}).writeInt(7).writeInt(8);
        assertThat(ByteBufUtil.getBytes(target)).isEqualTo(ByteBufUtil.getBytes(expected));
        assertThat(inline.readerIndex()).isZero();
        assertThat(chunk.readerIndex()).isZero();
    }

    @Test
    void replyWithoutPlacedBytesIsTheInlinePartAlone() {
        layout.layOutReply(24, 24, 0);
        assertThat(extents()).containsExactly("I0,24");
        assertThat(layout.needsRead()).isFalse();
        assertThatThrownBy(() -> layout.layOutReply(24, 28, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

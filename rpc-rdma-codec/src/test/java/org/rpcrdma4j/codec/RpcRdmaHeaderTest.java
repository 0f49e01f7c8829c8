package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Builder rules, the marshalers' queries, the responder's Write list echo, and the encoder's refusals. */
class RpcRdmaHeaderTest {

    @Test
    void clearResetsToAnEmptyVersionOneMessage() {
        RpcRdmaHeader h = Vectors.ALL_LISTS.header.get().vers(7).errorChunk().clear();

        assertThat(h.contentEquals(new RpcRdmaHeader())).isTrue();
        assertThat(h.vers()).isEqualTo(1);
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(h.errorCode()).isNull();
        assertThat(RpcRdmaEncoder.encodedLength(h)).isEqualTo(RpcRdmaLayout.MIN_HEADER_LENGTH);
    }

    @Test
    void builderRefusesWhatTheDecoderRefuses() {
        RpcRdmaHeader h = new RpcRdmaHeader().addReadSegment(8, 1, 1, 0);

        assertThatThrownBy(() -> h.addReadSegment(6, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multiple of 4");
        assertThatThrownBy(() -> h.addReadSegment(4, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below the previous");
        assertThatThrownBy(() -> new RpcRdmaHeader().addWriteSegment(1, 1, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("beginWriteChunk");
        assertThatThrownBy(() -> new RpcRdmaHeader().addReplySegment(1, 1, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("beginReplyChunk");
        assertThatThrownBy(() -> new RpcRdmaHeader().error(RpcRdmaErrorCode.UNKNOWN, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader().proc(null)).isInstanceOf(NullPointerException.class);
        // an unsigned position above 2^31 is larger, not smaller
        assertThat(new RpcRdmaHeader().addReadSegment(4, 1, 1, 0).addReadSegment(0x80000000, 1, 1, 0)
                .readChunkCount()).isEqualTo(2);
    }

    @Test
    void builderEnforcesTheLimits() {
        RpcRdmaHeader h = new RpcRdmaHeader(new RpcRdmaLimits(2, 1, 2, 5));

        h.addReadSegment(0, 1, 1, 0).addReadSegment(4, 2, 1, 0);
        assertThatThrownBy(() -> h.addReadSegment(8, 3, 1, 0)).isInstanceOf(IllegalStateException.class);
        h.beginWriteChunk().addWriteSegment(1, 1, 1).addWriteSegment(2, 1, 1);
        assertThatThrownBy(() -> h.addWriteSegment(3, 1, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(h::beginWriteChunk).isInstanceOf(IllegalStateException.class);
        h.beginReplyChunk().addReplySegment(1, 1, 1);
        assertThatThrownBy(() -> h.addReplySegment(2, 1, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("5 segments");
        RpcRdmaHeader sameChunk = new RpcRdmaHeader(new RpcRdmaLimits(10, 1, 2, 10))
                .addReadSegment(0, 1, 1, 0).addReadSegment(0, 2, 1, 0);
        assertThatThrownBy(() -> sameChunk.addReadSegment(0, 3, 1, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new RpcRdmaLimits(0, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void arraysGrowOnlyUpToTheLimit() {
        RpcRdmaHeader h = new RpcRdmaHeader(RpcRdmaLimits.DEFAULT.withMaxSegmentsPerChunk(100).withMaxWriteChunks(1));
        h.beginWriteChunk();
        for (int i = 0; i < 100; i++) {
            h.addWriteSegment(i, i, i);
        }

        // the wire image stops doubling at the largest header the limits allow
        RpcRdmaLimits limits = h.limits();
        int largest = 16 + 24 * Math.min(limits.maxReadSegments(), limits.maxSegments()) + 4
                + 8 * limits.maxWriteChunks() + 16 * 100 + 4 + 8 + 16 * 100;
        assertThat(h.wire().capacity()).isBetween(RpcRdmaEncoder.encodedLength(h), largest);
        assertThat(h.writeSegmentCount(0)).isEqualTo(100);
        assertThat(h.writeHandle(0, 99)).isEqualTo(99);
    }

    @Test
    void responderEchoesTheWriteListWithTheLengthsWritten() {
        RpcRdmaHeader call = Vectors.TWO_WRITE_CHUNKS.header.get();
        RpcRdmaHeader reply = new RpcRdmaHeader().xid(call.xid()).credits(32).copyWriteListFrom(call);

        assertThat(reply.writeChunkCount()).isEqualTo(2);
        assertThat(reply.writeChunkLength(0)).isEqualTo(call.writeChunkLength(0));

        reply.setWriteChunkBytesWritten(0, 0x1000 + 0x388).setWriteChunkBytesWritten(1, 0);
        assertThat(reply.writeLength(0, 0)).isEqualTo(0x1000);
        assertThat(reply.writeLength(0, 1)).isEqualTo(0x388);
        assertThat(reply.writeLength(0, 2)).isZero();
        assertThat(reply.writeSegmentCount(1)).isEqualTo(2);
        assertThat(reply.writeChunkLength(1)).isZero();
        for (int c = 0; c < 2; c++) {
            for (int s = 0; s < call.writeSegmentCount(c); s++) {
                assertThat(reply.writeHandle(c, s)).isEqualTo(call.writeHandle(c, s));
                assertThat(reply.writeOffset(c, s)).isEqualTo(call.writeOffset(c, s));
            }
        }
        assertThat(call.writeLength(0, 1)).as("the call is not changed").isEqualTo(0x1000);
        assertThat(Hex.hex(Hex.encode(reply))).isEqualTo(Hex.hex(Vectors.WRITE_LIST_ECHO.bytes()));

        reply.setWriteSegmentLength(1, 1, 7);
        assertThat(reply.writeLength(1, 1)).isEqualTo(7);
        assertThatThrownBy(() -> reply.setWriteChunkBytesWritten(0, 0x2801))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> reply.setWriteSegmentLength(1, 2, 7)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> reply.setWriteChunkBytesWritten(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void responderEchoesTheReplyChunk() {
        RpcRdmaHeader call = Vectors.REPLY_CHUNK.header.get();
        RpcRdmaHeader reply = new RpcRdmaHeader().proc(RpcRdmaProc.RDMA_NOMSG).copyReplyChunkFrom(call)
                .setReplyChunkBytesWritten(0x2100);

        assertThat(reply.hasReplyChunk()).isTrue();
        assertThat(reply.replyLength(0)).isEqualTo(0x2000);
        assertThat(reply.replyLength(1)).isEqualTo(0x100);
        assertThat(reply.replyOffset(1)).isEqualTo(call.replyOffset(1));
        reply.setReplySegmentLength(1, 5);
        assertThat(reply.replyChunkLength()).isEqualTo(0x2005);
        assertThatThrownBy(() -> reply.setReplyChunkBytesWritten(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new RpcRdmaHeader().beginReplyChunk().copyReplyChunkFrom(new RpcRdmaHeader()).hasReplyChunk())
                .isFalse();
    }

    @Test
    void copyWriteListRefusesWhatDoesNotFitTheLimits() {
        RpcRdmaHeader call = Vectors.TWO_WRITE_CHUNKS.header.get();

        assertThatThrownBy(() -> new RpcRdmaHeader(RpcRdmaLimits.DEFAULT.withMaxWriteChunks(1)).copyWriteListFrom(call))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(RpcRdmaLimits.DEFAULT.withMaxSegmentsPerChunk(2))
                .copyWriteListFrom(call)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void soleHandleIsTheRemoteInvalidationCandidate() {
        assertThat(new RpcRdmaHeader().soleHandle()).isEqualTo(-1);
        assertThat(new RpcRdmaHeader().beginWriteChunk().addWriteSegment(0xfffffff0, 1, 0).addWriteSegment(0xfffffff0, 1, 9)
                .beginReplyChunk().addReplySegment(0xfffffff0, 1, 20).soleHandle()).isEqualTo(0xfffffff0L);
        assertThat(new RpcRdmaHeader().addReadSegment(0, 5, 1, 0).beginReplyChunk().addReplySegment(6, 1, 0)
                .soleHandle()).isEqualTo(-1);
        assertThat(new RpcRdmaHeader().beginWriteChunk().addWriteSegment(5, 1, 0).addWriteSegment(6, 1, 0)
                .soleHandle()).isEqualTo(-1);
    }

    @Test
    void errorTurnsTheHeaderIntoAnErrorAndDropsTheLists() {
        RpcRdmaHeader h = Vectors.ALL_LISTS.header.get().errorVers(1, 2);

        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_ERROR);
        assertThat(h.totalSegmentCount()).isZero();
        assertThat(h.hasReplyChunk()).isFalse();
        assertThat(RpcRdmaEncoder.encodedLength(h)).isEqualTo(28);
        assertThat(h.toString()).contains("ERR_VERS low=1 high=2");
    }

    @Test
    void encoderRefusesInconsistentErrorHeaders() {
        RpcRdmaHeader withLists = new RpcRdmaHeader().errorChunk().beginWriteChunk();
        RpcRdmaHeader withoutCode = new RpcRdmaHeader().proc(RpcRdmaProc.RDMA_ERROR);

        assertThatThrownBy(() -> RpcRdmaEncoder.encodedLength(withLists)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no chunk lists");
        assertThatThrownBy(() -> RpcRdmaEncoder.encodedLength(withoutCode)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RpcRdmaEncoder.encodeError(Unpooled.buffer(), 1, 1, RpcRdmaErrorCode.UNKNOWN, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void encodeIntoABufferThatCannotGrowWritesNothing() {
        RpcRdmaHeader h = Vectors.TWO_WRITE_CHUNKS.header.get();
        ByteBuf small = Unpooled.buffer(64, 64).writeInt(0xabcdabcd);

        assertThatThrownBy(() -> RpcRdmaEncoder.encode(small, h)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RpcRdmaEncoder.encodeErrVers(Unpooled.buffer(27, 27), 1, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);

        assertThat(small.writerIndex()).isEqualTo(4);
        assertThat(small.getInt(4)).isZero();
        small.release();
    }

    @Test
    void encodeAppendsAtTheWriterIndex() {
        ByteBuf out = Unpooled.buffer().writeInt(0x01020304);

        int written = RpcRdmaEncoder.encode(out, Vectors.NOMSG_POSITION_ZERO.header.get());

        assertThat(written).isEqualTo(52);
        assertThat(out.writerIndex()).isEqualTo(56);
        assertThat(Hex.hex(out.slice(4, 52))).isEqualTo(Hex.hex(Vectors.NOMSG_POSITION_ZERO.bytes()));
        out.release();
    }

    @Test
    void copyFromCopiesEverything() {
        for (Vectors.Vector v : Vectors.valid()) {
            RpcRdmaHeader copy = new RpcRdmaHeader().addReadSegment(0, 9, 9, 9).copyFrom(v.header.get());
            assertThat(copy.contentEquals(v.header.get())).as(v.name).isTrue();
            assertThat(Hex.hex(Hex.encode(copy))).as(v.name).isEqualTo(Hex.hex(v.bytes()));
        }
    }

    @Test
    void contentEqualsSeesEveryField() {
        RpcRdmaHeader base = Vectors.ALL_LISTS.header.get();

        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get())).isTrue();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().xid(13))).isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().credits(17))).isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().proc(RpcRdmaProc.RDMA_NOMSG))).isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().addReadSegment(8, 0x11, 0x100, 0x1000L)))
                .isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().setWriteSegmentLength(0, 0, 1))).isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().setReplySegmentLength(0, 1))).isFalse();
        assertThat(base.contentEquals(Vectors.ALL_LISTS.header.get().beginWriteChunk())).isFalse();
        // same segments, split differently between Write chunks
        RpcRdmaHeader oneChunk = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(1, 1, 1).addWriteSegment(2, 2, 2);
        RpcRdmaHeader twoChunks = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(1, 1, 1)
                .beginWriteChunk().addWriteSegment(2, 2, 2);
        assertThat(oneChunk.contentEquals(twoChunks)).isFalse();
    }

    @Test
    void procAndErrorCodeLookups() {
        for (RpcRdmaProc proc : RpcRdmaProc.values()) {
            assertThat(RpcRdmaProc.forValue(proc.value())).isSameAs(proc);
        }
        assertThat(RpcRdmaProc.RDMA_MSG.value()).isZero();
        assertThat(RpcRdmaProc.RDMA_NOMSG.value()).isEqualTo(1);
        assertThat(RpcRdmaProc.RDMA_MSGP.value()).isEqualTo(2);
        assertThat(RpcRdmaProc.RDMA_DONE.value()).isEqualTo(3);
        assertThat(RpcRdmaProc.RDMA_ERROR.value()).isEqualTo(4);
        assertThat(RpcRdmaProc.forValue(5)).isNull();
        assertThat(RpcRdmaProc.forValue(-1)).isNull();
        assertThat(RpcRdmaErrorCode.forValue(1)).isEqualTo(RpcRdmaErrorCode.ERR_VERS);
        assertThat(RpcRdmaErrorCode.forValue(2)).isEqualTo(RpcRdmaErrorCode.ERR_CHUNK);
        assertThat(RpcRdmaErrorCode.forValue(0)).isEqualTo(RpcRdmaErrorCode.UNKNOWN);
        assertThat(RpcRdmaErrorCode.forValue(-1)).isEqualTo(RpcRdmaErrorCode.UNKNOWN);
    }
}

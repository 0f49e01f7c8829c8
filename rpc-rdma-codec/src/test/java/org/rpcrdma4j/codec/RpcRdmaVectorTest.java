package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Byte-exact vectors written by hand from the RFC 8166 XDR: every one is both encoded and decoded. */
class RpcRdmaVectorTest {

    static List<Vectors.Vector> vectors() {
        return Vectors.valid();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void builderEncodesToTheHandWrittenBytes(Vectors.Vector vector) {
        RpcRdmaHeader header = vector.header.get();

        assertThat(Hex.hex(Hex.encode(header))).isEqualTo(Hex.hex(vector.bytes()));
        assertThat(RpcRdmaEncoder.encodedLength(header)).isEqualTo(vector.bytes().length);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void handWrittenBytesDecodeToTheBuilderHeader(Vectors.Vector vector) throws Exception {
        byte[] message = Hex.bytes("deadbeef 0000000a"); // whatever follows the header must stay unread
        byte[] bytes = vector.bytes();
        ByteBuf in = Unpooled.wrappedBuffer(bytes, message);
        RpcRdmaHeader decoded = new RpcRdmaHeader();

        int length = RpcRdmaDecoder.decode(in, decoded);

        assertThat(length).isEqualTo(bytes.length);
        assertThat(in.readerIndex()).isEqualTo(bytes.length);
        assertThat(in.readInt()).isEqualTo(0xdeadbeef);
        assertThat(decoded.contentEquals(vector.header.get()))
                .as("decoded %s%n expected %s", decoded, vector.header.get()).isTrue();
        in.release();
    }

    @Test
    void msgWithoutChunks() throws Exception {
        RpcRdmaHeader h = decode(Vectors.MSG_NO_CHUNKS);

        assertThat(h.xid()).isEqualTo(0x12345678);
        assertThat(h.vers()).isEqualTo(1);
        assertThat(h.credits()).isEqualTo(32);
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(h.readSegmentCount()).isZero();
        assertThat(h.writeChunkCount()).isZero();
        assertThat(h.hasReplyChunk()).isFalse();
        assertThat(h.errorCode()).isNull();
        assertThat(Vectors.MSG_NO_CHUNKS.bytes()).hasSize(RpcRdmaLayout.MIN_HEADER_LENGTH);
    }

    @Test
    void positionZeroReadChunk() throws Exception {
        RpcRdmaHeader h = decode(Vectors.NOMSG_POSITION_ZERO);

        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
        assertThat(h.hasPositionZeroReadChunk()).isTrue();
        assertThat(h.readChunkCount()).isEqualTo(1);
        assertThat(h.readPosition(0)).isZero();
        assertThat(h.readHandle(0)).isEqualTo(0x1234);
        assertThat(h.readLengthUnsigned(0)).isEqualTo(148);
        assertThat(h.readOffset(0)).isEqualTo(0x00007f00deadbe00L);
        assertThat(h.soleHandle()).isEqualTo(0x1234);
    }

    @Test
    void readSegmentsAtTwoPositionsFormTwoChunks() throws Exception {
        RpcRdmaHeader h = decode(Vectors.READ_TWO_POSITIONS);

        assertThat(h.readSegmentCount()).isEqualTo(3);
        assertThat(h.readChunkCount()).isEqualTo(2);
        assertThat(h.readChunkPosition(0)).isEqualTo(132);
        assertThat(h.readChunkFirstSegment(0)).isZero();
        assertThat(h.readChunkSegmentCount(0)).isEqualTo(2);
        assertThat(h.readChunkLength(0)).isEqualTo(6144);
        assertThat(h.readChunkPosition(1)).isEqualTo(256);
        assertThat(h.readChunkFirstSegment(1)).isEqualTo(2);
        assertThat(h.readChunkSegmentCount(1)).isEqualTo(1);
        assertThat(h.readChunkLength(1)).isEqualTo(3);
        assertThat(h.findReadChunk(256)).isEqualTo(1);
        assertThat(h.findReadChunk(4)).isEqualTo(-1);
        assertThat(h.hasPositionZeroReadChunk()).isFalse();
        assertThat(h.soleHandle()).isEqualTo(-1);
    }

    @Test
    void twoWriteChunks() throws Exception {
        RpcRdmaHeader h = decode(Vectors.TWO_WRITE_CHUNKS);

        assertThat(h.writeChunkCount()).isEqualTo(2);
        assertThat(h.writeSegmentCount(0)).isEqualTo(3);
        assertThat(h.writeSegmentCount(1)).isEqualTo(2);
        assertThat(h.totalWriteSegmentCount()).isEqualTo(5);
        assertThat(h.writeHandle(0, 2)).isEqualTo(0x103);
        assertThat(h.writeLength(0, 2)).isEqualTo(0x800);
        assertThat(h.writeOffset(0, 2)).isEqualTo(0x12000L);
        assertThat(h.writeHandle(1, 0)).isEqualTo(0x201);
        assertThat(h.writeOffset(1, 0)).isEqualTo(0xfffffffffffff000L);
        assertThat(h.writeChunkLength(0)).isEqualTo(0x2800);
        assertThat(h.writeChunkLength(1)).isEqualTo(0x400);
    }

    @Test
    void replyChunkAndReadList() throws Exception {
        RpcRdmaHeader h = decode(Vectors.READ_AND_REPLY);

        assertThat(h.readChunkCount()).isEqualTo(1);
        assertThat(h.writeChunkCount()).isZero();
        assertThat(h.hasReplyChunk()).isTrue();
        assertThat(h.replySegmentCount()).isEqualTo(1);
        assertThat(h.replyHandle(0)).isEqualTo(0xd002);
        assertThat(h.replyChunkLength()).isEqualTo(0x1000);
        assertThat(h.totalSegmentCount()).isEqualTo(2);

        RpcRdmaHeader reply = decode(Vectors.REPLY_CHUNK);
        assertThat(reply.replySegmentCount()).isEqualTo(2);
        assertThat(reply.replyOffset(1)).isEqualTo(0x100002000L);
        assertThat(reply.replyChunkLength()).isEqualTo(0x3000);
    }

    @Test
    void errVersIsTwentyEightBytesLowThenHigh() throws Exception {
        RpcRdmaHeader h = decode(Vectors.ERR_VERS);

        assertThat(Vectors.ERR_VERS.bytes()).hasSize(RpcRdmaLayout.ERR_VERS_LENGTH).hasSize(28);
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_ERROR);
        assertThat(h.errorCode()).isEqualTo(RpcRdmaErrorCode.ERR_VERS);
        assertThat(h.errorVersLow()).isEqualTo(1);
        assertThat(h.errorVersHigh()).isEqualTo(1);

        RpcRdmaHeader v2 = decode(Vectors.ERR_VERS_FROM_V2);
        assertThat(v2.vers()).isEqualTo(2);
        assertThat(v2.errorVersLow()).isEqualTo(1);
        assertThat(v2.errorVersHigh()).isEqualTo(2);
    }

    @Test
    void errChunkIsTwentyBytes() throws Exception {
        RpcRdmaHeader h = decode(Vectors.ERR_CHUNK);

        assertThat(Vectors.ERR_CHUNK.bytes()).hasSize(RpcRdmaLayout.ERR_CHUNK_LENGTH).hasSize(20);
        assertThat(h.errorCode()).isEqualTo(RpcRdmaErrorCode.ERR_CHUNK);
        assertThat(h.errorVersLow()).isZero();
    }

    @Test
    void errorRepliesWithoutAHeaderObject() {
        ByteBuf out = Unpooled.buffer();

        assertThat(RpcRdmaEncoder.encodeErrVers(out, 5, 32)).isEqualTo(28);
        assertThat(RpcRdmaEncoder.encodeErrChunk(out, 6, 32)).isEqualTo(20);

        assertThat(Hex.hex(out)).isEqualTo(Hex.hex(Vectors.ERR_VERS.bytes()) + Hex.hex(Vectors.ERR_CHUNK.bytes()));
        out.release();
    }

    @Test
    void unsignedExtremesRoundTrip() throws Exception {
        RpcRdmaHeader h = decode(Vectors.UNSIGNED_EXTREMES);

        assertThat(Integer.toUnsignedLong(h.xid())).isEqualTo(4294967295L);
        assertThat(Integer.toUnsignedLong(h.credits())).isEqualTo(4294967295L);
        assertThat(Integer.toUnsignedLong(h.readPosition(0))).isEqualTo(4294967292L);
        assertThat(h.readLengthUnsigned(0)).isEqualTo(4294967295L);
        assertThat(h.readChunkLength(0)).isEqualTo(4294967295L);
        assertThat(h.readOffset(0)).isEqualTo(0x8000000000000001L);
        assertThat(Integer.toUnsignedLong(h.writeHandle(0, 0))).isEqualTo(0x80000000L);
        assertThat(h.writeLengthUnsigned(0, 0)).isEqualTo(4294967295L);
        assertThat(h.writeOffset(0, 0)).isEqualTo(-1L);
        assertThat(h.toString()).contains("len=4294967295", "pos=4294967292", "h=0xffffffff", "h=0x80000000",
                "off=0x8000000000000001", "credits=4294967295");
    }

    @Test
    void emptyWriteChunkHasCountZero() throws Exception {
        RpcRdmaHeader h = decode(Vectors.EMPTY_WRITE_CHUNK);

        assertThat(h.writeChunkCount()).isEqualTo(1);
        assertThat(h.writeSegmentCount(0)).isZero();
        assertThat(h.writeChunkLength(0)).isZero();

        RpcRdmaHeader r = decode(Vectors.EMPTY_REPLY_CHUNK);
        assertThat(r.hasReplyChunk()).isTrue();
        assertThat(r.replySegmentCount()).isZero();
    }

    @Test
    void rdmaMsgpIsRecognisedAndRefusedBothWays() {
        byte[] msgp = Hex.bytes("00000007 00000001 00000020 00000002 | 00000000 00000000 | 00000000 00000000 00000000");

        RpcRdmaDecodeException e = decodeFailure(msgp);

        assertThat(e.reason()).isEqualTo(RpcRdmaDecodeException.Reason.UNSUPPORTED_PROC);
        assertThat(e.response()).isEqualTo(RpcRdmaDecodeException.Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(7);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.PROC_OFFSET);
        assertThat(e.getMessage()).contains("RDMA_MSGP");
        assertThatThrownBy(() -> Hex.encode(new RpcRdmaHeader().xid(7).proc(RpcRdmaProc.RDMA_MSGP)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RDMA_MSGP");
    }

    @Test
    void rdmaDoneIsRecognisedAndRefusedBothWays() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000008 00000001 00000020 00000003"));

        assertThat(e.reason()).isEqualTo(RpcRdmaDecodeException.Reason.UNSUPPORTED_PROC);
        assertThat(e.response()).isEqualTo(RpcRdmaDecodeException.Response.DROP);
        assertThat(e.hasXid()).isTrue();
        assertThat(e.xid()).isEqualTo(8);
        assertThat(e.getMessage()).contains("RDMA_DONE");
        assertThatThrownBy(() -> Hex.encode(new RpcRdmaHeader().xid(8).proc(RpcRdmaProc.RDMA_DONE)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RDMA_DONE");
    }

    @Test
    void flyweightReadersPeekWithoutMovingIndices() {
        ByteBuf in = Unpooled.wrappedBuffer(Hex.bytes("ffff"), Vectors.ERR_VERS.bytes());

        assertThat(RpcRdmaLayout.xid(in, 2)).isEqualTo(5);
        assertThat(RpcRdmaLayout.vers(in, 2)).isEqualTo(1);
        assertThat(RpcRdmaLayout.credits(in, 2)).isEqualTo(32);
        assertThat(RpcRdmaProc.forValue(RpcRdmaLayout.procValue(in, 2))).isEqualTo(RpcRdmaProc.RDMA_ERROR);
        assertThat(RpcRdmaLayout.hasXid(in, 2)).isTrue();
        assertThat(RpcRdmaLayout.hasXid(in, 26)).isTrue();
        assertThat(RpcRdmaLayout.hasXid(in, 27)).isFalse();
        assertThat(in.readerIndex()).isZero();
        in.release();
    }

    @Test
    void decodeAtReadsAtAnAbsoluteIndexWithoutMovingIndices() throws Exception {
        byte[] bytes = Vectors.TWO_WRITE_CHUNKS.bytes();
        ByteBuf in = Unpooled.wrappedBuffer(Hex.bytes("0102030405"), bytes);
        RpcRdmaHeader h = new RpcRdmaHeader();

        assertThat(RpcRdmaDecoder.decodeAt(in, 5, bytes.length, h)).isEqualTo(bytes.length);
        assertThat(h.contentEquals(Vectors.TWO_WRITE_CHUNKS.header.get())).isTrue();
        assertThat(in.readerIndex()).isZero();
        assertThatThrownBy(() -> RpcRdmaDecoder.decodeAt(in, 5, bytes.length + 1, h))
                .isInstanceOf(IndexOutOfBoundsException.class);
        in.release();
    }

    @Test
    void encodeAtWritesAtAnAbsoluteIndexWithoutMovingIndices() {
        ByteBuf out = Unpooled.buffer(64, 64);
        RpcRdmaHeader h = Vectors.ERR_VERS.header.get();

        assertThat(RpcRdmaEncoder.encodeAt(out, 4, h)).isEqualTo(28);

        assertThat(out.writerIndex()).isZero();
        assertThat(Hex.hex(out.slice(4, 28))).isEqualTo(Hex.hex(Vectors.ERR_VERS.bytes()));
        assertThatThrownBy(() -> RpcRdmaEncoder.encodeAt(out, 37, h)).isInstanceOf(IndexOutOfBoundsException.class);
        out.release();
    }

    private static RpcRdmaHeader decode(Vectors.Vector vector) throws RpcRdmaDecodeException {
        RpcRdmaHeader header = new RpcRdmaHeader();
        RpcRdmaDecoder.decode(Hex.buffer(vector.bytes()), header);
        return header;
    }

    static RpcRdmaDecodeException decodeFailure(byte[] bytes) {
        ByteBuf in = Hex.buffer(bytes);
        RpcRdmaDecodeException e = catchThrowableOfType(RpcRdmaDecodeException.class,
                () -> RpcRdmaDecoder.decode(in, new RpcRdmaHeader()));
        assertThat(e).as("decoding %s must fail", Hex.hex(bytes)).isNotNull();
        assertThat(in.readerIndex()).as("reader index after a failure").isZero();
        return e;
    }
}

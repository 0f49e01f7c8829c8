package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;

/** The server against a raw requester: what each kind of call gets back, byte by byte. */
@Timeout(120)
class ServerWireTest extends ServerFixture {
    // subclasses run every test again on devices with fewer capabilities

    @Test
    void nullCallInline() throws Exception {
        RawClient c = client(false);
        c.send(RawClient.header().xid(0x11).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x11, EchoProgram.NULL, null));
        RawClient.Received r = c.receive();
        RpcRdmaHeader h = r.header();
        assertThat(h.xid()).isEqualTo(0x11);
        assertThat(h.vers()).isEqualTo(1);
        assertThat(h.credits()).isEqualTo(128);
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(h.totalSegmentCount()).isZero();
        assertThat(h.writeChunkCount()).isZero();
        assertThat(h.hasReplyChunk()).isFalse();
        Rpc.assertBytes(r.message(), Rpc.successHeader(0x11));
        assertThat(r.withInvalidate()).isFalse();
        r.bytes().release();
    }

    @Test
    void echoInline() throws Exception {
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(1001, 7);
        c.send(RawClient.header().xid(0x12).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x12, EchoProgram.ECHO, Rpc.opaque(data)));
        RawClient.Received r = c.receive();
        ByteBuf message = r.message();
        Rpc.assertBytes(message, Rpc.concat(Rpc.successHeader(0x12), Rpc.opaque(data)));
        r.bytes().release();
    }

    /** A call as bytes in client memory the server may read. */
    private static RawClient.Chunk inMemory(RawClient c, ByteBuf bytes) throws Exception {
        RawClient.Chunk chunk = c.registered(bytes.readableBytes(), Access.REMOTE_READ);
        bytes.getBytes(bytes.readerIndex(), chunk.memory.duplicate().limit(bytes.readableBytes()));
        return chunk;
    }

    private static ByteBuf digest(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return Rpc.ints(data.length, (int) crc.getValue());
    }

    @Test
    void largeCallThroughPositionZeroReadChunk() throws Exception {
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(200_000, 3);
        ByteBuf call = Rpc.echoCall(0x21, EchoProgram.DIGEST, Rpc.opaque(data));
        int length = call.readableBytes();
        RawClient.Chunk chunk = inMemory(c, call);
        call.release();
        long reads = counter(ServerCounter.READ_CHUNK_BYTES);
        long localInvalidations = counter(ServerCounter.SINK_LOCAL_INVALIDATIONS);
        c.send(RawClient.header().xid(0x21).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, length, chunk.iova), null);
        RawClient.Received r = c.receive();
        assertThat(r.header().proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x21), digest(data)));
        assertThat(counter(ServerCounter.READ_CHUNK_BYTES) - reads).isEqualTo(length);
        // the sink is invalidated by its READ where the device can, else by a LOCAL_INV before dispatch; only iWARP's
        // sinks have a handle (elsewhere a READ lands through the local key)
        boolean localInvalidate = serverHas(DeviceCapability.FAST_REG) && !serverHas(DeviceCapability.READ_WITH_INV)
                && org.rpcrdma4j.xprt.TestDevices.iwarp(server.device());
        assertThat(counter(ServerCounter.SINK_LOCAL_INVALIDATIONS) - localInvalidations)
                .isEqualTo(localInvalidate ? 1 : 0);
        r.bytes().release();
    }

    @ParameterizedTest(name = "chunk carries the XDR pad: {0}")
    @ValueSource(booleans = {false, true})
    void dataItemReadChunkAtItsPosition(boolean withPad) throws Exception {
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(10_001, 4);
        int padded = 10_004;
        RawClient.Chunk chunk = c.registered(padded, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        chunk.memory.put(10_001, new byte[] {(byte) 0xAB, (byte) 0xAB, (byte) 0xAB});
        // reduced inline call: header and the item's length word; the item's bytes are in the chunk
        ByteBuf inline = Rpc.echoCall(0x22, EchoProgram.DIGEST, Rpc.ints(data.length));
        int position = Rpc.ARGS_OFFSET_AUTH_NONE + 4;
        assertThat(inline.readableBytes()).isEqualTo(position);
        c.send(RawClient.header().xid(0x22).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(position, chunk.stag, withPad ? padded : data.length, chunk.iova), inline);
        RawClient.Received r = c.receive();
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x22), digest(data)));
        r.bytes().release();
    }

    @Test
    void largeReplyThroughReplyChunk() throws Exception {
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(20_000, 5);
        RawClient.Chunk argument = c.registered(data.length, Access.REMOTE_READ);
        argument.memory.put(0, data);
        RawClient.Chunk reply = c.registered(32 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        ByteBuf inline = Rpc.echoCall(0x23, EchoProgram.ECHO, Rpc.ints(data.length));
        long replyChunks = counter(ServerCounter.REPLY_CHUNKS);
        c.send(RawClient.header().xid(0x23).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(Rpc.ARGS_OFFSET_AUTH_NONE + 4, argument.stag, data.length, argument.iova)
                .beginReplyChunk().addReplySegment(reply.stag, 32 << 10, reply.iova), inline);
        RawClient.Received r = c.receive();
        RpcRdmaHeader h = r.header();
        ByteBuf expected = Rpc.concat(Rpc.successHeader(0x23), Rpc.opaque(data));
        int length = expected.readableBytes();
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
        assertThat(h.credits()).isEqualTo(128);
        assertThat(h.writeChunkCount()).isZero();
        assertThat(h.readSegmentCount()).isZero();
        assertThat(h.hasReplyChunk()).isTrue();
        assertThat(h.replySegmentCount()).isEqualTo(1);
        assertThat(h.replyHandle(0)).isEqualTo(reply.stag);
        assertThat(h.replyOffset(0)).isEqualTo(reply.iova);
        assertThat(h.replyLength(0)).isEqualTo(length);
        assertThat(r.bytes().readableBytes()).isEqualTo(RpcRdmaEncoder.encodedLength(h));
        Rpc.assertBytes(Unpooled.wrappedBuffer(reply.bytes(0, length)), expected);
        assertThat(counter(ServerCounter.REPLY_CHUNKS) - replyChunks).isEqualTo(1);
        r.bytes().release();
    }

    @Test
    void largeReplyWithoutReplyChunkGetsErrChunk() throws Exception {
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(20_000, 6);
        RawClient.Chunk argument = c.registered(data.length, Access.REMOTE_READ);
        argument.memory.put(0, data);
        long errors = counter(ServerCounter.ERR_CHUNK_SENT);
        c.send(RawClient.header().xid(0x24).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(Rpc.ARGS_OFFSET_AUTH_NONE + 4, argument.stag, data.length, argument.iova),
                Rpc.echoCall(0x24, EchoProgram.ECHO, Rpc.ints(data.length)));
        RawClient.Received r = c.receive();
        Rpc.assertBytes(r.bytes(), Rpc.ints(0x24, 1, 128, 4, 2));
        assertThat(counter(ServerCounter.ERR_CHUNK_SENT) - errors).isEqualTo(1);
        assertThat(r.withInvalidate()).isFalse();
    }

    /** READ (zero copy), READ_HEAP (copied) and READ_PLAIN (copied) put the same bytes in the write chunk. */
    @ParameterizedTest(name = "procedure {0}, {1} bytes")
    @CsvSource({"3, 100000", "3, 1001", "4, 100000", "4, 1001", "6, 100000"})
    void ddpResultThroughWriteChunk(int procedure, int n) throws Exception {
        RawClient c = client(false);
        RawClient.Chunk sink = c.registered(128 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        int xid = 0x25 + procedure * 0x1000 + n;
        long zeroCopy = counter(ServerCounter.ZERO_COPY_BYTES);
        long copied = counter(ServerCounter.COPIED_REPLY_BYTES);
        long writeChunks = counter(ServerCounter.WRITE_CHUNKS);
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(sink.stag, 64 << 10, sink.iova)
                .addWriteSegment(sink.stag, 64 << 10, sink.iova + (64 << 10)),
                Rpc.echoCall(xid, procedure, Rpc.ints(n, 9)));
        RawClient.Received r = c.receive();
        RpcRdmaHeader h = r.header();
        assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(h.writeChunkCount()).isEqualTo(1);
        assertThat(h.writeSegmentCount(0)).isEqualTo(2);
        assertThat(h.writeHandle(0, 0)).isEqualTo(sink.stag);
        assertThat(h.writeOffset(0, 0)).isEqualTo(sink.iova);
        assertThat(h.writeLength(0, 0)).isEqualTo(Math.min(n, 64 << 10));
        assertThat(h.writeHandle(0, 1)).isEqualTo(sink.stag);
        assertThat(h.writeOffset(0, 1)).isEqualTo(sink.iova + (64 << 10));
        assertThat(h.writeLength(0, 1)).isEqualTo(Math.max(0, n - (64 << 10)));
        assertThat(h.hasReplyChunk()).isFalse();
        // reduced reply: the length word stays, the bytes and their pad are gone
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(xid), Rpc.ints(n)));
        assertThat(sink.bytes(0, n)).isEqualTo(EchoProgram.pattern(n, 9));
        assertThat(sink.bytes(n, 4)).as("nothing written past the result").containsOnly(0);
        assertThat(counter(ServerCounter.WRITE_CHUNKS) - writeChunks).isEqualTo(1);
        if (procedure == EchoProgram.READ) {
            assertThat(counter(ServerCounter.ZERO_COPY_BYTES) - zeroCopy).isEqualTo(n);
            assertThat(counter(ServerCounter.COPIED_REPLY_BYTES) - copied).isZero();
        } else if (n > 4096) {
            assertThat(counter(ServerCounter.ZERO_COPY_BYTES) - zeroCopy).isZero();
            assertThat(counter(ServerCounter.COPIED_REPLY_BYTES) - copied).isEqualTo(n);
        }
        await("READ buffers released", () -> program.buffersReleased.get() >= 0);
        r.bytes().release();
    }

    @Test
    void sendWithInvalidateExactlyWhenOneHandleAndOffered() throws Exception {
        RawClient offered = client(true);
        org.junit.jupiter.api.Assumptions.assumeTrue(offered.queuePair().protectionDomain().device().attributes()
                .has(org.rpcrdma4j.verbs.DeviceCapability.FAST_REG), "a client device with fast registration");
        RawClient.Chunk one = offered.fastRegistered(64 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        long invalidations = counter(ServerCounter.REMOTE_INVALIDATIONS);
        offered.send(RawClient.header().xid(0x31).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(one.stag, 64 << 10, one.iova),
                Rpc.echoCall(0x31, EchoProgram.READ, Rpc.ints(5000, 1)));
        RawClient.Received r = offered.receive();
        boolean canSend = serverHas(DeviceCapability.SEND_WITH_INV);
        assertThat(r.withInvalidate()).as("Send With Invalidate (the server's device can send it: " + canSend + ")")
                .isEqualTo(canSend);
        if (canSend) {
            assertThat(r.invalidatedStag()).isEqualTo(one.stag);
        }
        assertThat(one.valid()).as("the client's handle was invalidated by the server's Send").isEqualTo(!canSend);
        assertThat(one.bytes(0, 5000)).isEqualTo(EchoProgram.pattern(5000, 1));
        assertThat(counter(ServerCounter.REMOTE_INVALIDATIONS) - invalidations).isEqualTo(canSend ? 1 : 0);
        r.bytes().release();

        // two distinct handles: a plain Send
        RawClient.Chunk a = offered.fastRegistered(8 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        RawClient.Chunk b = offered.fastRegistered(8 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        offered.send(RawClient.header().xid(0x32).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(a.stag, 8 << 10, a.iova).addWriteSegment(b.stag, 8 << 10, b.iova),
                Rpc.echoCall(0x32, EchoProgram.READ, Rpc.ints(10_000, 2)));
        r = offered.receive();
        assertThat(r.withInvalidate()).isFalse();
        assertThat(a.valid()).isTrue();
        assertThat(b.valid()).isTrue();
        byte[] expected = EchoProgram.pattern(10_000, 2);
        assertThat(a.bytes(0, 8 << 10)).isEqualTo(java.util.Arrays.copyOfRange(expected, 0, 8 << 10));
        assertThat(b.bytes(0, 10_000 - (8 << 10))).isEqualTo(java.util.Arrays.copyOfRange(expected, 8 << 10,
                10_000));
        r.bytes().release();

        // no handle at all: a plain Send
        offered.send(RawClient.header().xid(0x33).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x33, EchoProgram.NULL, null));
        r = offered.receive();
        assertThat(r.withInvalidate()).isFalse();
        r.bytes().release();

        // one handle, but the client did not offer remote invalidation: a plain Send
        RawClient notOffered = client(false);
        RawClient.Chunk c = notOffered.fastRegistered(64 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        notOffered.send(RawClient.header().xid(0x34).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(c.stag, 64 << 10, c.iova),
                Rpc.echoCall(0x34, EchoProgram.READ, Rpc.ints(5000, 3)));
        r = notOffered.receive();
        assertThat(r.withInvalidate()).isFalse();
        assertThat(c.valid()).isTrue();
        assertThat(c.bytes(0, 5000)).isEqualTo(EchoProgram.pattern(5000, 3));
        r.bytes().release();
    }

    @Test
    void rpcLevelErrors() throws Exception {
        RawClient c = client(false);
        // unknown program
        c.send(RawClient.header().xid(0x41).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.call(0x41, 0x30000001, 1, 0, Rpc.authNone(), null));
        Rpc.assertBytes(c.receive().message(), Rpc.ints(0x41, 1, 0, 0, 0, 1));
        // known program, unknown version: PROG_MISMATCH 1..1
        c.send(RawClient.header().xid(0x42).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.call(0x42, EchoProgram.PROGRAM, 9, 0, Rpc.authNone(), null));
        Rpc.assertBytes(c.receive().message(), Rpc.ints(0x42, 1, 0, 0, 0, 2, 1, 1));
        // unknown procedure: the program's own PROC_UNAVAIL
        c.send(RawClient.header().xid(0x43).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x43, 77, null));
        Rpc.assertBytes(c.receive().message(), Rpc.ints(0x43, 1, 0, 0, 0, 3));
        // ONC RPC version 3: MSG_DENIED RPC_MISMATCH 2..2
        ByteBuf v3 = Rpc.echoCall(0x44, EchoProgram.NULL, null);
        v3.setInt(8, 3);
        c.send(RawClient.header().xid(0x44).credits(32).proc(RpcRdmaProc.RDMA_MSG), v3);
        Rpc.assertBytes(c.receive().message(), Rpc.ints(0x44, 1, 1, 0, 2, 2));
        // garbage arguments: the program's GARBAGE_ARGS
        c.send(RawClient.header().xid(0x45).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x45, EchoProgram.ECHO, Rpc.ints(1000)));
        Rpc.assertBytes(c.receive().message(), Rpc.ints(0x45, 1, 0, 0, 0, 4));
    }

    /**
     * A call pulled through a position-zero chunk is decoded from registered memory, and oncrpc4j encodes the reply
     * into the same stream: a reply longer than the call grows it out of that memory. Both reply paths still work.
     */
    @ParameterizedTest(name = "with a write chunk: {0}")
    @ValueSource(booleans = {true, false})
    void replyLongerThanACallPulledThroughAReadChunk(boolean writeChunk) throws Exception {
        RawClient c = client(false);
        int n = 50_000;
        ByteBuf call = Rpc.echoCall(0x26, EchoProgram.READ_HEAP, Rpc.ints(n, 11));
        int length = call.readableBytes();
        RawClient.Chunk chunk = inMemory(c, call);
        call.release();
        RawClient.Chunk sink = c.registered(64 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        RpcRdmaHeader header = RawClient.header().xid(0x26).credits(32).proc(RpcRdmaProc.RDMA_NOMSG)
                .addReadSegment(0, chunk.stag, length, chunk.iova);
        if (writeChunk) {
            header.beginWriteChunk().addWriteSegment(sink.stag, 64 << 10, sink.iova);
        } else {
            header.beginReplyChunk().addReplySegment(sink.stag, 64 << 10, sink.iova);
        }
        c.send(header, null);
        RawClient.Received r = c.receive();
        RpcRdmaHeader h = r.header();
        byte[] expected = EchoProgram.pattern(n, 11);
        if (writeChunk) {
            assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
            assertThat(h.writeLength(0, 0)).isEqualTo(n);
            Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x26), Rpc.ints(n)));
            assertThat(sink.bytes(0, n)).isEqualTo(expected);
        } else {
            assertThat(h.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
            ByteBuf whole = Rpc.concat(Rpc.successHeader(0x26), Rpc.opaque(expected));
            assertThat(h.replyLength(0)).isEqualTo(whole.readableBytes());
            Rpc.assertBytes(Unpooled.wrappedBuffer(sink.bytes(0, whole.readableBytes())), whole);
        }
        r.bytes().release();
    }

    /**
     * The reply's write list repeats the call's: every chunk, every segment, the same handles and offsets; lengths
     * are what was written (the result into the first chunk, nothing into the others or when there is no result).
     */
    @Test
    void writeListEchoedWithWrittenLengths() throws Exception {
        RawClient c = client(false);
        RawClient.Chunk first = c.registered(16 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        RawClient.Chunk second = c.registered(16 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        c.send(RawClient.header().xid(0x27).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(first.stag, 8 << 10, first.iova)
                .addWriteSegment(first.stag, 8 << 10, first.iova + (8 << 10))
                .beginWriteChunk().addWriteSegment(second.stag, 16 << 10, second.iova),
                Rpc.echoCall(0x27, EchoProgram.READ, Rpc.ints(9000, 4)));
        RawClient.Received r = c.receive();
        RpcRdmaHeader h = r.header();
        assertThat(h.writeChunkCount()).isEqualTo(2);
        assertThat(h.writeSegmentCount(0)).isEqualTo(2);
        assertThat(h.writeLength(0, 0)).isEqualTo(8 << 10);
        assertThat(h.writeLength(0, 1)).isEqualTo(9000 - (8 << 10));
        assertThat(h.writeOffset(0, 1)).isEqualTo(first.iova + (8 << 10));
        assertThat(h.writeSegmentCount(1)).isEqualTo(1);
        assertThat(h.writeHandle(1, 0)).isEqualTo(second.stag);
        assertThat(h.writeOffset(1, 0)).isEqualTo(second.iova);
        assertThat(h.writeLength(1, 0)).isZero();
        assertThat(first.bytes(0, 9000)).isEqualTo(EchoProgram.pattern(9000, 4));
        assertThat(second.bytes(0, 16)).containsOnly(0);
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x27), Rpc.ints(9000)));
        r.bytes().release();

        // a procedure without a DDP-eligible result: the chunk comes back unused, the reply goes inline
        c.send(RawClient.header().xid(0x28).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(second.stag, 16 << 10, second.iova),
                Rpc.echoCall(0x28, EchoProgram.NULL, null));
        r = c.receive();
        h = r.header();
        assertThat(h.writeChunkCount()).isEqualTo(1);
        assertThat(h.writeSegmentCount(0)).isEqualTo(1);
        assertThat(h.writeLength(0, 0)).isZero();
        Rpc.assertBytes(r.message(), Rpc.successHeader(0x28));
        r.bytes().release();
    }
}

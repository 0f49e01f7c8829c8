package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/**
 * Registered memory that cannot be had within {@code bufferWait} is a passing shortage, not a fault of the call: the
 * server drops the connection (as Linux svcrdma closes it), so that the client sends the call again on its next one,
 * instead of answering RDMA_ERROR, which a Linux client turns into EIO for the application. The test takes every free
 * page of the server's pool itself, then gives them back.
 */
@Timeout(120)
class ServerMemoryShortageTest extends ServerFixture {
    private static final int POSITION = Rpc.ARGS_OFFSET_AUTH_NONE + 4;

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.registeredMemory(16 << 20).bufferWait(Duration.ofMillis(100));
    }



    private static void sendDigest(RawClient c, int xid, byte[] data) throws Exception {
        RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(POSITION, chunk.stag, data.length, chunk.iova),
                Rpc.echoCall(xid, EchoProgram.DIGEST, Rpc.ints(data.length)));
    }

    private static ByteBuf digestReply(int xid, byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return Rpc.concat(Rpc.successHeader(xid), Rpc.ints(data.length, (int) crc.getValue()));
    }

    @Test
    void noMemoryForAReadChunkDropsTheConnectionAndTheCallIsServedOnTheNext() throws Exception {
        long dropped = counter(ServerCounter.DROPPED_NO_RESOURCES);
        long errChunks = counter(ServerCounter.ERR_CHUNK_SENT);
        byte[] data = EchoProgram.pattern(256 << 10, 3);
        RawClient c = client(false);
        takeEveryFreePage();
        sendDigest(c, 0x51, data);
        assertThat(c.awaitDisconnected(WAIT)).as("the connection is dropped").isTrue();
        closeClient(c);
        await("the connection released", () -> server.connectionCount() == 0);
        assertThat(counter(ServerCounter.DROPPED_NO_RESOURCES) - dropped).isEqualTo(1);
        assertThat(counter(ServerCounter.ERR_CHUNK_SENT) - errChunks).as("no RDMA_ERROR sent").isZero();
        giveThePagesBack();
        // the client's retransmission on its next connection
        RawClient again = client(false);
        sendDigest(again, 0x51, data);
        Rpc.assertBytes(again.receive().message(), digestReply(0x51, data));
    }

    @Test
    void noMemoryToCopyAReplyDropsTheConnectionAndTheCallIsServedOnTheNext() throws Exception {
        long dropped = counter(ServerCounter.DROPPED_NO_RESOURCES);
        long errChunks = counter(ServerCounter.ERR_CHUNK_SENT);
        int failures = program.sendFailures.get();
        int n = 100_000;
        RawClient c = client(false);
        RawClient.Chunk sink = c.registered(128 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        takeEveryFreePage();
        // READ_PLAIN's result is in unregistered memory: it has to be copied into registered memory to be written
        c.send(RawClient.header().xid(0x61).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(sink.stag, 128 << 10, sink.iova),
                Rpc.echoCall(0x61, EchoProgram.READ_PLAIN, Rpc.ints(n, 9)));
        assertThat(c.awaitDisconnected(WAIT)).as("the connection is dropped").isTrue();
        closeClient(c);
        await("the connection released", () -> server.connectionCount() == 0);
        assertThat(counter(ServerCounter.DROPPED_NO_RESOURCES) - dropped).isEqualTo(1);
        assertThat(counter(ServerCounter.ERR_CHUNK_SENT) - errChunks).as("no RDMA_ERROR sent").isZero();
        assertThat(program.sendFailures.get() - failures).as("the program heard its reply failed").isEqualTo(1);
        giveThePagesBack();
        RawClient again = client(false);
        RawClient.Chunk result = again.registered(128 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        again.send(RawClient.header().xid(0x61).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(result.stag, 128 << 10, result.iova),
                Rpc.echoCall(0x61, EchoProgram.READ_PLAIN, Rpc.ints(n, 9)));
        Rpc.assertBytes(again.receive().message(), Rpc.concat(Rpc.successHeader(0x61), Rpc.ints(n)));
        assertThat(result.bytes(0, n)).isEqualTo(EchoProgram.pattern(n, 9));
    }
}

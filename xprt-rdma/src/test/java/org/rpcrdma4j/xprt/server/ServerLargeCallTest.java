package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/**
 * A call of exactly {@code maxCallSize} bytes, larger than the smallest buffer arena, whose data item starts just
 * after its inline header: the server's sink places the item on a page boundary (leaving up to a page in front of
 * the call), and the arena must still hold the whole call.
 */
@Timeout(120)
class ServerLargeCallTest extends ServerFixture {
    private static final int MAX_CALL = 8 << 20;

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.maxCallSize(MAX_CALL).maxReadChunkBytes(MAX_CALL);
    }

    @Test
    void aCallOfExactlyTheLargestSizeIsServed() throws Exception {
        RawClient c = client(false);
        int position = Rpc.ARGS_OFFSET_AUTH_NONE + 4;
        byte[] data = EchoProgram.pattern(MAX_CALL - position, 11);
        RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        ByteBuf inline = Rpc.echoCall(0x31, EchoProgram.DIGEST, Rpc.ints(data.length));
        assertThat(inline.readableBytes()).isEqualTo(position);
        c.send(RawClient.header().xid(0x31).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(position, chunk.stag, data.length, chunk.iova), inline);
        RawClient.Received r = c.receive();
        assertThat(r.header().proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        CRC32C crc = new CRC32C();
        crc.update(data);
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x31), Rpc.ints(data.length, (int) crc.getValue())));
        r.bytes().release();
    }
}

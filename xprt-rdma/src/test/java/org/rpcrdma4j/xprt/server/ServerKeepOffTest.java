package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/** By default a server keeps nothing past a reply: a program's request to keep call data is declined. */
@Timeout(120)
class ServerKeepOffTest extends ServerFixture {

    @Test
    void nothingIsKeptUnlessTheServerAllowsIt() throws Exception {
        assertThat(server.bufferAllocator().keeps()).isFalse();
        List<Object> results = new CopyOnWriteArrayList<>();
        program.keeper = (call, data) -> {
            KeptCallData k = server.bufferAllocator().keep(call, data);
            results.add(k == null ? "declined" : k);
        };
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(64 << 10, 3);
        RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        ByteBuf inline = Rpc.echoCall(0x71, EchoProgram.KEEP, Rpc.ints(data.length));
        c.send(RawClient.header().xid(0x71).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(Rpc.ARGS_OFFSET_AUTH_NONE + 4, chunk.stag, data.length, chunk.iova), inline);
        RawClient.Received r = c.receive();
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x71),
                Rpc.opaque(EchoProgram.pattern(EchoProgram.KEEP_REPLY_BYTES, 77))));
        r.bytes().release();
        assertThat(results).containsExactly("declined");
        assertThat(server.counters().get(ServerCounter.KEPT_CALL_BYTES)).isZero();
        assertThat(server.counters().get(ServerCounter.KEEPS_REFUSED)).as("off is not a refusal").isZero();
        program.keeper = (call, bytes) -> { };
    }
}

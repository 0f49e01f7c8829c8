package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/** The server against a raw requester: what each kind of call gets back, byte by byte. */
@Timeout(120)
class ServerWireTest extends ServerFixture {

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
}

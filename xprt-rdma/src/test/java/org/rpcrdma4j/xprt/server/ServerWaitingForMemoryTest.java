package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.xprt.TestDevices;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;

/**
 * Calls whose RDMA READ sinks wait for registered memory hold the io threads, and nothing else: while they wait, a new
 * client is accepted and served, and a server program's callback to a client gets its reply. The test takes every free
 * page of the calls' pool itself (connections' buffers come from memory of their own).
 */
@Timeout(120)
class ServerWaitingForMemoryTest extends ServerFixture {
    private static final int POSITION = Rpc.ARGS_OFFSET_AUTH_NONE + 4;
    private static final int CALLS = 3;
    private final CallbackPrograms.Server callbacks = new CallbackPrograms.Server();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        // the waits outlast the test: the calls are still waiting when the new client has been served
        builder.registeredMemory(16 << 20).bufferWait(Duration.ofMinutes(5)).credits(8).ioThreads(2)
                .program(new OncRpcProgram(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION), callbacks);
    }



    @Test
    void newConnectionsAndCallbackRepliesDoNotWaitBehindCallsWaitingForMemory() throws Exception {
        RawClient busy = client(false);
        takeEveryFreePage();
        long waits = server.bufferPool.waits();
        int digests = program.digests.get();
        Map<Integer, byte[]> sent = new HashMap<>();
        for (int k = 0; k < CALLS; k++) {
            int xid = 0x70 + k;
            byte[] data = EchoProgram.pattern(1 << 20, k);
            sent.put(xid, data);
            RawClient.Chunk chunk = busy.registered(data.length, Access.REMOTE_READ);
            chunk.memory.put(0, data);
            busy.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                    .addReadSegment(POSITION, chunk.stag, data.length, chunk.iova),
                    Rpc.echoCall(xid, EchoProgram.DIGEST, Rpc.ints(data.length)));
        }
        await("both io threads waiting for memory", () -> server.bufferPool.waits() - waits >= 2);

        RawClient late = client(false);
        late.send(RawClient.header().xid(0x81).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x81, EchoProgram.NULL, null));
        Rpc.assertBytes(late.receive().message(), Rpc.successHeader(0x81));

        byte[] callback = EchoProgram.pattern(100, 4);
        try (RdmaClientTransport t = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "callback-client",
                        "engineThreads", "1")))
                .reverseProgram(new OncRpcProgram(CallbackPrograms.CLIENT_PROGRAM, CallbackPrograms.VERSION),
                        new CallbackPrograms.Client())
                .jmx(false).build())) {
            XdrOpaque result = new XdrOpaque();
            new RpcCall(CallbackPrograms.SERVER_PROGRAM, CallbackPrograms.VERSION, new RpcAuthTypeNone(), t)
                    .call(CallbackPrograms.ROUND_TRIP, new XdrOpaque(callback), result, 60, TimeUnit.SECONDS);
            assertThat(result.getOpaque()).isEqualTo(CallbackPrograms.expectedReply(callback));
        }

        assertThat(server.bufferPool.timeouts()).as("no call gave up waiting").isZero();
        assertThat(program.digests.get()).as("the calls still wait for their memory").isEqualTo(digests);
        giveThePagesBack();
        for (int k = 0; k < CALLS; k++) {
            RawClient.Received r = busy.receive();
            int xid = r.header().xid();
            byte[] data = sent.remove(xid);
            assertThat(data).as("a reply to a call sent, once: xid 0x" + Integer.toHexString(xid)).isNotNull();
            CRC32C crc = new CRC32C();
            crc.update(data);
            Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(xid), Rpc.ints(data.length,
                    (int) crc.getValue())));
        }
    }
}

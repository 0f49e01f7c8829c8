package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * A connection's fixed buffers (receives, call slots, reverse-direction sends) come from registered memory of their
 * own, one piece per connection, so that idle connections neither use up nor cut into the memory large calls need.
 * The default ratio of registered memory to connections (256 MiB for 64), scaled down eight times, with 8 KiB inline
 * sizes each way: every connection the server allows is idle, and a 1 MiB call still gets its sink.
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerConnectionMemoryTest extends ServerFixture {
    private static final int CONNECTIONS = 8;
    private static final int CALL_ARENA = 4 << 20;
    private FaultyServerDevice device;

    @Override
    RdmaDevice serverDevice() throws Exception {
        device = new FaultyServerDevice(TestDevices.open(Map.of("name", "test-server", "engineThreads", "1")));
        return device;
    }

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.registeredMemory(32L << 20).maxConnections(CONNECTIONS).bufferWait(Duration.ofSeconds(2));
    }

    private RawClient connect8k() throws Exception {
        RawClient c = RawClient.connect(address, RpcRdmaPrivateData.of(false, 8192, 8192).encode(), 16);
        return c;
    }

    /** Runs first: the connections' memory is registered as they come, so none is registered yet. */
    @Test
    @Order(1)
    void aConnectionWhoseBuffersCannotBeRegisteredIsRefusedAtAccept() throws Exception {
        long rejected = counter(ServerCounter.CONNECTIONS_REJECTED);
        device.fail((bytes, access) -> access == Access.LOCAL_WRITE && bytes != CALL_ARENA,
                () -> new VerbsException("the test's device refuses to register"));
        try {
            assertThatThrownBy(() -> connect8k().close()).hasRootCauseInstanceOf(ConnectException.class);
        } finally {
            device.fail(null);
        }
        assertThat(counter(ServerCounter.CONNECTIONS_REJECTED) - rejected).isEqualTo(1);
        try (RawClient c = connect8k()) {
            c.send(RawClient.header().xid(0x11).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(0x11, EchoProgram.NULL, null));
            Rpc.assertBytes(c.receive().message(), Rpc.successHeader(0x11));
        }
    }

    @Test
    @Order(2)
    void idleConnectionsLeaveRoomForALargeCall() throws Exception {
        List<RawClient> idle = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                idle.add(connect8k());
            }
            RawClient c = idle.get(CONNECTIONS - 1);
            int position = Rpc.ARGS_OFFSET_AUTH_NONE + 4;
            byte[] data = EchoProgram.pattern(1 << 20, 11);
            RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
            chunk.memory.put(0, data);
            c.send(RawClient.header().xid(0x31).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                    .addReadSegment(position, chunk.stag, data.length, chunk.iova),
                    Rpc.echoCall(0x31, EchoProgram.DIGEST, Rpc.ints(data.length)));
            RawClient.Received r = c.receive();
            CRC32C crc = new CRC32C();
            crc.update(data);
            Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(0x31), Rpc.ints(data.length,
                    (int) crc.getValue())));
            // and one more connection than allowed is refused, as before
            assertThatThrownBy(() -> connect8k().close()).hasRootCauseInstanceOf(ConnectException.class);
        } finally {
            idle.forEach(RawClient::close);
        }
    }
}

package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestDispatchable;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * An unmodified oncrpc4j {@link RpcCall} over the RDMA transport gives what it gives over oncrpc4j's own TCP transport
 * against the same program; chunks are used as the program's binding (or its absence) says.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OncRpcCallTest extends ClientTestBase {
    private OncRpcSvc tcpServer;
    private OncRpcClient tcpClient;
    private RpcTransport tcp;

    @BeforeEach
    void startTcp() throws Exception {
        tcpServer = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1").withoutAutoPublish()
                .withSameThreadIoStrategy().withServiceName("tcp-reference")
                .withRpcService(new OncRpcProgram(TestProgram.PROGRAM, TestProgram.VERSION), new TestDispatchable())
                .build();
        tcpServer.start();
        InetSocketAddress at = tcpServer.getInetSocketAddress(IpProtocolType.TCP);
        tcpClient = new OncRpcClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), at.getPort()),
                IpProtocolType.TCP);
        tcp = tcpClient.connect();
    }

    @AfterEach
    void stopTcp() throws Exception {
        tcpClient.close();
        tcpServer.stop();
    }

    private static RpcCall rpc(RpcTransport transport) {
        return new RpcCall(TestProgram.PROGRAM, TestProgram.VERSION, new RpcAuthTypeNone(), transport);
    }

    /** Runs the same calls over both transports and compares every result. */
    private void sameResultsAs(RdmaClientTransport rdma) throws Exception {
        for (RpcTransport t : new RpcTransport[] {tcp, rdma}) {
            rpc(t).call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10, TimeUnit.SECONDS);
        }
        byte[] small = TestProgram.pattern(1, 333);
        byte[] big = TestProgram.pattern(2, 100 * 1024);
        for (byte[] data : new byte[][] {small, big}) {
            TestProgram.Opaque overTcp = new TestProgram.Opaque();
            TestProgram.Opaque overRdma = new TestProgram.Opaque();
            rpc(tcp).call(TestProgram.ECHO, new TestProgram.Opaque(data), overTcp, 10, TimeUnit.SECONDS);
            rpc(rdma).call(TestProgram.ECHO, new TestProgram.Opaque(data), overRdma, 10, TimeUnit.SECONDS);
            assertThat(overRdma.data).isEqualTo(overTcp.data).isEqualTo(data);
        }
        TestProgram.PutRes putTcp = new TestProgram.PutRes();
        TestProgram.PutRes putRdma = new TestProgram.PutRes();
        rpc(tcp).call(TestProgram.PUT, new TestProgram.PutArgs(5, big), putTcp, 10, TimeUnit.SECONDS);
        rpc(rdma).call(TestProgram.PUT, new TestProgram.PutArgs(5, big), putRdma, 10, TimeUnit.SECONDS);
        assertThat(new int[] {putRdma.length, putRdma.crc, putRdma.tag})
                .containsExactly(putTcp.length, putTcp.crc, putTcp.tag);
        for (int count : new int[] {100, 100 * 1024 + 1}) {
            TestProgram.Opaque getTcp = new TestProgram.Opaque();
            TestProgram.Opaque getRdma = new TestProgram.Opaque();
            rpc(tcp).call(TestProgram.GET, new TestProgram.GetArgs(count, 9), getTcp, 10, TimeUnit.SECONDS);
            rpc(rdma).call(TestProgram.GET, new TestProgram.GetArgs(count, 9), getRdma, 10, TimeUnit.SECONDS);
            assertThat(getRdma.data).isEqualTo(getTcp.data).isEqualTo(TestProgram.pattern(9, count));
        }
        for (RpcTransport t : new RpcTransport[] {tcp, rdma}) {
            assertThatThrownBy(() -> rpc(t).call(9, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10, TimeUnit.SECONDS))
                    .as("over " + t).isInstanceOf(OncRpcAcceptedException.class);
        }
    }

    @Test
    void withTheProgramsBindingBulkDataMovesThroughChunks() throws Exception {
        RdmaClientTransport rdma = connect();
        sameResultsAs(rdma);
        java.util.List<ReceivedCall> seen = server.drainCalls();
        ReceivedCall put = seen.stream().filter(c -> c.procedure() == TestProgram.PUT).findFirst().orElseThrow();
        assertThat(put.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(put.header().readChunkPosition(0)).as("the data item's position").isEqualTo(48);
        ReceivedCall bigGet = seen.stream().filter(c -> c.procedure() == TestProgram.GET && c.hasWriteChunk())
                .findFirst().orElseThrow();
        assertThat(bigGet.header().writeChunkLength(0)).isEqualTo(100 * 1024 + 1);
        assertThat(seen.stream().filter(c -> c.procedure() == TestProgram.ECHO && c.hasReplyChunk()).count())
                .isEqualTo(1);
        RdmaClientStats s = rdma.stats();
        assertThat(s.get(XprtCounter.READ_CHUNK_COUNT)).isEqualTo(2); // PUT's data item, big ECHO's whole call
        assertThat(s.get(XprtCounter.WRITE_CHUNK_COUNT)).isEqualTo(1);
        assertThat(s.get(XprtCounter.FIXUP_COPY_COUNT)).isPositive();
    }

    /** Two transports on one borrowed agent thread both work, and the thread outlives them until closed. */
    @Test
    void transportsShareAnAgentThread() throws Exception {
        try (AgentThread shared = new AgentThread("shared-agent")) {
            RdmaClientTransport a = connect(b -> b.runner(shared));
            RdmaClientTransport b = connect(c -> c.runner(shared));
            assertThat(a.config().runner()).isSameAs(shared);
            sameResultsAs(a);
            sameResultsAs(b);
            a.close();
            sameResultsAs(b);
            b.close();
        }
    }

    @Test
    void withoutABindingCallsUsePositionZeroChunksAndReplyChunksOnly() throws Exception {
        RdmaClientTransport rdma = RdmaClientTransport.connect(server.address(), RdmaClientConfig.builder()
                .device(clientDevice).jmx(false).defaultMaxReplySize(256 * 1024).build());
        try {
            sameResultsAs(rdma);
            for (ReceivedCall c : server.drainCalls()) {
                assertThat(c.hasWriteChunk()).isFalse();
                assertThat(c.hasReplyChunk()).as("default max reply above the inline threshold").isTrue();
                if (c.hasReadChunk()) {
                    assertThat(c.header().readChunkPosition(0)).isZero();
                }
            }
        } finally {
            rdma.close();
        }
    }

    @Test
    void aTimeoutIsReportedAsOncRpcDoesAndDropsTheConnection() throws Exception {
        server.script(c -> c.procedure() == TestProgram.ECHO ? Reply.none() : TestProgram.serve(c));
        RdmaClientTransport rdma = connect();
        assertThatThrownBy(() -> rpc(rdma).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[4]),
                new TestProgram.Opaque(), 500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class)
                .hasMessageContaining("no reply to xid");
        rpc(rdma).call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10, TimeUnit.SECONDS);
        RdmaClientStats s = rdma.stats();
        assertThat(s.get(XprtCounter.TIMEOUTS)).isEqualTo(1);
        assertThat(s.get(XprtCounter.RECONNECTS)).isEqualTo(1);
    }

    @Test
    void callsOnAClosedTransportFailAsOnADisconnectedOne() throws Exception {
        RdmaClientTransport rdma = connect();
        assertThat(rdma.isOpen()).isTrue();
        assertThat(rdma.getLocalSocketAddress()).isNotNull();
        rdma.close();
        assertThat(rdma.isOpen()).isFalse();
        assertThatThrownBy(() -> rpc(rdma).call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID))
                .isInstanceOf(EOFException.class);
    }

    @Test
    void tlsAndTheBackchannelAreRefusedClearly() throws Exception {
        RdmaClientTransport rdma = connect();
        assertThatThrownBy(rdma::startTLS).isInstanceOf(IllegalStateException.class).hasMessageContaining("TLS");
        assertThat(rdma.isTLS()).isFalse();
        assertThatThrownBy(rdma::getPeerTransport).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RFC 8167");
    }
}

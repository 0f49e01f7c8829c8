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
import org.rpcrdma4j.xprt.TestDevices;

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

    /** Sends {@code args} as PROCEDURE PUT through the transport's oncrpc4j {@code send}, as {@link RpcCall} does. */
    private static java.util.concurrent.CompletableFuture<TestProgram.PutRes> put(RdmaClientTransport rdma, int xid,
            org.dcache.oncrpc4j.xdr.Xdr xdr, long[] allocatedBySend) throws Exception {
        java.util.concurrent.CompletableFuture<TestProgram.PutRes> result = new java.util.concurrent.CompletableFuture<>();
        rdma.getReplyQueue().registerKey(xid, rdma.getLocalSocketAddress(), new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(org.dcache.oncrpc4j.rpc.RpcReply reply, RpcTransport on) {
                try {
                    TestProgram.PutRes res = new TestProgram.PutRes();
                    reply.getReplyResult(res);
                    result.complete(res);
                } catch (Exception e) {
                    result.completeExceptionally(e);
                }
            }

            @Override
            public void failed(Throwable e, RpcTransport on) {
                result.completeExceptionally(e);
            }
        }, 10, TimeUnit.SECONDS);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        rdma.send(xdr, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer written, Object attachment) {
            }

            @Override
            public void failed(Throwable e, Object attachment) {
                result.completeExceptionally(e);
            }
        });
        allocatedBySend[0] = threads.getThreadAllocatedBytes(thread) - before;
        return result;
    }

    /** A PUT call's stream: the RPC header, the tag, then the data by value or, with {@code byReference}, shallow. */
    private static org.dcache.oncrpc4j.xdr.Xdr putCall(int xid, int tag, java.nio.ByteBuffer data, boolean byReference) {
        org.dcache.oncrpc4j.xdr.Xdr xdr = new org.dcache.oncrpc4j.xdr.Xdr(1024);
        xdr.beginEncoding();
        for (int word : new int[] {xid, 0, 2, TestProgram.PROGRAM, TestProgram.VERSION, TestProgram.PUT, 0, 0, 0, 0,
                tag}) {
            xdr.xdrEncodeInt(word);
        }
        if (byReference) {
            xdr.xdrEncodeShallowByteBuffer(data);
        } else {
            xdr.xdrEncodeByteBuffer(data);
        }
        xdr.endEncoding();
        return xdr;
    }

    /**
     * oncrpc4j's stream is read where it is: a call encoded by value is copied once, into registered memory, and
     * nowhere else (the caller's thread allocates no copy of it); data encoded by reference from the transport's own
     * registered memory goes as a Read chunk from there, not copied at all, and is held until the call is done.
     */
    @Test
    void aCallIsCopiedOnceIntoRegisteredMemoryAndDataByReferenceNotAtAll() throws Exception {
        RdmaClientTransport rdma = connect();
        byte[] data = TestProgram.pattern(7, 512 * 1024);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(data);
        long[] allocated = new long[1];
        for (int round = 0; round < 3; round++) { // the first rounds load classes and warm up
            int xid = rdma.nextXid();
            long copiedBefore = rdma.stats().get(XprtCounter.PULLUP_COPY_COUNT);
            TestProgram.PutRes res = put(rdma, xid, putCall(xid, round, java.nio.ByteBuffer.wrap(data), false),
                    allocated).get(10, TimeUnit.SECONDS);
            assertThat(new int[] {res.length, res.crc, res.tag}).containsExactly(data.length, (int) crc.getValue(),
                    round);
            assertThat(rdma.stats().get(XprtCounter.PULLUP_COPY_COUNT) - copiedBefore)
                    .as("the whole call, copied once").isEqualTo(44L + 4 + data.length);
        }
        assertThat(allocated[0]).as("bytes the caller's thread allocated to send a call of %d bytes", data.length)
                .isLessThan(data.length / 8);

        org.rpcrdma4j.registration.RegisteredBuffer registered = rdma.bufferPool().allocate(data.length);
        registered.writeBytes(data);
        int xid = rdma.nextXid();
        long copiedBefore = rdma.stats().get(XprtCounter.PULLUP_COPY_COUNT);
        long chunksBefore = rdma.stats().get(XprtCounter.READ_CHUNK_COUNT);
        TestProgram.PutRes res = put(rdma, xid, putCall(xid, 99, registered.nioBuffer(0, data.length), true),
                allocated).get(10, TimeUnit.SECONDS);
        assertThat(new int[] {res.length, res.crc, res.tag}).containsExactly(data.length, (int) crc.getValue(), 99);
        assertThat(rdma.stats().get(XprtCounter.PULLUP_COPY_COUNT) - copiedBefore)
                .as("the call without its data").isEqualTo(44L + 4);
        assertThat(rdma.stats().get(XprtCounter.READ_CHUNK_COUNT) - chunksBefore).isEqualTo(1);
        for (int i = 0; i < 1000 && registered.refCnt() > 1; i++) {
            Thread.sleep(5); // held until the call's handles are invalid
        }
        assertThat(registered.release()).as("the transport let go of it").isTrue();
    }

    /**
     * A large reply (its data placed in the Write chunk's transport buffer) is made flat on the callback thread, not
     * on the connection's: the buffer the server wrote into goes with the reply to the callback and back to the pool
     * once it was copied out; a reply nobody waits for any more gives it back too.
     */
    @Test
    void aLargeReplyIsMadeFlatOnTheCallbackThreadFromTheBufferTheServerWroteInto() throws Exception {
        java.util.concurrent.BlockingQueue<Runnable> queued = new java.util.concurrent.LinkedBlockingQueue<>();
        RdmaClientTransport rdma = connect(b -> b.callbackExecutor(queued::add));
        int count = 256 * 1024;
        int idle = rdma.bufferPool().pagesInUse();
        java.util.concurrent.CompletableFuture<TestProgram.Opaque> got = rpc(rdma).call(TestProgram.GET,
                new TestProgram.GetArgs(count, 4), TestProgram.Opaque.class);
        Runnable delivery = queued.poll(10, TimeUnit.SECONDS);
        assertThat(delivery).as("the reply handed to the callback executor").isNotNull();
        assertThat(got).isNotDone();
        assertThat(rdma.bufferPool().pagesInUse() - idle).as("the Write chunk's buffer, held for the callback")
                .isGreaterThanOrEqualTo(count / 4096);
        delivery.run();
        assertThat(got.get(10, TimeUnit.SECONDS).data).isEqualTo(TestProgram.pattern(4, count));
        assertThat(rdma.bufferPool().pagesInUse()).as("given back once copied out").isEqualTo(idle);

        // the caller gave up before the callback ran: the buffer goes back all the same
        java.util.concurrent.CompletableFuture<TestProgram.Opaque> abandoned = rpc(rdma).call(TestProgram.GET,
                new TestProgram.GetArgs(count, 5), TestProgram.Opaque.class);
        Runnable late = queued.poll(10, TimeUnit.SECONDS);
        assertThat(late).isNotNull();
        abandoned.cancel(true);
        late.run();
        for (int i = 0; i < 1000 && rdma.bufferPool().pagesInUse() != idle; i++) {
            Thread.sleep(5);
        }
        assertThat(rdma.bufferPool().pagesInUse()).isEqualTo(idle);
    }

    /**
     * A callback executor that refuses the reply (full, or shut down) fails the call at once: nothing else would, the
     * transport owning its timeout.
     */
    @Test
    void aReplyTheCallbackExecutorRefusesFailsItsCall() throws Exception {
        RdmaClientTransport rdma = connect(b -> b.callbackExecutor(r -> {
            throw new java.util.concurrent.RejectedExecutionException("the test's executor is full");
        }));
        assertThatThrownBy(() -> rpc(rdma).call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 20,
                TimeUnit.SECONDS)).as("oncrpc4j rethrows the root cause").isInstanceOf(java.io.IOException.class)
                .hasRootCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class)
                .hasRootCauseMessage("the test's executor is full");
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

package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.drc.TcpProxy;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * {@link AbstractNfs41ClientTest} over RPC-over-RDMA on the software iWARP device ({@link NfsRdmaServer}: the NFSv4
 * program behind {@link RdmaRpcServer} with the NFSv4 upper-layer binding), and where the data goes: WRITE data in
 * Read chunks, READ data in Write chunks, straight from and into the transport's registered memory.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class Nfs41ClientRdmaTest extends AbstractNfs41ClientTest {
    private NfsRdmaServer server;
    private TcpProxy proxy;
    private RdmaDevice clientDevice;
    private int serverCredits = 128;

    @Override
    protected void startServer(StateConfig state) throws IOException {
        server = NfsRdmaServer.start(
                NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0).workerThreads(4)
                        .nfs4(state),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .provider("soft", Map.of()).dispatchThreads(32).credits(serverCredits).jmx(false));
        proxy = new TcpProxy(server.rdmaAddress());
        clientDevice = RdmaProviders.select("soft").open(Map.of());
    }

    @Override
    protected Nfs41Client newClient(NfsClientConfig config, Nfs41Options options) throws IOException {
        RdmaDataTransportFactory rdma = new RdmaDataTransportFactory(RdmaClientConfig.builder().device(clientDevice)
                .jmx(false).build());
        return Nfs41Client.mount("rdma://127.0.0.1:" + proxy.address().getPort() + "/export",
                config.withTransportFactory(rdma), options);
    }

    @Override
    protected ClientTable serverState() {
        return server.tcp().nfs4().clients();
    }

    @Override
    protected void cutConnections() {
        proxy.dropAll();
    }

    @Override
    protected int connectionsMade() {
        return proxy.accepted();
    }

    @Override
    protected void stopServer() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
        if (clientDevice != null) {
            assertThat(clientDevice.resourceCounts()).as("the client left nothing registered")
                    .isEqualTo(ResourceCounts.NONE);
            clientDevice.close();
        }
    }

    private long counter(ServerCounter c) {
        return server.rdma().counters().get(c);
    }

    @Test
    void writeDataTravelsInReadChunksAndReadDataInWriteChunksWithoutCopies() throws Exception {
        start();
        Nfs41Client c = client();
        assertThat(c.maxWriteSize()).isEqualTo(MIB);
        assertThat(c.maxReadSize()).isEqualTo(MIB);
        RdmaDataTransport t = (RdmaDataTransport) c.transport();
        FileHandle fh = c.createFile("/chunks");
        byte[] data = pattern(MIB, 31);
        ByteBuf src = c.allocateBuffer(MIB);
        assertThat(src).isInstanceOf(RegisteredBuffer.class);
        src.writeBytes(data);

        long readChunks = counter(ServerCounter.READ_CHUNKS);
        long readChunkBytes = counter(ServerCounter.READ_CHUNK_BYTES);
        long pullups = t.transport().stats().get(XprtCounter.PULLUP_COPY_COUNT);
        assertThat(c.write(fh, 0, src, StableHow.FILE_SYNC).count()).isEqualTo(MIB);
        assertThat(counter(ServerCounter.READ_CHUNKS) - readChunks).as("one Read chunk: the WRITE data").isOne();
        assertThat(counter(ServerCounter.READ_CHUNK_BYTES) - readChunkBytes).isEqualTo(MIB);
        assertThat(t.transport().stats().get(XprtCounter.PULLUP_COPY_COUNT) - pullups)
                .as("the data was not copied into the call").isLessThan(1024);
        assertThat(stored("chunks")).isEqualTo(data);
        src.release();

        ByteBuf dst = c.allocateBuffer(MIB);
        long writeChunks = counter(ServerCounter.WRITE_CHUNKS);
        long writeChunkBytes = counter(ServerCounter.WRITE_CHUNK_BYTES);
        ReadReply r = c.read(fh, 0, dst);
        assertThat(r.count()).isEqualTo(MIB);
        assertThat(counter(ServerCounter.WRITE_CHUNKS) - writeChunks).as("one Write chunk: the READ data").isOne();
        assertThat(counter(ServerCounter.WRITE_CHUNK_BYTES) - writeChunkBytes).isEqualTo(MIB);
        byte[] back = new byte[dst.readableBytes()];
        dst.readBytes(back);
        assertThat(back).isEqualTo(data);
        dst.release();

        // memory that is not the transport's moves in chunks too, through one copy of the transport's
        ByteBuf heap = io.netty.buffer.Unpooled.wrappedBuffer(data, 0, 300_001);
        readChunks = counter(ServerCounter.READ_CHUNKS);
        assertThat(c.write(fh, MIB, heap, StableHow.FILE_SYNC).count()).isEqualTo(300_001);
        assertThat(counter(ServerCounter.READ_CHUNKS) - readChunks).isOne();
        writeChunks = counter(ServerCounter.WRITE_CHUNKS);
        ByteBuf heapDst = io.netty.buffer.Unpooled.buffer(2 * MIB);
        assertThat(c.read(fh, MIB, heapDst).count()).isEqualTo(300_001);
        assertThat(counter(ServerCounter.WRITE_CHUNKS) - writeChunks).isOne();
        byte[] tail = new byte[heapDst.readableBytes()];
        heapDst.readBytes(tail);
        assertThat(tail).isEqualTo(java.util.Arrays.copyOf(data, 300_001));
    }

    @Test
    void smallWritesAndReadsGoInline() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/small");
        long readChunks = counter(ServerCounter.READ_CHUNKS);
        c.write(fh, 0, io.netty.buffer.Unpooled.wrappedBuffer(pattern(100, 32)), StableHow.FILE_SYNC);
        assertThat(counter(ServerCounter.READ_CHUNKS) - readChunks).isZero();
        assertThat(c.readAll("/small")).isEqualTo(pattern(100, 32));
    }

    /**
     * GETATTR and LOOKUP replies are bounded (names of at most 1024 bytes) and fit the inline threshold: no Reply
     * chunk is registered for them.
     */
    @Test
    void attributeRepliesComeInlineWithoutAReplyChunk() throws Exception {
        start();
        Nfs41Client c = client();
        RdmaDataTransport t = (RdmaDataTransport) c.transport();
        FileHandle fh = c.createFile("/small");
        long replyChunks = t.transport().stats().get(XprtCounter.REPLY_CHUNK_COUNT);
        for (int i = 0; i < 10; i++) {
            assertThat(c.getattr(fh).size()).isZero();
            assertThat(c.lookup(c.root(), "small").handle()).isEqualTo(fh);
        }
        assertThat(t.transport().stats().get(XprtCounter.REPLY_CHUNK_COUNT) - replyChunks).isZero();
    }

    /** The session asks for no more slots than the credits the RDMA server granted. */
    @Test
    void theSessionHasNoMoreSlotsThanTheTransportHasCredits() throws Exception {
        serverCredits = 8;
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withSlots(32));
        assertThat(c.transport().maxConcurrentCalls()).isEqualTo(8);
        assertThat(c.session().slots()).isEqualTo(8);
        assertThat(serverState().session(c.session().sessionId()).fore().maxRequests()).isEqualTo(8);
        c.writeAll("/credits", pattern(100_000, 3));
        assertThat(stored("credits")).isEqualTo(pattern(100_000, 3));
    }

    // ------------------------------------------------------------------------------------------ callbacks

    /** A CB_COMPOUND of CB_SEQUENCE and, when {@code recall} is set, CB_RECALL of it on {@code fh}. */
    private record CbCall(byte[] sessionId, int sequence, Stateid4 recall, FileHandle fh)
            implements org.dcache.oncrpc4j.xdr.XdrAble {
        @Override
        public void xdrEncode(org.dcache.oncrpc4j.xdr.XdrEncodingStream xdr)
                throws org.dcache.oncrpc4j.rpc.OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(new byte[0]); // tag
            xdr.xdrEncodeInt(2); // minor version
            xdr.xdrEncodeInt(0); // callback_ident
            xdr.xdrEncodeInt(recall == null ? 1 : 2);
            xdr.xdrEncodeInt(CallbackService.OP_CB_SEQUENCE);
            xdr.xdrEncodeOpaque(sessionId, 0, 16);
            xdr.xdrEncodeInt(sequence);
            xdr.xdrEncodeInt(0); // slot
            xdr.xdrEncodeInt(0); // highest slot
            xdr.xdrEncodeBoolean(false);
            xdr.xdrEncodeInt(0); // referring call lists
            if (recall != null) {
                xdr.xdrEncodeInt(CallbackService.OP_CB_RECALL);
                recall.encode(xdr);
                xdr.xdrEncodeBoolean(false);
                xdr.xdrEncodeDynamicOpaque(fh.toByteArray());
            }
        }

        @Override
        public void xdrDecode(org.dcache.oncrpc4j.xdr.XdrDecodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }

    /** CB_COMPOUND4res as statuses: the COMPOUND's, then each operation's (CB_SEQUENCE's echo checked on the way). */
    private static final class CbReply implements org.dcache.oncrpc4j.xdr.XdrAble {
        final List<Integer> statuses = new ArrayList<>();
        int echoedSequence = -1;

        @Override
        public void xdrDecode(org.dcache.oncrpc4j.xdr.XdrDecodingStream xdr)
                throws org.dcache.oncrpc4j.rpc.OncRpcException, IOException {
            statuses.add(xdr.xdrDecodeInt());
            xdr.xdrDecodeDynamicOpaque(); // tag
            int n = xdr.xdrDecodeInt();
            for (int i = 0; i < n; i++) {
                int op = xdr.xdrDecodeInt();
                int status = xdr.xdrDecodeInt();
                statuses.add(status);
                if (op == CallbackService.OP_CB_SEQUENCE && status == 0) {
                    xdr.xdrDecodeOpaque(16);
                    echoedSequence = xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt(); // slot
                    xdr.xdrDecodeInt(); // highest
                    xdr.xdrDecodeInt(); // target highest
                }
            }
        }

        @Override
        public void xdrEncode(org.dcache.oncrpc4j.xdr.XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }

    private CbReply callback(org.dcache.oncrpc4j.rpc.RpcTransport path, CbCall call) throws Exception {
        CbReply reply = new CbReply();
        new org.dcache.oncrpc4j.rpc.RpcCall(Nfs4Ops.CB_PROGRAM, CallbackService.VERSION,
                new org.dcache.oncrpc4j.rpc.RpcAuthTypeNone(), path)
                .call(CallbackService.CB_COMPOUND, call, reply, 30, TimeUnit.SECONDS);
        return reply;
    }

    /**
     * Over RDMA the session has a back channel: the server's CB_NULL probe is answered, and a CB_RECALL sent while a
     * WRITE waits in the server is answered on the connection's reverse direction (NFS4ERR_BAD_STATEID: the client
     * holds no delegation), its retransmission from the slot's reply, a misordered one refused; the WRITE completes
     * and its bytes arrive.
     */
    @Test
    void aCbRecallDuringAWriteIsAnsweredAndTheWriteCompletes() throws Exception {
        start();
        Nfs41Client c = client();
        assertThat(c.session().servesCallbacks()).isTrue();
        org.rpcrdma4j.nfs.server.v4.Nfs4Program nfs4 = server.tcp().nfs4();
        org.rpcrdma4j.nfs.v4.state.SessionId sid = org.rpcrdma4j.nfs.v4.state.SessionId.of(c.session().sessionId());
        await("the back channel answered CB_NULL", () -> nfs4.backChannel(sid).isPresent());
        assertThat(nfs4.backChannelProbesFailed()).isZero();
        org.rpcrdma4j.nfs.v4.state.Session state = serverState().session(c.session().sessionId());
        assertThat(state.flags() & 2).as("CONN_BACK_CHAN granted").isEqualTo(2);

        FileHandle fh = c.createFile("/recalled");
        byte[] data = pattern(200_000, 5);
        vfs.closeGate();
        java.util.concurrent.CompletableFuture<org.rpcrdma4j.nfs.client.WriteReply> write =
                c.async().write(fh, 0, io.netty.buffer.Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
        vfs.awaitWaiting(1);

        org.dcache.oncrpc4j.rpc.RpcTransport path = nfs4.backChannel(sid).orElseThrow();
        Stateid4 unknown = new Stateid4(1, pattern(12, 9));
        CbReply recall = callback(path, new CbCall(c.session().sessionId(), 1, unknown, fh));
        assertThat(recall.statuses).as("COMPOUND, CB_SEQUENCE, CB_RECALL")
                .containsExactly(Nfs4Status.NFS4ERR_BAD_STATEID, 0, Nfs4Status.NFS4ERR_BAD_STATEID);
        assertThat(recall.echoedSequence).isOne();
        CbReply again = callback(path, new CbCall(c.session().sessionId(), 1, unknown, fh));
        assertThat(again.statuses).as("the retransmission, from the slot").isEqualTo(recall.statuses);
        assertThat(callback(path, new CbCall(c.session().sessionId(), 3, null, null)).statuses)
                .containsExactly(Nfs4Status.NFS4ERR_SEQ_MISORDERED, Nfs4Status.NFS4ERR_SEQ_MISORDERED);
        assertThat(callback(path, new CbCall(pattern(16, 1), 2, null, null)).statuses)
                .containsExactly(Nfs4Status.NFS4ERR_BADSESSION, Nfs4Status.NFS4ERR_BADSESSION);
        assertThat(callback(path, new CbCall(c.session().sessionId(), 2, null, null)).statuses)
                .containsExactly(0, 0);
        assertThat(write.isDone()).as("the WRITE still waits in the server").isFalse();

        vfs.openGate();
        assertThat(write.get(60, TimeUnit.SECONDS).count()).isEqualTo(data.length);
        assertThat(stored("recalled")).isEqualTo(data);
        assertThat(c.session().callbacksAnswered()).isEqualTo(5);
    }

    /**
     * When SEQUENCE says the callback path is down, the client binds its connection to the session again, the server
     * probes it, and the flag clears.
     */
    @Test
    void aCallbackPathReportedDownIsBoundAgain() throws Exception {
        start();
        Nfs41Client c = client();
        org.rpcrdma4j.nfs.server.v4.Nfs4Program nfs4 = server.tcp().nfs4();
        await("the first probe", () -> nfs4.backChannelProbesAnswered() == 1);
        serverState().backChannelDown(c.session().sessionId(), true);
        c.getattr(c.root()); // SEQUENCE reports CB_PATH_DOWN_SESSION
        await("BIND_CONN_TO_SESSION and a second probe", () -> nfs4.backChannelProbesAnswered() == 2);
        assertThat(c.session().backChannelBinds()).isOne();
        long binds = c.session().backChannelBinds();
        Thread.sleep(1100); // past the client's interval between binds
        c.getattr(c.root());
        assertThat(c.session().backChannelBinds()).as("the path is up again: no more binds").isEqualTo(binds);
    }

    /**
     * After the transport reconnects, the client binds the new connection to the session (BIND_CONN_TO_SESSION), the
     * server probes it and sends callbacks there: a CB_SEQUENCE over the new connection is answered.
     */
    @Test
    void afterAReconnectTheBackChannelIsBoundToTheNewConnection() throws Exception {
        start();
        Nfs41Client c = client();
        org.rpcrdma4j.nfs.server.v4.Nfs4Program nfs4 = server.tcp().nfs4();
        org.rpcrdma4j.nfs.v4.state.SessionId sid = org.rpcrdma4j.nfs.v4.state.SessionId.of(c.session().sessionId());
        await("the first probe", () -> nfs4.backChannelProbesAnswered() == 1);
        org.dcache.oncrpc4j.rpc.RpcTransport first = nfs4.backChannel(sid).orElseThrow();
        long connections = c.transport().connectionGeneration();

        cutConnections();
        assertThat(c.getattr(c.root()).type()).isEqualTo(org.rpcrdma4j.nfs.FileType.DIRECTORY);
        assertThat(c.transport().connectionGeneration()).as("reconnected").isGreaterThan(connections);
        await("BIND_CONN_TO_SESSION and a probe of the new connection", () -> nfs4.backChannelProbesAnswered() == 2);
        assertThat(c.session().backChannelBinds()).isOne();
        org.dcache.oncrpc4j.rpc.RpcTransport second = nfs4.backChannel(sid).orElseThrow();
        assertThat(second).isNotSameAs(first);
        assertThat(callback(second, new CbCall(c.session().sessionId(), 1, null, null)).statuses)
                .containsExactly(0, 0);
        c.getattr(c.root());
        assertThat(c.session().backChannelBinds()).as("bound once per connection").isOne();
    }

    /**
     * A COMPOUND that went through is finished where its reply was taken off the connection, without the session's
     * executor; one with an error is acted on there and fails typed. The futures the client returns keep stages
     * registered on them off the transport's thread ({@code CallbackFuture}), and their waiters poll first.
     */
    @Test
    void repliesThatWentThroughAreFinishedWithoutTheSessionsExecutorAndErrorsAreActedOn() throws Exception {
        start();
        Nfs41Client client = client();
        FileHandle f = client.create(client.root(), "inline", org.rpcrdma4j.nfs.CreateMode.UNCHECKED, null)
                .handle();
        Nfs41Session session = client.session();
        long actedOn = session.repliesActedOn();
        long sent = session.compoundsSent();
        for (int i = 0; i < 50; i++) {
            java.util.concurrent.CompletableFuture<?> getattr = client.async().getattr(f);
            assertThat(getattr).isInstanceOf(org.rpcrdma4j.nfs.client.CallbackFuture.class);
            assertThat(getattr.get(30, TimeUnit.SECONDS)).isNotNull();
        }
        ByteBuf data = io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        java.util.concurrent.CompletableFuture<?> write = client.async().write(f, 0, data, StableHow.FILE_SYNC);
        assertThat(write).isInstanceOf(org.rpcrdma4j.nfs.client.CallbackFuture.class);
        write.get(30, TimeUnit.SECONDS);
        ByteBuf back = io.netty.buffer.Unpooled.buffer(3);
        java.util.concurrent.CompletableFuture<ReadReply> read = client.async().read(f, 0, back);
        assertThat(read).isInstanceOf(org.rpcrdma4j.nfs.client.CallbackFuture.class);
        assertThat(read.get(30, TimeUnit.SECONDS).count()).isEqualTo(3);
        assertThat(back.array()).containsExactly(1, 2, 3);
        assertThat(session.compoundsSent() - sent).isGreaterThanOrEqualTo(52);
        assertThat(session.repliesActedOn()).as("replies that went through").isEqualTo(actedOn);

        // a stage registered while the WRITE is held at the server runs on the session's executor, not where the
        // reply was taken
        vfs.closeGate();
        java.util.concurrent.CompletableFuture<?> held = client.async().write(f, 3, data, StableHow.FILE_SYNC);
        vfs.awaitWaiting(1);
        java.util.concurrent.CompletableFuture<String> stage = held.thenApply(w -> Thread.currentThread().getName());
        vfs.openGate();
        assertThat(stage.get(30, TimeUnit.SECONDS)).startsWith("nfs41-");

        FileHandle bogus = FileHandle.of(new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.async().getattr(bogus)
                .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(Nfs4StatusException.class);
        assertThat(session.repliesActedOn()).as("an error is acted on").isEqualTo(actedOn + 1);
    }
}

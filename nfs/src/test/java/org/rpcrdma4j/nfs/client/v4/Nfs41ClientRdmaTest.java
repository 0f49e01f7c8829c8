package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
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

    @Override
    protected void startServer(StateConfig state) throws IOException {
        server = NfsRdmaServer.start(
                NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0).workerThreads(4)
                        .nfs4(state),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .provider("soft", Map.of()).dispatchThreads(32).jmx(false));
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
}

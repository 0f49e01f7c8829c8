package org.rpcrdma4j.it.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * NFSv3 over RPC-over-RDMA on the {@code disni} provider: the nfs module's server (a memory file system) served by an
 * {@link RdmaRpcServer} with the NFSv3 upper-layer binding, MOUNT over TCP, and the nfs module's client on an
 * {@code rdma://} URL. A file written over RDMA (WRITE data in Read chunks) is read back over RDMA (READ data in Write
 * chunks) and, independently, over TCP; both must equal what was written.
 */
@ExtendWith(DisniRun.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DisniNfsTest {
    private static final int MIB = 1 << 20;

    private MemoryVfs vfs;
    private NfsServer nfs;
    private RdmaRpcServer rdma;

    @BeforeEach
    void start() throws Exception {
        String address = DisniRun.address().getHostAddress();
        vfs = new MemoryVfs(64L * MIB);
        nfs = NfsServer.builder().bindAddress(address).port(0).export("/m", vfs).build().start();
        rdma = RdmaRpcServer.builder()
                .name("disni-nfs")
                .provider("disni", DisniRun.options())
                .bindAddress(DisniRun.address())
                .port(0)
                .stopTimeout(Duration.ofSeconds(10))
                .jmx(false)
                .programs(nfs.programs())
                .binding(Nfs3UpperLayerBinding.INSTANCE)
                .build();
        rdma.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (rdma != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (rdma.connectionCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(rdma.connectionCount()).as("the server let go of the connection").isZero();
            rdma.stop();
        }
        if (nfs != null) {
            nfs.close();
        }
        if (vfs != null) {
            vfs.close();
        }
    }

    private String url(String scheme, int port) {
        return scheme + "://" + DisniRun.address().getHostAddress() + ":" + port + "/m?mountport=" + nfs.port();
    }

    private static byte[] pattern(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] readAll(NfsClient client, FileHandle fh, int length) throws Exception {
        ByteBuf back = Unpooled.buffer(length);
        int chunk = MIB;
        long off = 0;
        while (off < length) {
            ByteBuf part = Unpooled.buffer(chunk);
            ReadReply r = client.read(fh, off, part);
            assertThat(r.count()).as("bytes read at %d", off).isPositive();
            back.writeBytes(part);
            off += r.count();
        }
        byte[] out = new byte[back.readableBytes()];
        back.readBytes(out);
        return out;
    }

    @Test
    void aFileWrittenOverRdmaReadsBackByteForByteOverRdmaAndOverTcp() throws Exception {
        byte[] data = pattern(7, 3 * MIB + 12345);
        NfsClientConfig config = NfsClientConfig.defaults().withTransportFactory(new RdmaDataTransportFactory(
                RdmaClientConfig.builder().provider("disni", DisniRun.options()).jmx(false).build()));
        try (NfsClient client = NfsClient.mount(url("rdma", rdma.boundAddress().getPort()), config)) {
            client.ping();
            FileHandle fh = client.createFile("/f.bin");
            for (int off = 0; off < data.length; off += MIB) {
                int n = Math.min(MIB, data.length - off);
                WriteReply w = client.write(fh, off, Unpooled.wrappedBuffer(data, off, n), StableHow.FILE_SYNC);
                assertThat(w.count()).as("bytes written at %d", off).isEqualTo(n);
            }
            assertThat(client.stat("/f.bin").size()).isEqualTo(data.length);
            assertThat(readAll(client, fh, data.length)).as("read back over RDMA").isEqualTo(data);
            client.symlink(client.root(), "link", "f.bin");
            assertThat(client.readlink(client.resolve("/link"))).isEqualTo("f.bin");
            assertThat(client.list("/")).extracting(e -> e.name()).contains("f.bin", "link");
        }
        assertThat(rdma.counters().get(ServerCounter.READ_CHUNK_BYTES)).as("WRITE data pulled with RDMA READ")
                .isGreaterThanOrEqualTo(data.length);
        assertThat(rdma.counters().get(ServerCounter.WRITE_CHUNK_BYTES)).as("READ data pushed with RDMA WRITE")
                .isGreaterThanOrEqualTo(data.length);
        try (NfsClient tcp = NfsClient.mount(url("tcp", nfs.port()))) {
            FileHandle fh = tcp.resolve("/f.bin");
            assertThat(readAll(tcp, fh, data.length)).as("read back over TCP").isEqualTo(data);
        }
    }
}

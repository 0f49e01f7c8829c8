package org.rpcrdma4j.nfs.v4;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * NFSv3 and NFSv4 served on one RDMA port with one binding for program 100003
 * ({@link org.rpcrdma4j.nfs.binding.NfsBinding}): the embedded NFSv3 server's programs and the NFSv4.1 test program side by
 * side in one {@link RdmaRpcServer}. The NFSv3 client (over its RDMA transport) and an oncrpc4j NFSv4.1 client both
 * get their WRITE data pulled from Read chunks and their READ data pushed into Write chunks, byte for byte.
 */
@Timeout(120)
class NfsVersionsOnOneRdmaServerTest {

    @Test
    void bothVersionsGetDirectDataPlacement() throws Exception {
        AtomicReference<RdmaRpcServer> rdmaRef = new AtomicReference<>();
        MemoryNfs41Program nfs4 = new MemoryNfs41Program((call, n) -> rdmaRef.get().bufferAllocator().allocate(call, n));
        try (MemoryVfs vfs = new MemoryVfs(64L << 20);
             NfsServer nfs3 = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs).build().start()) {
            RdmaRpcServer rdma = RdmaRpcServer.builder()
                    .name("nfs34-e2e")
                    .provider("soft", Map.of("name", "nfs34-server", "engineThreads", "1"))
                    .bindAddress(InetAddress.getLoopbackAddress())
                    .port(0)
                    .stopTimeout(Duration.ofSeconds(5))
                    .programs(nfs3.programs()) // NFSv3 and MOUNT; NFS versions 2 and 4 answer PROG_MISMATCH...
                    .program(new OncRpcProgram(Nfs4.PROGRAM, Nfs4.VERSION), nfs4) // ...until version 4 is served
                    .binding(NfsBinding.INSTANCE)
                    .jmx(false)
                    .build();
            rdmaRef.set(rdma);
            rdma.start();
            try {
                RdmaClientConfig clientConfig = RdmaClientConfig.builder()
                        .provider("soft", Map.of("name", "nfs34-client", "engineThreads", "1")).jmx(false).build();
                nfs3Round(rdma, nfs3.port(), new RdmaDataTransportFactory(clientConfig));
                nfs4Round(rdma, nfs4, clientConfig);
            } finally {
                rdma.stop();
            }
            assertThat(rdma.device().resourceCounts()).isEqualTo(ResourceCounts.NONE);
        }
    }

    private static void nfs3Round(RdmaRpcServer rdma, int mountPort, RdmaDataTransportFactory factory)
            throws Exception {
        int size = 300_001;
        byte[] data = Nfs41OverRdmaTest.pattern(size, 31);
        long pulled = counter(rdma, ServerCounter.READ_CHUNK_BYTES);
        long pushed = counter(rdma, ServerCounter.WRITE_CHUNK_BYTES);
        String url = "rdma://127.0.0.1:" + rdma.boundAddress().getPort() + "/m?mountport=" + mountPort;
        try (NfsClient client = NfsClient.mount(url, NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = client.createFile("/v3");
            assertThat(client.write(fh, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC).count())
                    .isEqualTo(size);
            ByteBuf back = Unpooled.buffer(size);
            ReadReply r = client.read(fh, 0, back);
            assertThat(r.count()).isEqualTo(size);
            byte[] bytes = new byte[back.readableBytes()];
            back.getBytes(back.readerIndex(), bytes);
            assertThat(bytes).isEqualTo(data);
        }
        assertThat(counter(rdma, ServerCounter.READ_CHUNK_BYTES) - pulled).isEqualTo(size);
        assertThat(counter(rdma, ServerCounter.WRITE_CHUNK_BYTES) - pushed).isEqualTo(size);
    }

    private static void nfs4Round(RdmaRpcServer rdma, MemoryNfs41Program nfs4, RdmaClientConfig config)
            throws Exception {
        int size = 200_003;
        byte[] data = Nfs41OverRdmaTest.pattern(size, 32);
        byte[] fh = nfs4.createFile();
        long pulled = counter(rdma, ServerCounter.READ_CHUNK_BYTES);
        long pushed = counter(rdma, ServerCounter.WRITE_CHUNK_BYTES);
        try (RdmaDataTransport t = RdmaDataTransport.connect(rdma.boundAddress(), NfsClientConfig.defaults(),
                config)) {
            Compound41Res w = call(t, Compound41.of(sequence(1), new Compound41.PutFh(fh),
                    new Compound41.Write(0, data)));
            assertThat(w.status).isZero();
            Compound41Res r = call(t, Compound41.of(sequence(2), new Compound41.PutFh(fh),
                    new Compound41.Read(0, size)));
            assertThat(r.result(2, Compound41Res.ReadOk.class).bytes()).isEqualTo(data);
        }
        assertThat(nfs4.contents(fh)).isEqualTo(data);
        assertThat(counter(rdma, ServerCounter.READ_CHUNK_BYTES) - pulled).isEqualTo(size);
        assertThat(counter(rdma, ServerCounter.WRITE_CHUNK_BYTES) - pushed).isEqualTo(size);
    }

    private static Compound41.Sequence sequence(int id) {
        return new Compound41.Sequence(MemoryNfs41Program.SESSION, id, 0);
    }

    private static Compound41Res call(RdmaDataTransport t, Compound41 args) throws Exception {
        Compound41Res res = new Compound41Res();
        new RpcCall(Nfs4.PROGRAM, Nfs4.VERSION, new RpcAuthTypeNone(), t.transport())
                .call(Nfs4.PROC_COMPOUND, args, res, 60, TimeUnit.SECONDS);
        return res;
    }

    private static long counter(RdmaRpcServer rdma, ServerCounter c) {
        return rdma.counters().get(c);
    }
}

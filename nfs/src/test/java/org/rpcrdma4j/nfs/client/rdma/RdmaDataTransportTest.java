package org.rpcrdma4j.nfs.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.FileRangeArgs;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.ReadRes;
import org.rpcrdma4j.nfs.xdr.WriteArgs;
import org.rpcrdma4j.nfs.xdr.WriteRes;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.fake.Dispatching;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;

/**
 * The NFS client over RPC-over-RDMA: the nfs module's NFSv3 program answers behind the xprt module's scriptable RDMA
 * responder (MOUNT stays on TCP), and files written through {@code rdma://} come back byte for byte. WRITE data goes
 * out in Read chunks, READ data comes back through Write chunks, straight from and into registered buffers when the
 * caller's buffers are the transport's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaDataTransportTest {
    private MemoryVfs vfs;
    private NfsServer nfs;
    private RdmaDevice clientDevice;
    private RdmaDevice serverDevice;
    private FakeRdmaServer rdma;
    private RdmaDataTransportFactory factory;

    @BeforeEach
    void start() throws Exception {
        vfs = new MemoryVfs(64L << 20);
        nfs = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs).build().start();
        clientDevice = RdmaProviders.select("soft").open(Map.of());
        serverDevice = RdmaProviders.select("soft").open(Map.of());
        rdma = new FakeRdmaServer(serverDevice, new FakeRdmaServer.Options());
        rdma.script(new Dispatching(nfs.programs(), Nfs3UpperLayerBinding.INSTANCE));
        factory = new RdmaDataTransportFactory(RdmaClientConfig.builder().device(clientDevice).jmx(false).build());
    }

    @AfterEach
    void stop() throws Exception {
        rdma.close();
        nfs.close();
        vfs.close();
        assertThat(clientDevice.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        clientDevice.close();
        serverDevice.close();
    }

    private String url() {
        return "rdma://127.0.0.1:" + rdma.address().getPort() + "/m?mountport=" + nfs.port();
    }

    private static byte[] pattern(int seed, int n) {
        byte[] b = new byte[n];
        java.util.Random r = new java.util.Random(seed);
        r.nextBytes(b);
        return b;
    }

    @Test
    void filesWrittenOverRdmaReadBackByteForByte() throws Exception {
        byte[] data = pattern(1, (5 << 19) + 77);
        try (NfsClient client = NfsClient.mount(url(), NfsClientConfig.defaults().withTransportFactory(factory))) {
            FileHandle fh = client.createFile("/f");
            int chunk = 1 << 20;
            for (int off = 0; off < data.length; off += chunk) {
                int n = Math.min(chunk, data.length - off);
                client.write(fh, off, Unpooled.wrappedBuffer(data, off, n), StableHow.FILE_SYNC);
            }
            ByteBuf back = Unpooled.buffer(data.length);
            for (int off = 0; off < data.length; ) {
                ByteBuf part = Unpooled.buffer(chunk);
                ReadReply r = client.read(fh, off, part);
                assertThat(r.count()).isPositive();
                back.writeBytes(part);
                off += (int) r.count();
            }
            assertThat(back.array()).isEqualTo(data);
            client.symlink(client.root(), "l", "f");
            assertThat(client.readlink(client.resolve("/l"))).isEqualTo("f");
            assertThat(client.list("/")).extracting(e -> e.name()).contains("f", "l");
        }
        List<ReceivedCall> calls = rdma.drainCalls();
        assertThat(calls).anyMatch(c -> c.procedure() == Nfs3.WRITE && c.hasReadChunk() && c.chunkData().length == 1 << 20);
        assertThat(calls).anyMatch(c -> c.procedure() == Nfs3.READ && c.hasWriteChunk());
    }

    @Test
    void registeredBuffersMoveWithoutCopies() throws Exception {
        FileHandle fh;
        try (NfsClient client = NfsClient.mount(url(), NfsClientConfig.defaults().withTransportFactory(factory))) {
            fh = client.createFile("/z");
        }
        rdma.drainCalls();
        byte[] data = pattern(2, 300_001);
        try (RdmaDataTransport t = RdmaDataTransport.connect(rdma.address(), NfsClientConfig.defaults(),
                RdmaClientConfig.builder().device(clientDevice).jmx(false).build())) {
            RegisteredBuffer src = t.bufferPool().allocate(data.length);
            src.writeBytes(data);
            WriteRes w = t.call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.WRITE,
                    new WriteArgs(fh, 0, StableHow.FILE_SYNC, src), new WriteRes()).get(30, TimeUnit.SECONDS);
            assertThat(w.isOk()).isTrue();
            assertThat(w.count).isEqualTo(data.length);
            RegisteredBuffer sink = t.bufferPool().allocate(data.length + 100);
            ReadRes r = t.call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.READ, new FileRangeArgs(fh, 0, data.length + 100),
                    new ReadRes(sink)).get(30, TimeUnit.SECONDS);
            assertThat(r.isOk()).isTrue();
            assertThat(r.count).isEqualTo(data.length);
            assertThat(r.eof).isTrue();
            byte[] back = new byte[sink.readableBytes()];
            sink.getBytes(0, back);
            assertThat(back).isEqualTo(data);
            assertThat(t.transport().stats().get(org.rpcrdma4j.xprt.XprtCounter.PULLUP_COPY_COUNT))
                    .as("only the small RPC headers were copied").isLessThan(1024);
            src.release();
            sink.release();
        }
        List<ReceivedCall> calls = rdma.drainCalls();
        ReceivedCall write = calls.stream().filter(c -> c.procedure() == Nfs3.WRITE).findFirst().orElseThrow();
        assertThat(write.chunkData()).isEqualTo(data);
        ReceivedCall read = calls.stream().filter(c -> c.procedure() == Nfs3.READ).findFirst().orElseThrow();
        assertThat(read.header().writeChunkLength(0)).isEqualTo(data.length + 100);
    }

    /**
     * The NFSv3 client's file-level helpers (upload, download, readAll) take their READ sinks and WRITE sources from
     * the transport's registered memory: every bulk call's buffer moves without a copy.
     */
    @Test
    void theFileHelpersUseTheTransportsRegisteredMemory() throws Exception {
        java.util.concurrent.atomic.AtomicInteger bulk = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger copied = new java.util.concurrent.atomic.AtomicInteger();
        org.rpcrdma4j.nfs.client.DataTransportFactory watching = new org.rpcrdma4j.nfs.client.DataTransportFactory() {
            @Override
            public String scheme() {
                return "rdma";
            }

            @Override
            public int defaultPort() {
                return factory.defaultPort();
            }

            @Override
            public org.rpcrdma4j.nfs.client.DataTransport connect(java.net.InetSocketAddress server,
                                                                   NfsClientConfig config) throws java.io.IOException {
                org.rpcrdma4j.nfs.client.DataTransport t = factory.connect(server, config);
                return new org.rpcrdma4j.nfs.client.DataTransport() {
                    @Override
                    public <T extends org.dcache.oncrpc4j.xdr.XdrAble> java.util.concurrent.CompletableFuture<T> call(
                            int program, int version, int procedure, org.dcache.oncrpc4j.xdr.XdrAble args, T result) {
                        ByteBuf item = args instanceof org.rpcrdma4j.nfs.xdr.DdpArgument d ? d.item()
                                : result instanceof org.rpcrdma4j.nfs.xdr.DdpResult d ? d.sink() : null;
                        if (item != null && item.capacity() >= 4096) {
                            bulk.incrementAndGet();
                            if (!t.movesWithoutCopy(item)) {
                                copied.incrementAndGet();
                            }
                        }
                        return t.call(program, version, procedure, args, result);
                    }

                    @Override
                    public ByteBuf allocateData(int size) throws java.io.IOException {
                        return t.allocateData(size);
                    }

                    @Override
                    public boolean movesWithoutCopy(ByteBuf b) {
                        return t.movesWithoutCopy(b);
                    }

                    @Override
                    public java.net.InetSocketAddress remoteAddress() {
                        return t.remoteAddress();
                    }

                    @Override
                    public void close() {
                        t.close();
                    }
                };
            }
        };
        byte[] data = pattern(5, 3 * (1 << 20) + 17);
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("helpers");
        try (NfsClient client = NfsClient.mount(url(), NfsClientConfig.defaults().withTransportFactory(watching))) {
            java.nio.file.Path src = java.nio.file.Files.write(dir.resolve("src"), data);
            assertThat(client.upload(src, "/big")).isEqualTo(data.length);
            java.nio.file.Path back = dir.resolve("back");
            assertThat(client.download("/big", back)).isEqualTo(data.length);
            assertThat(java.nio.file.Files.readAllBytes(back)).isEqualTo(data);
            assertThat(client.readAll("/big")).isEqualTo(data);
        } finally {
            for (String f : new String[] {"src", "back"}) {
                java.nio.file.Files.deleteIfExists(dir.resolve(f));
            }
            java.nio.file.Files.delete(dir);
        }
        assertThat(bulk.get()).as("bulk READs and WRITEs: 4 of each at least").isGreaterThanOrEqualTo(8);
        assertThat(copied.get()).as("of which through a copy").isZero();
    }

    /**
     * Dependent stages registered while a call is pending run on the transport's own completions thread by default
     * (they may block), and on the thread that took the reply off the connection with {@code Runnable::run} as the
     * stage executor: one hand-off less for stages that never block.
     */
    @Test
    void stagesRunOnTheCompletionsThreadByDefaultAndWhereTheReplyWasTakenWithADirectExecutor() throws Exception {
        assertThat(stageThread(NfsClientConfig.defaults())).startsWith("nfs-rdma-completions-");
        String direct = stageThread(NfsClientConfig.defaults().withStageExecutor(Runnable::run));
        assertThat(direct).doesNotStartWith("nfs-rdma-completions-").isNotEqualTo(Thread.currentThread().getName());
    }

    /** Holds a NULL call's reply until a stage is registered on its future; returns the thread the stage ran on. */
    private String stageThread(NfsClientConfig config) throws Exception {
        Dispatching answer = new Dispatching(nfs.programs(), Nfs3UpperLayerBinding.INSTANCE);
        java.util.concurrent.BlockingQueue<ReceivedCall> held = new java.util.concurrent.LinkedBlockingQueue<>();
        rdma.script(c -> {
            if (c.procedure() == Nfs3.NULL) {
                held.add(c);
                return null;
            }
            return answer.onCall(c);
        });
        try (RdmaDataTransport t = RdmaDataTransport.connect(rdma.address(), config,
                RdmaClientConfig.builder().device(clientDevice).jmx(false).build())) {
            java.util.concurrent.CompletableFuture<org.dcache.oncrpc4j.xdr.XdrVoid> call = t.call(Nfs3.PROGRAM,
                    Nfs3.VERSION, Nfs3.NULL, org.dcache.oncrpc4j.xdr.XdrVoid.XDR_VOID,
                    new org.dcache.oncrpc4j.xdr.XdrVoid());
            ReceivedCall c = held.poll(30, TimeUnit.SECONDS);
            assertThat(c).as("the NULL call reached the server").isNotNull();
            assertThat(call).isNotDone();
            java.util.concurrent.CompletableFuture<String> ranOn = call.thenApply(v -> Thread.currentThread().getName());
            rdma.respondLater(c, answer.onCall(c));
            return ranOn.get(30, TimeUnit.SECONDS);
        }
    }
}

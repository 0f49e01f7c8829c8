package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * End to end: an unmodified oncrpc4j {@link RpcCall} over the project's RDMA client transport to this server gives,
 * for every procedure of the test program, the same results as the same program served by oncrpc4j's TCP service to
 * oncrpc4j's TCP client.
 */
@Timeout(120)
class OncRpcOverRdmaTest extends ServerFixture {
    private OncRpcSvc tcpServer;
    private OncRpcClient tcpClient;
    private RpcTransport tcp;
    private RdmaClientTransport rdma;

    @BeforeEach
    void connectBoth() throws Exception {
        tcpServer = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1").withoutAutoPublish()
                .withSameThreadIoStrategy().withServiceName("tcp-reference")
                .withRpcService(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), program).build();
        tcpServer.start();
        InetSocketAddress at = tcpServer.getInetSocketAddress(IpProtocolType.TCP);
        tcpClient = new OncRpcClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), at.getPort()),
                IpProtocolType.TCP);
        tcp = tcpClient.connect();
        rdma = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                .provider(TestDevices.PROVIDER, TestDevices.options(Map.of("name", "e2e-client", "engineThreads", "1")))
                .binding(new EchoBinding()).jmx(false).build());
    }

    @AfterEach
    void closeBoth() throws Exception {
        rdma.close();
        tcpClient.close();
        tcpServer.stop();
    }

    private static RpcCall rpc(RpcTransport transport) {
        return new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), transport);
    }

    /** Calls {@code procedure} over both transports and returns both results (TCP first). */
    private <T extends XdrAble> List<T> both(int procedure, XdrAble args, java.util.function.Supplier<T> result)
            throws Exception {
        T overTcp = result.get();
        T overRdma = result.get();
        rpc(tcp).call(procedure, args, overTcp, 30, TimeUnit.SECONDS);
        rpc(rdma).call(procedure, args, overRdma, 30, TimeUnit.SECONDS);
        return List.of(overTcp, overRdma);
    }

    @Test
    void nullCall() throws Exception {
        long calls = counter(ServerCounter.CALLS);
        for (RpcTransport t : new RpcTransport[] {tcp, rdma}) {
            rpc(t).call(EchoProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 30, TimeUnit.SECONDS);
        }
        assertThat(counter(ServerCounter.CALLS) - calls).isEqualTo(1);
    }

    @Test
    void echoSmallAndOf100KiB() throws Exception {
        for (int size : new int[] {333, 100 * 1024}) {
            EchoProgram.Opaque args = new EchoProgram.Opaque();
            args.bytes = EchoProgram.pattern(size, size);
            long readChunks = counter(ServerCounter.READ_CHUNKS);
            long writeChunks = counter(ServerCounter.WRITE_CHUNKS);
            List<EchoProgram.Opaque> results = both(EchoProgram.ECHO, args, EchoProgram.Opaque::new);
            assertThat(results.get(0).bytes).isEqualTo(args.bytes);
            assertThat(results.get(1).bytes).isEqualTo(results.get(0).bytes);
            // the large echo went out as a read chunk and came back through a write chunk
            int chunks = size > 4096 ? 1 : 0;
            assertThat(counter(ServerCounter.READ_CHUNKS) - readChunks).isEqualTo(chunks);
            assertThat(counter(ServerCounter.WRITE_CHUNKS) - writeChunks).isEqualTo(chunks);
        }
    }

    @Test
    void callOf100KiB() throws Exception {
        EchoProgram.Opaque args = new EchoProgram.Opaque();
        args.bytes = EchoProgram.pattern(100 * 1024, 3);
        long readBytes = counter(ServerCounter.READ_CHUNK_BYTES);
        List<Ints> results = both(EchoProgram.DIGEST, args, () -> new Ints(2));
        assertThat(counter(ServerCounter.READ_CHUNK_BYTES) - readBytes).isEqualTo(100 * 1024);
        assertThat(results.get(0).values[0]).isEqualTo(100 * 1024);
        assertThat(results.get(1).values).containsExactly(results.get(0).values);
    }

    @Test
    void replyOf100KiB() throws Exception {
        for (int procedure : new int[] {EchoProgram.READ, EchoProgram.READ_HEAP}) {
            Ints args = new Ints(2);
            args.values[0] = 100 * 1024;
            args.values[1] = procedure;
            long zeroCopy = counter(ServerCounter.ZERO_COPY_BYTES);
            long written = counter(ServerCounter.WRITE_CHUNK_BYTES);
            List<EchoProgram.Opaque> results = both(procedure, args, EchoProgram.Opaque::new);
            assertThat(results.get(0).bytes).isEqualTo(EchoProgram.pattern(100 * 1024, procedure));
            assertThat(results.get(1).bytes).isEqualTo(results.get(0).bytes);
            assertThat(counter(ServerCounter.WRITE_CHUNK_BYTES) - written).isEqualTo(100 * 1024);
            // READ's buffer came from the server's allocator: written straight from it
            assertThat(counter(ServerCounter.ZERO_COPY_BYTES) - zeroCopy)
                    .isEqualTo(procedure == EchoProgram.READ ? 100 * 1024 : 0);
        }
    }

    @Test
    void concurrentCallersOverOneConnectionEachGetTheirOwnReply() throws Exception {
        long inlineRounds = counter(ServerCounter.INLINE_ROUNDS);
        int threads = 6;
        int perThread = 60;
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread[] callers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int thread = t;
            callers[t] = new Thread(() -> {
                try {
                    for (int k = 0; k < perThread; k++) {
                        int size = 1 + (thread * perThread + k) * 37 % 6000;
                        EchoProgram.Opaque args = new EchoProgram.Opaque();
                        args.bytes = EchoProgram.pattern(size, thread * 1000 + k);
                        EchoProgram.Opaque result = new EchoProgram.Opaque();
                        rpc(rdma).call(EchoProgram.ECHO, args, result, 30, TimeUnit.SECONDS);
                        if (!java.util.Arrays.equals(result.bytes, args.bytes)) {
                            throw new AssertionError("echo of " + size + " bytes came back different");
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            callers[t].start();
        }
        for (Thread c : callers) {
            c.join();
        }
        assertThat(failure.get()).isNull();
        // the programs' threads posted replies themselves, or device threads polled, without waking the agent
        assertThat(counter(ServerCounter.INLINE_ROUNDS) - inlineRounds).isPositive();
    }

    /** A fixed number of XDR ints. */
    static final class Ints implements XdrAble {
        final int[] values;

        Ints(int n) {
            values = new int[n];
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            for (int i = 0; i < values.length; i++) {
                values[i] = xdr.xdrDecodeInt();
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            for (int v : values) {
                xdr.xdrEncodeInt(v);
            }
        }
    }
}

package org.rpcrdma4j.benchmarks.harness;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.binding.NfsBinding;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;

/**
 * The path nfs4j's client takes: every call an unmodified oncrpc4j {@link RpcCall} over an oncrpc4j
 * {@link RpcTransport}, either oncrpc4j's own TCP transport or {@link RdmaClientTransport} with the NFS binding.
 * Under the project's NFSv4.1 client ({@code Nfs41Client}), so that both columns send the same COMPOUNDs, encoded the
 * same way (WRITE data by reference, {@code Xdr.xdrEncodeShallowByteBuffer}); the data buffers come from
 * {@link #allocateData}: the RDMA transport's registered pool, or pooled direct memory for TCP.
 */
final class PlainRpcCallTransport implements DataTransport {
    private static final RpcAuth AUTH = new RpcAuthTypeUnix(0, 0, new int[] {0}, 0, "harness");

    private final InetSocketAddress server;
    private final RpcTransport transport;
    private final RdmaClientTransport rdma;
    private final OncRpcClient tcp;

    private PlainRpcCallTransport(InetSocketAddress server, RpcTransport transport, RdmaClientTransport rdma,
                                  OncRpcClient tcp) {
        this.server = server;
        this.transport = transport;
        this.rdma = rdma;
        this.tcp = tcp;
    }

    /** Factories for the "rdma" scheme (over {@code device}) and the "tcp" scheme, to put in an NFS client config. */
    static NfsClientConfig configure(NfsClientConfig config, RdmaDevice device, int inline) {
        return config.withTransportFactory(new Factory("rdma", 20049, device, inline))
                .withTransportFactory(new Factory("tcp", 2049, null, 0));
    }

    private record Factory(String scheme, int defaultPort, RdmaDevice device, int inline)
            implements DataTransportFactory {
        @Override
        public DataTransport connect(InetSocketAddress address, NfsClientConfig config) throws IOException {
            if (device != null) {
                RdmaClientTransport rdma = RdmaClientTransport.connect(address, RdmaClientConfig.builder()
                        .device(device).inlineSizes(inline, inline).binding(NfsBinding.INSTANCE)
                        .defaultMaxReplySize((1 << 20) + (64 << 10)).jmx(false).build());
                return new PlainRpcCallTransport(address, rdma, rdma, null);
            }
            OncRpcClient client = OncRpcClient.newBuilder().withTCP().withWorkerThreadIoStrategy()
                    .withWorkerThreadPoolSize(config.workerThreads()).withSelectorThreadPoolSize(1)
                    .withServiceName("plain-tcp-" + address).build(address);
            try {
                return new PlainRpcCallTransport(address, client.connect(), null, client);
            } catch (IOException | RuntimeException e) {
                client.close();
                throw e;
            }
        }
    }

    @Override
    public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args,
                                                         T result) {
        CompletableFuture<T> future = new CompletableFuture<>();
        try {
            new RpcCall(program, version, AUTH, transport).call(procedure, args,
                    new CompletionHandler<RpcReply, RpcTransport>() {
                        @Override
                        public void completed(RpcReply reply, RpcTransport on) {
                            try {
                                reply.getReplyResult(result);
                                future.complete(result);
                            } catch (IOException | RuntimeException e) {
                                future.completeExceptionally(new RpcBadReplyException(
                                        "procedure " + procedure + ": " + e.getMessage(), e));
                            }
                        }

                        @Override
                        public void failed(Throwable e, RpcTransport on) {
                            future.completeExceptionally(new RpcConnectionException(
                                    "procedure " + procedure + ": " + e, e));
                        }
                    }, 60, TimeUnit.SECONDS);
        } catch (IOException | RuntimeException e) {
            future.completeExceptionally(new RpcConnectionException("procedure " + procedure + ": " + e, e));
        }
        return future;
    }

    @Override
    public ByteBuf allocateData(int size) throws IOException {
        if (rdma != null) {
            try {
                return rdma.bufferPool().allocate(size);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        return PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    }

    @Override
    public boolean movesWithoutCopy(ByteBuf b) {
        return rdma != null && rdma.isRegisteredHere(b);
    }

    @Override
    public int maxDataPerCall() {
        return rdma != null ? rdma.config().maxPayloadSize() : Integer.MAX_VALUE;
    }

    @Override
    public int maxUnboundedReply() {
        return rdma != null ? rdma.config().defaultMaxReplySize() : Integer.MAX_VALUE;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return server;
    }

    @Override
    public void close() {
        try {
            if (rdma != null) {
                rdma.close();
            }
            if (tcp != null) {
                tcp.close();
            }
        } catch (IOException e) {
            // closing: nothing to do
        }
    }
}

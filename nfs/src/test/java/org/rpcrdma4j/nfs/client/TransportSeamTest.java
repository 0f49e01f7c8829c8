package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.DdpArgument;
import org.rpcrdma4j.nfs.xdr.DdpResult;
import org.rpcrdma4j.nfs.xdr.Mount3;

/**
 * An "rdma" URL runs through a {@link DataTransportFactory} from the configuration: MOUNT goes over TCP to the
 * mount port, every NFS call through the factory's transport, and the bulk calls reach it marked as DDP items.
 */
@Timeout(60)
class TransportSeamTest {
    /** Records what passes through, and sends it over TCP. */
    private static final class RecordingFactory implements DataTransportFactory {
        final List<String> calls = new ArrayList<>();

        @Override
        public String scheme() {
            return "rdma";
        }

        @Override
        public int defaultPort() {
            return NfsUrl.NFS_RDMA_PORT;
        }

        @Override
        public DataTransport connect(InetSocketAddress server, NfsClientConfig config) throws IOException {
            TcpDataTransport tcp = TcpDataTransport.connect(server, config);
            return new DataTransport() {
                @Override
                public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure,
                                                                     XdrAble args, T result) {
                    synchronized (calls) {
                        calls.add(program + "/" + procedure + (args instanceof DdpArgument ? " ddp-arg" : "")
                                + (result instanceof DdpResult ? " ddp-result" : ""));
                    }
                    return tcp.call(program, version, procedure, args, result);
                }

                @Override
                public InetSocketAddress remoteAddress() {
                    return tcp.remoteAddress();
                }

                @Override
                public void close() {
                    tcp.close();
                }
            };
        }
    }

    @Test
    void anRdmaUrlUsesTheConfiguredFactoryForNfsAndTcpForMount() throws IOException {
        RecordingFactory factory = new RecordingFactory();
        try (MemoryVfs vfs = new MemoryVfs(1 << 24);
             NfsServer server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/m", vfs).build()
                     .start()) {
            String url = "rdma://127.0.0.1:" + server.port() + "/m?mountport=" + server.port();
            try (NfsClient nfs = NfsClient.mount(url, NfsClientConfig.defaults().withTransportFactory(factory))) {
                nfs.createFile("/f");
                nfs.write(nfs.resolve("/f"), 0, io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {5}),
                        org.rpcrdma4j.nfs.StableHow.FILE_SYNC);
                assertThat(nfs.readAll("/f")).containsExactly(5);
                nfs.symlink(nfs.root(), "l", "f");
            }
        }
        assertThat(factory.calls).noneMatch(c -> c.startsWith(Mount3.PROGRAM + "/"));
        assertThat(factory.calls).contains("100003/7 ddp-arg", "100003/6 ddp-result", "100003/10 ddp-arg");
    }
}

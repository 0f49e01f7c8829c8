package org.rpcrdma4j.nfs.client.rdma;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;

/**
 * Makes {@link RdmaDataTransport}s for the "rdma" scheme (default port 20049). Found by {@link java.util.ServiceLoader}
 * with default transport settings (the {@code auto} provider: hardware if present, else the software device); give
 * one with other settings to {@link NfsClientConfig#withTransportFactory}.
 */
public final class RdmaDataTransportFactory implements DataTransportFactory {
    private final RdmaClientConfig rdma;

    /** Default transport settings. */
    public RdmaDataTransportFactory() {
        this(RdmaClientConfig.builder().build());
    }

    public RdmaDataTransportFactory(RdmaClientConfig rdma) {
        this.rdma = rdma;
    }

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
        return RdmaDataTransport.connect(server, config, rdma);
    }
}

package org.rpcrdma4j.nfs.client;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Makes {@link DataTransport}s for one URL scheme ("tcp", "rdma"). The client finds factories in its
 * {@link NfsClientConfig} first, then through {@link java.util.ServiceLoader}: an RDMA module registers its factory
 * for "rdma" in {@code META-INF/services/org.rpcrdma4j.nfs.client.DataTransportFactory}.
 */
public interface DataTransportFactory {

    /** The URL scheme this factory serves. */
    String scheme();

    /** The default NFS port for the scheme (2049 for TCP, 20049 for RDMA). */
    int defaultPort();

    /** Connects to an NFS server. */
    DataTransport connect(InetSocketAddress server, NfsClientConfig config) throws IOException;
}

package org.rpcrdma4j.nfs.server.rdma;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded NFSv3 server over RDMA and TCP at once: one {@link NfsServer} (NFS and MOUNT over oncrpc4j TCP) and
 * one {@link RdmaRpcServer} serving the very same program objects over RPC-over-RDMA with the NFSv3 upper-layer
 * binding. MOUNT stays reachable over TCP (clients mount there, as Linux does with {@code mountproto=tcp}).
 * <p>
 * <b>Zero-copy READ.</b> The NFS program's READ buffers come from the RDMA server's
 * {@link RdmaRpcServer#bufferAllocator()}: for a call that arrived over RDMA, registered memory that the file is read
 * into and that is then RDMA-written straight into the client's write chunk; for a call over TCP, pooled direct
 * memory. The RDMA server counts the bytes that went without a copy ({@code ZERO_COPY_BYTES}).
 * <p>
 * <b>Zero-copy WRITE.</b> When the RDMA builder allows keeping ({@code keptCallMemory}), the data of a WRITE that
 * arrived over RDMA is offered to the VFS where the server pulled it (registered memory, no longer reachable by the
 * client): a {@code MemoryVfs} keeps each whole block of it as the file's block instead of copying it
 * ({@code KEPT_CALL_BYTES}). Both seams: {@link RdmaServerMemory}.
 * <pre>{@code
 * NfsRdmaServer server = NfsRdmaServer.start(
 *         NfsServer.builder().export("/data", LocalVfs.open(dir)).port(2049),
 *         RdmaRpcServer.builder().port(20049).provider("soft", Map.of()));
 * // rdma://host:20049/data?mountport=2049
 * }</pre>
 * Owns both servers: {@link #close()} stops them (RDMA first, then TCP). The exported VFSes stay the caller's.
 */
public final class NfsRdmaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NfsRdmaServer.class);

    private final NfsServer nfs;
    private final RdmaRpcServer rdma;

    private NfsRdmaServer(NfsServer nfs, RdmaRpcServer rdma) {
        this.nfs = nfs;
        this.rdma = rdma;
    }

    /**
     * Builds and starts both servers. Takes over both builders: sets the NFS builder's READ buffers and WRITE memory,
     * and gives the RDMA builder the NFS server's programs and, unless it has one for NFS, the NFSv3 and NFSv4 binding
     * ({@link NfsBinding}). When either fails to start, nothing
     * is left running.
     */
    public static NfsRdmaServer start(NfsServer.Builder nfsBuilder, RdmaRpcServer.Builder rdmaBuilder)
            throws IOException {
        return start(nfsBuilder, rdmaBuilder, new RdmaServerMemory());
    }

    /**
     * {@link #start(NfsServer.Builder, RdmaRpcServer.Builder)} on {@code memory}, which the RDMA server's memory is
     * bound to: for a {@code MemoryVfs} whose blocks are already in it ({@link RdmaServerMemory#blocks}).
     */
    public static NfsRdmaServer start(NfsServer.Builder nfsBuilder, RdmaRpcServer.Builder rdmaBuilder,
                                      RdmaServerMemory memory) throws IOException {
        NfsServer nfs = nfsBuilder.readBuffers(memory).writeMemory(memory).build();
        rdmaBuilder.programs(nfs.programs());
        if (!rdmaBuilder.hasBinding(NfsBinding.INSTANCE.program())) {
            rdmaBuilder.binding(NfsBinding.INSTANCE);
        }
        RdmaRpcServer rdma = rdmaBuilder.build();
        memory.bind(rdma.bufferAllocator());
        nfs.start();
        try {
            rdma.start();
        } catch (IOException | RuntimeException e) {
            closeQuietly(nfs);
            throw e;
        }
        LOG.info("NFS over RDMA on {} and over TCP on port {}", rdma.boundAddress(), nfs.port());
        return new NfsRdmaServer(nfs, rdma);
    }

    private static void closeQuietly(NfsServer nfs) {
        try {
            nfs.close();
        } catch (IOException e) {
            LOG.warn("closing the TCP server failed: {}", e.toString());
        }
    }

    /** The TCP side (NFS and MOUNT). */
    public NfsServer tcp() {
        return nfs;
    }

    /** The RDMA side (counters, connections). */
    public RdmaRpcServer rdma() {
        return rdma;
    }

    /** The TCP port of NFS and MOUNT. */
    public int tcpPort() {
        return nfs.port();
    }

    /** The RDMA port of NFS. */
    public int rdmaPort() {
        return rdma.boundAddress().getPort();
    }

    public InetSocketAddress rdmaAddress() {
        return rdma.boundAddress();
    }

    /** Stops the RDMA server (draining calls in flight for its stop timeout), then the TCP server. */
    @Override
    public void close() throws IOException {
        try {
            rdma.stop();
        } finally {
            nfs.close();
        }
    }
}

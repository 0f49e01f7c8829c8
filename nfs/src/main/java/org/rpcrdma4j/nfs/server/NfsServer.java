package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.nfs.server.v4.Nfs4Program;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded NFS server: NFSv3 with MOUNT, and NFSv4.1/4.2 ({@link Nfs4Program}), over {@link Vfs} exports, served
 * over oncrpc4j TCP on one port (MOUNT shares the NFS port, so a client needs no portmapper). Other versions of both
 * programs answer {@code PROG_MISMATCH}. Optionally a minimal portmapper on its own port (e.g. 111) tells clients that ask where
 * NFS and MOUNT are.
 * <p>
 * {@link #programs()} are the same {@link RpcDispatchable} objects an RDMA server registers to serve NFS over RDMA;
 * {@link Builder#readBuffers} is where it plugs in its registered memory for READ data, {@link Builder#writeMemory}
 * where it offers the memory WRITE data arrived in.
 * <pre>{@code
 * NfsServer server = NfsServer.builder().export("/data", LocalVfs.open(dir)).bindAddress("127.0.0.1").build();
 * server.start();
 * int port = server.port();
 * }</pre>
 */
public final class NfsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NfsServer.class);

    private final Builder config;
    private final ExportTable exports;
    private final Map<OncRpcProgram, RpcDispatchable> programs = new LinkedHashMap<>();
    /** The NFSv4.1 and 4.2 program; null when NFSv4 is off. */
    private final Nfs4Program nfs4;
    private OncRpcSvc svc;
    private OncRpcSvc portmapSvc;
    private int port;

    private NfsServer(Builder b) {
        this.config = b;
        this.exports = new ExportTable(b.exports);
        Nfs3Program nfs = new Nfs3Program(exports, b.limits, b.readBuffers, b.writeMemory);
        MountProgram mount = new MountProgram(exports);
        programs.put(new OncRpcProgram(Nfs3.PROGRAM, Nfs3.VERSION), nfs);
        programs.put(new OncRpcProgram(Mount3.PROGRAM, Mount3.VERSION), mount);
        int highest = Nfs3.VERSION;
        if (b.nfs4 != null) {
            // a boot id of its own per server instance: a restarted server's client IDs and stateids are stale
            ClientTable clients = new ClientTable(b.nfs4, ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE),
                    System::nanoTime);
            this.nfs4 = new Nfs4Program(exports, b.limits, clients, b.readBuffers, b.delegations);
            programs.put(new OncRpcProgram(Nfs3.PROGRAM, Nfs4.VERSION), nfs4);
            highest = Nfs4.VERSION;
        } else {
            this.nfs4 = null;
            programs.put(new OncRpcProgram(Nfs3.PROGRAM, Nfs4.VERSION),
                    new VersionMismatchProgram(Nfs3.VERSION, Nfs3.VERSION));
        }
        programs.put(new OncRpcProgram(Nfs3.PROGRAM, 2), new VersionMismatchProgram(Nfs3.VERSION, highest));
        VersionMismatchProgram mountOther = new VersionMismatchProgram(Mount3.VERSION, Mount3.VERSION);
        for (int v : new int[] {1, 2}) {
            programs.put(new OncRpcProgram(Mount3.PROGRAM, v), mountOther);
        }
        if (b.duplicateRequestCache != null) {
            programs.replaceAll((program, dispatchable) -> b.duplicateRequestCache.wrap(dispatchable));
        }
    }

    /** The NFSv4 state settings a server gets unless its builder is told otherwise (see {@link Builder#nfs4}). */
    public static StateConfig defaultNfs4() {
        StateConfig d = StateConfig.defaults();
        return new StateConfig(d.leaseTime(), java.time.Duration.ofSeconds(10), d.foreLimits(), d.backLimits(),
                d.maxSessionsPerClient());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The NFSv4.1 and 4.2 program (its clients, sessions and open state), or null when NFSv4 is not served. */
    public Nfs4Program nfs4() {
        return nfs4;
    }

    /** The programs served: NFS v3 and v4, MOUNT v3 and the version-mismatch responders. Unmodifiable. */
    public Map<OncRpcProgram, RpcDispatchable> programs() {
        return java.util.Collections.unmodifiableMap(programs);
    }

    public ExportTable exports() {
        return exports;
    }

    /** Binds and starts serving. */
    public synchronized NfsServer start() throws IOException {
        if (svc != null) {
            throw new IllegalStateException("already started");
        }
        OncRpcSvcBuilder b = new OncRpcSvcBuilder()
                .withTCP()
                .withPort(config.port)
                .withBindAddress(config.bindAddress)
                .withoutAutoPublish()
                .withWorkerThreadIoStrategy()
                .withWorkerThreadPoolSize(config.workerThreads)
                .withSelectorThreadPoolSize(config.selectorThreads)
                .withServiceName("nfs3-" + config.bindAddress + "-" + config.port);
        programs.forEach(b::withRpcService);
        OncRpcSvc s = b.build();
        s.start();
        svc = s;
        port = s.getInetSocketAddress(IpProtocolType.TCP).getPort();
        if (config.portmapPort >= 0) {
            List<PortmapProgram.Mapping> table = new ArrayList<>();
            table.add(new PortmapProgram.Mapping(Nfs3.PROGRAM, Nfs3.VERSION, PortmapProgram.PROTO_TCP, port));
            if (nfs4 != null) {
                table.add(new PortmapProgram.Mapping(Nfs3.PROGRAM, Nfs4.VERSION, PortmapProgram.PROTO_TCP, port));
            }
            table.add(new PortmapProgram.Mapping(Mount3.PROGRAM, Mount3.VERSION, PortmapProgram.PROTO_TCP, port));
            OncRpcSvc pm = new OncRpcSvcBuilder()
                    .withTCP()
                    .withUDP()
                    .withPort(config.portmapPort)
                    .withBindAddress(config.bindAddress)
                    .withoutAutoPublish()
                    .withSameThreadIoStrategy()
                    .withSelectorThreadPoolSize(1)
                    .withServiceName("portmap-" + config.bindAddress)
                    .withRpcService(new OncRpcProgram(PortmapProgram.PROGRAM, PortmapProgram.VERSION),
                            new PortmapProgram(table))
                    .build();
            try {
                pm.start();
            } catch (IOException e) {
                // oncrpc4j binds TCP before UDP: a UDP port in use leaves the portmapper's TCP listener running
                InetSocketAddress pmTcp = pm.getInetSocketAddress(IpProtocolType.TCP);
                InetSocketAddress nfsAddress = s.getInetSocketAddress(IpProtocolType.TCP);
                try {
                    pm.stop();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                s.stop();
                svc = null;
                PortRelease.await(nfsAddress, null);
                PortRelease.await(pmTcp, null);
                throw e;
            }
            portmapSvc = pm;
        }
        LOG.info("NFSv3 server on {}:{} exporting {}", config.bindAddress, port,
                exports.all().stream().map(Export::path).toList());
        return this;
    }

    /** The TCP port NFS and MOUNT are served on. */
    public int port() {
        return port;
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(config.bindAddress, port);
    }

    /** The portmapper's port, or -1 when none is served. */
    public int portmapPort() {
        return portmapSvc == null ? -1 : portmapSvc.getInetSocketAddress(IpProtocolType.TCP).getPort();
    }

    /**
     * Stops serving (open connections are closed); when it returns, the ports are free (a connection is refused and
     * a new server may bind them). The VFSes are not closed: they belong to the caller.
     */
    @Override
    public synchronized void close() throws IOException {
        if (nfs4 != null) {
            nfs4.close();
        }
        if (portmapSvc != null) {
            InetSocketAddress tcp = portmapSvc.getInetSocketAddress(IpProtocolType.TCP);
            InetSocketAddress udp = portmapSvc.getInetSocketAddress(IpProtocolType.UDP);
            portmapSvc.stop(1, TimeUnit.SECONDS);
            portmapSvc = null;
            PortRelease.await(tcp, udp);
        }
        if (svc != null) {
            InetSocketAddress tcp = svc.getInetSocketAddress(IpProtocolType.TCP);
            svc.stop(1, TimeUnit.SECONDS); // closes the listening socket; NIO may defer that (PortRelease)
            svc.stop(); // and the reply queue's and workers' threads end
            svc = null;
            PortRelease.await(tcp, null);
        }
    }

    /** Configuration; every setting has a default. */
    public static final class Builder {
        private final List<Export> exports = new ArrayList<>();
        private String bindAddress = "0.0.0.0";
        private int port = 2049;
        private int portmapPort = -1;
        private int workerThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        private int selectorThreads = 1;
        private ServerLimits limits = ServerLimits.DEFAULT;
        private ReadBufferAllocator readBuffers = new PooledReadBufferAllocator();
        private WriteMemorySource writeMemory = WriteMemorySource.NONE;
        private DuplicateRequestCache duplicateRequestCache;
        private StateConfig nfs4 = defaultNfs4();
        private boolean delegations = true;

        private Builder() {
        }

        /** Exports {@code vfs} at {@code path}, writable. */
        public Builder export(String path, Vfs vfs) {
            return export(path, vfs, false);
        }

        /** Exports {@code vfs} at {@code path} to every host, read-only when {@code readOnly}. */
        public Builder export(String path, Vfs vfs, boolean readOnly) {
            exports.add(Export.of(path, vfs, readOnly));
            return this;
        }

        /**
         * Exports {@code vfs} at {@code path} to the hosts {@code clients} name, e.g.
         * {@code ExportClients.parse("10.0.0.0/8(rw) *(ro)")}; read-only for all of them when {@code readOnly}.
         */
        public Builder export(String path, Vfs vfs, boolean readOnly, ExportClients clients) {
            exports.add(Export.of(path, vfs, readOnly, clients));
            return this;
        }

        public Builder bindAddress(String address) {
            this.bindAddress = address;
            return this;
        }

        /** TCP port for NFS and MOUNT; 0 picks a free one. Default 2049. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Also serve a minimal portmapper on {@code port} (111 for clients that insist; 0 for a free one). */
        public Builder portmap(int port) {
            this.portmapPort = port;
            return this;
        }

        public Builder workerThreads(int n) {
            this.workerThreads = n;
            return this;
        }

        public Builder limits(ServerLimits limits) {
            this.limits = limits;
            return this;
        }

        /** Where READ data is read into (see {@link ReadBufferAllocator}). */
        public Builder readBuffers(ReadBufferAllocator allocator) {
            this.readBuffers = allocator;
            return this;
        }

        /** Where WRITE data may be kept instead of copied (borrowed; see {@link WriteMemorySource}); default none. */
        public Builder writeMemory(WriteMemorySource source) {
            this.writeMemory = source;
            return this;
        }

        /**
         * NFSv4.1 and 4.2 beside NFSv3 (the default: {@link StateConfig#defaults()}'s 90 s lease and session limits,
         * with a grace period of 10 s after start, as the Linux guest's knfsd is set up: this server keeps no state on
         * disk, so it cannot tell whether anyone has opens to reclaim, and a long grace would hold up every first OPEN
         * after a start), or, with null, NFSv3 only (NFSv4 calls get PROG_MISMATCH).
         */
        public Builder nfs4(StateConfig config) {
            this.nfs4 = config;
            return this;
        }

        /**
         * Whether NFSv4 OPENs for reading may get read delegations (default true): granted only on exports whose VFS
         * sees every change of its files ({@link Vfs#changedOnlyThroughServer()}: an in-memory export does, a local
         * directory does not), to clients whose back channel works, and recalled before anyone else changes the file.
         */
        public Builder delegations(boolean grant) {
            this.delegations = grant;
            return this;
        }

        /**
         * Serves the programs through a duplicate request cache (borrowed; default none), so that a CREATE, REMOVE,
         * RENAME... retransmitted after a reconnect gets its original reply instead of running twice.
         * {@link NfsServer#programs()} are then the cached fronts: an RDMA server serving them shares the cache.
         * <pre>{@code
         * builder.duplicateRequestCache(DuplicateRequestCache.create(CachedProcedures.nfsV3(), DrcConfig.DEFAULT))
         * }</pre>
         */
        public Builder duplicateRequestCache(DuplicateRequestCache cache) {
            this.duplicateRequestCache = java.util.Objects.requireNonNull(cache, "cache");
            return this;
        }

        public NfsServer build() {
            if (exports.isEmpty()) {
                throw new IllegalStateException("nothing exported");
            }
            return new NfsServer(this);
        }
    }
}

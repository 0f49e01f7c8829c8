package org.rpcrdma4j.mount.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.client.Devices;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.server.ExportClients;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.drc.CachedProcedures;
import org.rpcrdma4j.xprt.drc.DrcConfig;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/**
 * A local directory, or an in-memory file system, exported over RDMA and TCP for {@code serve} and {@code demo}: the
 * nfs module's {@link NfsRdmaServer} over a {@link LocalVfs} or a {@link MemoryVfs}, on a device opened here, optionally behind a duplicate request cache
 * shared by both transports. Owns the VFS, the servers, the cache and the device; {@link #close()} releases them in
 * reverse order.
 */
public final class EmbeddedServer implements AutoCloseable {

    /**
     * What to serve and where.
     *
     * @param dir           the directory exported
     * @param exportPath    the export's name ("/data")
     * @param bindAddress   address both servers listen on
     * @param rdmaPort      NFS/RDMA port (0: a free one)
     * @param tcpPort       NFS and MOUNT TCP port (0: a free one)
     * @param provider      RDMA provider name
     * @param deviceOptions its options
     * @param readOnly      refuse changes
     * @param credits       credits granted to RDMA clients
     * @param inlineSend    the server's inline send threshold
     * @param inlineRecv    the server's inline receive threshold
     * @param registration  registration strategy of the server's RDMA READ sinks
     * @param jmx           whether the RDMA server (and the reply cache) register their counters MBeans
     * @param replyCache    whether NFS calls go through a duplicate request cache (over both transports), so that a
     *                      non-idempotent call a client retransmits after a reconnect is answered, not run again
     * @param gracePeriod   NFSv4's grace period after the start, in which clients of an earlier run reclaim their
     *                      opens and no new OPEN is granted (NFS4ERR_GRACE, which clients wait out)
     * @param sameThread    whether NFS calls over RDMA run on the connections' threads instead of a dispatch pool
     *                      ({@code RdmaRpcServer.Builder.sameThreadDispatch}): a hand-off less per call, while the
     *                      export's file I/O holds up the connection it came on
     * @param memoryBytes   0 to export {@code dir}; else the capacity of an in-memory file system exported instead
     *                      ({@code dir} null), whose blocks are the RDMA server's registered memory
     * @param clients       the hosts the export is open to, as {@code /etc/exports} writes them (null: every host)
     * @param delegations   whether NFSv4 OPENs for reading may get read delegations (granted on an in-memory export
     *                      only, whose files change through the server alone)
     */
    public record Settings(Path dir, String exportPath, String bindAddress, int rdmaPort, int tcpPort, String provider,
                           Map<String, String> deviceOptions, boolean readOnly, int credits, int inlineSend,
                           int inlineRecv, RegistrationMode registration, boolean jmx, boolean replyCache,
                           Duration gracePeriod, boolean sameThread, long memoryBytes, ExportClients clients,
                           boolean delegations) {
        /** The grace period of {@code serve} unless told otherwise: the library's, as the Linux guest's knfsd. */
        public static final Duration DEFAULT_GRACE = NfsServer.defaultNfs4().graceTime();

        public Settings {
            if (gracePeriod.isNegative()) {
                throw new CliException(ExitCode.USAGE, "negative grace period " + gracePeriod);
            }
            if (memoryBytes < 0 || (memoryBytes == 0) == (dir == null)) {
                throw new CliException(ExitCode.USAGE, "export either a directory or memory");
            }
            if (clients == null) {
                clients = ExportClients.everyHost();
            }
        }

        /** Whether the export is an in-memory file system. */
        public boolean inMemory() {
            return memoryBytes > 0;
        }

        /**
         * Loopback, free ports, the software device, the reply cache, defaults otherwise: for the demo and tests. No
         * grace period: the server is started for the process's own use, so no client can hold state from an earlier
         * run of it.
         */
        public static Settings local(Path dir, String exportPath, String provider, Map<String, String> options) {
            return new Settings(dir, exportPath, "127.0.0.1", 0, 0, provider, options, false, 128, 4096, 4096,
                    RegistrationMode.AUTO, false, true, Duration.ZERO, false, 0, ExportClients.everyHost(), true);
        }
    }

    /** Bytes per block of an in-memory export: a small file costs one block, and holes are kept in blocks. */
    static final int MEMORY_BLOCK = 64 * 1024;
    /** The RDMA server's registered pool when it holds no file system: {@code RdmaRpcServer}'s default. */
    private static final long DEFAULT_REGISTERED_MEMORY = 256L << 20;

    private final Settings settings;
    private final Vfs vfs;
    private final RdmaDevice device;
    private final NfsRdmaServer server;
    private final DuplicateRequestCache replyCache;

    private EmbeddedServer(Settings settings, Vfs vfs, RdmaDevice device, NfsRdmaServer server,
                           DuplicateRequestCache replyCache) {
        this.settings = settings;
        this.vfs = vfs;
        this.device = device;
        this.server = server;
        this.replyCache = replyCache;
    }

    /** Exports and starts listening; failures are one-line {@link CliException}s with their exit status. */
    public static EmbeddedServer start(Settings s) {
        if (!s.inMemory() && !Files.isDirectory(s.dir())) {
            throw new CliException(ExitCode.LOCAL, s.dir() + ": no such local directory");
        }
        InetAddress bind;
        try {
            bind = InetAddress.getByName(s.bindAddress());
        } catch (UnknownHostException e) {
            throw new CliException(ExitCode.USAGE, "unknown bind address: " + s.bindAddress(), e);
        }
        RdmaServerMemory memory = new RdmaServerMemory();
        Vfs vfs;
        if (s.inMemory()) {
            MemoryVfs scratch = new MemoryVfs(s.memoryBytes(), memory.blocks(MEMORY_BLOCK));
            try {
                // a scratch file system: every user may make files in its root, and remove only their own (as /tmp)
                scratch.setattr(scratch.root(), SetAttributes.NONE.withMode(01777), null);
            } catch (NfsException e) {
                throw new IllegalStateException("an in-memory root refused its mode", e);
            }
            vfs = scratch;
        } else {
            try {
                vfs = LocalVfs.open(s.dir());
            } catch (IOException e) {
                throw new CliException(ExitCode.LOCAL, "cannot export " + s.dir() + ": " + e.getMessage(), e);
            }
        }
        RdmaDevice device = null;
        DuplicateRequestCache replyCache = null;
        try {
            device = Devices.open(s.provider(), s.deviceOptions());
            NfsServer.Builder nfs = NfsServer.builder().export(s.exportPath(), vfs, s.readOnly(), s.clients())
                    .bindAddress(s.bindAddress()).port(s.tcpPort())
                    .nfs4(NfsServer.defaultNfs4().withGraceTime(s.gracePeriod())).delegations(s.delegations());
            if (s.replyCache()) {
                DrcConfig config = DrcConfig.builder()
                        .jmxName(s.jmx() ? "nfs-" + (s.tcpPort() == 0 ? "ephemeral" : s.tcpPort()) : null).build();
                replyCache = DuplicateRequestCache.create(CachedProcedures.nfsV3(), config);
                nfs.duplicateRequestCache(replyCache); // the RDMA server serves the same cached programs
            }
            RdmaRpcServer.Builder rdma = RdmaRpcServer.builder();
            if (s.inMemory()) {
                // the file system's blocks live in the registered pool too: room for them beside the transport's
                rdma.registeredMemory(DEFAULT_REGISTERED_MEMORY + s.memoryBytes());
            }
            NfsRdmaServer server = NfsRdmaServer.start(nfs,
                    rdma.bindAddress(bind).port(s.rdmaPort()).device(device)
                            .credits(s.credits()).inlineSizes(s.inlineSend(), s.inlineRecv())
                            .registrationMode(s.registration()).sameThreadDispatch(s.sameThread())
                            .stopTimeout(Duration.ofSeconds(5)).jmx(s.jmx())
                            .name("nfs-rdma-" + (s.rdmaPort() == 0 ? "ephemeral" : s.rdmaPort())), memory);
            return new EmbeddedServer(s, vfs, device, server, replyCache);
        } catch (IOException | RuntimeException e) {
            if (replyCache != null) {
                replyCache.close();
            }
            vfs.close();
            if (device != null) {
                device.close();
            }
            if (e instanceof CliException c) {
                throw c;
            }
            if (e instanceof BindException || e.getCause() instanceof BindException
                    || String.valueOf(e.getMessage()).contains("in use")) {
                throw new CliException(ExitCode.TRANSPORT, "cannot listen on " + s.bindAddress() + " (RDMA port "
                        + s.rdmaPort() + ", TCP port " + s.tcpPort() + "): " + e.getMessage()
                        + " -- choose other ports with --port and --tcp-port (0 picks a free one)", e);
            }
            if (e instanceof IllegalArgumentException) {
                throw new CliException(ExitCode.USAGE, e.getMessage(), e);
            }
            throw new CliException(ExitCode.TRANSPORT, "cannot start the server: " + e.getMessage(), e);
        }
    }

    public int rdmaPort() {
        return server.rdmaPort();
    }

    public int tcpPort() {
        return server.tcpPort();
    }

    public String exportPath() {
        return settings.exportPath();
    }

    /** The device's name (e.g. soft-iwarp). */
    public String deviceName() {
        return device.name();
    }

    /** The servers (counters). */
    public NfsRdmaServer server() {
        return server;
    }

    /** The duplicate request cache in front of the NFS program on both transports, if {@link Settings#replyCache()}. */
    public Optional<DuplicateRequestCache> replyCache() {
        return Optional.ofNullable(replyCache);
    }

    /** {@code rdma://host:port/export?mountport=N}. */
    public String rdmaUrl(String host) {
        return "rdma://" + bracket(host) + ":" + rdmaPort() + settings.exportPath() + "?mountport=" + tcpPort();
    }

    /** {@code tcp://host:port/export}. */
    public String tcpUrl(String host) {
        return "tcp://" + bracket(host) + ":" + tcpPort() + settings.exportPath();
    }

    /**
     * The Linux command that mounts the export over RDMA with the Linux client's defaults: NFSv4.2 (NFSv4.1 on older
     * kernels), which needs no MOUNT protocol and no lock manager.
     */
    public String linuxMountCommand(String host) {
        return "mount -o proto=rdma,port=" + rdmaPort() + " " + bracket(host) + ":" + settings.exportPath() + " /mnt";
    }

    /**
     * The Linux command that mounts the export over RDMA with NFSv3: MOUNT over TCP on the TCP port, and {@code nolock}
     * (this server has no lock manager, NLM).
     */
    public String linuxNfs3MountCommand(String host) {
        return "mount -o proto=rdma,port=" + rdmaPort() + ",vers=3,mountport=" + tcpPort()
                + ",mountproto=tcp,nolock " + bracket(host) + ":" + settings.exportPath() + " /mnt";
    }

    private static String bracket(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    /** Stops both servers (RDMA first), then closes the reply cache, the export and the device. */
    @Override
    public void close() {
        if (settings.inMemory()) {
            // first: its blocks go back to the RDMA server's pool before the pool closes (which warns of pages still
            // in use); calls still in flight then find their files gone, as they would after the stop
            vfs.close();
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            if (replyCache != null) {
                replyCache.close();
            }
            vfs.close(); // a local directory: after the servers stopped using it (again: nothing, for memory)
            device.close();
        }
    }
}

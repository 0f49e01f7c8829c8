package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.rpcrdma4j.it.fault.FaultPlan;
import org.rpcrdma4j.it.fault.FaultProxy;
import org.rpcrdma4j.it.fault.FaultyDevice;
import org.rpcrdma4j.nfs.binding.NfsBinding;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.drc.CachedProcedures;
import org.rpcrdma4j.xprt.drc.DrcConfig;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * NFS over RPC-over-RDMA end to end for the campaigns: the nfs module's {@link NfsServer} (MOUNT over TCP, its NFSv3
 * and NFSv4.1 programs served over RDMA by an {@link RdmaRpcServer} with the NFS binding and, optionally, a duplicate
 * request cache for NFSv3; NFSv4.1's sessions have their own), a {@link FaultProxy} in front of the RDMA server, and an
 * {@link NfsClient} or {@link Nfs41Client} mounted with {@code rdma://} through the proxy. Both devices are software
 * iWARP devices wrapped in {@link FaultyDevice}s with their own {@link FaultPlan}s. {@link #restart} replaces the
 * servers (new {@link Vfs} instance, new RDMA server, the proxy pointed at it) under the mounted client. {@link
 * #closeAndCheck()} closes everything and checks every pool and device is back to empty.
 */
final class NfsRdmaRig implements AutoCloseable {
    private static final AtomicInteger RIGS = new AtomicInteger();
    static final String EXPORT = "/export";

    final FaultPlan clientPlan = new FaultPlan();
    final FaultPlan serverPlan = new FaultPlan();
    private final int id = RIGS.incrementAndGet();
    private final RdmaDevice clientSoft;
    private final RdmaDevice serverSoft;
    private final RdmaDevice clientDevice;
    private final RdmaDevice serverDevice;
    private final Consumer<RdmaRpcServer.Builder> serverTweak;
    private final boolean withCache;
    NfsServer nfs;
    RdmaRpcServer rdma;
    final FaultProxy proxy;
    NfsMount client;
    volatile RdmaDataTransport transport;
    private int restarts;

    NfsRdmaRig(Vfs vfs, boolean withCache, Map<String, String> clientDeviceOptions,
               Consumer<RdmaRpcServer.Builder> serverTweak) throws Exception {
        this(vfs, withCache, clientDeviceOptions, Map.of(), serverTweak);
    }

    NfsRdmaRig(Vfs vfs, boolean withCache, Map<String, String> clientDeviceOptions,
               Map<String, String> serverDeviceOptions, Consumer<RdmaRpcServer.Builder> serverTweak)
            throws Exception {
        this.serverTweak = serverTweak;
        this.withCache = withCache;
        Map<String, String> options = new java.util.HashMap<>(clientDeviceOptions);
        options.put("name", "rig-client-" + id);
        options.put("engineThreads", "1");
        clientSoft = RdmaProviders.select("soft").open(options);
        Map<String, String> serverOptions = new java.util.HashMap<>(serverDeviceOptions);
        serverOptions.put("name", "rig-server-" + id);
        serverOptions.put("engineThreads", "1");
        serverSoft = RdmaProviders.select("soft").open(serverOptions);
        clientDevice = FaultyDevice.wrap(clientSoft, clientPlan);
        serverDevice = FaultyDevice.wrap(serverSoft, serverPlan);
        startServers(vfs, 0);
        proxy = new FaultProxy(rdma.boundAddress());
    }

    private void startServers(Vfs vfs, int tcpPort) throws IOException {
        // no grace period: a restarted server keeps no NFSv4 state to reclaim
        NfsServer.Builder b = NfsServer.builder().bindAddress("127.0.0.1").port(tcpPort).export(EXPORT, vfs)
                .workerThreads(2).nfs4(StateConfig.defaults().withGraceTime(Duration.ZERO));
        if (withCache) {
            b.duplicateRequestCache(DuplicateRequestCache.create(CachedProcedures.nfsV3(), DrcConfig.DEFAULT));
        }
        nfs = b.build().start();
        RdmaRpcServer.Builder rb = RdmaRpcServer.builder()
                .name("rig-rdma-" + id + "-" + restarts)
                .device(serverDevice)
                .bindAddress(InetAddress.getLoopbackAddress())
                .port(0)
                .stopTimeout(Duration.ofSeconds(2))
                .jmx(false)
                .dispatchThreads(2)
                .programs(nfs.programs())
                .binding(NfsBinding.INSTANCE);
        serverTweak.accept(rb);
        rdma = rb.build();
        rdma.start();
    }

    /** Mounts {@code rdma://} with NFSv3 through the proxy with {@code config}'s timeouts and these settings. */
    NfsClient mount(NfsClientConfig config, UnaryOperator<RdmaClientConfig.Builder> tweak) throws IOException {
        return (NfsClient) mount("3", config, tweak);
    }

    /**
     * Mounts {@code rdma://} with NFS {@code version} ("3" or "4.1") through the proxy with {@code config}'s timeouts
     * and these transport settings.
     */
    NfsMount mount(String version, NfsClientConfig config, UnaryOperator<RdmaClientConfig.Builder> tweak)
            throws IOException {
        RdmaClientConfig rdmaConfig = tweak.apply(RdmaClientConfig.builder().device(clientDevice)
                .reconnectDelay(Duration.ofMillis(5), Duration.ofMillis(200))
                .name("rig-client-" + id).jmx(false)).build();
        DataTransportFactory factory = new DataTransportFactory() {
            @Override
            public String scheme() {
                return "rdma";
            }

            @Override
            public int defaultPort() {
                return 20049;
            }

            @Override
            public DataTransport connect(InetSocketAddress server, NfsClientConfig c) throws IOException {
                RdmaDataTransport t = RdmaDataTransport.connect(server, c, rdmaConfig);
                transport = t;
                return t;
            }
        };
        client = NfsMounts.mount(NfsUrl.parse("rdma://127.0.0.1:" + proxy.address().getPort() + EXPORT
                + "?mountport=" + nfs.port() + "&vers=" + version), config.withTransportFactory(factory));
        return client;
    }

    /**
     * Stops both servers (the RDMA connection breaks) and starts new ones on {@code vfs} (MOUNT on the same TCP
     * port); the proxy forwards new connections to the new RDMA server.
     */
    void restart(Vfs vfs) throws Exception {
        restart(() -> { }, d -> vfs, null);
    }

    /** What happens to the disk while the servers are down. */
    interface Downtime {
        void run() throws Exception;
    }

    /** Opens a file system on a directory. */
    interface VfsOpener {
        Vfs open(java.nio.file.Path dir) throws IOException;
    }

    /**
     * Stops both servers, runs {@code downtime}, and starts new ones on {@code opener.open(dir)} (MOUNT on the same
     * TCP port); the proxy forwards new connections to the new RDMA server and resets the old ones.
     */
    void restart(Downtime downtime, VfsOpener opener, java.nio.file.Path dir) throws Exception {
        int port = nfs.port();
        rdma.stop();
        nfs.close();
        downtime.run();
        Vfs vfs = opener.open(dir);
        restarts++;
        for (int attempt = 0; ; attempt++) {
            try {
                startServers(vfs, port);
                break;
            } catch (java.net.BindException e) {
                if (attempt > 100) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
        proxy.retarget(rdma.boundAddress());
        proxy.dropAll();
    }

    /** Closes the client, then checks the client's pool and device, and the server's pool, connections and device. */
    void closeAndCheck() throws Exception {
        RegisteredBufferPool pool = transport.bufferPool();
        client.close();
        client = null;
        assertThat(pool.pagesInUse()).as("client registered pages in use after close").isZero();
        assertThat(clientSoft.resourceCounts()).as("client device").isEqualTo(ResourceCounts.NONE);
        await("server connections closed", () -> rdma.connectionCount() == 0);
        await("server registered pages back", () -> rdma.registeredPagesInUse() == 0);
        assertThat(rdma.counters().get(ServerCounter.CALLS_IN_FLIGHT)).isZero();
        rdma.stop();
        assertThat(serverSoft.resourceCounts()).as("server device").isEqualTo(ResourceCounts.NONE);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within 30 s: " + what);
            }
            Thread.sleep(5);
        }
    }

    @Override
    public void close() throws Exception {
        if (client != null) {
            client.close();
        }
        rdma.stop();
        nfs.close();
        proxy.close();
        clientSoft.close();
        serverSoft.close();
    }
}

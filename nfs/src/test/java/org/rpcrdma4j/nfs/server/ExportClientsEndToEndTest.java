package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.Access;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.MountClient;
import org.rpcrdma4j.nfs.client.MountException;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcDeniedException;
import org.rpcrdma4j.nfs.client.TcpDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.client.v4.Nfs4StatusException;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.xdr.ExportsRes;
import org.rpcrdma4j.nfs.xdr.FhArgs;
import org.rpcrdma4j.nfs.xdr.GetattrRes;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.MountStatus;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.drc.CachedProcedures;
import org.rpcrdma4j.xprt.drc.DrcConfig;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/**
 * Exports open to some hosts only, served over TCP and RDMA to a client on 127.0.0.1: an export open to it read-write,
 * one open to it read-only (a subnet spec, while a more specific host spec names another address), and one open only
 * to another host. MOUNT, NFSv3 and NFSv4.1 each refuse what the specs refuse, and let through what they allow.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExportClientsEndToEndTest {
    private final MemoryVfs openVfs = new MemoryVfs(16L << 20);
    private final MemoryVfs readOnlyVfs = new MemoryVfs(16L << 20);
    private final MemoryVfs closedVfs = new MemoryVfs(16L << 20);
    private final MemoryVfs guardedVfs = new MemoryVfs(16L << 20);
    private final ExportClients guardedClients = ExportClients.parse("127.0.0.1(rw,secure,no_root_squash)");
    private final DuplicateRequestCache replyCache = DuplicateRequestCache.create(CachedProcedures.nfsV3(),
            DrcConfig.DEFAULT);
    private final ExportClients closedClients = ExportClients.parse("127.0.0.2(rw)");
    private NfsRdmaServer server;
    private RdmaDevice clientDevice;
    private RdmaDataTransportFactory factory;

    @BeforeAll
    void start() throws Exception {
        put(readOnlyVfs, "kept", "kept".getBytes(StandardCharsets.UTF_8));
        put(closedVfs, "secret", "secret".getBytes(StandardCharsets.UTF_8));
        server = NfsRdmaServer.start(
                NfsServer.builder().bindAddress("127.0.0.1").port(0)
                        .export("/open", openVfs, false, ExportClients.parse("127.0.0.1(rw,sync,no_subtree_check,no_root_squash)"))
                        .export("/partly", readOnlyVfs, false, ExportClients.parse("127.0.0.2(rw) 127.0.0.0/8(ro)"))
                        .export("/closed", closedVfs, false, closedClients)
                        .export("/guarded", guardedVfs, false, guardedClients)
                        .duplicateRequestCache(replyCache),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress())
                        .port(0).provider("soft", Map.of()).jmx(false));
        clientDevice = RdmaProviders.select("soft").open(Map.of());
        factory = new RdmaDataTransportFactory(RdmaClientConfig.builder().device(clientDevice).jmx(false).build());
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
        clientDevice.close();
        openVfs.close();
        readOnlyVfs.close();
        closedVfs.close();
        guardedVfs.close();
        replyCache.close();
    }

    private static void put(MemoryVfs vfs, String name, byte[] data) throws NfsException {
        FileHandle f = vfs.create(vfs.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        vfs.write(f, 0, ByteBuffer.wrap(data), StableHow.FILE_SYNC);
    }

    private static byte[] get(MemoryVfs vfs, String name) throws NfsException {
        FileHandle f = vfs.lookup(vfs.root(), name).handle();
        ByteBuffer b = ByteBuffer.allocate(64);
        vfs.read(f, 0, b);
        return Arrays.copyOf(b.array(), b.position());
    }

    private static List<String> names(MemoryVfs vfs) throws NfsException {
        return vfs.readdir(vfs.root(), 0, 0, 100).entries().stream().map(DirEntry::name)
                .filter(n -> !n.equals(".") && !n.equals("..")).toList();
    }

    private String tcp(String export) {
        return "tcp://127.0.0.1:" + server.tcpPort() + export;
    }

    private String rdma(String export) {
        return "rdma://127.0.0.1:" + server.rdmaPort() + export + "?mountport=" + server.tcpPort();
    }

    private NfsClientConfig rdmaConfig() {
        return NfsClientConfig.defaults().withTransportFactory(factory);
    }

    /** The root handle the server gives the closed export: its id and its VFS's root, as any host could guess it. */
    private FileHandle closedRoot() {
        return Export.of("/closed", closedVfs, false, closedClients).rootHandle();
    }

    private static void assertStatus(ThrowingRunnable r, Nfs3Status status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(status));
    }

    private static void assertNfs4Status(ThrowingRunnable r, int status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).as(e.getMessage()).isEqualTo(status));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void mountIsRefusedToHostsTheExportIsNotOpenTo() throws Exception {
        try (DataTransport t = TcpDataTransport.connect(new InetSocketAddress("127.0.0.1", server.tcpPort()),
                NfsClientConfig.defaults())) {
            MountClient mount = new MountClient(t);
            assertThatThrownBy(() -> mount.mount("/closed")).isInstanceOfSatisfying(MountException.class,
                    e -> assertThat(e.status()).isEqualTo(MountStatus.MNT3ERR_ACCES));
            assertThat(mount.mount("/partly")).isNotNull();
            assertThat(mount.mount("/open")).isNotNull();
            List<ExportsRes.Export> listed = mount.exports();
            assertThat(listed).extracting(ExportsRes.Export::path).containsExactly("/open", "/partly", "/closed",
                    "/guarded");
            assertThat(listed.get(1).groups()).containsExactly("127.0.0.2", "127.0.0.0/8");
            assertThat(listed.get(2).groups()).containsExactly("127.0.0.2");
        }
        assertThatThrownBy(() -> NfsClient.mount(tcp("/closed"))).isInstanceOf(MountException.class);
        assertThatThrownBy(() -> NfsClient.mount(rdma("/closed"), rdmaConfig())).isInstanceOf(MountException.class);
    }

    @Test
    void nfs3OverTcpAndRdmaFollowsTheSpecs() throws Exception {
        for (boolean overRdma : new boolean[] {false, true}) {
            try (NfsClient open = overRdma ? NfsClient.mount(rdma("/open"), rdmaConfig()) : NfsClient.mount(tcp("/open"));
                 NfsClient partly = overRdma ? NfsClient.mount(rdma("/partly"), rdmaConfig())
                         : NfsClient.mount(tcp("/partly"))) {
                byte[] data = ("written over " + (overRdma ? "rdma" : "tcp")).getBytes(StandardCharsets.UTF_8);
                String name = "/f-" + overRdma;
                FileHandle f = open.create(open.root(), name.substring(1), CreateMode.UNCHECKED, SetAttributes.NONE)
                        .handle();
                open.write(f, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
                assertThat(open.readAll(name)).isEqualTo(data);

                assertThat(partly.readAll("/kept")).isEqualTo("kept".getBytes(StandardCharsets.UTF_8));
                assertStatus(() -> partly.mkdir("/x"), Nfs3Status.NFS3ERR_ROFS);
                FileHandle kept = partly.resolve("/kept");
                assertStatus(() -> partly.write(kept, 0, Unpooled.wrappedBuffer(new byte[] {1}),
                        StableHow.FILE_SYNC), Nfs3Status.NFS3ERR_ROFS);
                assertThat(partly.access(partly.root(), Access.ALL) & (Access.MODIFY | Access.EXTEND | Access.DELETE))
                        .isZero();
                assertThat(get(readOnlyVfs, "kept")).isEqualTo("kept".getBytes(StandardCharsets.UTF_8));

                // a handle of the closed export, sent by a host it is not open to: to that host it names nothing
                FileHandle closed = closedRoot();
                assertStatus(() -> open.getattr(closed), Nfs3Status.NFS3ERR_STALE);
                assertStatus(() -> open.lookup(closed, "secret"), Nfs3Status.NFS3ERR_STALE);
                assertStatus(() -> open.mkdir(closed, "planted", SetAttributes.NONE),
                        Nfs3Status.NFS3ERR_STALE);
                assertThat(names(closedVfs)).containsExactly("secret");
            }
        }
    }

    /**
     * {@code secure}: over TCP from an unprivileged port (as this JVM calls) MOUNT is MNT3ERR_ACCES and the export's
     * handles are NFS3ERR_PERM and NFS4ERR_PERM, as from Linux's mountd and server; over RDMA the export is open,
     * whatever the port, as Linux's server takes RDMA.
     */
    @Test
    void aSecureExportTakesCallsFromPrivilegedPortsOrRdma() throws Exception {
        assertThat(guardedClients.grant(InetAddress.getLoopbackAddress()).toString())
                .isEqualTo("rw,no_root_squash,secure");
        assertThatThrownBy(() -> NfsClient.mount(tcp("/guarded"))).isInstanceOfSatisfying(MountException.class,
                e -> assertThat(e.status()).isEqualTo(MountStatus.MNT3ERR_ACCES));
        // NFSv3's MOUNT goes over TCP even for an RDMA mount: refused the same
        assertThatThrownBy(() -> NfsClient.mount(rdma("/guarded"), rdmaConfig())).isInstanceOf(MountException.class);
        FileHandle guardedRoot = Export.of("/guarded", guardedVfs, false, guardedClients).rootHandle();
        try (NfsClient open = NfsClient.mount(tcp("/open"))) {
            assertStatus(() -> open.getattr(guardedRoot), Nfs3Status.NFS3ERR_PERM);
        }
        try (Nfs41Client overTcp = Nfs41Client.mount("tcp://127.0.0.1:" + server.tcpPort() + "/",
                NfsClientConfig.defaults(), Nfs41Options.defaults())) {
            assertNfs4Status(() -> overTcp.resolve("/guarded/any"), Nfs4Status.NFS4ERR_PERM);
            assertNfs4Status(() -> overTcp.getattr(guardedRoot), Nfs4Status.NFS4ERR_PERM);
        }
        // NFSv3 over RDMA with a handle of it: passes, also for a SETATTR, which goes through the reply cache
        try (NfsClient overRdma = NfsClient.mount(rdma("/open"), rdmaConfig())) {
            assertThat(overRdma.getattr(guardedRoot).isDirectory()).isTrue();
            assertThat(overRdma.setattr(guardedRoot, SetAttributes.NONE.withMode(0775)).mode()).isEqualTo(0775);
        }
        try (Nfs41Client overRdma = Nfs41Client.mount("rdma://127.0.0.1:" + server.rdmaPort() + "/guarded",
                rdmaConfig(), Nfs41Options.defaults())) {
            byte[] data = "over rdma".getBytes(StandardCharsets.UTF_8);
            overRdma.writeAll("/r", data);
            assertThat(overRdma.readAll("/r")).isEqualTo(data);
        }
        assertThat(get(guardedVfs, "r")).isEqualTo("over rdma".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void nfs41SeesOnlyTheExportsOpenToIt() throws Exception {
        for (boolean overRdma : new boolean[] {false, true}) {
            NfsClientConfig config = overRdma ? rdmaConfig() : NfsClientConfig.defaults();
            String base = overRdma ? "rdma://127.0.0.1:" + server.rdmaPort() : "tcp://127.0.0.1:" + server.tcpPort();
            try (Nfs41Client root = Nfs41Client.mount(base + "/", config, Nfs41Options.defaults())) {
                assertThat(root.list(root.root())).extracting(DirEntry::name)
                        .containsExactlyInAnyOrder("open", "partly", "guarded");
                FileHandle closed = closedRoot();
                assertNfs4Status(() -> root.getattr(closed), Nfs4Status.NFS4ERR_STALE);
                assertNfs4Status(() -> root.resolve("/closed"), Nfs4Status.NFS4ERR_NOENT);
            }
            assertNfs4Status(() -> Nfs41Client.mount(base + "/closed", config, Nfs41Options.defaults()),
                    Nfs4Status.NFS4ERR_NOENT);
            try (Nfs41Client partly = Nfs41Client.mount(base + "/partly", config, Nfs41Options.defaults())) {
                assertThat(partly.readAll("/kept")).isEqualTo("kept".getBytes(StandardCharsets.UTF_8));
                assertNfs4Status(() -> partly.writeAll("/new", new byte[] {1}), Nfs4Status.NFS4ERR_ROFS);
                assertNfs4Status(() -> partly.writeAll("/kept", new byte[] {1}), Nfs4Status.NFS4ERR_ROFS);
            }
            try (Nfs41Client open = Nfs41Client.mount(base + "/open", config, Nfs41Options.defaults())) {
                byte[] data = ("v4.1 over " + (overRdma ? "rdma" : "tcp")).getBytes(StandardCharsets.UTF_8);
                open.writeAll("/g-" + overRdma, data);
                assertThat(open.readAll("/g-" + overRdma)).isEqualTo(data);
            }
        }
        assertThat(get(readOnlyVfs, "kept")).isEqualTo("kept".getBytes(StandardCharsets.UTF_8));
        assertThat(names(closedVfs)).containsExactly("secret");
    }

    /**
     * LINK stays within one export the host may change, NFSv3 and NFSv4.1 alike: between two exports it is XDEV, into
     * an export open to the host read-only ROFS, from an export not open to it STALE; the pseudo file system takes no
     * names (NFS4ERR_ROFS) and its directories are directories (NFS4ERR_ISDIR).
     */
    @Test
    void linksStayWithinOneExportTheHostMayChange() throws Exception {
        put(openVfs, "linked", "linked".getBytes(StandardCharsets.UTF_8));
        try (Nfs41Client root = Nfs41Client.mount(tcp("/"), NfsClientConfig.defaults(), Nfs41Options.defaults())) {
            FileHandle open = root.resolve("/open");
            FileHandle linked = root.resolve("/open/linked");
            FileHandle kept = root.resolve("/partly/kept");
            assertNfs4Status(() -> root.link(kept, open, "x"), Nfs4Status.NFS4ERR_XDEV);
            assertNfs4Status(() -> root.link(linked, root.resolve("/partly"), "x"), Nfs4Status.NFS4ERR_ROFS);
            assertNfs4Status(() -> root.link(kept, root.resolve("/partly"), "x"), Nfs4Status.NFS4ERR_ROFS);
            assertNfs4Status(() -> root.link(linked, root.root(), "x"), Nfs4Status.NFS4ERR_ROFS);
            assertNfs4Status(() -> root.link(root.root(), open, "x"), Nfs4Status.NFS4ERR_ISDIR);
            assertNfs4Status(() -> root.link(closedRoot(), open, "x"), Nfs4Status.NFS4ERR_STALE);
            root.link(linked, open, "linked-v4");
            assertThat(root.readAll("/open/linked-v4")).isEqualTo("linked".getBytes(StandardCharsets.UTF_8));
        }
        try (NfsClient open = NfsClient.mount(tcp("/open")); NfsClient partly = NfsClient.mount(tcp("/partly"))) {
            FileHandle kept = partly.resolve("/kept");
            assertStatus(() -> open.link(kept, open.root(), "x"), Nfs3Status.NFS3ERR_XDEV);
            assertStatus(() -> partly.link(kept, partly.root(), "x"), Nfs3Status.NFS3ERR_ROFS);
            assertStatus(() -> partly.link(open.resolve("/linked"), partly.root(), "x"), Nfs3Status.NFS3ERR_ROFS);
            assertStatus(() -> open.link(closedRoot(), open.root(), "x"), Nfs3Status.NFS3ERR_STALE);
            open.link(open.resolve("/linked"), open.root(), "linked-v3");
            assertThat(open.readAll("/linked-v3")).isEqualTo("linked".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(names(openVfs)).contains("linked", "linked-v4", "linked-v3").doesNotContain("x");
        assertThat(names(readOnlyVfs)).containsExactly("kept");
        assertThat(names(closedVfs)).containsExactly("secret");
        assertThat(openVfs.lookup(openVfs.root(), "linked").attributes().nlink()).isEqualTo(3);
    }

    /**
     * A host no export is open to gets only NULL: every other NFS call is rejected with AUTH_ERROR, over TCP and RDMA,
     * NFSv3 and NFSv4.1 alike, and MOUNT refuses it.
     */
    @Test
    void aHostNoExportIsOpenToIsRejectedAtTheRpcLayer() throws Exception {
        try (MemoryVfs vfs = new MemoryVfs(16L << 20)) {
            ExportClients elsewhere = ExportClients.parse("127.0.0.2(rw) 10.0.0.0/8(rw)");
            NfsRdmaServer other = NfsRdmaServer.start(
                    NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/only", vfs, false, elsewhere),
                    RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress())
                            .port(0).provider("soft", Map.of()).jmx(false));
            try {
                FileHandle root = Export.of("/only", vfs, false, elsewhere).rootHandle();
                InetSocketAddress tcpAddress = new InetSocketAddress("127.0.0.1", other.tcpPort());
                InetSocketAddress rdmaAddress = new InetSocketAddress("127.0.0.1", other.rdmaPort());
                for (DataTransport t : new DataTransport[] {
                        TcpDataTransport.connect(tcpAddress, NfsClientConfig.defaults()),
                        factory.connect(rdmaAddress, rdmaConfig())}) {
                    try (t) {
                        t.call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID)
                                .get(30, TimeUnit.SECONDS);
                        assertThatThrownBy(() -> t.call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.GETATTR, new FhArgs(root),
                                new GetattrRes()).get(30, TimeUnit.SECONDS))
                                .hasCauseInstanceOf(RpcDeniedException.class)
                                .hasMessageContaining("AUTH_ERROR").hasMessageContaining("export list")
                                .hasMessageContaining(t.remoteAddress().getPort() == other.rdmaPort()
                                        ? "AUTH_BADCRED" : ""); // oncrpc4j's TCP client keeps no auth_stat
                        assertThatThrownBy(() -> Nfs41Client.connect(t, "/only", NfsClientConfig.defaults(),
                                Nfs41Options.defaults())).isInstanceOf(RpcDeniedException.class);
                    }
                }
                assertThatThrownBy(() -> NfsClient.mount("tcp://127.0.0.1:" + other.tcpPort() + "/only"))
                        .isInstanceOfSatisfying(MountException.class,
                                e -> assertThat(e.status()).isEqualTo(MountStatus.MNT3ERR_ACCES));
                assertThat(names(vfs)).isEmpty();
            } finally {
                other.close();
            }
        }
    }

    /**
     * An export open to this host below one that is not: NFSv4 shows the upper one as a pseudo directory that leads
     * to the lower one, as Linux's server does, so the lower one mounts; the upper one's files stay out of reach.
     */
    @Test
    void anExportBelowOneNotOpenToTheHostStillMountsOverNfs4() throws Exception {
        try (MemoryVfs upper = new MemoryVfs(16L << 20); MemoryVfs lower = new MemoryVfs(16L << 20)) {
            put(upper, "hidden", "hidden".getBytes(StandardCharsets.UTF_8));
            put(lower, "seen", "seen".getBytes(StandardCharsets.UTF_8));
            NfsServer nested = NfsServer.builder().bindAddress("127.0.0.1").port(0)
                    .export("/srv", upper, false, ExportClients.parse("127.0.0.2(rw)"))
                    .export("/srv/data", lower, false, ExportClients.parse("127.0.0.1(ro)"))
                    .build().start();
            try {
                String base = "tcp://127.0.0.1:" + nested.port();
                try (Nfs41Client data = Nfs41Client.mount(base + "/srv/data", NfsClientConfig.defaults(),
                        Nfs41Options.defaults())) {
                    assertThat(data.readAll("/seen")).isEqualTo("seen".getBytes(StandardCharsets.UTF_8));
                }
                try (Nfs41Client srv = Nfs41Client.mount(base + "/srv", NfsClientConfig.defaults(),
                        Nfs41Options.defaults())) {
                    assertThat(srv.list(srv.root())).extracting(DirEntry::name).containsExactly("data");
                    assertNfs4Status(() -> srv.readAll("/hidden"), Nfs4Status.NFS4ERR_NOENT);
                }
                assertThatThrownBy(() -> NfsClient.mount(base + "/srv?vers=3")).isInstanceOf(MountException.class);
            } finally {
                nested.close();
            }
        }
    }
}

package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.PortmapProgram;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * NFSv3 mounts ask the portmapper for the ports a URL does not name, as {@code mount.nfs} does: found (the embedded
 * server's portmapper), not registered (a portmapper that knows nothing) and no portmapper each behave as documented
 * and say so in the error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PortmapperTest {
    private final MemoryVfs vfs = new MemoryVfs();
    private NfsServer server;
    private OncRpcSvc scripted;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (scripted != null) {
            scripted.stop();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aUrlWithoutPortsIsMountedOnThePortsTheServersPortmapperGives() throws Exception {
        server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0).portmap(0).nfs4(null)
                .build().start();
        NfsClientConfig config = NfsClientConfig.defaults().withPortmapperPort(server.portmapPort());
        Portmapper.Lookup mount = Portmapper.getPort("127.0.0.1", server.portmapPort(), "MOUNT", 100005, 3, config);
        assertThat(mount.found()).isTrue();
        assertThat(mount.port()).isEqualTo(server.port());

        // no port, no mountport: NFS's and MOUNT's both come from the portmapper (2049 is not the server's)
        try (NfsClient c = NfsClient.mount(NfsUrl.parse("tcp://127.0.0.1/export"), config)) {
            c.mkdir("/found");
            assertThat(c.stat("/found").isDirectory()).isTrue();
        }
        List<Portmapper.Lookup> misses = new ArrayList<>();
        NfsUrl found = NfsClient.withPortsFound(NfsUrl.parse("tcp://127.0.0.1/export"), config, misses);
        assertThat(misses).isEmpty();
        assertThat(found.port()).isEqualTo(server.port());
        assertThat(found.mountPort()).isEqualTo(server.port());

        // ports in the URL win: nothing is asked for them (the portmapper named here does not exist)
        NfsClientConfig nowhere = NfsClientConfig.defaults().withPortmapperPort(freePort());
        NfsUrl both = NfsUrl.parse("tcp://127.0.0.1:" + server.port() + "/export?mountport=" + server.port());
        assertThat(NfsClient.withPortsFound(both, nowhere, misses)).isEqualTo(both);
        assertThat(misses).isEmpty();
        // a tcp:// URL with a port but no mountport: MOUNT is asked for, and without an answer goes to that port
        NfsUrl given = NfsUrl.parse("tcp://127.0.0.1:" + server.port() + "/export");
        NfsUrl after = NfsClient.withPortsFound(given, nowhere, misses);
        assertThat(after.port()).isEqualTo(server.port());
        assertThat(after.mountPort()).isEqualTo(server.port());
        assertThat(misses).singleElement().satisfies(l -> assertThat(l.reason()).startsWith("no portmapper answered"));
        try (NfsClient c = NfsClient.mount(given, nowhere)) {
            assertThat(c.list("/")).extracting(org.rpcrdma4j.nfs.DirEntry::name).contains("found");
        }
    }

    @Test
    void aProgramNotRegisteredLeavesTheDefaultAndTheErrorSaysSo() throws Exception {
        scripted = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1").withoutAutoPublish()
                .withSameThreadIoStrategy().withSelectorThreadPoolSize(1).withServiceName("scripted-portmap")
                .withRpcService(new OncRpcProgram(PortmapProgram.PROGRAM, PortmapProgram.VERSION),
                        new PortmapProgram(List.of()))
                .build();
        scripted.start();
        int pm = scripted.getInetSocketAddress(IpProtocolType.TCP).getPort();
        NfsClientConfig config = NfsClientConfig.defaults().withPortmapperPort(pm);
        int closed = freePort();
        List<Portmapper.Lookup> misses = new ArrayList<>();
        NfsUrl url = NfsUrl.parse("rdma://127.0.0.1:" + closed + "/export");
        NfsUrl after = NfsClient.withPortsFound(url, config, misses);
        assertThat(after.mountPort()).as("the default").isEqualTo(2049);
        assertThat(misses).singleElement().satisfies(l -> {
            assertThat(l.reason()).isEqualTo("not registered");
            assertThat(l.asked()).isEqualTo("MOUNT v3 over TCP from the portmapper at 127.0.0.1:" + pm);
        });
        // MOUNT over TCP to 2049 on loopback: refused here, and the error says where the port came from
        NfsUrl tcp = NfsUrl.parse("tcp://127.0.0.1/export");
        assertThatThrownBy(() -> NfsClient.mount(tcp, config)).isInstanceOf(RpcConnectionException.class)
                .hasMessageContaining("NFS v3 over TCP from the portmapper at 127.0.0.1:" + pm
                        + " gave no port (not registered), so port 2049 was used")
                .hasMessageContaining("give the port in the URL");
    }

    @Test
    void noPortmapperLeavesTheDefaultAndTheErrorSaysSo() throws Exception {
        int nothing = freePort();
        NfsClientConfig config = NfsClientConfig.defaults().withPortmapperPort(nothing);
        List<Portmapper.Lookup> misses = new ArrayList<>();
        NfsUrl after = NfsClient.withPortsFound(NfsUrl.parse("rdma://127.0.0.1/export"), config, misses);
        assertThat(after.mountPort()).isEqualTo(2049);
        assertThat(misses).singleElement().satisfies(l -> assertThat(l.reason()).startsWith("no portmapper answered"));
        assertThatThrownBy(() -> NfsClient.mount(NfsUrl.parse("rdma://127.0.0.1/export"), config))
                .isInstanceOf(RpcConnectionException.class)
                .hasMessageContaining("MOUNT v3 over TCP from the portmapper at 127.0.0.1:" + nothing
                        + " gave no port (no portmapper answered")
                .hasMessageContaining("so port 2049 was used");
        // with 0, no portmapper is asked at all
        assertThat(NfsClient.withPortsFound(NfsUrl.parse("rdma://127.0.0.1/export"),
                NfsClientConfig.defaults().withPortmapperPort(0), misses)).isEqualTo(NfsUrl.parse("rdma://127.0.0.1/export"));
    }
}

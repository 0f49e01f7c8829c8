package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * The NFS version a mount speaks: the URL's {@code vers}, or the first of 4.2, 4.1 and 3 the server speaks, the data
 * the same whichever was chosen.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NfsMountsTest {
    private final MemoryVfs vfs = new MemoryVfs();
    private NfsServer server;

    private String url(StateConfig nfs4, String query) throws Exception {
        server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0).nfs4(nfs4).build();
        server.start();
        return "tcp://127.0.0.1:" + server.port() + "/export" + query;
    }

    private static StateConfig noGrace() {
        StateConfig d = StateConfig.defaults();
        return new StateConfig(Duration.ofSeconds(60), Duration.ZERO, d.foreLimits(), d.backLimits(),
                d.maxSessionsPerClient());
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static void roundTrip(NfsMount nfs, String name) throws Exception {
        byte[] data = ("written over NFS " + nfs.version()).getBytes(StandardCharsets.UTF_8);
        java.nio.file.Path local = java.nio.file.Files.createTempFile("mounts", ".bin");
        try {
            java.nio.file.Files.write(local, data);
            assertThat(nfs.upload(local, "/" + name)).isEqualTo(data.length);
            assertThat(nfs.readAll("/" + name)).isEqualTo(data);
            assertThat(nfs.list("/")).extracting(org.rpcrdma4j.nfs.DirEntry::name).contains(name);
        } finally {
            java.nio.file.Files.deleteIfExists(local);
        }
    }

    @Test
    void withoutVersTheNewestTheServerSpeaksIsChosen() throws Exception {
        try (NfsMount nfs = NfsMounts.mount(url(noGrace(), ""))) {
            assertThat(nfs.version()).isEqualTo("4.2");
            roundTrip(nfs, "a");
        }
    }

    @Test
    void versNamesTheVersion() throws Exception {
        String base = url(noGrace(), "");
        for (String v : new String[] {"3", "4.1", "4.2"}) {
            try (NfsMount nfs = NfsMounts.mount(base + "?vers=" + v)) {
                assertThat(nfs.version()).isEqualTo(v);
                roundTrip(nfs, "v" + v);
            }
        }
        try (NfsMount nfs = NfsMounts.mount(base + "?vers=4")) {
            assertThat(nfs.version()).isEqualTo("4.2");
        }
    }

    @Test
    void aServerWithoutNfs4IsMountedWithNfs3UnlessVersAsksFor4() throws Exception {
        String base = url(null, "");
        try (NfsMount nfs = NfsMounts.mount(base)) {
            assertThat(nfs.version()).isEqualTo("3");
            roundTrip(nfs, "b");
        }
        assertThatThrownBy(() -> NfsMounts.mount(base + "?vers=4.1")).isInstanceOf(RpcNotAcceptedException.class)
                .satisfies(e -> assertThat(((RpcNotAcceptedException) e).acceptStatus())
                        .isEqualTo(AcceptStatus.PROG_MISMATCH));
    }

    /**
     * As {@code mount.nfs} does: an export missing from the NFSv4 namespace is tried with NFSv3, whose MOUNT answer
     * is the mount's failure; with {@code vers=4.1} the NFSv4 answer is.
     */
    @Test
    void anExportMissingOverNfs4IsTriedWithNfs3AndMountsAnswerIsTheFailure() throws Exception {
        String base = url(noGrace(), "").replace("/export", "/missing");
        assertThatThrownBy(() -> NfsMounts.mount(base)).isInstanceOf(MountException.class)
                .satisfies(e -> assertThat(((MountException) e).status())
                        .isEqualTo(org.rpcrdma4j.nfs.xdr.MountStatus.MNT3ERR_ACCES));
        assertThatThrownBy(() -> NfsMounts.mount(base + "?vers=4.1"))
                .isInstanceOf(org.rpcrdma4j.nfs.client.v4.Nfs4StatusException.class)
                .satisfies(e -> assertThat(((org.rpcrdma4j.nfs.client.v4.Nfs4StatusException) e).nfs4Status())
                        .isEqualTo(org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_NOENT));
    }

    @Test
    void refusedConnectionsAndMissingPathsFallBackButRefusalsOfTheClientDoNot() {
        assertThat(NfsMounts.fallsBackToNfs3(new RpcConnectionException("cannot connect",
                new java.net.ConnectException("Connection refused")))).isTrue();
        assertThat(NfsMounts.fallsBackToNfs3(new RpcConnectionException("cannot connect to rdma://h:20049",
                new org.rpcrdma4j.verbs.ConnectException(org.rpcrdma4j.verbs.ConnectionEventType.REJECTED,
                        "connection refused by h", null, null)))).isTrue();
        assertThat(NfsMounts.fallsBackToNfs3(new org.rpcrdma4j.nfs.client.v4.Nfs4StatusException(
                org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_PERM, org.rpcrdma4j.nfs.v4.Nfs4.OP_LOOKUP, "perm")))
                .isTrue();
        assertThat(NfsMounts.fallsBackToNfs3(new org.rpcrdma4j.nfs.client.v4.Nfs4StatusException(
                org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_ACCESS, org.rpcrdma4j.nfs.v4.Nfs4.OP_LOOKUP, "access")))
                .isFalse();
        assertThat(NfsMounts.fallsBackToNfs3(new RpcTimeoutException("no answer", null))).isFalse();
        assertThat(NfsMounts.fallsBackToNfs3(new RpcDeniedException("denied", null))).isFalse();
    }

    @Test
    void versIsParsedAndChecked() {
        NfsUrl u = NfsUrl.parse("rdma://host/export?mountport=2050&vers=4.1");
        assertThat(u.version()).isEqualTo("4.1");
        assertThat(u.mountPort()).isEqualTo(2050);
        assertThat(NfsUrl.parse(u.toString())).isEqualTo(u);
        assertThat(NfsUrl.parse("tcp://host/export").version()).isEmpty();
        assertThatThrownBy(() -> NfsUrl.parse("tcp://host/export?vers=5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vers");
    }
}

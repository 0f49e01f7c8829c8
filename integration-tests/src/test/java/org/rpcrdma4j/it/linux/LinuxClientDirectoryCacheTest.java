package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client keeps what it has cached of a directory it changes on our server as it does on knfsd: the guest
 * runs one script ({@code src/test/sh/dircache.sh}: 300 files written in one directory, each followed by reads of two
 * earlier ones, then checks and moves) on a mount of our server's local export and on one of knfsd, and counts the
 * calls its client sent. NFSv3's attributes before a change and NFSv4's atomic change_info4 tell the client its own
 * change was the directory's only one; without them it looks up every name again after each change (four to
 * thirteen times knfsd's LOOKUPs, and ACCESSes by the hundred). OPEN and CLOSE are not compared: knfsd grants read
 * delegations, which save the client its OPENs of files it reads again, and this server grants none on a local
 * directory (see {@link LinuxClientDelegationTest}).
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LinuxClientDirectoryCacheTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientDirectoryCacheTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(2);
    private static final Path SCRIPT = Path.of("src/test/sh/dircache.sh");
    private static final String OURS = "/mnt/dc-ours";
    private static final String KNFSD = "/mnt/dc-knfsd";

    @ParameterizedTest(name = "vers={0}")
    @ValueSource(strings = {"3", "4.2"})
    void theClientKeepsItsDirectoryCacheAsOnKnfsd(String version, LinuxPeer peer, @TempDir Path root)
            throws Exception {
        Path exportDir = Files.createDirectories(root.resolve("export"));
        Files.copy(SCRIPT, exportDir.resolve("dircache.sh"));
        NfsServer nfs = NfsServer.builder().export("/export", LocalVfs.open(exportDir)).bindAddress("127.0.0.1")
                .port(0).nfs4(OurServers.freshState()).build();
        RdmaRpcServer rdma = OurServers.rdma(nfs, "linux-dircache-server").build();
        nfs.start();
        try {
            rdma.start();
            boolean v3 = version.equals("3");
            String ours = "proto=rdma,port=" + rdma.boundAddress().getPort() + ",vers=" + version
                    + (v3 ? ",mountport=" + nfs.port() + ",mountproto=tcp,nolock" : "");
            String knfsd = "proto=rdma,port=" + peer.rdmaPort() + ",vers=" + version
                    + (v3 ? ",mountport=" + peer.mountdPort() + ",mountproto=tcp,nolock" : "");
            String report = peer.execOk("mkdir -p " + OURS + " " + KNFSD + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST
                    + ":/export " + OURS + " -o " + ours + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/export "
                    + KNFSD + " -o " + knfsd + " && cp " + OURS + "/dircache.sh /tmp/ && echo '== ours' && sh "
                    + "/tmp/dircache.sh " + OURS + " && echo '== knfsd' && sh /tmp/dircache.sh " + KNFSD + "; umount "
                    + OURS + "; umount " + KNFSD, GUEST_COMMAND);
            assertThat(report).as("every name found, every byte read back").doesNotContain("missing")
                    .doesNotContain("wrong content").contains("== knfsd");
            String[] halves = report.split("== knfsd");
            Map<String, Long> our = counts(halves[0]);
            Map<String, Long> theirs = counts(halves[1]);
            LOG.info("the Linux client's calls for the same changes of one directory (NFS {}): ours {}, knfsd {}",
                    version, our, theirs);
            assertThat(our.getOrDefault("LOOKUP", 0L)).as("LOOKUPs on our server, knfsd %s", theirs)
                    .isLessThanOrEqualTo(theirs.getOrDefault("LOOKUP", 0L) * 11 / 10 + 5);
            assertThat(our.getOrDefault("ACCESS", 0L)).as("ACCESSes on our server, knfsd %s", theirs)
                    .isLessThanOrEqualTo(theirs.getOrDefault("ACCESS", 0L) + 5);
            assertThat(our.get(v3 ? "CREATE" : "OPEN")).as("the files were made over this mount")
                    .isGreaterThanOrEqualTo(300L);
        } catch (Throwable t) {
            LOG.error("the directory cache test failed; guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + OURS + "; umount -f " + KNFSD, Duration.ofSeconds(30));
            throw t;
        } finally {
            rdma.stop();
            nfs.close();
        }
    }

    /** The script's count lines ({@code OP: n}) and its time ({@code ms n}). */
    private static Map<String, Long> counts(String report) {
        Map<String, Long> counts = new HashMap<>();
        for (String line : report.lines().toList()) {
            String[] words = line.trim().split("\\s+");
            if (words.length == 2 && words[1].matches("\\d+")) {
                counts.put(words[0].replace(":", ""), Long.parseLong(words[1]));
            }
        }
        return counts;
    }
}

package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client's view of our server's namespace, compared with a local file system's: the guest runs one script of
 * POSIX operations through busybox ({@code src/test/sh/namespace.sh}: deep directories, hard and symbolic links,
 * renames that replace, renames that must fail with ENOTEMPTY, EISDIR, ENOTDIR or EINVAL, FIFOs and devices, modes
 * with setuid and sticky bits, explicit times, names of 255 bytes and more, odd bytes in names, a directory of 1,500
 * entries, a file unlinked while open, tar and cp -a round trips) on its own tmpfs and on a mount of our server over
 * RDMA, and the two reports, every step's status and output and then the tree with modes, sizes, link counts and data
 * digests, must be identical. Linux's knfsd gives the same report as tmpfs for the same script (NFSv3 and NFSv4.2).
 * A second script ({@code src/test/sh/permissions.sh}) compares what two users ({@link GuestProgram#RUNAS}) may do to
 * each other's files: modes, owners and groups, sticky and setgid directories, setuid bits cleared by a write, times.
 * NFSv3 and NFSv4.2 (three runs at once) on a local file system, NFSv4.1 (three runs at once) on an in-memory one.
 * With NFSv4, the guest then mounts a directory of the tree the script left, and is told a missing one does not
 * exist, as by knfsd. The tmpfs reports are made once for all cases.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LinuxClientNamespaceTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientNamespaceTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(4);
    private static final String MNT = "/mnt/ns";
    private static final Path SCRIPT = Path.of("src/test/sh/namespace.sh");
    private static final Path PERMISSIONS = Path.of("src/test/sh/permissions.sh");

    /**
     * {@code runs}: how many runs of the script go at once, each in a directory of its own. On a local file system
     * (ext4 here) a file one run makes often takes the inode number of one another run just removed, while the Linux
     * client still holds the removed one's handle: the handles must differ ({@code LocalVfs}'s generations).
     */
    @ParameterizedTest(name = "vers={0} on {1}, {2} at once")
    @CsvSource({"3, /export, 1", "4.2, /export, 3", "4.1, /mem, 3"})
    void theLinuxClientSeesWhatALocalFileSystemShows(String version, String export, int runs, LinuxPeer peer,
                                                    @TempDir Path root) throws Exception {
        Path exportDir = Files.createDirectories(root.resolve("export"));
        Files.copy(SCRIPT, exportDir.resolve("namespace.sh"));
        Files.copy(PERMISSIONS, exportDir.resolve("permissions.sh"));
        GuestProgram runas = GuestProgram.RUNAS;
        RequiredPeer.require(runas.what(), runas.unavailableReason());
        Files.copy(runas.build(), exportDir.resolve("runas"));
        // its largest file is its capacity (the script makes a sparse one of 5 GB): heap memory, allocated as written
        MemoryVfs mem = new MemoryVfs(8L << 30);
        RdmaServerMemory serverMemory = new RdmaServerMemory();
        NfsServer nfs = NfsServer.builder().export("/export", LocalVfs.open(exportDir)).export("/mem", mem)
                .bindAddress("127.0.0.1").port(0).readBuffers(serverMemory).writeMemory(serverMemory)
                .nfs4(OurServers.freshState()).build();
        RdmaRpcServer rdma = OurServers.rdma(nfs, "linux-namespace-server").build();
        serverMemory.bind(rdma.bufferAllocator());
        nfs.start();
        String scriptMount = MNT + "-script";
        try {
            rdma.start();
            String options = "proto=rdma,port=" + rdma.boundAddress().getPort() + ",vers=" + version
                    + (version.equals("3") ? ",mountport=" + nfs.port() + ",mountproto=tcp,nolock" : "");
            // the script comes from the local export, then runs on the guest's tmpfs: the reference
            peer.execOk("mkdir -p " + scriptMount + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/export "
                    + scriptMount + " -o " + options + " && cp " + scriptMount + "/namespace.sh " + scriptMount
                    + "/permissions.sh /tmp/ && " + runas.installCommand(scriptMount + "/runas") + " && umount "
                    + scriptMount, GUEST_COMMAND);
            long t0 = System.nanoTime();
            // the tmpfs reports are made once per boot of the guest (its /tmp) and version of the scripts
            String ref = "/tmp/ref-" + digest(SCRIPT, PERMISSIONS);
            String reference = peer.execOk("[ -s " + ref + "/ns.out ] && [ -s " + ref + "/perm.out ] || { rm -rf "
                    + "/tmp/ns-ref " + ref + " && mkdir -p /tmp/ns-ref " + ref + " && sh /tmp/namespace.sh /tmp/ns-ref"
                    + " > " + ref + "/ns.out.new 2>&1; rm -rf /tmp/perm-ref && mkdir /tmp/perm-ref && sh "
                    + "/tmp/permissions.sh /tmp/perm-ref " + runas.inGuest() + " > " + ref + "/perm.out 2>&1; mv "
                    + ref + "/ns.out.new " + ref + "/ns.out; }; grep -c . " + ref + "/ns.out && grep -e "
                    + "'^\\[fifo\\]' -e '^\\[many-files\\]' -e '^\\[rename-over-full-dir\\]' -e '^== tree' "
                    + ref + "/ns.out", GUEST_COMMAND);
            assertThat(reference).as("the script ran to its end on tmpfs").contains("[fifo] rc=0 fifo")
                    .contains("[many-files] rc=0 1500").contains("Directory not empty").contains("== tree");
            long t1 = System.nanoTime();

            LinuxPeer.Result diff = peer.exec("mkdir -p " + MNT + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":"
                    + export + " " + MNT + " -o " + options + " && for i in $(seq " + runs + "); do rm -rf " + MNT
                    + "/ns$i && mkdir " + MNT + "/ns$i && { sh /tmp/namespace.sh " + MNT + "/ns$i > /tmp/ns-ours$i.out "
                    + "2>&1 & }; done; wait; umount " + MNT + " && for i in $(seq " + runs + "); do diff -u "
                    + ref + "/ns.out /tmp/ns-ours$i.out || exit 1; done", GUEST_COMMAND);
            assertThat(diff.status()).as("a report over NFS (%s on %s, %d at once) differs from tmpfs's:\n%s", version,
                    export, runs, diff.tail(120)).isZero();
            LOG.info("the Linux client's namespace reports (NFS {} on {}, {} at once) equal tmpfs's: {} lines; {} ms "
                    + "on tmpfs, {} ms over NFS", version, export, runs, reference.lines().findFirst().orElse("?"),
                    (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);

            // the users' view: modes, owners, sticky and setgid directories, through the kernel's checks
            String permissionsReference = peer.execOk("grep -e '^\\[sticky-rm\\]' -e '^\\[setuid-cleared\\]' -e "
                    + "'^== tree' " + ref + "/perm.out", GUEST_COMMAND);
            assertThat(permissionsReference).as("the permissions script ran to its end on tmpfs")
                    .contains("[sticky-rm] rc=1 rm: can't remove 'shared/af': Operation not permitted")
                    .contains("[setuid-cleared] rc=0 4755").contains("== tree");
            LinuxPeer.Result permissions = peer.exec("mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":" + export + " "
                    + MNT + " -o " + options + " && rm -rf " + MNT + "/perm && mkdir " + MNT + "/perm && sh "
                    + "/tmp/permissions.sh " + MNT + "/perm " + runas.inGuest() + " > /tmp/perm-ours.out 2>&1; umount "
                    + MNT + " && diff -u " + ref + "/perm.out /tmp/perm-ours.out", GUEST_COMMAND);
            assertThat(permissions.status()).as("the users' report over NFS (%s on %s) differs from tmpfs's:\n%s",
                    version, export, permissions.tail(80)).isZero();
            LOG.info("the users' report (NFS {} on {}) equals tmpfs's", version, export);

            if (!version.equals("3")) {
                // NFSv4 mounts a directory within the export through the server's namespace (LOOKUPs from the root)
                String inner = peer.execOk("mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":" + export + "/ns1/x/t " + MNT
                        + " -o " + options + " && cat " + MNT + "/u/b && echo && ls -1 " + MNT + " && umount " + MNT,
                        GUEST_COMMAND);
                assertThat(inner.lines().toList()).containsExactly("bb", "a", "l", "u");
                LinuxPeer.Result missing = peer.exec("mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":" + export
                        + "/ns1/nope " + MNT + " -o " + options, GUEST_COMMAND);
                assertThat(missing.status()).isNotZero();
                assertThat(missing.output()).contains("No such file or directory");
            }
            if (export.equals("/export")) {
                // what the server made is what the host's file system holds
                Path ns = exportDir.resolve("ns1/a");
                assertThat(hostType(ns.resolve("fifo"))).as("a FIFO on the host").isEqualTo(0010000);
                assertThat(hostType(ns.resolve("null"))).as("a character device on the host").isEqualTo(0020000);
                assertThat(Files.getAttribute(ns.resolve("null"), "unix:rdev", LinkOption.NOFOLLOW_LINKS))
                        .isEqualTo((1L << 8) | 3);
                assertThat(hostType(ns.resolve("blk"))).as("a block device on the host").isEqualTo(0060000);
                try (Stream<Path> big = Files.list(exportDir.resolve("ns1/big"))) {
                    assertThat(big.count()).isEqualTo(1350);
                }
                assertThat(Files.readString(ns.resolve("mid"))).isEqualTo("abcdXYghij");
            }
        } catch (Throwable t) {
            LOG.error("the namespace test failed; guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            peer.exec("umount -f " + scriptMount, Duration.ofSeconds(30));
            throw t;
        } finally {
            rdma.stop();
            nfs.close();
        }
    }

    /** The first 12 hex digits of the SHA-256 of the files' bytes, one after the other. */
    private static String digest(Path... files) throws Exception {
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        for (Path f : files) {
            sha.update(Files.readAllBytes(f));
        }
        return java.util.HexFormat.of().formatHex(sha.digest()).substring(0, 12);
    }

    private static int hostType(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000;
    }
}

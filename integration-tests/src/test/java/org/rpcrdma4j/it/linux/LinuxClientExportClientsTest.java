package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.server.ExportClients;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client (over siw in the {@link LinuxPeer} guest) against exports of ours open to some hosts only. The
 * guest's connections reach the host from 127.0.0.1: {@code /partly} is open to it read-only (a subnet spec, while
 * the read-write spec names another address), {@code /closed} only to another address. What the Linux client makes of
 * our answers is what its users see: {@code /partly} mounts over NFSv3 and NFSv4.2, reads, and refuses changes as a
 * read-only file system, with the file unchanged here; {@code /closed} does not mount with either version, and the
 * NFSv4 pseudo root lists only {@code partly}. {@code /shared} is open to the guest read-write with root squashed (the
 * default of a spec): users of the guest ({@code runas} takes their identities) make files that are theirs here, others
 * can neither read a private one nor remove it from a sticky directory, and the guest's root acts as nobody.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LinuxClientExportClientsTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientExportClientsTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(2);
    private static final String MNT = "/mnt/partly";

    @Test
    void linuxClientGetsWhatTheClientSpecsAllow(LinuxPeer peer, @TempDir Path root) throws Exception {
        Path partly = Files.createDirectories(root.resolve("partly"));
        Path closed = Files.createDirectories(root.resolve("closed"));
        Files.writeString(partly.resolve("kept.txt"), "kept\n");
        Files.writeString(closed.resolve("secret.txt"), "secret\n");
        Path shared = Files.createDirectories(root.resolve("shared"));
        Path guarded = Files.createDirectories(root.resolve("guarded"));
        Files.setAttribute(shared, "unix:mode", 0755);
        Path sticky = Files.createDirectories(shared.resolve("tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        GuestProgram runas = GuestProgram.RUNAS;
        RequiredPeer.require(runas.what(), runas.unavailableReason());
        Files.copy(runas.build(), shared.resolve("runas"));
        Files.setAttribute(shared.resolve("runas"), "unix:mode", 0755);
        LocalVfs partlyVfs = LocalVfs.open(partly);
        LocalVfs closedVfs = LocalVfs.open(closed);
        LocalVfs sharedVfs = LocalVfs.open(shared);
        LocalVfs guardedVfs = LocalVfs.open(guarded);
        NfsServer nfs = NfsServer.builder()
                .export("/partly", partlyVfs, false, ExportClients.parse("127.0.0.2(rw) 127.0.0.0/8(ro)"))
                .export("/closed", closedVfs, false, ExportClients.parse("192.0.2.1(rw)"))
                .export("/shared", sharedVfs, false, ExportClients.parse("127.0.0.0/8(rw)"))
                .export("/guarded", guardedVfs, false, ExportClients.parse("127.0.0.0/8(rw,secure,no_root_squash)"))
                .bindAddress("127.0.0.1").port(0)
                .nfs4(OurServers.freshState()).build();
        RdmaRpcServer rdma = OurServers.rdma(nfs, "linux-export-clients").build();
        nfs.start();
        try {
            rdma.start();
            int rdmaPort = rdma.boundAddress().getPort();
            String host = LinuxPeer.HOST_FROM_GUEST;
            String v3 = " -o proto=rdma,port=" + rdmaPort + ",vers=3,mountport=" + nfs.port()
                    + ",mountproto=tcp,nolock";
            String v4 = " -o proto=rdma,port=" + rdmaPort + ",vers=4.2";
            peer.execOk("mkdir -p " + MNT, GUEST_COMMAND);
            for (String options : new String[] {v3, v4}) {
                String mounted = peer.execOk("mount.nfs " + host + ":/partly " + MNT + options + " && grep ' " + MNT
                        + " ' /proc/mounts", GUEST_COMMAND);
                LOG.info("the guest's mount of /partly: {}", mounted.strip());
                assertThat(peer.execOk("cat " + MNT + "/kept.txt", GUEST_COMMAND)).isEqualTo("kept\n");
                LinuxPeer.Result write = peer.exec("echo changed > " + MNT + "/kept.txt", GUEST_COMMAND);
                assertThat(write.status()).as(write.output()).isNotZero();
                // the client asks ACCESS first, which grants no MODIFY to a read-only host (as knfsd's does), so the
                // kernel refuses the open itself; a call that reaches the server gets ROFS
                assertThat(write.output()).as("what the guest's shell says")
                        .containsAnyOf("Permission denied", "Read-only file system");
                LinuxPeer.Result create = peer.exec("touch " + MNT + "/new.txt", GUEST_COMMAND);
                assertThat(create.status()).as(create.output()).isNotZero();
                assertThat(create.output()).containsAnyOf("Permission denied", "Read-only file system");
                LOG.info("the guest's shell: {} / {}", write.output().strip(), create.output().strip());
                peer.execOk("umount " + MNT, GUEST_COMMAND);
            }
            assertThat(Files.readString(partly.resolve("kept.txt"))).isEqualTo("kept\n");
            assertThat(Files.exists(partly.resolve("new.txt"))).isFalse();

            LinuxPeer.Result closed3 = peer.exec("mount.nfs " + host + ":/closed " + MNT + v3, GUEST_COMMAND);
            assertThat(closed3.status()).as(closed3.output()).isNotZero();
            assertThat(closed3.output()).as("mount.nfs's words for MNT3ERR_ACCES").contains("access denied");
            LinuxPeer.Result closed4 = peer.exec("mount.nfs " + host + ":/closed " + MNT + v4, GUEST_COMMAND);
            assertThat(closed4.status()).as(closed4.output()).isNotZero();

            peer.execOk("mount.nfs " + host + ":/ " + MNT + v4, GUEST_COMMAND);
            String listed = peer.execOk("ls -A " + MNT + "; umount " + MNT, GUEST_COMMAND);
            assertThat(listed.strip().split("\\s+")).as("the pseudo root as this host sees it")
                    .containsExactly("guarded", "partly", "shared");
            assertThat(peer.execOk("grep -c ' " + MNT + " ' /proc/mounts || true", GUEST_COMMAND).strip())
                    .isEqualTo("0");

            // secure: the guest's connections come through the emulator from unprivileged ports; RDMA passes, as
            // with knfsd, MOUNT (over TCP) is "access denied", and NFSv4 over TCP "Operation not permitted"
            assertThat(peer.execOk("mount.nfs " + host + ":/guarded " + MNT + v4 + " && echo over-rdma > " + MNT
                    + "/f && cat " + MNT + "/f && umount " + MNT, GUEST_COMMAND)).isEqualTo("over-rdma\n");
            assertThat(Files.readString(guarded.resolve("f"))).isEqualTo("over-rdma\n");
            LinuxPeer.Result guarded3 = peer.exec("mount.nfs " + host + ":/guarded " + MNT + v3, GUEST_COMMAND);
            assertThat(guarded3.status()).as(guarded3.output()).isNotZero();
            assertThat(guarded3.output()).contains("access denied");
            LinuxPeer.Result guardedTcp = peer.exec("mount.nfs " + host + ":/guarded " + MNT + " -o proto=tcp,port="
                    + nfs.port() + ",vers=4.2", GUEST_COMMAND);
            assertThat(guardedTcp.status()).as(guardedTcp.output()).isNotZero();
            assertThat(guardedTcp.output()).contains("Operation not permitted");

            for (String options : new String[] {v3, v4}) {
                usersAndRootSquash(peer, host + ":/shared" + " " + MNT + options, shared, sharedVfs.givesOwnership());
            }
        } catch (Throwable t) {
            LOG.error("guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            throw t;
        } finally {
            rdma.stop();
            nfs.close();
            partlyVfs.close();
            closedVfs.close();
            sharedVfs.close();
            guardedVfs.close();
        }
    }

    /** Users of the guest on {@code /shared}, mounted by {@code mount} (the export, the mount point, the options). */
    private static void usersAndRootSquash(LinuxPeer peer, String mount, Path shared, boolean owned)
            throws Exception {
        peer.execOk("mount.nfs " + mount + " && " + GuestProgram.RUNAS.installCommand(MNT + "/runas"), GUEST_COMMAND);
        String alice = GuestProgram.RUNAS.inGuest() + " 1000 1000 ";
        String bob = GuestProgram.RUNAS.inGuest() + " 1001 1001 ";
        try {
            LinuxPeer.Result asRoot = peer.exec("echo root > " + MNT + "/root.txt", GUEST_COMMAND);
            assertThat(asRoot.status()).as("the guest's root is squashed: " + asRoot.output()).isNotZero();
            assertThat(asRoot.output()).contains("Permission denied");

            peer.execOk(alice + "sh -c 'echo alice > " + MNT + "/tmp/a && chmod 600 " + MNT + "/tmp/a'",
                    GUEST_COMMAND);
            Path a = shared.resolve("tmp/a");
            assertThat(Files.readString(a)).isEqualTo("alice\n");
            assertThat(Files.getAttribute(a, "unix:mode", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0100600);
            if (owned) {
                assertThat(Files.getAttribute(a, "unix:uid", LinkOption.NOFOLLOW_LINKS)).as("the file is its maker's")
                        .isEqualTo(1000);
                assertThat(Files.getAttribute(a, "unix:gid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(1000);
            } else {
                LOG.warn("the server's user is not root: files made over NFS stay its own, not checked");
            }
            LinuxPeer.Result bobReads = peer.exec(bob + "cat " + MNT + "/tmp/a", GUEST_COMMAND);
            assertThat(bobReads.status()).as(bobReads.output()).isNotZero();
            assertThat(bobReads.output()).contains("Permission denied");
            LinuxPeer.Result bobRemoves = peer.exec(bob + "rm -f " + MNT + "/tmp/a", GUEST_COMMAND);
            assertThat(bobRemoves.status()).as(bobRemoves.output()).isNotZero();
            assertThat(bobRemoves.output()).as("the sticky bit").contains("Operation not permitted");
            LinuxPeer.Result rootReads = peer.exec("cat " + MNT + "/tmp/a", GUEST_COMMAND);
            assertThat(rootReads.status()).as("the squashed root reads as nobody: " + rootReads.output()).isNotZero();
            assertThat(Files.exists(a)).isTrue();
            peer.execOk(alice + "rm " + MNT + "/tmp/a", GUEST_COMMAND);
            assertThat(Files.exists(a)).isFalse();
            LOG.info("guest users on /shared ({}): bob {} / {}; root {}", mount, bobReads.output().strip(),
                    bobRemoves.output().strip(), rootReads.output().strip());
        } finally {
            peer.exec("umount " + MNT, GUEST_COMMAND);
        }
    }
}

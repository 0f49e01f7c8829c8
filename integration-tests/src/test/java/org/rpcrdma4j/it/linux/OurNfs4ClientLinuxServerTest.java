package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.v4.LockDeniedException;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41AsyncClient;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.client.v4.Nfs4StatusException;
import org.rpcrdma4j.nfs.client.v4.SeekReply;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our NFSv4.1 client over our software iWARP device against the Linux kernel's knfsd (over siw in the
 * {@link LinuxPeer} guest), with minor versions 1 and 2: files of 0, 1, 4097, 1 MiB + 1 and 16 MiB written, read back
 * and compared here, their SHA-256 computed inside the guest, listed, renamed and removed; the transport's counters
 * show knfsd pulled WRITE data from Read chunks and pushed READ data into Write chunks. With minor version 2, byte-range
 * locks of our client and of a process in the guest keep each other out through knfsd, and the client's ALLOCATE,
 * DEALLOCATE, SEEK and COPY do on knfsd what they say.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OurNfs4ClientLinuxServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(OurNfs4ClientLinuxServerTest.class);
    private static final int[] SIZES = {0, 1, 4097, (1 << 20) + 1, 16 << 20};

    @ParameterizedTest(name = "NFSv4.{0}")
    @ValueSource(ints = {1, 2})
    void filesCrossKnfsdByteForByte(int minor, LinuxPeer peer, @TempDir Path tmp) throws Exception {
        String dir = "/scratch/v4" + minor;
        Map<String, byte[]> files = new TreeMap<>();
        for (int size : SIZES) {
            byte[] data = new byte[size];
            new Random(size * 13L + minor).nextBytes(data);
            files.put("f" + size, data);
        }
        NfsUrl url = NfsUrl.parse("rdma://127.0.0.1:" + peer.rdmaPort() + "/export");
        // knfsd's grace period after the guest's boot (10 s) answers OPENs with NFS4ERR_GRACE: wait it out
        Nfs41Options options = Nfs41Options.defaults().withMinorVersion(minor)
                .withDelayRetries(60, Duration.ofMillis(500), Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        try (Nfs41Client nfs = Nfs41Client.mount(url, NfsClientConfig.defaults()
                .withCallTimeout(Duration.ofSeconds(60)), options)) {
            assertThat(nfs.session().minorVersion()).isEqualTo(minor);
            nfs.mkdir(dir);
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                Path local = tmp.resolve(f.getKey());
                Files.write(local, f.getValue());
                assertThat(nfs.upload(local, dir + "/" + f.getKey())).isEqualTo(f.getValue().length);
            }
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                Path back = tmp.resolve(f.getKey() + ".back");
                assertThat(nfs.download(dir + "/" + f.getKey(), back)).isEqualTo(f.getValue().length);
                assertThat(Files.readAllBytes(back)).as("%s read back", f.getKey()).isEqualTo(f.getValue());
            }
            Map<String, String> expected = new TreeMap<>();
            files.forEach((name, data) -> expected.put(name, OurClientLinuxServerTest.sha256(data)));
            assertThat(OurClientLinuxServerTest.guestSha256(peer, dir)).as("computed in the guest").isEqualTo(expected);
            Map<String, Long> listed = new TreeMap<>();
            for (DirEntry e : nfs.list(dir)) {
                listed.put(e.name(), e.attributes().size());
            }
            assertThat(listed).isEqualTo(LinuxClientOurServerTest.sizesByName("f", SIZES));
            if (minor == 2) {
                locksMeetAGuestProcessThroughKnfsd(peer, nfs, dir);
                spaceAndCopyThroughKnfsd(peer, nfs, dir);
            }
            for (String name : files.keySet()) {
                nfs.rename(dir + "/" + name, dir + "/" + name + ".renamed");
                nfs.delete(dir + "/" + name + ".renamed");
            }
            assertThat(nfs.list(dir)).isEmpty();
            nfs.delete(dir);
            RdmaClientStats stats = ((RdmaDataTransport) nfs.transport()).transport().stats();
            // the back channel was asked for and granted; knfsd sends no CB_NULL probe to NFSv4.1 clients, it takes
            // the session's back channel as up (and calls back only for delegations and layouts, which this client
            // does not take)
            assertThat(nfs.session().backChannelGranted()).as("CONN_BACK_CHAN granted by knfsd").isTrue();
            assertThat(peer.execOk("cat /proc/fs/nfsd/clients/*/info", Duration.ofMinutes(1)))
                    .as("knfsd's view of this client").contains("rpcrdma4j NFSv4.1 client")
                    .contains("callback state: UP");
            LOG.info("our NFSv4.{} client against knfsd: {} ms; back channel asked {} granted {}, rebound {} times, "
                    + "{} CB_COMPOUNDs answered; {}", minor, (System.nanoTime() - t0) / 1_000_000,
                    nfs.session().servesCallbacks(), nfs.session().backChannelGranted(),
                    nfs.session().backChannelBinds(), nfs.session().callbacksAnswered(), stats);
            assertThat(stats.get(XprtCounter.READ_CHUNK_COUNT)).as("WRITE data in Read chunks").isPositive();
            assertThat(stats.get(XprtCounter.WRITE_CHUNK_COUNT)).as("READ data into Write chunks").isPositive();
            assertThat(stats.get(XprtCounter.BAD_REPLY_COUNT)).isZero();
            // the client's OPENs ask for no delegation (WANT_NO_DELEG), which knfsd honours for NFSv4.1 and later;
            // one granted anyway would be given back at once, so none is ever revoked
            LOG.info("delegations returned: {}; SEQUENCE replies reporting revoked state: {}",
                    nfs.async().delegationsReturned(), nfs.session().revocationsReported());
            assertThat(nfs.async().delegationsReturned()).as("delegations knfsd granted though none was wanted")
                    .isZero();
            assertThat(nfs.session().revocationsReported()).as("SEQUENCE replies reporting revoked state").isZero();
        }
        assertThat(peer.execOk("ls -A /export/scratch", Duration.ofMinutes(1))).doesNotContain("v4" + minor);
    }

    /**
     * NFSv4.2's space and copy operations of our client against knfsd (over the guest's tmpfs): a hole punched
     * (DEALLOCATE) and found (SEEK, NFS4ERR_NXIO from the end), space allocated past the end (ALLOCATE), and the file
     * copied within the server (COPY, which knfsd does at most 4 MiB at a time and answers UNSTABLE, so the client
     * asks again and then COMMITs); a CLONE knfsd's tmpfs cannot do is NFS4ERR_NOTSUPP. The bytes are compared here
     * and by SHA-256 in the guest.
     */
    private static void spaceAndCopyThroughKnfsd(LinuxPeer peer, Nfs41Client nfs, String dir) throws Exception {
        Duration command = Duration.ofMinutes(2);
        int mib = 1 << 20;
        byte[] data = new byte[5 * mib];
        new Random(52).nextBytes(data);
        nfs.writeAll(dir + "/space", data);
        FileHandle fh = nfs.resolve(dir + "/space");

        nfs.deallocate(fh, mib, mib);
        assertThat(nfs.seek(fh, 0, SeekReply.Content.HOLE)).isEqualTo(new SeekReply(mib, false));
        assertThat(nfs.seek(fh, mib + 5, SeekReply.Content.DATA)).isEqualTo(new SeekReply(2 * mib, false));
        assertThat(nfs.seek(fh, 2 * mib, SeekReply.Content.HOLE)).isEqualTo(new SeekReply(5 * mib, true));
        assertThatThrownBy(() -> nfs.seek(fh, 5 * mib, SeekReply.Content.DATA))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NXIO));
        nfs.allocate(fh, 5 * mib, mib);
        assertThat(nfs.getattr(fh).size()).isEqualTo(6 * mib);
        byte[] expected = java.util.Arrays.copyOf(data, 6 * mib);
        java.util.Arrays.fill(expected, mib, 2 * mib, (byte) 0);
        assertThat(nfs.readAll(dir + "/space")).isEqualTo(expected);

        nfs.writeAll(dir + "/copy", new byte[0]);
        FileHandle copy = nfs.resolve(dir + "/copy");
        assertThat(nfs.copy(fh, 0, copy, 0, 0)).as("all of it, in parts of knfsd's size").isEqualTo(6 * mib);
        assertThat(nfs.readAll(dir + "/copy")).isEqualTo(expected);
        // CLONE reaches knfsd, whose tmpfs cannot share storage: NOTSUPP, typed, and the file untouched
        assertThatThrownBy(() -> nfs.clone(fh, 0, copy, 0, 0)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOTSUPP));
        String sha = OurClientLinuxServerTest.sha256(expected);
        String guest = peer.execOk("cd /export" + dir + " && sha256sum space copy && stat -c '%n %s %b %B' space",
                command);
        assertThat(guest).contains(sha + "  space").contains(sha + "  copy");
        String[] stat = guest.lines().filter(l -> l.startsWith("space ")).findFirst().orElseThrow().split(" ");
        assertThat(Long.parseLong(stat[2]) * Long.parseLong(stat[3])).as("storage of the file in the guest, with its"
                + " hole").isLessThan(6L * mib);
        nfs.close(fh);
        nfs.close(copy);
        nfs.delete(dir + "/space");
        nfs.delete(dir + "/copy");
        LOG.info("NFSv4.2 space and copy through knfsd: a hole punched and found, space allocated, 6 MiB copied");
    }

    /**
     * Byte-range locks of our client against a process in the guest that locks the same file in knfsd's export
     * directly ({@link LockProbe}, written there through our client): knfsd's locks are the guest's own POSIX locks, so
     * each side keeps the other out, and a lock comes free when its holder lets go.
     */
    private static void locksMeetAGuestProcessThroughKnfsd(LinuxPeer peer, Nfs41Client nfs, String dir)
            throws Exception {
        RequiredPeer.require(LockProbe.PROGRAM.what(), LockProbe.PROGRAM.unavailableReason());
        Duration command = Duration.ofMinutes(2);
        nfs.writeAll(dir + "/lockprobe", Files.readAllBytes(LockProbe.PROGRAM.build()));
        nfs.writeAll(dir + "/locked", new byte[4096]);
        FileHandle fh = nfs.resolve(dir + "/locked");
        String file = "/export" + dir + "/locked";
        String probe = LockProbe.on(file);
        peer.execOk(LockProbe.PROGRAM.installCommand("/export" + dir + "/lockprobe"), command);

        nfs.lock(fh, LockType.WRITE, 0, 100);
        assertThat(peer.exec(probe + "set r 50 10", command).output()).as("the guest, kept out by our lock")
                .contains("denied");
        assertThat(peer.exec(probe + "test w 99 1", command).output()).contains("conflict w 0 100");
        assertThat(peer.execOk(probe + "set r 100 10", command)).contains("ok");

        String held = peer.execOk(LockProbe.holdCommand(file, "w 200 100", 120), command);
        assertThat(held).contains("held");
        assertThatThrownBy(() -> nfs.lock(fh, LockType.READ, 250, 1)).as("our client, kept out by the guest's lock")
                .isInstanceOfSatisfying(LockDeniedException.class, e -> {
                    assertThat(e.conflict().offset()).isEqualTo(200);
                    assertThat(e.conflict().length()).isEqualTo(100);
                    assertThat(e.conflict().type()).isEqualTo(LockType.WRITE);
                });
        assertThat(nfs.testLock(fh, LockType.WRITE, 300, Nfs41AsyncClient.TO_END)).isEmpty();
        peer.execOk(LockProbe.KILL_HOLDER, command);
        LockProbe.lockOnceFree(nfs, fh, LockType.WRITE, 200, 100);

        nfs.unlock(fh, 0, Nfs41AsyncClient.TO_END);
        assertThat(peer.execOk(probe + "set w 0 300", command)).contains("ok");
        nfs.close(fh);
        nfs.delete(dir + "/locked");
        nfs.delete(dir + "/lockprobe");
        LOG.info("byte-range locks: ours and a guest process's kept each other out, through knfsd");
    }
}

package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.mount.check.RandomIo;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our NFSv3 and NFSv4.x clients against the Linux kernel's knfsd (over siw in the {@link LinuxPeer} guest), checked
 * byte for byte with {@link RandomIo}: random READs and WRITEs at unaligned offsets, truncations, COMMITs and bursts of
 * calls in flight on one file, which is given no holes: knfsd 6.1 reads its tmpfs export's unwritten pages wrong.
 * Afterwards the file as the guest's own file system has it (SHA-256 computed in the guest), and what a fresh mount
 * reads back, must equal the copy {@link RandomIo} kept. {@code -Drandomio.ops=N} and {@code -Drandomio.seed=S} run
 * longer or other sequences (a failure names its seed).
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OurClientsRandomIoLinuxServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(OurClientsRandomIoLinuxServerTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(2);
    private static final int OPS = Integer.getInteger("randomio.ops", 1500);
    private static final long SEED = Long.getLong("randomio.seed", 20261207L);
    private static final int MAX_SIZE = 3 << 20;

    @ParameterizedTest(name = "NFSv{0}")
    @ValueSource(strings = {"3", "4.1", "4.2"})
    void randomIoReachesKnfsdWhole(String version, LinuxPeer peer) throws Exception {
        long seed = SEED + version.hashCode();
        String path = "/scratch/random-v" + version + "-" + Long.toHexString(seed);
        RandomIo io;
        RdmaClientStats stats;
        try (NfsMount nfs = mount(peer, version)) {
            FileHandle fh = nfs.createFile(path);
            FsInfo info = nfs.fsinfo(fh);
            int maxIo = Math.min(1 << 20, info.largestIo());
            long t0 = System.nanoTime();
            // no holes: the guest's knfsd (Linux 6.1) answers a READ across unwritten pages of its tmpfs export with
            // the data after them shifted (see docs/interop-linux.md, "knfsd's READ across a hole")
            io = new RandomIo(nfs, fh, MAX_SIZE, maxIo, seed).withoutHoles().run(OPS);
            stats = ((RdmaDataTransport) nfs.transport()).transport().stats();
            LOG.info("our NFSv{} client against knfsd, READs and WRITEs of up to {} bytes: {} in {} ms; {}", version,
                    maxIo, io, (System.nanoTime() - t0) / 1_000_000, stats);
        }
        byte[] expected = io.expected();
        String sha = OurClientLinuxServerTest.sha256(expected);
        String guest = peer.execOk("sha256sum /export" + path + " && stat -c 'size %s' /export" + path,
                GUEST_COMMAND);
        assertThat(guest).as("the file in the guest's file system (%s)", io).contains(sha + "  /export" + path)
                .contains("size " + expected.length);
        try (NfsMount fresh = mount(peer, version)) {
            assertThat(RandomIo.readBack(fresh, path))
                    .as("a fresh mount reads back (%s)", io).isEqualTo(expected);
            fresh.remove(fresh.resolve("/scratch"), path.substring("/scratch/".length()));
        }
        assertThat(stats.get(XprtCounter.READ_CHUNK_COUNT)).as("WRITE data in Read chunks").isPositive();
        assertThat(stats.get(XprtCounter.WRITE_CHUNK_COUNT)).as("READ data into Write chunks").isPositive();
        assertThat(stats.get(XprtCounter.BAD_REPLY_COUNT)).isZero();
    }

    private static NfsMount mount(LinuxPeer peer, String version) throws Exception {
        NfsUrl url = NfsUrl.parse("rdma://127.0.0.1:" + peer.rdmaPort() + "/export?mountport=" + peer.mountdPort()
                + "&vers=" + version);
        NfsClientConfig config = NfsClientConfig.defaults().withCallTimeout(Duration.ofSeconds(60));
        if (version.equals("3")) {
            return NfsClient.mount(url, config);
        }
        // knfsd's grace period after the guest's boot (10 s) answers OPENs with NFS4ERR_GRACE: wait it out
        Nfs41Options options = Nfs41Options.defaults().withMinorVersion(version.equals("4.1") ? 1 : 2)
                .withDelayRetries(60, Duration.ofMillis(500), Duration.ofSeconds(1));
        return Nfs41Client.mount(url, config, options);
    }
}

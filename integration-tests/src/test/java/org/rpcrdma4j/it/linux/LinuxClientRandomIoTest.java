package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.it.reliability.RandomIoServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client's page cache, write-back and direct I/O against our server, checked byte for byte: {@code fsxprobe}
 * (built static from {@code src/test/c}) runs random writes and reads at unaligned offsets, writes past the end of
 * file that leave holes, truncations that shrink and grow, fsyncs and reopens on a file of an export of ours over
 * RDMA, once through the client's page cache and once with O_DIRECT (every read and write goes to the server as it
 * is), and compares every read with a copy it keeps. Afterwards the file in the server's file system must equal that
 * copy, and so must what a fresh mount (a cold cache) reads back. It runs over NFSv3 and NFSv4.2, each on a local
 * directory ({@code LocalVfs}) and on an in-memory export as {@code serve --memory} makes it (its blocks in the RDMA
 * server's registered memory, lent to READs), with whole blocks of WRITE data kept where the server pulled them. The
 * server's software device has its defaults, which send no placement probes: with them the guest's siw transmit
 * thread crashed on a probe's answer within a few thousand operations (see {@code docs/interop-linux.md}, zero-length
 * RDMA Read).
 * <p>
 * The probe runs in the background in the guest: a run whose trace stops moving fails with the guest's view of it
 * (where the probe waits, the kernel log) rather than hanging the guest's console. {@code -Dfsx.ops=N} and
 * {@code -Dfsx.seed=S} run longer or other sequences (the seed of a failing run is in its message).
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class LinuxClientRandomIoTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientRandomIoTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(5);
    private static final String MNT = "/mnt/fsx";
    /** The largest file the probe makes (holes included). */
    private static final int MAX_SIZE = 3 << 20;
    private static final int OPS = Integer.getInteger("fsx.ops", 1000);
    private static final long SEED = Long.getLong("fsx.seed", 20261207L);
    /** How long the probe may go without starting an operation before the run counts as stalled. */
    private static final Duration STALL = Duration.ofSeconds(90);

    @Test
    void linuxClientsRandomIoArrivesWhole(LinuxPeer peer, @TempDir Path root) throws Exception {
        GuestProgram probe = GuestProgram.FSXPROBE;
        RequiredPeer.require(probe.what(), probe.unavailableReason());
        Path local = Files.createDirectories(root.resolve("local"));
        Files.setAttribute(local, "unix:mode", 0777);
        Files.copy(probe.build(), local.resolve("fsxprobe"));
        Files.setAttribute(local.resolve("fsxprobe"), "unix:mode", 0755);
        RandomIoServer exports = RandomIoServer.start(local, "linux-random-io");
        NfsRdmaServer server = exports.server();
        try {
            String host = LinuxPeer.HOST_FROM_GUEST;
            int rdmaPort = server.rdmaPort();
            String v3 = "proto=rdma,port=" + rdmaPort + ",vers=3,mountport=" + server.tcpPort()
                    + ",mountproto=tcp,nolock";
            String v4 = "proto=rdma,port=" + rdmaPort + ",vers=4.2";
            peer.execOk("mkdir -p " + MNT + " && mount.nfs " + host + ":/local " + MNT + " -o " + v3 + " && "
                    + probe.installCommand(MNT + "/fsxprobe") + " && umount " + MNT, GUEST_COMMAND);
            long seed = SEED;
            for (String options : List.of(v3, v4)) {
                for (String export : List.of("/local", "/mem")) {
                    for (String mode : List.of("buffered", "direct")) {
                        String name = "f" + seed;
                        String mount = "mount.nfs " + host + ":" + export + " " + MNT + " -o " + options;
                        String out = run(peer, server, mount, mode, name, seed);
                        byte[] held = exports.held(export, name, MAX_SIZE);
                        String model = peer.execOk("sha256sum /tmp/fsx-model", GUEST_COMMAND).split("\\s+")[0];
                        assertThat(OurClientLinuxServerTest.sha256(held))
                                .as("the file in the server's %s (%s, seed %d, %s) is the probe's copy", export, mode,
                                        seed, options)
                                .isEqualTo(model);
                        assertThat(out).as("the size the probe ended with").contains("size " + held.length);
                        String cold = peer.execOk(mount + " && sha256sum " + MNT + "/" + name + " && rm " + MNT + "/"
                                + name + " && umount " + MNT, GUEST_COMMAND).split("\\s+")[0];
                        assertThat(cold).as("a fresh mount of %s reads the probe's copy (seed %d)", export, seed)
                                .isEqualTo(model);
                        LOG.info("fsxprobe {} on {} with {} (seed {}): {} bytes at the end, the server's copy and a "
                                + "cold read match:\n{}", mode, export, options, seed, held.length, out.strip());
                        seed++;
                    }
                }
            }
            LOG.info("server counters after the random I/O: {}", exports.checkCounters());
        } catch (Throwable t) {
            LOG.error("guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            throw t;
        } finally {
            exports.close();
        }
    }

    /**
     * Mounts, runs the probe on {@code name} in the background and unmounts; returns what the probe printed. A probe
     * whose trace does not move for {@link #STALL} fails the test with what the guest knows of it (its last
     * operations, where its thread waits in the kernel, the kernel log, the mount's RPC statistics) and the server's
     * counters.
     */
    private static String run(LinuxPeer peer, NfsRdmaServer server, String mount, String mode, String name, long seed)
            throws Exception {
        String probe = GuestProgram.FSXPROBE.inGuest() + " " + mode + " " + MNT + "/" + name + " " + OPS + " " + seed
                + " " + MAX_SIZE + " /tmp/fsx-model /tmp/fsx-trace";
        peer.execOk(mount + " && rm -f /tmp/fsx-status /tmp/fsx-trace && ((" + probe
                + " > /tmp/fsx-out 2>&1; echo $? > /tmp/fsx-status) < /dev/null > /dev/null 2>&1 &)", GUEST_COMMAND);
        String last = "";
        long moved = System.nanoTime();
        while (true) {
            String[] seen = peer.execOk("echo \"status=$(cat /tmp/fsx-status 2>/dev/null)\"; "
                    + "echo \"last=$(tail -n 1 /tmp/fsx-trace 2>/dev/null)\"", GUEST_COMMAND).lines()
                    .toArray(String[]::new);
            String status = value(seen, "status=");
            String at = value(seen, "last=");
            if (!status.isEmpty()) {
                String out = peer.execOk("cat /tmp/fsx-out; umount " + MNT, GUEST_COMMAND);
                assertThat(status).as("fsxprobe's exit status (seed %d, %s):%n%s", seed, mount, out).isEqualTo("0");
                assertThat(out).as("fsxprobe's summary").contains("done " + OPS + " size ");
                return out;
            }
            if (!at.equals(last)) {
                last = at;
                moved = System.nanoTime();
            } else if (System.nanoTime() - moved > STALL.toNanos()) {
                String guest = peer.exec("tail -n 12 /tmp/fsx-trace; echo '-- the probe waits in:'; "
                        + "for p in $(pidof fsxprobe); do cat /proc/$p/stack; done; echo '-- kernel log:'; "
                        + "dmesg | sed -n '/BUG\\|Oops\\|WARNING\\|general protection/,+70p' | head -n 90; "
                        + "echo '-- mountstats:'; "
                        + "grep -A 40 'mounted on " + MNT + "' /proc/self/mountstats | grep -E 'xprt|READ|WRITE|COMMIT"
                        + "|SETATTR|GETATTR|ACCESS|LOOKUP|CREATE|OPEN|CLOSE|SEQUENCE|per-op'",
                        Duration.ofSeconds(60)).output();
                throw new AssertionError("fsxprobe (seed " + seed + ", " + mount + ") made no progress for "
                        + STALL.toSeconds() + " s at: " + at + "\nin the guest:\n" + guest
                        + "\nthe server's counters: " + server.rdma().counters());
            }
            Thread.sleep(1000);
        }
    }

    private static String value(String[] lines, String key) {
        for (String line : lines) {
            if (line.startsWith(key)) {
                return line.substring(key.length()).strip();
            }
        }
        return "";
    }
}

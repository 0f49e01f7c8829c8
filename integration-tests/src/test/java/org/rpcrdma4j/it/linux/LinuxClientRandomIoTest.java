package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client's page cache, write-back and direct I/O against our server, checked byte for byte: {@code fsxprobe}
 * (built static from {@code src/test/c}) runs random buffered and O_DIRECT writes and reads at unaligned offsets,
 * writes past the end of file that leave holes, truncations that shrink and grow, fsyncs and reopens on a file of an
 * export of ours over RDMA, and compares every read with a copy it keeps. Afterwards the file in the server's file
 * system must equal that copy, and so must what a fresh mount (a cold cache) reads back. It runs over NFSv3 and NFSv4.2,
 * each on a local directory ({@code LocalVfs}) and on an in-memory export as {@code serve --memory} makes it (its
 * blocks in the RDMA server's registered memory, lent to READs), with whole blocks of WRITE data kept where the server
 * pulled them.
 * <p>
 * {@code -Dfsx.ops=N} and {@code -Dfsx.seed=S} run longer or other sequences (the seed of a failing run is in its
 * message).
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class LinuxClientRandomIoTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientRandomIoTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(5);
    private static final String MNT = "/mnt/fsx";
    /** The largest file the probe makes (holes included). */
    private static final int MAX_SIZE = 3 << 20;
    private static final int OPS = Integer.getInteger("fsx.ops", 1200);
    private static final long SEED = Long.getLong("fsx.seed", 20261207L);
    private static final int MEMORY_BLOCK = 64 * 1024;

    @Test
    void linuxClientsRandomIoArrivesWhole(LinuxPeer peer, @TempDir Path root) throws Exception {
        GuestProgram probe = GuestProgram.FSXPROBE;
        RequiredPeer.require(probe.what(), probe.unavailableReason());
        Path local = Files.createDirectories(root.resolve("local"));
        Files.setAttribute(local, "unix:mode", 0777);
        Files.copy(probe.build(), local.resolve("fsxprobe"));
        Files.setAttribute(local.resolve("fsxprobe"), "unix:mode", 0755);
        RdmaServerMemory memory = new RdmaServerMemory();
        MemoryVfs mem = new MemoryVfs(64L << 20, memory.blocks(MEMORY_BLOCK));
        LocalVfs localVfs = LocalVfs.open(local);
        NfsRdmaServer server = NfsRdmaServer.start(
                NfsServer.builder().export("/local", localVfs).export("/mem", mem).bindAddress("127.0.0.1").port(0),
                RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                        .provider("soft", Map.of()).registeredMemory((256L << 20) + (64L << 20))
                        .keptCallMemory(32L << 20).jmx(false).name("linux-random-io"),
                memory);
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
                    String name = "f" + seed;
                    String mount = "mount.nfs " + host + ":" + export + " " + MNT + " -o " + options;
                    String out = run(peer, mount, name, seed);
                    byte[] held = export.equals("/mem") ? memoryFile(mem, name) : Files.readAllBytes(local.resolve(name));
                    String model = peer.execOk("sha256sum /tmp/fsx-model", GUEST_COMMAND).split("\\s+")[0];
                    assertThat(OurClientLinuxServerTest.sha256(held))
                            .as("the file in the server's %s (seed %d, %s) is the probe's copy", export, seed, options)
                            .isEqualTo(model);
                    assertThat(out).as("the size the probe ended with").contains("size " + held.length);
                    String cold = peer.execOk(mount + " && sha256sum " + MNT + "/" + name + " && rm " + MNT + "/"
                            + name + " && umount " + MNT, GUEST_COMMAND).split("\\s+")[0];
                    assertThat(cold).as("a fresh mount of %s reads the probe's copy (seed %d)", export, seed)
                            .isEqualTo(model);
                    LOG.info("fsxprobe on {} with {} (seed {}): {} bytes at the end, the server's copy and a cold "
                            + "read match:\n{}", export, options, seed, held.length, out.strip());
                    seed++;
                }
            }
            Map<ServerCounter, Long> c = server.rdma().counters();
            LOG.info("server counters after the random I/O: {}", c);
            assertThat(c.get(ServerCounter.KEPT_CALL_BYTES)).as("WRITE blocks kept by the in-memory export")
                    .isPositive();
            assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data RDMA-written from where it was read")
                    .isPositive();
            for (ServerCounter bad : List.of(ServerCounter.ERR_VERS_SENT, ServerCounter.ERR_CHUNK_SENT,
                    ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_INTERNAL_ERROR,
                    ServerCounter.DROPPED_NO_RESOURCES)) {
                assertThat(c.get(bad)).as(bad.name()).isZero();
            }
        } catch (Throwable t) {
            LOG.error("guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            throw t;
        } finally {
            server.close();
            localVfs.close();
            mem.close();
        }
    }

    /** Mounts, runs the probe on {@code name} and unmounts; returns what the probe printed. */
    private static String run(LinuxPeer peer, String mount, String name, long seed) throws Exception {
        LinuxPeer.Result r = peer.exec(mount + " && " + GuestProgram.FSXPROBE.inGuest() + " " + MNT + "/" + name + " "
                + OPS + " " + seed + " " + MAX_SIZE + " /tmp/fsx-model; s=$?; umount " + MNT + "; exit $s",
                GUEST_COMMAND);
        assertThat(r.status()).as("fsxprobe (seed %d, %s):\n%s", seed, mount, r.output()).isZero();
        assertThat(r.output()).as("fsxprobe's summary").contains("done " + OPS + " size ");
        return r.output();
    }

    private static byte[] memoryFile(MemoryVfs mem, String name) throws Exception {
        FileHandle fh = mem.lookup(mem.root(), name).handle();
        ByteBuffer held = ByteBuffer.allocate(MAX_SIZE + 1);
        mem.read(fh, 0, held);
        return Arrays.copyOf(held.array(), held.position());
    }
}

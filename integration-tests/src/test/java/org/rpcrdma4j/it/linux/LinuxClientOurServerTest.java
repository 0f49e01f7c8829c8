package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.it.capture.IwarpConnection;
import org.rpcrdma4j.it.capture.MpaFrame;
import org.rpcrdma4j.it.capture.OncRpcHeader;
import org.rpcrdma4j.it.capture.RdmapMessage;
import org.rpcrdma4j.it.capture.RpcRdmaExchange;
import org.rpcrdma4j.it.capture.RpcRdmaTrace;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux kernel's NFS client (xprtrdma over siw in the {@link LinuxPeer} guest) against our server: an
 * {@link RdmaRpcServer} serving the programs of an embedded {@link NfsServer} (NFSv3 over RPC-over-RDMA on one host
 * port, MOUNT over TCP on another, both on 127.0.0.1, which the guest reaches as {@value LinuxPeer#HOST_FROM_GUEST}).
 * The guest mounts with {@code proto=rdma,vers=3,mountproto=tcp}, copies files of 0, 1, 4097, 1 MiB + 1 and 16 MiB in
 * and out, mounts again (a cold page cache) to read what it wrote, lists and removes. Files are compared by size and
 * SHA-256 on both sides, and the wire is recorded: the bytes Linux's Read chunks carried (pulled by our RDMA Reads)
 * and the bytes our RDMA Writes put into its Write chunks are the files; its remote-invalidation offer is honoured
 * with Send With Invalidate, counted by the server and seen on the wire.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LinuxClientOurServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientOurServerTest.class);
    private static final int[] SIZES = {0, 1, 4097, (1 << 20) + 1, 16 << 20};
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(4);
    private static final Path CAPTURES = Path.of("target", "linux-interop");
    private static final String MNT = "/mnt/ours";

    @Test
    void linuxClientCopiesFilesInAndOutOfOurServer(LinuxPeer peer, @TempDir Path root) throws Exception {
        Path exportDir = Files.createDirectories(root.resolve("export"));
        Files.createDirectories(exportDir.resolve("in"));
        Path out = Files.createDirectories(exportDir.resolve("out"));
        Map<String, byte[]> outgoing = new TreeMap<>();
        for (int size : SIZES) {
            byte[] data = new byte[size];
            new Random(size * 17L + 3).nextBytes(data);
            outgoing.put("o" + size, data);
            Files.write(out.resolve("o" + size), data);
        }
        RdmaServerMemory serverMemory = new RdmaServerMemory();
        NfsServer nfs = NfsServer.builder().export("/export", LocalVfs.open(exportDir)).bindAddress("127.0.0.1")
                .port(0).readBuffers(serverMemory).writeMemory(serverMemory).build();
        RdmaRpcServer rdma = RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .provider("soft", Map.of()).programs(nfs.programs()).binding(Nfs3UpperLayerBinding.INSTANCE)
                .jmx(false).name("linux-interop-server").build();
        serverMemory.bind(rdma.bufferAllocator());
        nfs.start();
        WireCapture capture = null;
        try {
            rdma.start();
            int rdmaPort = rdma.boundAddress().getPort();
            assertThat(rdmaPort).isNotEqualTo(LinuxPeer.GUEST_RDMA_PORT);
            if (RequiredPeer.optionalOutsideCi("the capture of the Linux suite", WireCapture.unavailableReason())) {
                capture = WireCapture.start(CAPTURES.resolve("linux-client.pcapng"), rdmaPort);
            } else {
                LOG.warn(WireCapture.unavailableReason());
            }
            String mount = "mkdir -p " + MNT + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/export " + MNT
                    + " -o proto=rdma,port=" + rdmaPort + ",vers=3,mountport=" + nfs.port()
                    + ",mountproto=tcp,nolock && grep ' " + MNT + " ' /proc/mounts";
            long t0 = System.nanoTime();

            // 1: make files in the guest, copy them in, copy ours out, unmount (flushes every WRITE and COMMIT)
            StringBuilder make = new StringBuilder("rm -rf /tmp/lin-in /tmp/lin-out && mkdir -p /tmp/lin-in "
                    + "/tmp/lin-out");
            for (int size : SIZES) {
                make.append(" && head -c ").append(size).append(" /dev/urandom > /tmp/lin-in/i").append(size);
            }
            peer.execOk(make.toString(), GUEST_COMMAND);
            String mounted = peer.execOk(mount, GUEST_COMMAND);
            LOG.info("the guest's mount: {}", mounted.strip());
            assertThat(mounted).as("the mount's options").contains("proto=rdma").contains("port=" + rdmaPort)
                    .contains("vers=3");
            peer.execOk("cp /tmp/lin-in/* " + MNT + "/in/ && cp " + MNT + "/out/* /tmp/lin-out/ && umount " + MNT,
                    GUEST_COMMAND);
            Map<String, String> guestIn = sums(peer.execOk("cd /tmp/lin-in && sha256sum *", GUEST_COMMAND));
            Map<String, String> guestOut = sums(peer.execOk("cd /tmp/lin-out && sha256sum *", GUEST_COMMAND));
            // what arrived here is what the guest made; what the guest got is what we serve
            assertThat(hostSums(exportDir.resolve("in"))).isEqualTo(guestIn).hasSize(SIZES.length);
            Map<String, String> expectedOut = new TreeMap<>();
            outgoing.forEach((name, data) -> expectedOut.put(name, OurClientLinuxServerTest.sha256(data)));
            assertThat(guestOut).isEqualTo(expectedOut);
            Map<String, byte[]> arrived = new TreeMap<>();
            for (int size : SIZES) {
                assertThat(Files.size(exportDir.resolve("in/i" + size))).isEqualTo(size);
                arrived.put("i" + size, Files.readAllBytes(exportDir.resolve("in/i" + size)));
            }

            // 2: a fresh mount (cold cache) reads back what it wrote, lists, removes
            peer.execOk(mount, GUEST_COMMAND);
            assertThat(sums(peer.execOk("cd " + MNT + "/in && sha256sum *", GUEST_COMMAND))).isEqualTo(guestIn);
            assertThat(regularFileSizes(peer.execOk("ls -ln " + MNT + "/in", GUEST_COMMAND)))
                    .isEqualTo(sizesByName("i", SIZES));
            hardLinks(peer, MNT + "/in", "i4097", guestIn.get("i4097"), exportDir.resolve("in"));
            peer.execOk("rm " + MNT + "/in/* && ls -A " + MNT + "/in | wc -l | grep -qx 0 && umount " + MNT,
                    GUEST_COMMAND);
            try (Stream<Path> left = Files.list(exportDir.resolve("in"))) {
                assertThat(left).as("removed here too").isEmpty();
            }
            LOG.info("Linux client: {} ms for two mounts, {} files in, {} out, read back, listed, linked, removed",
                    (System.nanoTime() - t0) / 1_000_000, SIZES.length, SIZES.length);

            Map<ServerCounter, Long> counters = rdma.counters();
            LOG.info("server counters after the Linux client: {}", counters);
            checkCounters(counters);
            if (capture != null) {
                List<IwarpConnection> connections = capture.stop();
                checkWire(connections, counters, outgoing, arrived);
            }

            // 3: a directory within the export mounted on its own, as Linux's mountd allows; a path not exported
            // refused as mountd refuses it
            peer.execOk(mount.replace(":/export ", ":/export/out "), GUEST_COMMAND);
            assertThat(sums(peer.execOk("cd " + MNT + " && sha256sum *", GUEST_COMMAND))).as("/export/out mounted")
                    .isEqualTo(expectedOut);
            peer.execOk("umount " + MNT, GUEST_COMMAND);
            LinuxPeer.Result refused = peer.exec(mount.replace(":/export ", ":/nope "), GUEST_COMMAND);
            assertThat(refused.status()).as(refused.output()).isNotZero();
            assertThat(refused.output()).as("mount.nfs of a path not exported").contains("access denied");
        } catch (Throwable t) {
            if (capture != null) {
                capture.keep();
                LOG.error("the Linux client test failed; the capture is kept in {}", capture.file().toAbsolutePath());
            }
            LOG.error("guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            throw t;
        } finally {
            if (capture != null) {
                capture.close();
            }
            rdma.stop();
            nfs.close();
        }
    }

    private static void checkCounters(Map<ServerCounter, Long> c) {
        assertThat(c.get(ServerCounter.CONNECTIONS_ACCEPTED)).as("one connection per mount").isEqualTo(2);
        assertThat(c.get(ServerCounter.READ_CHUNKS)).as("WRITE data in Read chunks").isPositive();
        assertThat(c.get(ServerCounter.RDMA_READS)).isPositive();
        assertThat(c.get(ServerCounter.WRITE_CHUNKS)).as("READ data into Write chunks").isPositive();
        assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data RDMA-written from where it was read")
                .isPositive();
        assertThat(c.get(ServerCounter.REMOTE_INVALIDATIONS)).as("Linux's remote-invalidation offer honoured")
                .isPositive();
        for (ServerCounter bad : List.of(ServerCounter.ERR_VERS_SENT, ServerCounter.ERR_CHUNK_SENT,
                ServerCounter.CREDIT_VIOLATIONS, ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_READ_FAILED,
                ServerCounter.DROPPED_SEND_FAILED, ServerCounter.DROPPED_RECEIVE_FAILED,
                ServerCounter.DROPPED_INTERNAL_ERROR, ServerCounter.DROPPED_NO_RESOURCES,
                ServerCounter.DROPPED_SERVER_STOP, ServerCounter.MESSAGES_DROPPED, ServerCounter.DISPATCH_REJECTED)) {
            assertThat(c.get(bad)).as(bad.name()).isZero();
        }
    }

    /** What Linux offered and chose on the wire; the bytes in the chunks are the files. */
    private static void checkWire(List<IwarpConnection> connections, Map<ServerCounter, Long> counters,
                                  Map<String, byte[]> outgoing, Map<String, byte[]> incoming) throws Exception {
        assertThat(connections).as("one iWARP connection per mount").hasSize(2);
        int sendWithInvalidate = 0;
        List<String> observed = new ArrayList<>();
        Map<String, byte[]> written = new TreeMap<>();
        Map<String, byte[]> read = new TreeMap<>();
        for (IwarpConnection c : connections) {
            MpaFrame req = c.request();
            assertThat(req.revision()).isEqualTo(2);
            assertThat(c.reply().has(MpaFrame.REJECT)).isFalse();
            RpcRdmaPrivateData linux = RpcRdmaPrivateData.decode(req.ulpPrivateData()).orElseThrow();
            assertThat(linux.remoteInvalidation()).as("Linux's FRWR client offers remote invalidation").isTrue();
            observed.add(String.format("MPA request rev %d enhanced=%s CRC=%s IRD=%d ORD=%d; RFC 8797 private data: "
                            + "inline send %d, receive %d, remote invalidation %s", req.revision(), req.enhanced(),
                    req.has(MpaFrame.CRC), req.ird(), req.ord(), linux.inlineSendSize(), linux.inlineReceiveSize(),
                    linux.remoteInvalidation()));
            for (List<RdmapMessage> side : List.of(c.fromClient(), c.fromServer())) {
                assertThat(side).noneMatch(m -> m.opcode() == RdmapMessage.TERMINATE);
            }
            RpcRdmaTrace trace = RpcRdmaTrace.of(c);
            Map<String, Integer> choices = new TreeMap<>();
            int credits = -1;
            List<RpcRdmaExchange> exchanges = trace.exchanges();
            int lastAnswered = -1;
            for (int i = 0; i < exchanges.size(); i++) {
                if (exchanges.get(i).reply() != null) {
                    lastAnswered = i;
                }
            }
            for (int i = 0; i < exchanges.size(); i++) {
                RpcRdmaExchange x = exchanges.get(i);
                if (x.reply() == null) {
                    // the capture stops once the guest's umount returns; a call sent at the very end may be
                    // answered after that (the server's counters show every call answered)
                    assertThat(i).as("unanswered %s before the capture's last answer", x.call())
                            .isGreaterThan(lastAnswered);
                    assertThat(counters.get(ServerCounter.REPLIES)).isEqualTo(counters.get(ServerCounter.CALLS));
                    LOG.info("not in the capture: the answer to {}, sent as it stopped", x.call());
                    continue;
                }
                assertThat(x.reply().header().proc()).isNotEqualTo(RpcRdmaProc.RDMA_ERROR);
                credits = x.call().header().credits();
                if (x.reply().send().invalidates()) {
                    sendWithInvalidate++;
                    assertThat(x.call().header().soleHandle()).as("invalidated the call's one handle")
                            .isEqualTo(Integer.toUnsignedLong(x.reply().send().invalidateStag()));
                }
                OncRpcHeader rpc = x.call().rpcHeader();
                String chunks = (x.call().header().readChunkCount() > 0
                        ? (x.call().header().hasPositionZeroReadChunk() ? "pos0-read " : "read ") : "")
                        + (x.call().header().writeChunkCount() > 0 ? "write " : "")
                        + (x.call().header().hasReplyChunk() ? "reply " : "");
                choices.merge(rpc.program() + "/" + rpc.version() + "/" + rpc.procedure() + ":"
                        + (chunks.isEmpty() ? "inline" : chunks.strip()), 1, Integer::sum);
            }
            observed.add("credits asked " + credits + "; calls by program/version/procedure:chunks " + choices
                    + "; zero-length placement probes answered with stale bytes: "
                    + trace.overlongZeroLengthReadResponses());
            Nfs3Traffic io = Nfs3Traffic.of(trace);
            for (Nfs3Traffic.Io op : io.ios()) {
                if (op.procedure() == Nfs3.WRITE && op.count() > 4096) {
                    assertThat(op.carrier()).as("large WRITE %s", op).isEqualTo(Nfs3Traffic.Carrier.READ_CHUNK);
                }
            }
            for (String h : io.writtenHandles()) {
                written.put(h, io.writtenImage(h));
            }
            for (String h : io.readHandles()) {
                read.merge(h, io.readImage(h), (a, b) -> a.length >= b.length ? a : b);
            }
        }
        assertThat(sendWithInvalidate).as("Send With Invalidate on the wire").isPositive()
                .isEqualTo(counters.get(ServerCounter.REMOTE_INVALIDATIONS).intValue());
        // every non-empty file the guest copied in is, byte for byte, the data its WRITEs carried; every file we
        // served is what our READ replies carried
        List<byte[]> writtenImages = new ArrayList<>(written.values());
        List<byte[]> readImages = new ArrayList<>(read.values());
        for (int size : SIZES) {
            if (size == 0) {
                continue;
            }
            byte[] arrived = incoming.get("i" + size);
            assertThat(writtenImages).as("WRITE data of i%d on the wire", size)
                    .anySatisfy(w -> assertThat(w).isEqualTo(arrived));
            byte[] served = outgoing.get("o" + size);
            assertThat(readImages).as("READ data of o%d on the wire", size)
                    .anySatisfy(r -> assertThat(r).isEqualTo(served));
        }
        observed.forEach(line -> LOG.info("Linux client on the wire: {}", line));
    }

    /**
     * Hard links from the guest: {@code ln} makes a second name of {@code file} in {@code dir} (LINK), {@code stat}
     * counts both names, the bytes read through the new one are the file's ({@code sum}), and when {@code rm} takes
     * the first the file stays under the new one, which reads the same; the server's directory ({@code hostDir})
     * then holds it under that name alone.
     */
    static void hardLinks(LinuxPeer peer, String dir, String file, String sum, Path hostDir) throws Exception {
        String out = peer.execOk("cd " + dir + " && ln " + file + " hard && stat -c '%h %n' " + file + " hard"
                + " && sha256sum hard && rm " + file + " && stat -c '%h %n' hard && sha256sum hard", GUEST_COMMAND);
        List<String> lines = out.lines().map(String::strip).toList();
        assertThat(lines).as("link counts, then the sum through the new name").containsSubsequence("2 " + file,
                "2 hard", sum + "  hard", "1 hard", sum + "  hard");
        assertThat(Files.exists(hostDir.resolve(file), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.getAttribute(hostDir.resolve("hard"), "unix:nlink")).isEqualTo(1);
        assertThat(OurClientLinuxServerTest.sha256(Files.readAllBytes(hostDir.resolve("hard")))).isEqualTo(sum);
    }

    /** The regular files of an {@code ls -ln} listing and their sizes. */
    static Map<String, Long> regularFileSizes(String lsOutput) {
        Map<String, Long> listed = new TreeMap<>();
        for (String line : lsOutput.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 9 && f[0].startsWith("-")) {
                listed.put(f[f.length - 1], Long.parseLong(f[4]));
            }
        }
        return listed;
    }

    /** {@code prefix + size} -> size, for each size. */
    static Map<String, Long> sizesByName(String prefix, int[] sizes) {
        Map<String, Long> m = new TreeMap<>();
        for (int size : sizes) {
            m.put(prefix + size, (long) size);
        }
        return m;
    }

    static Map<String, String> sums(String sha256sumOutput) {
        Map<String, String> out = new TreeMap<>();
        for (String line : sha256sumOutput.split("\n")) {
            String[] parts = line.trim().split("\\s+", 2);
            if (parts.length == 2 && parts[0].matches("[0-9a-f]{64}")) {
                out.put(Path.of(parts[1].trim()).getFileName().toString(), parts[0]);
            }
        }
        return out;
    }

    static Map<String, String> hostSums(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                out.put(p.getFileName().toString(), OurClientLinuxServerTest.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }
}

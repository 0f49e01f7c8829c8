package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.it.capture.IwarpCapture;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.v4.LockDeniedException;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41AsyncClient;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.server.rdma.RdmaServerMemory;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux kernel's NFSv4 client over RDMA (xprtrdma over siw in the {@link LinuxPeer} guest) against our NFSv4.1
 * server: the guest mounts {@code /export} with {@code proto=rdma} and Linux's default version (4.2), and with
 * {@code vers=4.1}; copies files of 0, 1, 4097, 1 MiB + 1 and 16 MiB in and out, mounts again (a cold cache), reads
 * back, lists, renames and removes. Files are compared by SHA-256 on both sides; the server's counters show WRITE
 * data pulled from Read chunks, READ data pushed into Write chunks, and the CB_NULL of the session's back channel
 * answered by the client over the same connection (RFC 8167). The traffic is recorded and Wireshark's dissectors
 * decode our side of it ({@link #checkWireshark}). With 4.2, byte-range locks of a process in the guest and of our
 * own client on the host keep each other out through the server ({@link #locksMeetOurClient}), and a process's
 * fallocate, lseek, copy_file_range and FICLONE reach the server as ALLOCATE, DEALLOCATE, SEEK, COPY and CLONE
 * ({@link #spaceAndCopyFromAProcess}).
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LinuxClientOurNfs4ServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientOurNfs4ServerTest.class);
    private static final int[] SIZES = {0, 1, 4097, (1 << 20) + 1, 16 << 20};
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(4);
    private static final String MNT = "/mnt/ours4";
    private static final Path CAPTURES = Path.of("target", "linux-interop");

    /**
     * Wireshark's dissectors judge what our server sent: its NFSv4 replies decode, and the only frames of ours marked
     * malformed are READ replies whose data went through a Write chunk, which tshark marks in Linux's own knfsd traffic
     * too (it does not reassemble that data; see the reference captures), and, few, frames where tshark lost the
     * iWARP framing among several FPDUs in one TCP segment: where the opcodes it read are not those of the FPDUs our
     * own capture reader finds completing in that frame ({@link TsharkFramingCheckTest} checks that the two agree on
     * knfsd's traffic). Frames the Linux client sent are its business; they are logged.
     */
    private static void checkWireshark(Path file, int serverPort) throws Exception {
        if (!tsharkRuns()) {
            return;
        }
        List<String> ours = tshark(file, "nfs && tcp.srcport == " + serverPort, "frame.number");
        assertThat(ours).as("NFSv4 frames of our server that tshark decoded").hasSizeGreaterThan(100);
        List<String> malformed = tshark(file, "_ws.malformed", "frame.number", "tcp.srcport", "rpc.msgtyp",
                "rpcordma.writes_count", "nfs.opcode", "iwarp_rdma.opcode", "_ws.expert.message");
        int known = 0;
        int lostFraming = 0;
        Map<Integer, List<Integer>> oursByFrame = null;
        boolean oursRead = false;
        for (String line : malformed) {
            String[] f = line.split("\\|", -1);
            if (!f[1].equals(Integer.toString(serverPort))) {
                LOG.info("tshark marks a frame of the Linux client malformed: {}", line);
                continue;
            }
            List<Integer> read = tsharkOpcodes(f[5]);
            if (read.stream().anyMatch(o -> o > 7)) {
                // RDMAP opcodes beyond Terminate (atomics, immediate data) are sent by neither side here: tshark
                // lost the MPA framing inside a large TCP segment and read payload as headers
                LOG.info("tshark lost the iWARP framing in a frame of ours (opcodes {}): {}", f[5], line);
                lostFraming++;
                continue;
            }
            if (f.length > 6 && f[6].contains("Unreassembled fragment")) {
                // the rest of a segment whose framing tshark lost in the segment before (a 64 KiB one, say): it
                // reads on from where it lost count
                LOG.info("tshark lost the iWARP framing before a frame of ours (unreassembled): {}", line);
                lostFraming++;
                continue;
            }
            if (f[2].isEmpty() && read.size() > 1) {
                // several FPDUs in one TCP segment (a reply's Send and the next WRITE's RDMA Read Request, say), and
                // tshark dissected no RPC message in any: it lost the framing after the first
                LOG.info("tshark dissected no RPC in a frame of ours carrying {} FPDUs: {}", read.size(), line);
                lostFraming++;
                continue;
            }
            if (!oursRead) {
                oursByFrame = ourOpcodesByFrame(file, serverPort);
                oursRead = true;
            }
            List<Integer> sent = oursByFrame == null ? null
                    : oursByFrame.getOrDefault(Integer.parseInt(f[0]), List.of());
            if (sent != null && (read.size() > sent.size() || !sent.subList(0, read.size()).equals(read))) {
                // our own reading of the stream finds other FPDUs completing in this frame, or none (tshark may stop
                // at the one it could not dissect, so it may read fewer): tshark lost the framing earlier in the
                // stream and read payload as a header whose opcode happens to be a valid one
                LOG.info("tshark lost the iWARP framing in a frame of ours (it read opcodes {}, the frame completes "
                        + "{}): {}", f[5], sent, line);
                lostFraming++;
                continue;
            }
            assertThat(f[2]).as("a malformed frame of ours is a reply: %s (the FPDUs of ours completing in it: %s)",
                    line, sent).startsWith("1");
            assertThat(f[3]).as("with a Write list: %s", line).isNotEmpty().isNotEqualTo("0");
            assertThat(f[4].split(",")).as("of a READ: %s", line).contains("25");
            known++;
        }
        LOG.info("tshark: {} NFSv4 frames of ours decoded, {} READ replies with Write chunks marked as tshark marks "
                + "knfsd's, {} where it lost the framing, {} malformed frames in all", ours.size(), known,
                lostFraming, malformed.size());
        assertThat(lostFraming).as("frames tshark could not frame").isLessThan(Math.max(5, ours.size() / 20));
    }

    /**
     * The RDMAP opcodes of our server's FPDUs by the frame tshark shows each in, as our own capture reader finds them;
     * null when it cannot read the capture (a frame the capture dropped), which leaves tshark's view unchecked.
     */
    private static Map<Integer, List<Integer>> ourOpcodesByFrame(Path file, int serverPort) {
        try {
            return IwarpCapture.responderOpcodesByFrame(file, serverPort);
        } catch (java.io.IOException e) {
            LOG.info("our capture reader could not read {}: {}", file, e.toString());
            return null;
        }
    }

    /** Whether tshark is there to judge a capture (in CI it must be; elsewhere its absence is said and skipped). */
    static boolean tsharkRuns() {
        return RequiredPeer.optionalOutsideCi("Wireshark's dissectors (tshark)",
                LinuxPeer.findOnPath("tshark") == null ? "tshark is not installed" : null);
    }

    /** tshark's aggregated {@code iwarp_rdma.opcode} field as numbers ("0x02,0x03" -> [2, 3]). */
    static List<Integer> tsharkOpcodes(String field) {
        return java.util.Arrays.stream(field.split(",")).filter(o -> !o.isEmpty()).map(Integer::decode).toList();
    }

    static List<String> tshark(Path file, String filter, String... fields) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("tshark", "-r", file.toString(), "-Y", filter, "-T",
                "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"));
        for (String f : fields) {
            command.add("-e");
            command.add(f);
        }
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines;
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            lines = in.lines().filter(l -> !l.isBlank()).toList();
        }
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("tshark finished").isTrue();
        assertThat(p.exitValue()).as("tshark's exit status").isZero();
        return lines;
    }

    private static final String SAME_THREAD = ", sameThreadDispatch";

    /**
     * Byte-range locks of a process on the Linux client ({@link LockProbe}, run from the mount) against our NFSv4.1
     * client on this host, over TCP to the same server: the guest's lock denies ours and names itself, goes when its
     * process ends, and then ours keeps the guest out. The Linux client checks its own locks before it asks the
     * server, so only a lock of another client shows that LOCK, LOCKT and LOCKU reached ours.
     */
    private static void locksMeetOurClient(LinuxPeer peer, NfsServer nfs, Path exportDir) throws Exception {
        RequiredPeer.require(LockProbe.PROGRAM.what(), LockProbe.PROGRAM.unavailableReason());
        Path tool = exportDir.resolve("in/lockprobe");
        Files.copy(LockProbe.PROGRAM.build(), tool);
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.write(exportDir.resolve("in/locked"), new byte[4096]);
        String file = MNT + "/in/locked";
        String probe = LockProbe.on(file);
        peer.execOk(LockProbe.PROGRAM.installCommand(MNT + "/in/lockprobe"), GUEST_COMMAND);
        String held = peer.execOk(LockProbe.holdCommand(file, "w 0 100", 120), GUEST_COMMAND);
        assertThat(held).contains("held");
        try (Nfs41Client host = Nfs41Client.mount(NfsUrl.parse("tcp://127.0.0.1:" + nfs.port() + "/export"),
                NfsClientConfig.defaults(), Nfs41Options.defaults().withOwnerId("host-locker"))) {
            FileHandle fh = host.resolve("/in/locked");
            assertThatThrownBy(() -> host.lock(fh, LockType.READ, 50, 10)).as("kept out by the guest's lock")
                    .isInstanceOfSatisfying(LockDeniedException.class, e -> {
                        assertThat(e.conflict().offset()).isZero();
                        assertThat(e.conflict().length()).isEqualTo(100);
                        assertThat(e.conflict().type()).isEqualTo(LockType.WRITE);
                        assertThat(e.conflict().ownerClientId()).isNotEqualTo(host.session().clientId());
                    });
            assertThat(host.testLock(fh, LockType.WRITE, 100, Nfs41AsyncClient.TO_END)).isEmpty();
            peer.execOk(LockProbe.KILL_HOLDER, GUEST_COMMAND);
            LockProbe.lockOnceFree(host, fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END);

            assertThat(peer.exec(probe + "set r 1000 1", GUEST_COMMAND).output()).as("the guest, kept out by ours")
                    .contains("denied");
            assertThat(peer.exec(probe + "test w 4000 10", GUEST_COMMAND).output()).contains("conflict w 0 0");
            host.unlock(fh, 0, Nfs41AsyncClient.TO_END);
            assertThat(peer.execOk(probe + "set w 0 100", GUEST_COMMAND)).contains("ok");
            LOG.info("byte-range locks: the Linux client's and ours kept each other out, through our server");
        }
    }

    /**
     * NFSv4.2's space and copy operations from a process on the Linux client ({@code spaceprobe}, a
     * {@link GuestProgram}) on an in-memory export, which keeps holes: a hole punched (DEALLOCATE), found
     * (SEEK, and ENXIO from the end), space allocated past the end (ALLOCATE), the file copied with
     * copy_file_range (COPY, one call of 1 MiB and one of the rest) and cloned with the FICLONE ioctl (CLONE). The
     * server's file system holds the bytes the process meant in all three files, with the hole still a hole, the copy
     * was made within the server (its COPY counter, not a copy through the client), and the guest reads the copy
     * back through the mount.
     */
    private static void spaceAndCopyFromAProcess(LinuxPeer peer, NfsServer nfs, Path exportDir, MemoryVfs mem,
                                                 String options) throws Exception {
        GuestProgram probe = GuestProgram.SPACEPROBE;
        RequiredPeer.require(probe.what(), probe.unavailableReason());
        Path tool = exportDir.resolve("in/spaceprobe");
        Files.copy(probe.build(), tool);
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        peer.execOk(probe.installCommand(MNT + "/in/spaceprobe"), GUEST_COMMAND);
        String memMount = MNT + "-mem";
        String out = peer.execOk("mkdir -p " + memMount + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/mem "
                + memMount + " -o " + options + " && " + probe.inGuest() + " " + memMount + "/a " + memMount + "/b "
                + memMount + "/c",
                GUEST_COMMAND);
        LOG.info("spaceprobe on the Linux client:\n{}", out.strip());
        int mib = 1 << 20;
        int size = 5 * mib + 100;
        assertThat(out.lines().toList()).containsSubsequence("written " + (4 * mib + 100), "punch ok",
                "hole " + mib, "data " + 2 * mib, "end ENXIO", "allocate ok", "size " + size);
        assertThat(out).contains("copied " + size + " in ").contains("cloned ok");

        byte[] expected = new byte[size];
        for (int i = 0; i < 4 * mib + 100; i++) {
            expected[i] = (byte) ((i * 7L + i / 4096) & 0xff);
        }
        java.util.Arrays.fill(expected, mib, 2 * mib, (byte) 0);
        for (String name : List.of("a", "b", "c")) {
            FileHandle fh = mem.lookup(mem.root(), name).handle();
            java.nio.ByteBuffer held = java.nio.ByteBuffer.allocate(size + 1);
            mem.read(fh, 0, held);
            assertThat(java.util.Arrays.copyOf(held.array(), held.position())).as("%s in the server's file system",
                    name).isEqualTo(expected);
            assertThat(mem.seek(fh, 0, false)).as("%s: the punched hole is a hole", name).isEqualTo(mib);
        }
        assertThat(nfs.nfs4().bytesCopied()).as("copied within the server by COPY").isEqualTo(size);
        assertThat(nfs.nfs4().operationCounts()).as("the clone made by CLONE").containsEntry("CLONE", 1L);
        String sum = peer.execOk("sha256sum " + memMount + "/b && umount " + memMount, GUEST_COMMAND);
        assertThat(sum).startsWith(OurClientLinuxServerTest.sha256(expected));
        LOG.info("NFSv4.2 space and copy: a hole punched and found, space allocated, {} bytes copied by the server",
                nfs.nfs4().bytesCopied());
    }

    /**
     * {@code default} (the Linux client's choice, 4.2) and 4.1 with the server's default dispatch pool; 4.2 with
     * {@code sameThreadDispatch} (calls run on the connection's threads; the VFS is a local file system).
     */
    @ParameterizedTest(name = "vers={0}")
    @ValueSource(strings = {"default", "4.1", "4.2" + SAME_THREAD})
    void linuxClientMountsOurServerOverRdma(String mode, LinuxPeer peer, @TempDir Path root) throws Exception {
        boolean sameThread = mode.endsWith(SAME_THREAD);
        String version = sameThread ? mode.substring(0, mode.length() - SAME_THREAD.length()) : mode;
        Path exportDir = Files.createDirectories(root.resolve("export"));
        Files.createDirectories(exportDir.resolve("in"));
        Path out = Files.createDirectories(exportDir.resolve("out"));
        Map<String, String> expectedOut = new TreeMap<>();
        for (int size : SIZES) {
            byte[] data = new byte[size];
            new Random(size * 31L + 7).nextBytes(data);
            Files.write(out.resolve("o" + size), data);
            expectedOut.put("o" + size, OurClientLinuxServerTest.sha256(data));
        }
        RdmaServerMemory serverMemory = new RdmaServerMemory();
        MemoryVfs mem = new MemoryVfs(64L << 20);
        NfsServer nfs = NfsServer.builder().export("/export", LocalVfs.open(exportDir)).export("/mem", mem)
                .bindAddress("127.0.0.1")
                .port(0).readBuffers(serverMemory).writeMemory(serverMemory).nfs4(OurServers.freshState()).build();
        RdmaRpcServer rdma = OurServers.rdma(nfs, "linux-nfs4-server").sameThreadDispatch(sameThread).build();
        serverMemory.bind(rdma.bufferAllocator());
        nfs.start();
        WireCapture capture = null;
        try {
            rdma.start();
            int rdmaPort = rdma.boundAddress().getPort();
            if (RequiredPeer.optionalOutsideCi("the capture of the Linux suite", WireCapture.unavailableReason())) {
                capture = WireCapture.start(CAPTURES.resolve("linux-nfs4-" + version
                        + (sameThread ? "-same-thread" : "") + ".pcapng"), rdmaPort);
            }
            String options = "proto=rdma,port=" + rdmaPort + (version.equals("default") ? "" : ",vers=" + version);
            String mount = "mkdir -p " + MNT + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/export " + MNT
                    + " -o " + options + " && grep ' " + MNT + " ' /proc/mounts";
            StringBuilder make = new StringBuilder("rm -rf /tmp/l4-in /tmp/l4-out && mkdir -p /tmp/l4-in /tmp/l4-out");
            for (int size : SIZES) {
                make.append(" && head -c ").append(size).append(" /dev/urandom > /tmp/l4-in/i").append(size);
            }
            peer.execOk(make.toString(), GUEST_COMMAND);
            long t0 = System.nanoTime();

            String mounted = peer.execOk(mount, GUEST_COMMAND);
            LOG.info("the guest's mount: {}", mounted.strip());
            assertThat(mounted).contains("nfs4").contains("proto=rdma")
                    .contains(version.equals("default") ? "vers=4.2" : "vers=" + version);
            // the session's sizes leave room for the client's headers: READs and WRITEs of the full 1 MiB
            assertThat(mounted).contains("rsize=1048576").contains("wsize=1048576");
            peer.execOk("cp /tmp/l4-in/* " + MNT + "/in/ && cp " + MNT + "/out/* /tmp/l4-out/ && umount " + MNT,
                    GUEST_COMMAND);
            Map<String, String> guestIn = LinuxClientOurServerTest.sums(
                    peer.execOk("cd /tmp/l4-in && sha256sum *", GUEST_COMMAND));
            Map<String, String> guestOut = LinuxClientOurServerTest.sums(
                    peer.execOk("cd /tmp/l4-out && sha256sum *", GUEST_COMMAND));
            assertThat(LinuxClientOurServerTest.hostSums(exportDir.resolve("in"))).isEqualTo(guestIn)
                    .hasSize(SIZES.length);
            assertThat(guestOut).isEqualTo(expectedOut);

            // a fresh mount (cold cache): read back, list, rename, remove
            peer.execOk(mount, GUEST_COMMAND);
            assertThat(LinuxClientOurServerTest.sums(peer.execOk("cd " + MNT + "/in && sha256sum *", GUEST_COMMAND)))
                    .isEqualTo(guestIn);
            assertThat(LinuxClientOurServerTest.regularFileSizes(peer.execOk("ls -ln " + MNT + "/in", GUEST_COMMAND)))
                    .isEqualTo(LinuxClientOurServerTest.sizesByName("i", SIZES));
            peer.execOk("mv " + MNT + "/in/i1 " + MNT + "/in/renamed && mkdir " + MNT + "/in/d && ln -s renamed "
                    + MNT + "/in/link && readlink " + MNT + "/in/link | grep -qx renamed", GUEST_COMMAND);
            assertThat(Files.readAllBytes(exportDir.resolve("in/renamed"))).hasSize(1);
            assertThat(Files.isDirectory(exportDir.resolve("in/d"))).isTrue();
            assertThat(Files.readSymbolicLink(exportDir.resolve("in/link")).toString()).isEqualTo("renamed");
            LinuxClientOurServerTest.hardLinks(peer, MNT + "/in", "i4097", guestIn.get("i4097"),
                    exportDir.resolve("in"));
            if (version.equals("default")) {
                locksMeetOurClient(peer, nfs, exportDir);
                spaceAndCopyFromAProcess(peer, nfs, exportDir, mem, options);
            }
            peer.execOk("rm -r " + MNT + "/in/* && ls -A " + MNT + "/in | wc -l | grep -qx 0 && umount " + MNT,
                    GUEST_COMMAND);
            try (Stream<Path> left = Files.list(exportDir.resolve("in"))) {
                assertThat(left).as("removed here too").isEmpty();
            }
            LOG.info("Linux NFSv4 client ({}): {} ms for two mounts, {} files in and out, read back, listed, renamed,"
                    + " linked, removed", mode, (System.nanoTime() - t0) / 1_000_000, SIZES.length);

            Map<ServerCounter, Long> c = rdma.counters();
            LOG.info("server counters after the Linux NFSv4 client: {}", c);
            assertThat(c.get(ServerCounter.READ_CHUNKS)).as("WRITE data in Read chunks").isPositive();
            assertThat(c.get(ServerCounter.WRITE_CHUNKS)).as("READ data into Write chunks").isPositive();
            assertThat(c.get(ServerCounter.ZERO_COPY_BYTES)).as("READ data RDMA-written from where it was read")
                    .isPositive();
            assertThat(nfs.nfs4().backChannelProbesAnswered()).as("CB_NULL answered over the back channel")
                    .isPositive();
            assertThat(nfs.nfs4().backChannelProbesFailed()).isZero();
            assertThat(c.get(ServerCounter.REVERSE_REPLIES)).as("the callback's reply, over RDMA").isPositive();
            for (ServerCounter bad : List.of(ServerCounter.ERR_VERS_SENT, ServerCounter.ERR_CHUNK_SENT,
                    ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_INTERNAL_ERROR,
                    ServerCounter.DROPPED_NO_RESOURCES, ServerCounter.DROPPED_SERVER_STOP)) {
                assertThat(c.get(bad)).as(bad.name()).isZero();
            }
            if (capture != null) {
                capture.stop();
                checkWireshark(capture.file(), rdmaPort);
                if (version.equals("default") && tsharkRuns()) {
                    // ALLOCATE, COPY, DEALLOCATE, SEEK, CLONE went on the wire, as Wireshark reads the Linux client's
                    // calls (our replies come late in a stream of large FPDUs, where tshark has often lost the framing)
                    for (int op : new int[] {59, 60, 62, 69, 71}) {
                        assertThat(tshark(capture.file(), "nfs.opcode == " + op + " && tcp.dstport == " + rdmaPort
                                + " && rpc.msgtyp == 0", "frame.number")).as("calls of NFSv4.2 operation %d", op)
                                .isNotEmpty();
                    }
                }
            }
        } catch (Throwable t) {
            if (capture != null) {
                capture.keep();
                LOG.error("the Linux NFSv4 client test failed; the capture is kept in {}",
                        capture.file().toAbsolutePath());
            }
            LOG.error("the Linux NFSv4 client test failed; guest kernel log:\n{}", peer.dmesgTail(60));
            peer.exec("umount -f " + MNT + "-mem", Duration.ofSeconds(30));
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
}

package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.it.capture.IwarpConnection;
import org.rpcrdma4j.it.capture.MpaFrame;
import org.rpcrdma4j.it.capture.RdmapMessage;
import org.rpcrdma4j.it.capture.RpcRdmaExchange;
import org.rpcrdma4j.it.capture.RpcRdmaTrace;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaChunkErrorException;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our NFSv3 client over our software iWARP device against the Linux kernel's NFS server (knfsd over siw in the
 * {@link LinuxPeer} guest): mount (MOUNT over TCP through the forwarded mountd port), read the export's 4 MiB pattern
 * file, write files of 0, 1, 4097, 1 MiB + 1 and 16 MiB, read them back, list, rename and remove them, once per
 * registration strategy and with MPA CRC off and on. Every file is compared byte for byte on our side and by SHA-256
 * inside the guest, and the wire is recorded and checked: the MPA and RFC 8797 negotiation, that knfsd pulled every
 * large WRITE's data with RDMA Read from a Read chunk and pushed every READ's data with RDMA Write into a Write chunk
 * (the bytes on the wire are the files), that no chunk is larger than FSINFO allows, the credits, and remote
 * invalidation exactly when we offered it.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OurClientLinuxServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(OurClientLinuxServerTest.class);
    private static final String PATTERN_FILE = "/pattern-4MiB.bin";
    private static final String PATTERN_SHA256 = "a117210941a0b00dcb2d8577e680d84b6fa0eaf760d2afc654c953b9859d54fa";
    private static final int[] SIZES = {0, 1, 4097, (1 << 20) + 1, 16 << 20};
    private static final Path CAPTURES = Path.of("target", "linux-interop");
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(2);
    /** Setups whose wire was checked, and those whose capture came out incomplete (dumpcap lost packets). */
    private static final java.util.concurrent.atomic.AtomicInteger WIRE_CHECKED =
            new java.util.concurrent.atomic.AtomicInteger();
    private static final java.util.concurrent.atomic.AtomicInteger WIRE_INCOMPLETE =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Under load dumpcap sometimes loses packets of these 40 MB runs, and such a capture cannot be judged: that setup's
     * wire checks are skipped with a warning (its data checks ran). Most setups must still have had theirs.
     */
    @org.junit.jupiter.api.AfterAll
    static void mostSetupsHadTheirWireChecked() {
        int checked = WIRE_CHECKED.get();
        int incomplete = WIRE_INCOMPLETE.get();
        if (checked + incomplete > 0) {
            assertThat(checked).as("setups whose wire was checked (%d captures incomplete)", incomplete)
                    .isGreaterThan(incomplete);
        }
    }

    static Stream<Arguments> setups() {
        List<Arguments> out = new ArrayList<>();
        for (RegistrationMode mode : List.of(RegistrationMode.FRWR, RegistrationMode.FMR, RegistrationMode.REG_MR)) {
            for (boolean crc : new boolean[] {false, true}) {
                out.add(Arguments.of(new RdmaSetup(mode, crc)));
            }
        }
        return out.stream();
    }

    /** Makes the "rdma" transport and keeps it, for its counters. */
    private static final class Recording implements DataTransportFactory {
        private final RdmaDataTransportFactory factory;
        private RdmaDataTransport last;

        Recording(RdmaSetup setup) {
            this.factory = new RdmaDataTransportFactory(setup.clientConfig());
        }

        @Override
        public String scheme() {
            return factory.scheme();
        }

        @Override
        public int defaultPort() {
            return factory.defaultPort();
        }

        @Override
        public DataTransport connect(InetSocketAddress server, NfsClientConfig config) throws IOException {
            last = (RdmaDataTransport) factory.connect(server, config);
            return last;
        }
    }

    private static String url(LinuxPeer peer) {
        return "rdma://127.0.0.1:" + peer.rdmaPort() + "/export?mountport=" + peer.mountdPort();
    }

    private static NfsClientConfig config(Recording recording) {
        return NfsClientConfig.defaults().withTransportFactory(recording).withCallTimeout(Duration.ofSeconds(60));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void filesCrossKnfsdByteForByte(RdmaSetup setup, LinuxPeer peer, @TempDir Path tmp) throws Exception {
        String dir = "/scratch/" + setup.tag();
        peer.execOk("rm -rf /export" + dir, GUEST_COMMAND); // left over by an earlier, interrupted run
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int size : SIZES) {
            byte[] data = new byte[size];
            new Random(size * 31L + setup.hashCode()).nextBytes(data);
            files.put("f" + size, data);
        }
        int siwCrcErrorsBefore = peer.siwCrcErrors().size();
        Recording recording = new Recording(setup);
        WireCapture capture = RequiredPeer.optionalOutsideCi("the capture of the Linux suite", WireCapture.unavailableReason())
                ? WireCapture.start(CAPTURES.resolve(setup.tag() + ".pcapng"), peer.rdmaPort()) : null;
        try {
            Map<String, String> handles = new TreeMap<>(); // hex handle -> file name
            FsInfo fsinfo;
            RdmaClientStats stats;
            long t0 = System.nanoTime();
            try (NfsClient nfs = NfsClient.mount(url(peer), config(recording))) {
                fsinfo = nfs.fsinfo(nfs.root());
                Path pattern = tmp.resolve("pattern");
                assertThat(nfs.download(PATTERN_FILE, pattern)).isEqualTo(4 << 20);
                assertThat(sha256(Files.readAllBytes(pattern))).isEqualTo(PATTERN_SHA256);
                handles.put(hex(nfs.resolve(PATTERN_FILE)), PATTERN_FILE);

                nfs.mkdir(dir);
                for (Map.Entry<String, byte[]> f : files.entrySet()) {
                    Path local = tmp.resolve(f.getKey());
                    Files.write(local, f.getValue());
                    assertThat(nfs.upload(local, dir + "/" + f.getKey())).isEqualTo(f.getValue().length);
                    handles.put(hex(nfs.resolve(dir + "/" + f.getKey())), f.getKey());
                }
                for (Map.Entry<String, byte[]> f : files.entrySet()) {
                    Path back = tmp.resolve(f.getKey() + ".back");
                    assertThat(nfs.download(dir + "/" + f.getKey(), back)).isEqualTo(f.getValue().length);
                    assertThat(Files.readAllBytes(back)).as("%s read back", f.getKey()).isEqualTo(f.getValue());
                }
                // what arrived in knfsd's file system, computed there
                assertThat(guestSha256(peer, dir)).isEqualTo(sha256s(files));

                assertThat(sizes(nfs.list(dir))).isEqualTo(sizes(files));
                for (String name : files.keySet()) {
                    nfs.rename(dir + "/" + name, dir + "/" + name + ".renamed");
                }
                Map<String, Long> renamed = new TreeMap<>();
                files.forEach((name, data) -> renamed.put(name + ".renamed", (long) data.length));
                assertThat(sizes(nfs.list(dir))).isEqualTo(renamed);
                assertThat(peer.execOk("ls /export" + dir, GUEST_COMMAND).split("\\s+")).containsExactlyInAnyOrder(
                        renamed.keySet().toArray(new String[0]));
                for (String name : renamed.keySet()) {
                    nfs.delete(dir + "/" + name);
                }
                assertThat(nfs.list(dir)).isEmpty();
                nfs.delete(dir);
                assertThat(nfs.list("/scratch")).extracting(DirEntry::name).doesNotContain(setup.tag());
                stats = recording.last.transport().stats();
            }
            LOG.info("{}: {} ms; {}", setup, (System.nanoTime() - t0) / 1_000_000, stats);
            assertThat(peer.execOk("ls -A /export/scratch", GUEST_COMMAND)).doesNotContain(setup.tag());
            List<String> siwCrcErrors = peer.siwCrcErrors();
            List<String> siwDrops = siwCrcErrors.subList(Math.min(siwCrcErrorsBefore, siwCrcErrors.size()),
                    siwCrcErrors.size());
            checkCounters(setup, stats, siwDrops);
            if (capture != null && !siwDrops.isEmpty()) {
                try {
                    capture.stop();
                } catch (IncompleteCaptureException e) {
                    // no wire checks follow: whether dumpcap kept every packet does not matter here
                    LOG.info("{}: the capture is incomplete too ({})", setup, e.getMessage());
                }
                capture.keep();
                LOG.warn("{}: wire checks skipped: siw dropped the connection (see above), so the capture holds "
                        + "more than one connection and resent calls; kept in {}", setup,
                        capture.file().toAbsolutePath());
            } else if (capture != null) {
                try {
                    List<IwarpConnection> connections = capture.stop();
                    assertThat(connections).as("iWARP connections in %s", capture.file()).hasSize(1);
                    checkWire(setup, connections.get(0), fsinfo, stats, files, handles);
                    WIRE_CHECKED.incrementAndGet();
                } catch (IncompleteCaptureException e) {
                    WIRE_INCOMPLETE.incrementAndGet();
                    capture.keep();
                    LOG.warn("{}: wire checks skipped: the capture is incomplete ({}); kept in {}", setup,
                            e.getMessage(), capture.file().toAbsolutePath());
                }
            }
            assertThat(peer.rdmaListeners()).as("knfsd's NFS/RDMA listeners").isEqualTo(2);
        } catch (Throwable t) {
            if (capture != null) {
                capture.keep();
                LOG.error("{} failed; the capture is kept in {}", setup, capture.file().toAbsolutePath());
            }
            LOG.error("{} failed; guest kernel log:\n{}", setup, peer.dmesgTail(40));
            throw t;
        } finally {
            if (capture != null) {
                capture.close();
            }
        }
    }

    /**
     * Our counters say which strategy ran and that nothing went wrong. One exception: with MPA CRC on, siw may have
     * dropped the connection for a CRC it checked wrongly ({@link LinuxPeer#siwCrcErrors}, logged in the guest while
     * this setup ran); the client must then have reconnected and resent, once per such drop, and the files still
     * crossed byte for byte (checked before this).
     */
    private static void checkCounters(RdmaSetup setup, RdmaClientStats stats, List<String> siwCrcErrors) {
        assertThat(stats.get(XprtCounter.BAD_REPLY_COUNT)).isZero();
        assertThat(stats.get(XprtCounter.RDMA_ERRORS)).isZero();
        if (setup.crc() && !siwCrcErrors.isEmpty()) {
            LOG.warn("{}: siw dropped the connection {} time(s) for a CRC split across socket buffers (Linux 6.1 siw "
                    + "checks those wrongly): {}; reconnects {}, retransmits {}", setup, siwCrcErrors.size(),
                    siwCrcErrors, stats.get(XprtCounter.RECONNECTS), stats.get(XprtCounter.RETRANSMITS));
            assertThat(stats.get(XprtCounter.RECONNECTS)).as("one reconnect per drop")
                    .isBetween(1L, (long) siwCrcErrors.size());
        } else {
            assertThat(stats.get(XprtCounter.RETRANSMITS)).isZero();
            assertThat(stats.get(XprtCounter.RECONNECTS)).isZero();
        }
        assertThat(stats.get(XprtCounter.TIMEOUTS)).isZero();
        assertThat(stats.get(XprtCounter.MRS_ORPHANED)).isZero();
        assertThat(stats.get(XprtCounter.READ_CHUNK_COUNT)).as("WRITEs with Read chunks").isPositive();
        assertThat(stats.get(XprtCounter.WRITE_CHUNK_COUNT)).as("READs with Write chunks").isPositive();
        assertThat(stats.get(XprtCounter.REPLY_CHUNK_COUNT)).as("READDIRPLUS with a Reply chunk").isPositive();
        assertThat(stats.creditsGranted()).isPositive();
        switch (setup.registration()) {
            case FRWR -> {
                assertThat(stats.get(XprtCounter.REMOTE_INVALIDATIONS)).as("Send With Invalidate honoured")
                        .isPositive();
                assertThat(stats.get(XprtCounter.HARDWAY_REGISTER_COUNT)).isZero();
            }
            case FMR -> {
                assertThat(stats.get(XprtCounter.REMOTE_INVALIDATIONS)).isZero();
                assertThat(stats.get(XprtCounter.HARDWAY_REGISTER_COUNT)).isZero();
                assertThat(stats.get(XprtCounter.MRS_ALLOCATED)).isPositive();
            }
            case REG_MR -> {
                assertThat(stats.get(XprtCounter.REMOTE_INVALIDATIONS)).isZero();
                assertThat(stats.get(XprtCounter.HARDWAY_REGISTER_COUNT)).as("synchronous registrations")
                        .isPositive();
            }
            default -> throw new AssertionError(setup);
        }
    }

    /** What the wire shows: negotiation, chunks, the bytes in them, credits, invalidation. */
    private static void checkWire(RdmaSetup setup, IwarpConnection c, FsInfo fsinfo, RdmaClientStats stats,
                                  Map<String, byte[]> files, Map<String, String> handles) throws Exception {
        // MPA: revision 2, enhanced, our IRD for knfsd's RDMA Reads, CRC as configured, in both frames
        assertThat(c.request().revision()).isEqualTo(2);
        assertThat(c.request().enhanced()).isTrue();
        assertThat(c.request().ird()).as("our IRD: knfsd pulls WRITE data with RDMA Read").isPositive();
        assertThat(c.request().has(MpaFrame.CRC)).isEqualTo(setup.crc());
        assertThat(c.reply().has(MpaFrame.CRC)).isEqualTo(setup.crc());
        assertThat(c.crc()).isEqualTo(setup.crc());
        assertThat(c.reply().has(MpaFrame.REJECT)).isFalse();
        assertThat(c.reply().ord()).as("knfsd's ORD").isPositive();
        // RFC 8797: we offer remote invalidation only with FRWR; knfsd never does
        RpcRdmaPrivateData ours = RpcRdmaPrivateData.decode(c.request().ulpPrivateData()).orElseThrow();
        RpcRdmaPrivateData theirs = RpcRdmaPrivateData.decode(c.reply().ulpPrivateData()).orElseThrow();
        assertThat(ours.remoteInvalidation()).isEqualTo(setup.registration() == RegistrationMode.FRWR);
        assertThat(theirs.remoteInvalidation()).isFalse();
        LOG.info("{}: MPA request rev {} flags {} IRD {} ORD {} {}; reply flags {} IRD {} ORD {} {}", setup,
                c.request().revision(), Integer.toHexString(c.request().flags()), c.request().ird(),
                c.request().ord(), ours, Integer.toHexString(c.reply().flags()), c.reply().ird(), c.reply().ord(),
                theirs);
        assertThat(stats.inlineSend()).isEqualTo(Math.min(ours.inlineSendSize(), theirs.inlineReceiveSize()));
        assertThat(stats.inlineReceive()).isEqualTo(Math.min(ours.inlineReceiveSize(), theirs.inlineSendSize()));
        // nothing went wrong on the wire
        for (List<RdmapMessage> side : List.of(c.fromClient(), c.fromServer())) {
            assertThat(side).noneMatch(m -> m.opcode() == RdmapMessage.TERMINATE);
        }

        RpcRdmaTrace trace = RpcRdmaTrace.of(c);
        int grant = -1;
        int sendWithInvalidate = 0;
        for (RpcRdmaExchange x : trace.exchanges()) {
            assertThat(x.call().fromClient()).isTrue();
            if (x.reply() == null) {
                // every call of the run was answered (it completed on our side): the capture lost the answer
                throw new IncompleteCaptureException("no answer to " + x.call() + " in the capture", null);
            }
            assertThat(x.reply().header().proc()).as("answer to %s", x.call()).isNotEqualTo(RpcRdmaProc.RDMA_ERROR);
            assertThat(x.call().header().credits()).isEqualTo(RdmaSetup.CREDITS_REQUESTED);
            assertThat(x.call().header().writeChunkCount() > 0 && x.call().header().hasReplyChunk())
                    .as("a Write list and a Reply chunk together in %s", x.call()).isFalse();
            if (grant < 0) {
                grant = x.reply().header().credits();
            }
            assertThat(x.reply().header().credits()).as("knfsd's grant is fixed").isEqualTo(grant).isPositive();
            if (x.call().header().hasReplyChunk()) {
                assertThat(x.reply().header().proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
            }
            if (x.reply().send().invalidates()) {
                sendWithInvalidate++;
            }
        }
        assertThat(stats.creditsGranted()).isEqualTo(grant);

        Nfs3Traffic io = Nfs3Traffic.of(trace);
        int readChunks = 0;
        int writeChunks = 0;
        for (Nfs3Traffic.Io op : io.ios()) {
            if (op.procedure() == Nfs3.WRITE) {
                assertThat(op.count()).as("WRITE size from FSINFO wtmax").isLessThanOrEqualTo(fsinfo.wtmax());
                if (op.carrier() == Nfs3Traffic.Carrier.READ_CHUNK) {
                    readChunks++;
                    assertThat(op.chunkLength()).as("Read chunk without XDR pad").isEqualTo(op.count());
                    assertThat(op.data()).hasSize((int) op.count());
                } else {
                    assertThat(op.count()).as("inline WRITE").isLessThan(stats.inlineSend());
                }
            } else if (op.count() <= stats.inlineReceive() - 1024) {
                // a READ whose reply fits the inline threshold with 1 KiB for headers offers no Write chunk
                assertThat(op.carrier()).as("small READ %s inline", op).isEqualTo(Nfs3Traffic.Carrier.INLINE);
                assertThat(op.callHandles()).isEmpty();
            } else {
                assertThat(op.carrier()).as("READ data through the Write chunk").isEqualTo(
                        Nfs3Traffic.Carrier.WRITE_CHUNK);
                writeChunks++;
                assertThat(op.chunkLength()).as("Write chunk sized by FSINFO rtmax").isLessThanOrEqualTo(
                        fsinfo.rtmax()).isGreaterThanOrEqualTo(op.count());
            }
            // knfsd invalidates remotely exactly when we offered it and the call exposed one handle
            boolean expectInvalidate = setup.registration() == RegistrationMode.FRWR && op.callHandles().size() == 1;
            assertThat(op.replyOpcode()).as("reply to %s", op).isEqualTo(
                    expectInvalidate ? RdmapMessage.SEND_INVALIDATE : RdmapMessage.SEND);
            if (expectInvalidate) {
                assertThat(op.replyInvalidated()).isEqualTo(op.callHandles().get(0));
            }
        }
        assertThat(readChunks).as("WRITEs whose data knfsd pulled with RDMA Read").isPositive();
        assertThat(writeChunks).as("READs whose data knfsd pushed with RDMA Write").isPositive();
        if (setup.registration() != RegistrationMode.FRWR) {
            assertThat(sendWithInvalidate).isZero();
        } else {
            assertThat(sendWithInvalidate).isPositive();
            assertThat(stats.get(XprtCounter.REMOTE_INVALIDATIONS)).isEqualTo(sendWithInvalidate);
        }
        // the bytes on the wire are the files: what knfsd pulled, and what it returned
        for (Map.Entry<String, String> h : handles.entrySet()) {
            String name = h.getValue();
            if (name.equals(PATTERN_FILE)) {
                byte[] read = io.readImage(h.getKey());
                assertThat(read).hasSize(4 << 20);
                assertThat(sha256(read)).isEqualTo(PATTERN_SHA256);
                continue;
            }
            byte[] expected = files.get(name);
            if (expected.length == 0) {
                assertThat(io.writtenImage(h.getKey())).isNull();
                continue;
            }
            assertThat(io.writtenImage(h.getKey())).as("WRITE data of %s on the wire", name).isEqualTo(expected);
            assertThat(io.readImage(h.getKey())).as("READ data of %s on the wire", name).isEqualTo(expected);
        }
        LOG.info("{}: wire: {} calls, grant {}, {} WRITEs through Read chunks, {} READs through Write chunks, {} "
                        + "Send With Invalidate, server Sends {}", setup, trace.exchanges().size(), grant, readChunks,
                writeChunks, sendWithInvalidate, Nfs3Traffic.serverSendOpcodes(trace));
    }

    @Test
    void ioBeyondFsinfoIsRefusedOrCutByKnfsdAndTheMountLivesOn(LinuxPeer peer) throws Exception {
        RdmaSetup setup = new RdmaSetup(RegistrationMode.FRWR, false);
        Recording recording = new Recording(setup);
        try (NfsClient nfs = NfsClient.mount(url(peer), config(recording))) {
            FsInfo fsinfo = nfs.fsinfo(nfs.root());
            assertThat(fsinfo.rtmax()).as("knfsd's rtmax over RDMA here").isEqualTo(128 << 10);
            assertThat(fsinfo.wtmax()).as("knfsd's wtmax over RDMA here").isEqualTo(128 << 10);

            // a READ asking for 1 MiB gets rtmax, the pattern's first 128 KiB, through a 1 MiB Write chunk
            FileHandle pattern = nfs.resolve(PATTERN_FILE);
            ByteBuf sink = Unpooled.buffer(1 << 20);
            ReadReply r = nfs.read(pattern, 0, sink);
            assertThat(r.count()).isEqualTo(fsinfo.rtmax());
            assertThat(r.eof()).isFalse();
            for (int i = 0; i < r.count(); i++) {
                if (sink.getByte(i) != (byte) (i % 251)) {
                    throw new AssertionError("READ byte " + i + " is " + sink.getByte(i));
                }
            }

            // a WRITE of 1 MiB in one Read chunk: knfsd answers RDMA_ERROR / ERR_CHUNK without pulling it
            String name = "/scratch/too-big-" + ProcessHandle.current().pid();
            FileHandle fh = nfs.createFile(name);
            try {
                assertThatThrownBy(() -> nfs.write(fh, 0, Unpooled.wrappedBuffer(new byte[1 << 20]),
                        StableHow.FILE_SYNC)).isInstanceOf(RpcBadReplyException.class)
                        .hasCauseInstanceOf(RdmaChunkErrorException.class);
                assertThat(nfs.getattr(fh).size()).isZero();
                // one byte more than wtmax is accepted and cut to wtmax: a short write the caller must complete
                byte[] data = new byte[fsinfo.wtmax() + 1];
                new Random(7).nextBytes(data);
                WriteReply w = nfs.write(fh, 0, Unpooled.wrappedBuffer(data), StableHow.FILE_SYNC);
                assertThat(w.count()).isEqualTo(fsinfo.wtmax());
                ByteBuf back = Unpooled.buffer(data.length);
                assertThat(nfs.read(fh, 0, back).count()).isEqualTo(fsinfo.wtmax());
                byte[] got = new byte[fsinfo.wtmax()];
                back.getBytes(0, got);
                assertThat(got).isEqualTo(java.util.Arrays.copyOf(data, fsinfo.wtmax()));
            } finally {
                nfs.delete(name);
            }
            RdmaClientStats stats = recording.last.transport().stats();
            assertThat(stats.get(XprtCounter.RDMA_ERRORS)).isEqualTo(1);
            assertThat(stats.get(XprtCounter.RECONNECTS)).isZero();
        }
        assertThat(peer.rdmaListeners()).isEqualTo(2);
    }

    private static Map<String, Long> sizes(List<DirEntry> entries) {
        return entries.stream().collect(Collectors.toMap(DirEntry::name, e -> e.attributes().size(), (a, b) -> a,
                TreeMap::new));
    }

    private static Map<String, Long> sizes(Map<String, byte[]> files) {
        Map<String, Long> out = new TreeMap<>();
        files.forEach((name, data) -> out.put(name, (long) data.length));
        return out;
    }

    private static Map<String, String> sha256s(Map<String, byte[]> files) {
        Map<String, String> out = new TreeMap<>();
        files.forEach((name, data) -> out.put(name, sha256(data)));
        return out;
    }

    /** @return file name to SHA-256, computed in the guest over every file of {@code dir} in the export */
    static Map<String, String> guestSha256(LinuxPeer peer, String dir) throws IOException {
        String out = peer.execOk("cd /export" + dir + " && sha256sum *", GUEST_COMMAND);
        Map<String, String> sums = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] parts = line.trim().split("\\s+", 2);
            if (parts.length == 2 && parts[0].matches("[0-9a-f]{64}")) {
                sums.put(parts[1].trim(), parts[0]);
            }
        }
        return sums;
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(FileHandle fh) {
        return HexFormat.of().formatHex(fh.toByteArray());
    }
}

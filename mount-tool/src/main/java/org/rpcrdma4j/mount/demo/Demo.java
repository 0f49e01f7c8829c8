package org.rpcrdma4j.mount.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.bench.Bench;
import org.rpcrdma4j.mount.bench.BenchResult;
import org.rpcrdma4j.mount.bench.Progress;
import org.rpcrdma4j.mount.bench.Workload;
import org.rpcrdma4j.mount.cli.ClientOptions;
import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.Listing;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.mount.stats.StatsReport;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.registration.UnsupportedModeException;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * The tour: an embedded server over a temporary directory on the software RDMA device (and TCP), a mount over RDMA, a
 * file set written and read back with every byte checked (at the server's disk and through READ), a listing, a short
 * sequential throughput comparison of RDMA and TCP against the same server, the transport counters, and a clean
 * exit: everything closed, the temporary directory removed. Runs on the calling thread; an interrupt ends it early,
 * still cleaning up.
 */
public final class Demo {
    private static final String EXPORT = "/demo";
    private static final int IO_SIZE = 1 << 20;
    private static final int DEPTH = 8;
    private static final long BENCH_FILE = 16L << 20;

    /** One file of the set: its path in the export and its size. */
    private record DemoFile(String path, int size) {
    }

    private static final List<DemoFile> FILES = List.of(
            new DemoFile("/empty", 0),
            new DemoFile("/one-byte", 1),
            new DemoFile("/page-minus-one", 4095),
            new DemoFile("/page", 4096),
            new DemoFile("/page-plus-one", 4097),
            new DemoFile("/mib-plus-one", (1 << 20) + 1),
            new DemoFile("/three-mib", 3 << 20),
            new DemoFile("/nested/notes.txt", 1000),
            new DemoFile("/nested/deeper/64k-plus-13", (64 << 10) + 13),
            new DemoFile("/nested/deeper/two-mib-minus-one", (2 << 20) - 1));

    private final Io io;
    private final String provider;
    private final Map<String, String> deviceOptions;
    private final Duration benchTime;

    /** @param benchTime duration of each throughput run; zero skips the throughput test */
    public Demo(Io io, String provider, Map<String, String> deviceOptions, Duration benchTime) {
        this.io = io;
        this.provider = provider;
        this.deviceOptions = deviceOptions;
        this.benchTime = benchTime;
    }

    /** Runs the demo; returns the bytes verified. */
    public long run() throws Exception {
        long started = System.nanoTime();
        Path root = Files.createTempDirectory("rpcrdma-demo-");
        long verified;
        int rdmaPort;
        int tcpPort;
        try {
            Path exported = Files.createDirectories(root.resolve("export"));
            Path client = Files.createDirectories(root.resolve("client"));
            say("Temporary directory " + root);
            try (EmbeddedServer server = EmbeddedServer.start(
                    EmbeddedServer.Settings.local(exported, EXPORT, provider, deviceOptions))) {
                rdmaPort = server.rdmaPort();
                tcpPort = server.tcpPort();
                say("Embedded NFSv3 server exporting " + exported + " as " + EXPORT + " on device "
                        + server.deviceName() + ":");
                say("  " + server.rdmaUrl("127.0.0.1"));
                say("  " + server.tcpUrl("127.0.0.1"));
                ClientOptions options = ClientOptions.withProvider(provider, deviceOptions);
                try (Session rdma = Session.open(NfsUrl.parse(server.rdmaUrl("127.0.0.1")), options,
                        Bench.bufferBytes(IO_SIZE, DEPTH))) {
                    rdma.nfs().ping(); // a first round trip brings the server's credit grant
                    describeMount(rdma, options);
                    writeFiles(rdma.nfs(), client.resolve("src"));
                    verified = verify(rdma.nfs(), client.resolve("src"), client.resolve("back"), exported);
                    list(rdma.nfs());
                    if (!benchTime.isZero()) {
                        throughput(rdma, server, options);
                    }
                    say("");
                    say("Transport counters of the RDMA mount (mountstats layout):");
                    io.out().print(StatsReport.text(rdma.stats()));
                    Map<ServerCounter, Long> c = server.server().rdma().counters();
                    say("Server: " + c.get(ServerCounter.CALLS) + " calls over RDMA, "
                            + c.get(ServerCounter.READ_CHUNK_BYTES) + " bytes pulled by RDMA READ, "
                            + c.get(ServerCounter.WRITE_CHUNK_BYTES) + " bytes pushed by RDMA WRITE ("
                            + c.get(ServerCounter.ZERO_COPY_BYTES) + " straight from the buffers files were read "
                            + "into)");
                }
            }
        } finally {
            deleteTree(root);
        }
        if (Files.exists(root)) {
            throw new CliException(ExitCode.LOCAL, "could not remove " + root);
        }
        say("");
        say("Cleaned up: unmounted, server stopped (" + portState(rdmaPort, tcpPort) + "), " + root + " removed.");
        say(String.format(Locale.ROOT, "Verified %d bytes in %d files over RDMA: every byte read back matches what "
                + "was written. (%.1f s)", verified, FILES.size(), (System.nanoTime() - started) / 1e9));
        return verified;
    }

    private void say(String line) {
        io.out().println(line);
        io.out().flush();
    }

    private void describeMount(Session rdma, ClientOptions options) {
        RdmaClientStats s = rdma.stats().transport();
        String mode;
        try {
            RegistrationMode m = options.registration().resolve(rdma.device().orElseThrow().attributes());
            mode = m + (options.registration() == RegistrationMode.AUTO ? " (auto)" : "");
        } catch (UnsupportedModeException e) {
            mode = options.registration().toString();
        }
        say("Mounted over RDMA: " + s.state() + ", registration " + mode + ", credits granted " + s.creditsGranted()
                + ", inline send/receive " + s.inlineSend() + "/" + s.inlineReceive() + " bytes");
    }

    private void writeFiles(NfsMount nfs, Path src) throws IOException {
        say("");
        say("Writing " + FILES.size() + " files over RDMA (WRITE data goes in read chunks):");
        Random random = new Random();
        nfs.mkdir("/nested");
        nfs.mkdir("/nested/deeper");
        for (DemoFile f : FILES) {
            byte[] data = new byte[f.size()];
            if (f.path().endsWith(".txt")) {
                byte[] text = "NFS over RDMA from the JVM.\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                for (int i = 0; i < data.length; i++) {
                    data[i] = text[i % text.length];
                }
            } else {
                random.nextBytes(data);
            }
            Path local = src.resolve(f.path().substring(1));
            Files.createDirectories(local.getParent());
            Files.write(local, data);
            nfs.upload(local, f.path());
            say(String.format(Locale.ROOT, "  %-34s %9d bytes  sha256 %s", f.path(), f.size(),
                    shortDigest(digest(local))));
        }
    }

    private long verify(NfsMount nfs, Path src, Path back, Path exported) throws IOException {
        say("");
        say("Reading back over RDMA (READ data comes through write chunks) and comparing every byte:");
        long total = 0;
        for (DemoFile f : FILES) {
            String rel = f.path().substring(1);
            Path written = src.resolve(rel);
            long atServer = Files.mismatch(written, exported.resolve(rel));
            if (atServer != -1) {
                throw new CliException(ExitCode.VERIFY, f.path() + ": the server's file differs from what was written "
                        + "from byte " + atServer);
            }
            Path copy = back.resolve(rel);
            Files.createDirectories(copy.getParent());
            long n = nfs.download(f.path(), copy);
            long readBackAt = Files.mismatch(written, copy);
            if (n != f.size() || readBackAt != -1) {
                throw new CliException(ExitCode.VERIFY, f.path() + ": the bytes read back differ from those written "
                        + "from byte " + readBackAt + " (" + n + " bytes read, " + f.size() + " written)");
            }
            byte[] readBack = digest(copy);
            FileAttributes a = nfs.stat(f.path());
            if (a.size() != f.size()) {
                throw new CliException(ExitCode.VERIFY, f.path() + ": GETATTR says " + a.size() + " bytes, expected "
                        + f.size());
            }
            total += f.size();
            say(String.format(Locale.ROOT, "  %-34s %9d bytes  sha256 %s  ok", f.path(), n, shortDigest(readBack)));
        }
        return total;
    }

    private void list(NfsMount nfs) throws IOException {
        say("");
        say("Listing of " + EXPORT + " over RDMA (READDIRPLUS):");
        listTree(nfs, "/");
    }

    private void listTree(NfsMount nfs, String dir) throws IOException {
        List<Listing.Entry> entries = Listing.list(nfs, dir);
        entries.sort(Comparator.comparing(Listing.Entry::name));
        for (Listing.Entry e : entries) {
            String path = RemotePaths.child(dir, e.name());
            say("  " + Formats.longEntry(path, e.attributes()));
            if (e.attributes() != null && e.attributes().isDirectory()) {
                listTree(nfs, path);
            }
        }
    }

    private void throughput(Session rdma, EmbeddedServer server, ClientOptions options) throws Exception {
        say("");
        say(String.format(Locale.ROOT, "Throughput: sequential %s READs and WRITEs, %d in flight, %.1f s each, "
                + "same server, same host:", Sizes.format(IO_SIZE), DEPTH, benchTime.toMillis() / 1e3));
        BenchResult[] overRdma = measure(rdma, "rdma");
        BenchResult[] overTcp;
        try (Session tcp = Session.open(NfsUrl.parse(server.tcpUrl("127.0.0.1")), options)) {
            overTcp = measure(tcp, "tcp");
        }
        say(String.format(Locale.ROOT, "  %-10s %12s %12s", "", "write MB/s", "read MB/s"));
        say(String.format(Locale.ROOT, "  %-10s %12.1f %12.1f", "RDMA", overRdma[0].mbPerSecond(),
                overRdma[1].mbPerSecond()));
        say(String.format(Locale.ROOT, "  %-10s %12.1f %12.1f", "TCP", overTcp[0].mbPerSecond(),
                overTcp[1].mbPerSecond()));
        say(String.format(Locale.ROOT, "  %-10s %11.2fx %11.2fx", "RDMA/TCP",
                ratio(overRdma[0], overTcp[0]), ratio(overRdma[1], overTcp[1])));
        say("  (the software iWARP device carries RDMA over the kernel's TCP, in Java; on RDMA hardware the network "
                + "adapter moves the data itself)");
    }

    private static double ratio(BenchResult a, BenchResult b) {
        return b.mbPerSecond() == 0 ? 0 : a.mbPerSecond() / b.mbPerSecond();
    }

    private BenchResult[] measure(Session session, String label) throws Exception {
        Progress progress = new Progress(io.err(), io.terminal());
        try (Bench bench = Bench.open(session, "/.throughput-" + label,
                new Bench.Spec(IO_SIZE, DEPTH, benchTime, BENCH_FILE), progress, false)) {
            BenchResult write = bench.run(Workload.SEQ_WRITE);
            bench.prefill(); // the whole file, so that every read finds data
            BenchResult read = bench.run(Workload.SEQ_READ);
            return new BenchResult[] {write, read};
        }
    }

    private static String portState(int rdmaPort, int tcpPort) {
        List<Integer> open = new ArrayList<>();
        for (int port : new int[] {rdmaPort, tcpPort}) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                open.add(port);
            } catch (IOException e) {
                // refused: closed, as it should be
            }
        }
        return open.isEmpty() ? "ports " + rdmaPort + " and " + tcpPort + " closed"
                : "ports " + open + " still accept connections (another process?)";
    }

    private static byte[] digest(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[64 << 10];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String shortDigest(byte[] digest) {
        return HexFormat.of().formatHex(digest, 0, 8);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

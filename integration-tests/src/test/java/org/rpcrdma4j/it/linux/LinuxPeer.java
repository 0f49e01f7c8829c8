package org.rpcrdma4j.it.linux;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux reference peer: a Linux kernel under qemu (software emulation) with the {@code siw} Soft-iWARP driver,
 * knfsd exporting {@code /export} over TCP and over RDMA, and the Linux NFS client, all driven through the scripts
 * of the {@code linux-peer} harness directory ({@code build.sh}, {@code start.sh}, {@code stop.sh},
 * {@code guest-exec.py}). The harness forwards host ports on 127.0.0.1 to the guest (NFS/RDMA, mountd, ...) and
 * lets the guest reach the host's loopback as {@value #HOST_FROM_GUEST}.
 * <p>
 * {@link #boot} builds the harness when needed and starts the guest, unless one is running already: then that guest
 * is used and left running. {@link #close()} stops only a guest this object started, through {@code stop.sh}, which
 * kills the one process id {@code start.sh} recorded. A JVM shutdown hook does the same if the JVM ends first.
 * <p>
 * Guest commands run one at a time over the guest's serial console. Thread-safe.
 */
public final class LinuxPeer implements AutoCloseable {
    /** System property naming the harness directory; the {@code linux-interop} Maven profile sets it. */
    public static final String DIR_PROPERTY = "linuxPeer.dir";
    /** System property naming the harness's cache directory (its {@code LP_CACHE}); default /var/tmp/linux-peer. */
    public static final String CACHE_PROPERTY = "linuxPeer.cache";
    /** The host's loopback as the guest sees it (qemu user-mode networking's gateway). */
    public static final String HOST_FROM_GUEST = "10.0.2.2";
    /** The NFS/RDMA port knfsd listens on in the guest. */
    public static final int GUEST_RDMA_PORT = 20049;

    private static final Logger LOG = LoggerFactory.getLogger(LinuxPeer.class);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final Path cache;
    private final boolean startedHere;
    private final Map<String, String> ports;
    private final Duration bootTime;
    private final Thread shutdownHook;
    private boolean closed;

    private LinuxPeer(Path dir, Path cache, boolean startedHere, Map<String, String> ports, Duration bootTime) {
        this.dir = dir;
        this.cache = cache;
        this.startedHere = startedHere;
        this.ports = ports;
        this.bootTime = bootTime;
        this.shutdownHook = startedHere ? new Thread(this::stopQuietly, "linux-peer-stop") : null;
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /** Environment variable naming the harness directory; it wins over {@value #DIR_PROPERTY}. */
    public static final String DIR_ENVIRONMENT = "LINUX_PEER_DIR";

    /**
     * @return the harness directory: {@value #DIR_ENVIRONMENT} from the environment, else {@value #DIR_PROPERTY} (the
     * build sets it to {@code ../shared/linux-peer} beside the checkout), else null
     */
    public static Path configuredDirectory() {
        String d = System.getenv(DIR_ENVIRONMENT);
        if (d == null || d.isBlank()) {
            d = System.getProperty(DIR_PROPERTY);
        }
        // "${...}": a property the build could not fill in
        return d == null || d.isBlank() || d.contains("${") ? null : Path.of(d).normalize();
    }

    /** @return the harness's cache directory (build output; {@code run/} holds the running guest's files) */
    public static Path cacheDirectory() {
        return Path.of(System.getProperty(CACHE_PROPERTY, "/var/tmp/linux-peer"));
    }

    /**
     * Why the peer cannot run here, or null when it can: no harness, not a Linux host, or this process is not root
     * (the harness installs its packages, qemu among them, and builds a kernel module). A missing qemu is no reason:
     * {@link #boot} runs the harness's {@code build.sh} first, which installs it.
     */
    public static String unavailableReason() {
        Path d = configuredDirectory();
        if (d == null) {
            return "no linux-peer harness named: set " + DIR_ENVIRONMENT + " or -D" + DIR_PROPERTY + "=<directory>";
        }
        for (String script : List.of("build.sh", "start.sh", "stop.sh", "guest-exec.py")) {
            if (!Files.isRegularFile(d.resolve(script))) {
                return "no linux-peer harness at " + d + " (no " + script + "; set " + DIR_ENVIRONMENT + " or -D"
                        + DIR_PROPERTY + ")";
            }
        }
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return "the Linux peer needs a Linux host";
        }
        if (!isRoot()) {
            return "the Linux peer's harness must run as root (it installs qemu and its packages and builds siw.ko)";
        }
        return null;
    }

    /** @return the absolute path of {@code program} on PATH, or null */
    static Path findOnPath(String program) {
        for (String p : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path candidate = Path.of(p.isEmpty() ? "." : p, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * Builds the harness if needed and starts the guest, or attaches to the guest already running.
     *
     * @throws IOException when building or booting fails (with the scripts' output)
     */
    public static LinuxPeer boot() throws IOException {
        Path dir = configuredDirectory();
        if (dir == null) {
            throw new IllegalStateException(unavailableReason());
        }
        Path cache = cacheDirectory();
        Map<String, String> env = Map.of("LP_CACHE", cache.toString());
        if (running(cache) != null) {
            LOG.info("using the Linux peer already running (qemu PID {}); it stays running", running(cache));
            return new LinuxPeer(dir, cache, false, readPorts(cache), Duration.ZERO);
        }
        long t0 = System.nanoTime();
        Result build = run(List.of("bash", dir.resolve("build.sh").toString()), env, BUILD_TIMEOUT);
        if (build.status() != 0) {
            throw new IOException("linux-peer build.sh failed (" + build.status() + "):\n" + build.tail(40));
        }
        String stale = staleInitramfs(cache);
        if (stale != null) {
            // build.sh keeps an initramfs whose scripts did not change, even when the kernel it resolved did (its
            // first run may resolve the kernel from stale package lists, a later one from fresh ones)
            LOG.warn("the Linux peer's initramfs is stale ({}): building it again", stale);
            Map<String, String> force = Map.of("LP_CACHE", cache.toString(), "LP_FORCE", "1");
            build = run(List.of("bash", dir.resolve("build.sh").toString()), force, BUILD_TIMEOUT);
            if (build.status() != 0 || staleInitramfs(cache) != null) {
                throw new IOException("linux-peer build.sh LP_FORCE=1 failed (" + build.status() + ", "
                        + staleInitramfs(cache) + "):\n" + build.tail(40));
            }
        }
        long t1 = System.nanoTime();
        Result start = run(List.of("bash", dir.resolve("start.sh").toString()), env, START_TIMEOUT);
        if (start.status() != 0) {
            // start.sh may have left a qemu behind (no READY in time): stop the one it recorded
            run(List.of("bash", dir.resolve("stop.sh").toString()), env, STOP_TIMEOUT);
            throw new IOException("linux-peer start.sh failed (" + start.status() + "):\n" + start.tail(40));
        }
        Duration boot = Duration.ofNanos(System.nanoTime() - t1);
        LOG.info("Linux peer: build.sh {} ms, start.sh {} ms:\n{}", (t1 - t0) / 1_000_000, boot.toMillis(),
                start.output().strip());
        return new LinuxPeer(dir, cache, true, readPorts(cache), boot);
    }

    /**
     * Whether the initramfs holds the modules of another kernel than the one that boots: the module directories of
     * the unpacked kernel ({@code kroot/lib/modules}) and of the initramfs's tree ({@code root/lib/modules}) differ.
     *
     * @return what differs, or null when they agree (or the harness's layout is not there to compare)
     */
    static String staleInitramfs(Path cache) throws IOException {
        Path kernel = cache.resolve("kroot/lib/modules");
        Path initramfs = cache.resolve("root/lib/modules");
        if (!Files.isDirectory(kernel) || !Files.isDirectory(initramfs)) {
            return null;
        }
        List<String> k = names(kernel);
        List<String> i = names(initramfs);
        return k.equals(i) ? null : "kernel modules " + k + ", initramfs modules " + i;
    }

    private static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** @return the PID of the running guest recorded by start.sh, or null */
    private static Long running(Path cache) throws IOException {
        Path pidFile = cache.resolve("run/qemu.pid");
        if (!Files.isRegularFile(pidFile)) {
            return null;
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile).trim());
        } catch (NumberFormatException e) {
            return null;
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.contains("qemu-system")).orElse(false))
                .map(ProcessHandle::pid).orElse(null);
    }

    private static Map<String, String> readPorts(Path cache) throws IOException {
        Path env = cache.resolve("run/ports.env");
        if (!Files.isRegularFile(env)) {
            throw new IOException("the running guest has no " + env + " (was it started by start.sh?)");
        }
        Map<String, String> out = new HashMap<>();
        for (String line : Files.readAllLines(env)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                out.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        return Map.copyOf(out);
    }

    private int port(String key, int dflt) {
        String v = ports.get(key);
        return v == null ? dflt : Integer.parseInt(v);
    }

    /** @return the host port (on 127.0.0.1) forwarded to knfsd's NFS/RDMA listener */
    public int rdmaPort() {
        return port("LP_RDMA_PORT", 20049);
    }

    /** @return the host port (on 127.0.0.1) forwarded to the guest's mountd, TCP and UDP */
    public int mountdPort() {
        return port("LP_MOUNTD_PORT", 12048);
    }

    /** @return how long start.sh took, or zero when the guest was running already */
    public Duration bootTime() {
        return bootTime;
    }

    /** @return whether this object started the guest (and so stops it) */
    public boolean startedHere() {
        return startedHere;
    }

    /**
     * Runs a shell command in the guest (busybox sh plus the NFS tools) and waits for it.
     *
     * @return its exit status and output (stdout and stderr together)
     */
    public synchronized Result exec(String command, Duration timeout) throws IOException {
        if (closed) {
            throw new IllegalStateException("the Linux peer is stopped");
        }
        long seconds = Math.max(1, timeout.toSeconds());
        return run(List.of("python3", dir.resolve("guest-exec.py").toString(), "--timeout", Long.toString(seconds),
                command), Map.of("LP_CACHE", cache.toString()), timeout.plusSeconds(15));
    }

    /** Runs a guest command that must succeed; returns its output. */
    public String execOk(String command, Duration timeout) throws IOException {
        Result r = exec(command, timeout);
        if (r.status() != 0) {
            throw new IOException("guest command failed (" + r.status() + "): " + command + "\n" + r.tail(60));
        }
        return r.output();
    }

    /** @return how many sockets listen on knfsd's NFS/RDMA port in the guest (2 when healthy: IPv4 and IPv6) */
    public int rdmaListeners() throws IOException {
        String out = execOk("netstat -tln | grep -c ':" + GUEST_RDMA_PORT + " ' || true", Duration.ofSeconds(30));
        return Integer.parseInt(out.strip());
    }

    /**
     * @return the lines of the guest's kernel log in which siw reports an MPA CRC mismatch. Linux 6.1's siw checks a
     *         frame's CRC wrongly when the four CRC bytes arrive split across two socket buffers (it copies the second
     *         part over the first and compares against what is left of the previous frame's CRC), and answers with
     *         TERMINATE LLP / MPA / CRC error and a reset: a peer sending correct CRCs sees spurious disconnects.
     */
    public List<String> siwCrcErrors() throws IOException {
        String out = execOk("dmesg | grep 'siw: crc error' || true", Duration.ofSeconds(30));
        return out.lines().filter(l -> l.contains("siw: crc error")).toList();
    }

    /** @return the last lines of the guest's kernel log, for failure reports */
    public String dmesgTail(int lines) {
        try {
            return exec("dmesg | tail -" + lines, Duration.ofSeconds(30)).output();
        } catch (IOException | RuntimeException e) {
            return "(no dmesg: " + e + ")";
        }
    }

    /** Stops the guest if this object started it (by the PID start.sh recorded); otherwise leaves it running. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (startedHere) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs anyway and finds nothing left to stop
            }
            stopQuietly();
        }
    }

    private void stopQuietly() {
        try {
            Result r = run(List.of("bash", dir.resolve("stop.sh").toString()), Map.of("LP_CACHE", cache.toString()),
                    STOP_TIMEOUT);
            LOG.info("Linux peer stop.sh ({}): {}", r.status(), r.output().strip());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Linux peer stop.sh failed: {}", e.toString());
        }
    }

    /**
     * Output and exit status of a command.
     *
     * @param status exit status (124 when it ran out of time and was killed)
     * @param output stdout and stderr, interleaved
     */
    public record Result(int status, String output) {
        /** @return the last {@code n} lines of the output */
        public String tail(int n) {
            String[] lines = output.split("\n");
            return String.join("\n", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - n),
                    lines.length));
        }
    }

    /** Runs a host command to its end or until {@code timeout}, when it is killed (it and its children). */
    static Result run(List<String> command, Map<String, String> env, Duration timeout) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                return new Result(124, output.get(10, TimeUnit.SECONDS) + "\n[killed after " + timeout + "]");
            }
            return new Result(p.exitValue(), output.get(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while running " + command.get(0), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("no output from " + command, e);
        }
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

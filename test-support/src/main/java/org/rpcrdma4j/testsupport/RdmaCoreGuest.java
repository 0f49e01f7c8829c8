package org.rpcrdma4j.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A qemu guest with rdma-core, the ib_uverbs and rdma_ucm modules, a siw device ({@code siw0}), knfsd and the Linux
 * NFS client, and a Java runtime made from a given JDK, booted by the {@code disni-peer} harness beside the checkout
 * ({@code ../shared/disni-peer}, or {@value #DIR_ENVIRONMENT}). The harness's guest takes a directory of its own
 * ({@link #WORK}): a {@code jlink}ed runtime, the class path given (jars and class directories) under
 * {@code /opt/disni}, and rdma-core's {@code ibv_devinfo} and {@code rping} (whose libraries, libibverbs and librdmacm
 * among them, the harness copies along). The kernel, its packages and siw.ko are taken from the Linux suite's build
 * when it has one.
 */
public final class RdmaCoreGuest implements AutoCloseable {
    public static final String DIR_ENVIRONMENT = "DISNI_PEER_DIR";
    public static final String DIR_PROPERTY = "disniPeer.dir";
    /** The guest's build and run directory. */
    public static final Path WORK = Path.of("/var/tmp/rpcrdma4j-ffm-peer");
    /** Where the Linux suite's guest keeps its kernel, packages and siw.ko. */
    static final Path LINUX_PEER_CACHE = Path.of("/var/tmp/linux-peer");
    /**
     * The guest's runtime: the FFM API, the allocation counters the data path is checked with, what JUnit's launcher
     * needs to run the conformance suite there, and what {@code mount-tool}'s jar needs ({@code jdeps}).
     */
    public static final String JRE_MODULES = "java.base,jdk.unsupported,jdk.management,java.logging,java.xml,"
            + "java.compiler,java.desktop,java.management,java.security.jgss,jdk.jfr,jdk.security.auth";
    /** Directories of the class path (this module's classes and test classes, the reactor's), at most this many. */
    public static final int CLASS_DIRS = 6;
    /**
     * How the guest starts a JVM: allowed to pin all the memory it registers ({@code ulimit -l}), on one virtual CPU. qemu's multi-threaded TCG (the guest has no KVM) was seen to
     * crash a JVM at the first instruction of a method just compiled on another virtual CPU (twice in forty runs of
     * the loopback, never in forty pinned); real hardware and KVM keep instruction caches coherent.
     */
    public static final String JAVA = "ulimit -l unlimited; taskset -c 0 /opt/jre/bin/java "
            + "--enable-native-access=ALL-UNNAMED "
            + "-XX:ErrorFile=/tmp/ffm-hs_err.log";
    /**
     * {@link #JAVA} for a JVM whose work is short and whose speed or allocation is not what is checked (the CLI, the
     * device listing, a test suite): C1 only. Under qemu's emulation C2's compilations take the one virtual CPU from
     * the program: {@code mount-tool --help} took 10.7 s in the guest, 6.5 s with C1 only. Not for what counts
     * allocations: scalar replacement is C2's.
     */
    public static final String JAVA_QUICK = JAVA + " -XX:TieredStopAtLevel=1";
    /**
     * With {@code -Dffm.guest.full=true} the guest tests run everything they have; without it, what the build's time
     * allows (each test that is left out says so, naming this property).
     */
    public static final String FULL_PROPERTY = "ffm.guest.full";
    /** The class path in the guest: the test's own, its jars in one directory and its directories numbered. */
    public static final String GUEST_CLASS_PATH = "'/opt/disni/*" + java.util.stream.IntStream.range(0, CLASS_DIRS)
            .mapToObj(i -> ":/opt/disni/classes-" + i).collect(java.util.stream.Collectors.joining()) + "'";

    private final Path harness;
    private final Path jdk;
    private final List<String> classPath;
    private boolean started;
    private boolean rxe;

    private RdmaCoreGuest(Path harness, Path jdk, List<String> classPath) {
        this.harness = harness;
        this.jdk = jdk;
        this.classPath = classPath;
    }

    /** Whether the whole guest run was asked for ({@value #FULL_PROPERTY}). */
    public static boolean fullRun() {
        return Boolean.getBoolean(FULL_PROPERTY);
    }

    /** The harness directory, or null when none is named. */
    public static Path harness() {
        String d = System.getenv(DIR_ENVIRONMENT);
        if (d == null || d.isBlank()) {
            d = System.getProperty(DIR_PROPERTY);
        }
        return d == null || d.isBlank() || d.contains("${") ? null : Path.of(d).normalize();
    }

    /** Why the guest cannot run here, or null. */
    public static String unavailableReason() {
        Path h = harness();
        if (h == null) {
            return "no disni-peer harness named: set " + DIR_ENVIRONMENT + " or -D" + DIR_PROPERTY;
        }
        for (String script : List.of("build.sh", "start.sh", "stop.sh", "guest-exec.py")) {
            if (!Files.isRegularFile(h.resolve(script))) {
                return "no disni-peer harness at " + h + " (no " + script + ")";
            }
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "the guest needs a Linux host";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the guest's harness must run as root (it installs qemu and builds siw.ko)";
        }
        return null;
    }

    /**
     * Builds the guest's initramfs with a runtime made from {@code jdk} and {@code classPath} (the entries of a class
     * path: jars and class directories), and boots it.
     */
    public static RdmaCoreGuest boot(Path jdk, List<String> classPath) throws IOException, InterruptedException {
        RdmaCoreGuest g = new RdmaCoreGuest(harness(), jdk, List.copyOf(classPath));
        g.stage();
        g.script("stop.sh"); // a guest left running by an earlier run
        g.script("start.sh");
        g.started = true;
        return g;
    }

    private void stage() throws IOException, InterruptedException {
        Path opt = WORK.resolve("guestfiles/opt/disni");
        StringBuilder copy = new StringBuilder();
        int dirs = 0;
        if (classPath.stream().filter(e -> Files.isDirectory(Path.of(e))).count() > CLASS_DIRS) {
            throw new IOException("more class directories than the guest's class path has room for: " + classPath);
        }
        for (String entry : classPath) {
            copy.append(Files.isDirectory(Path.of(entry))
                    ? "cp -a '" + entry + "' \"$OPT/classes-" + dirs++ + "\"\n"
                    : "cp '" + entry + "' \"$OPT/\"\n");
        }
        String stamp = jdk + " " + JRE_MODULES;
        run(List.of("bash", "-c", String.join("\n",
                "set -euo pipefail",
                "W='" + WORK + "'; OPT='" + opt + "'; SEED='" + LINUX_PEER_CACHE + "'",
                "mkdir -p \"$W/cache\" \"$W/debs-extra\"",
                "for x in debs kroot siw-build vmlinuz; do",
                "  if [ ! -e \"$W/cache/$x\" ] && [ -e \"$SEED/$x\" ]; then cp -a \"$SEED/$x\" \"$W/cache/\"; fi",
                "done",
                "if [ ! -x \"$W/jre/bin/java\" ] || [ \"$(cat \"$W/jre.from\" 2>/dev/null)\" != '" + stamp
                        + "' ]; then",
                "  rm -rf \"$W/jre\"",
                "  '" + jdk + "/bin/jlink' --add-modules " + JRE_MODULES + " --output \"$W/jre\" "
                        + "--strip-debug --no-man-pages --no-header-files",
                "  echo '" + stamp + "' > \"$W/jre.from\"",
                "fi",
                "rm -rf \"$OPT\"; mkdir -p \"$OPT/rxe\"",
                copy.toString(),
                // rxe (RoCE v2 in software): its kernel modules beside the harness's and its rdma-core provider,
                // put in place by useRxe()
                "K=\"$W/cache/kroot/lib/modules\"/*/kernel",
                "cp $K/crypto/crc32_generic.ko $K/net/ipv4/udp_tunnel.ko $K/net/ipv6/ip6_udp_tunnel.ko "
                        + "$K/drivers/infiniband/sw/rxe/rdma_rxe.ko \"$OPT/rxe/\"",
                "cp /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \"$OPT/rxe/\"",
                "if [ ! -x \"$W/debs-extra/x/usr/bin/ibv_devinfo\" ]; then",
                "  (cd \"$W/debs-extra\" && apt-get -o APT::Sandbox::User=root download ibverbs-utils rdmacm-utils "
                        + ">/dev/null && for f in *.deb; do dpkg-deb -x \"$f\" x; done)",
                "fi",
                "LP_CACHE=\"$W/cache\" DP_DIR=\"$W\" LP_FORCE=1 bash '" + harness.resolve("build.sh") + "'")),
                Map.of(), 900);
    }

    /**
     * Boots the guest again from what {@link #boot} built: a fresh kernel, with siw and nothing using it yet (siw0
     * cannot be deleted for rxe while the kernel's NFS/RDMA transports still hold it).
     */
    public void restart() throws IOException, InterruptedException {
        script("stop.sh");
        started = false;
        rxe = false;
        script("start.sh");
        started = true;
    }

    /**
     * Replaces the guest's siw device by an rxe one on the same interface (RoCE v2 in software; the connection manager
     * would pick either for the same address): loads rxe's modules, installs its rdma-core provider, adds
     * {@code rxe0}, deletes {@code siw0}. Once per boot.
     */
    public void useRxe() throws IOException, InterruptedException {
        if (rxe) {
            return;
        }
        String out = exec("cd /opt/disni/rxe && for m in crc32_generic udp_tunnel ip6_udp_tunnel rdma_rxe; do "
                + "insmod $m.ko || exit 1; done && cp librxe-rdmav34.so /usr/lib/x86_64-linux-gnu/libibverbs/ && "
                + "echo 'driver rxe' > /etc/libibverbs.d/rxe.driver && rdma link add rxe0 type rxe netdev eth0 && "
                + "rdma link delete siw0 && rdma link show");
        if (!out.contains("exit=0") || !out.contains("rxe0")) {
            throw new IOException("the guest could not switch to rxe:\n" + out);
        }
        rxe = true;
    }

    /** The class path of this test's own JVM, as entries for {@link #boot} (without the test runner's jars). */
    public static List<String> testClassPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank() && !entry.contains("surefire")) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /**
     * Runs {@code command} in the guest's shell.
     *
     * @return its output, and {@code exit=N} on the last line
     */
    public String exec(String command) throws IOException, InterruptedException {
        return exec(command, 300);
    }

    /** {@link #exec(String)} allowing the command {@code seconds}. */
    public String exec(String command, int seconds) throws IOException, InterruptedException {
        return run(List.of("python3", harness.resolve("guest-exec.py").toString(), "--timeout",
                Integer.toString(seconds), command + "; echo exit=$?"),
                Map.of("LP_CACHE", WORK.resolve("cache").toString()), seconds + 60L);
    }

    private String script(String name) throws IOException, InterruptedException {
        return run(List.of("bash", harness.resolve(name).toString()),
                Map.of("LP_CACHE", WORK.resolve("cache").toString()), 600);
    }

    private String run(List<String> command, Map<String, String> env, long seconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(harness.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not finish within " + seconds + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command).lines().findFirst().orElse("") + " failed with status "
                    + p.exitValue() + ":\n" + text);
        }
        return text;
    }

    @Override
    public void close() throws IOException {
        if (started) {
            started = false;
            try {
                script("stop.sh");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while stopping the guest", e);
            }
        }
    }
}

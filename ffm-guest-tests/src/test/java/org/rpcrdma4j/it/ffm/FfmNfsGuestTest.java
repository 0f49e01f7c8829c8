package org.rpcrdma4j.it.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.testsupport.GuestSuite;
import org.rpcrdma4j.testsupport.RdmaCoreGuest;
import org.rpcrdma4j.testsupport.RequiredPeer;

/**
 * NFS over RDMA through the {@code ffm} provider on real verbs devices, as a user runs it: {@code mount-tool}'s jar on
 * a Java 25 runtime in a qemu guest ({@link RdmaCoreGuest}), over rxe (RoCE v2), and first over siw (iWARP) in the
 * whole guest run ({@link RdmaCoreGuest#FULL_PROPERTY}). On each:
 * our server ({@code serve --provider ffm}) takes a file from our client ({@code put}) and gives it back
 * ({@code get}); the guest's Linux NFS client mounts our server with {@code proto=rdma} and reads and writes; our
 * client writes to and reads from the guest's knfsd over RDMA. Over rxe the servers and clients then do it again at
 * an IPv6 address. Every file is compared byte for byte ({@code cmp}).
 * In the whole guest run, or with {@code -Dffm.transportSuites=true}, our client and server suites then run there
 * over the same device ({@code GuestTransportSuites}, the transport module's tests with {@code ffm} for the software
 * device; those that need the software device's own options or fault injection, or what the device does not do,
 * skip, saying so): nothing may fail. They add about 7 minutes for both devices under the guest's emulation, more
 * than the build's time allows beside the rest, so they run only when asked.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FfmNfsGuestTest {
    private static final String ADDRESS = "10.0.2.15";
    /** An IPv6 address the test gives the guest's interface (a unique local one). */
    private static final String ADDRESS6 = "fd00::2:15";
    private static final String SUITES = "ffm.transportSuites";
    /** The CLI as a user runs it: its manifest enables native access. */
    private static final String TOOL = RdmaCoreGuest.JAVA_QUICK.replace(" --enable-native-access=ALL-UNNAMED", "")
            + " -jar /opt/disni/mount-tool.jar";
    private static final String PROVIDER = provider(ADDRESS);

    private RdmaCoreGuest guest;
    /** Whether siw carried NFS or the suites in this boot (rxe then needs a fresh one). */
    private boolean siwUsed;

    @BeforeAll
    void boot() throws Exception {
        RequiredPeer.require("the rdma-core guest (disni-peer harness)", RdmaCoreGuest.unavailableReason());
        Path jdk = Path.of(System.getProperty("ffm.jdk", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        RequiredPeer.require("a JDK 22+ for the guest's runtime", Files.isExecutable(jdk.resolve("bin/jlink")) ? null
                : "no JDK at " + jdk + " (-Dffm.jdk=...)");
        Path tool = Path.of(System.getProperty("mountTool.jar", "../mount-tool/target/mount-tool.jar"));
        RequiredPeer.require("mount-tool's jar", Files.isRegularFile(tool) ? null : "no " + tool.toAbsolutePath()
                + " (build mount-tool first)");
        List<String> classPath = new ArrayList<>();
        classPath.add(tool.toAbsolutePath().toString());
        classPath.addAll(suiteClassPath());
        guest = RdmaCoreGuest.boot(jdk, classPath);
    }

    @AfterAll
    void stop() throws Exception {
        if (guest != null) {
            guest.close();
        }
    }

    @Test
    @Order(1)
    void nfsOverSiw() throws Exception {
        Assumptions.assumeTrue(RdmaCoreGuest.fullRun(), "NFS over siw through ffm runs in the whole guest run (-D"
                + RdmaCoreGuest.FULL_PROPERTY + "=true); the build runs it over rxe, which also binds windows, and "
                + "the verbs conformance suite over both");
        siwUsed = true;
        nfs("siw0", 20050);
    }

    @Test
    @Order(2)
    void transportSuitesOverSiw() throws Exception {
        transportSuites("siw0");
    }

    @Test
    @Order(3)
    void nfsOverRxe() throws Exception {
        if (siwUsed) {
            guest.restart();
        }
        guest.useRxe();
        nfs("rxe0", 20060);
    }

    /** The same over IPv6, on rxe: our server and client, and the Linux client with {@code proto=rdma6}. */
    @Test
    @Order(4)
    void nfsOverRxeOnIpv6() throws Exception {
        String added = guest.exec("ip -6 addr add " + ADDRESS6 + "/64 dev eth0 && for i in $(seq 1 50); do "
                + "ip -6 addr show dev eth0 | grep -q tentative || break; sleep 0.2; done; ip -6 addr show dev eth0");
        assertThat(added).as(added).contains(ADDRESS6).doesNotContain("tentative");
        nfs("rxe0", 20070, ADDRESS6);
    }

    @Test
    @Order(5)
    void transportSuitesOverRxe() throws Exception {
        transportSuites("rxe0");
    }

    /**
     * What the transport suites need beside the CLI's jar (which has the main classes, the ffm provider and a logging
     * binding): the transport's and the verbs' test classes, test-support, JUnit and AssertJ.
     */
    private static List<String> suiteClassPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : RdmaCoreGuest.testClassPath()) {
            String name = Path.of(entry).getFileName().toString();
            if (entry.endsWith("xprt-rdma/target/test-classes") || entry.endsWith("rdma-verbs/target/test-classes")
                    || entry.endsWith("test-support/target/classes")) {
                entries.add(entry); // within the reactor, before the jars are made
            } else if (name.endsWith("-tests.jar") && (name.startsWith("xprt-rdma") || name.startsWith("rdma-verbs-0"))
                    || name.startsWith("test-support") || name.startsWith("junit-") || name.startsWith("opentest4j")
                    || name.startsWith("apiguardian") || name.startsWith("assertj") || name.startsWith("byte-buddy")) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /** Runs the client and server suites over the ffm provider on {@code device}; nothing may fail. */
    private void transportSuites(String device) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean(SUITES) || RdmaCoreGuest.fullRun(), "the client and server suites "
                + "over ffm run in the whole guest run (-D" + RdmaCoreGuest.FULL_PROPERTY + "=true) or alone with -D"
                + SUITES + "=true (about 7 minutes more for both devices)");
        siwUsed |= device.startsWith("siw");
        String out = guest.exec(RdmaCoreGuest.JAVA + " -Xmx1g -Dio.netty.leakDetection.level=paranoid "
                + "-Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp " + RdmaCoreGuest.GUEST_CLASS_PATH
                + " org.rpcrdma4j.xprt.GuestTransportSuites ffm " + ADDRESS, 1080);
        System.out.println(out.strip());
        GuestSuite.Summary run = GuestSuite.Summary.read("transport", out);
        assertThat(run).as(device + "\n" + out).isNotNull();
        assertThat(run.failed()).as("failed over " + device + "\n" + out).isZero();
        assertThat(run.passed()).as("passed over " + device + "\n" + out).isPositive();
        assertThat(out).contains("exit=0");
    }

    private static String provider(String address) {
        return " --provider ffm --device-option address=" + address;
    }

    private void nfs(String device, int port) throws Exception {
        nfs(device, port, ADDRESS);
    }

    /** Our server and client, the Linux client, and (over IPv4) knfsd, at {@code address}. */
    private void nfs(String device, int port, String address) throws Exception {
        boolean v6 = address.contains(":");
        String host = v6 ? "[" + address + "]" : address;
        String provider = provider(address);
        int mountPort = port + 1;
        String url = "rdma://" + host + ":" + port + "/ours";
        String dir = "/srv/ours-" + port;
        String started = guest.exec("mkdir -p " + dir + " && head -c 3145728 /dev/urandom > /tmp/a && "
                + "(" + TOOL + " serve " + dir + " --export /ours" + provider + " --bind " + address + " --port "
                + port + " --tcp-port " + mountPort + " --grace-period 0s > /tmp/serve-" + port + ".log 2>&1 &) && "
                + "for i in $(seq 1 120); do grep -q 'rdma://' /tmp/serve-" + port + ".log && break; sleep 1; done; "
                + "cat /tmp/serve-" + port + ".log");
        System.out.println(started.strip());
        assertThat(started).as(started).contains("rdma://").contains(device);
        try {
            String ours = guest.exec(TOOL + " put" + provider + " --mount-port " + mountPort + " " + url
                    + " /tmp/a /a && " + TOOL + " get --stats" + provider + " --mount-port " + mountPort + " " + url
                    + " /a /tmp/b && cmp /tmp/a /tmp/b && cmp /tmp/a " + dir + "/a && echo OURS-SAME");
            System.out.println(ours.strip());
            assertThat(ours).as("our client and our server over " + device + "\n" + ours).contains("OURS-SAME");
            assertWindowsOnRxe(device, ours);

            String linux = guest.exec("mkdir -p /mnt/ours && mount -t nfs -o vers=3,proto=" + (v6 ? "rdma6" : "rdma")
                    + ",port=" + port + ",mountport=" + mountPort + ",mountproto=" + (v6 ? "tcp6 " : "tcp ") + host
                    + ":/ours /mnt/ours && cmp /tmp/a "
                    + "/mnt/ours/a && cp /tmp/a /mnt/ours/c && umount /mnt/ours && cmp /tmp/a " + dir + "/c && "
                    + "echo LINUX-CLIENT-SAME");
            System.out.println(linux.strip());
            assertThat(linux).as("the Linux client and our server over " + device + "\n" + linux)
                    .contains("LINUX-CLIENT-SAME");
        } finally {
            System.out.println(guest.exec("pkill -f 'mount-tool.jar serve' ; sleep 1; tail -5 /tmp/serve-" + port
                    + ".log"));
        }

        if (v6) {
            return; // the guest's knfsd listens for RDMA on IPv4
        }
        String knfsd = guest.exec(TOOL + " put" + PROVIDER + " rdma://" + ADDRESS + ":20049/export /tmp/a "
                + "/scratch/k-" + port + " && " + TOOL + " get --stats" + PROVIDER + " rdma://" + ADDRESS
                + ":20049/export /scratch/k-" + port + " /tmp/k && cmp /tmp/a /tmp/k && cmp /tmp/a /export/scratch/k-"
                + port + " && echo KNFSD-SAME");
        System.out.println(knfsd.strip());
        assertThat(knfsd).as("our client and knfsd over " + device + "\n" + knfsd).contains("KNFSD-SAME");
        assertWindowsOnRxe(device, knfsd);
    }

    /**
     * Over rxe the client registers its chunks by binding memory windows (FRWR mode), and the server, ours or knfsd,
     * invalidates them with its Send with Invalidate: the READs' write chunks were invalidated remotely.
     */
    private static void assertWindowsOnRxe(String device, String out) {
        if (!device.startsWith("rxe")) {
            return;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("remote_invalidations\\s+(\\d+)").matcher(out);
        assertThat(m.find()).as("the counters\n" + out).isTrue();
        assertThat(Long.parseLong(m.group(1))).as("remote invalidations over " + device + "\n" + out).isPositive();
    }
}

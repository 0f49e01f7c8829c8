package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.verbs.RdmaProviders;

/** Every documented failure: one line on stderr, no stack trace, the documented exit status. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ErrorsTest {
    @TempDir
    static Path temp;
    private TcpServerFixture server;

    @BeforeAll
    void start() throws IOException {
        Path dir = Files.createDirectories(temp.resolve("exported"));
        Files.write(dir.resolve("file"), new byte[] {1, 2, 3});
        server = new TcpServerFixture(dir);
    }

    @AfterAll
    void stop() throws IOException {
        server.close();
    }

    private static void assertOneLine(Cli.Result r, ExitCode code, String... fragments) {
        assertThat(r.code()).as(r.toString()).isEqualTo(code.code());
        assertThat(r.err().lines().toList()).as(r.toString()).hasSize(1);
        assertThat(r.err()).as(r.toString()).doesNotContain("\tat ").doesNotContain("Exception:");
        for (String f : fragments) {
            assertThat(r.err()).as(r.toString()).contains(f);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void refusedConnectionIsATransportError() throws IOException {
        int port = freePort();
        assertOneLine(Cli.run("ls", "tcp://127.0.0.1:" + port + "/export", "--connect-timeout", "5s"),
                ExitCode.TRANSPORT, "cannot connect to", String.valueOf(port));
    }

    @Test
    void refusedRdmaConnectionIsATransportError() throws IOException {
        int port = freePort();
        assertOneLine(Cli.run("ls", "rdma://127.0.0.1:" + port + "/export?mountport=" + server.port(),
                "--provider", "soft", "--connect-timeout", "5s"), ExitCode.TRANSPORT, "rdma://127.0.0.1:" + port);
    }

    @Test
    void refusedMountPortOfAnRdmaUrlSaysWhereMountGoes() throws IOException {
        int port = freePort();
        // an RDMA port nobody listens on (20049 may be a Linux guest's, forwarded): NFSv4 fails, NFSv3 needs MOUNT
        assertOneLine(Cli.run("ls", "rdma://127.0.0.1:" + freePort() + "/export?mountport=" + port, "--provider",
                "soft"),
                ExitCode.TRANSPORT, "MOUNT goes over TCP to port " + port, "--mount-port");
    }

    @Test
    void interruptingAMountThatWaitsIsAnInterruptionNotAConnectionFailure() throws Exception {
        // a MOUNT port whose accept queue is full: the kernel drops further handshakes, so connecting waits
        try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.List<java.net.Socket> queued = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    java.net.Socket s = new java.net.Socket();
                    queued.add(s);
                    try {
                        s.connect(full.getLocalSocketAddress(), 300);
                    } catch (IOException e) {
                        break; // the queue is full
                    }
                }
                Cli.Running ls = Cli.start("ls", "rdma://127.0.0.1:" + freePort() + "/export?mountport="
                        + full.getLocalPort(),
                        "--provider", "soft", "--connect-timeout", "60s");
                Thread.sleep(1000); // most likely connecting by now; earlier or later reads the same
                Cli.Result r = ls.interrupt(30);
                assertOneLine(r, ExitCode.INTERRUPTED, "rpcrdma ls: interrupted");
                assertThat(r.err()).doesNotContain("MOUNT goes over TCP");
            } finally {
                for (java.net.Socket s : queued) {
                    s.close();
                }
            }
        }
    }

    @Test
    void unknownHostIsATransportError() {
        assertOneLine(Cli.run("ls", "tcp://no-such-host.invalid/export"), ExitCode.TRANSPORT,
                "unknown host: no-such-host.invalid");
    }

    @Test
    void missingExportIsAnNfsError() {
        String url = "tcp://127.0.0.1:" + server.port() + "/nope";
        assertOneLine(Cli.run("ls", url), ExitCode.NFS, "mount refused", "MNT3ERR_ACCES: /nope",
                "(not exported, or not to this host)");
    }

    @Test
    void missingRemoteFileIsAnNfsErrorNamingIt() {
        assertOneLine(Cli.run("stat", server.url(), "/no/such"), ExitCode.NFS, "/no/such: no such file or directory");
        assertOneLine(Cli.run("get", server.url(), "/missing", temp.toString()), ExitCode.NFS,
                "/missing: no such file or directory");
        assertOneLine(Cli.run("ls", server.url(), "/missing"), ExitCode.NFS, "/missing: no such file or directory");
    }

    @Test
    void getOfADirectoryIsRefused() {
        assertOneLine(Cli.run("get", server.url(), "/", temp.resolve("x").toString()), ExitCode.NFS,
                "is a directory");
    }

    @Test
    void missingLocalFileIsALocalError() {
        Path missing = temp.resolve("not-here");
        assertOneLine(Cli.run("put", server.url(), missing.toString()), ExitCode.LOCAL, missing.toString(),
                "no such local file");
    }

    @Test
    void downloadIntoAMissingLocalDirectoryIsALocalError() {
        Path target = temp.resolve("no-dir/file");
        assertOneLine(Cli.run("get", server.url(), "/file", target.toString()), ExitCode.LOCAL,
                "no such local directory");
    }

    @Test
    void disniWithoutItsNativeLibrarySaysWhyAndPointsToTheSoftProvider() {
        org.junit.jupiter.api.Assumptions.assumeFalse(disniAvailable(), "libdisni is present here");
        assertOneLine(Cli.run("ls", "rdma://127.0.0.1:20049/export", "--provider", "disni"), ExitCode.PROVIDER,
                "DiSNI", "use --provider soft");
    }

    private static boolean disniAvailable() {
        try {
            RdmaProviders.select("disni");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void unknownProviderAndBadDeviceOptionAreProviderErrors() {
        assertOneLine(Cli.run("ls", "rdma://127.0.0.1:20049/export", "--provider", "warp"), ExitCode.PROVIDER,
                "no RDMA provider named 'warp'");
        assertOneLine(Cli.run("ls", "rdma://127.0.0.1:20049/export", "--provider", "soft", "--device-option",
                "bogus=1"), ExitCode.PROVIDER, "unknown option 'bogus'");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertOneLine(Cli.run("ls", "ftp://host/x"), ExitCode.USAGE, "unknown scheme 'ftp'");
        assertOneLine(Cli.run("ls", "not a url"), ExitCode.USAGE, "rpcrdma ls --help");
        assertOneLine(Cli.run("ls", server.url(), "--credits", "0"), ExitCode.USAGE, "--credits");
        assertOneLine(Cli.run("ls", server.url(), "--timeout", "soon"), ExitCode.USAGE, "not a duration");
        assertOneLine(Cli.run("ls", server.url(), "--registration", "magic"), ExitCode.USAGE,
                "unknown registration mode");
        assertOneLine(Cli.run("ls", server.url(), "--inline-send", "100"), ExitCode.USAGE, "--inline-send");
        assertOneLine(Cli.run("ls", server.url(), "--transport", "udp"), ExitCode.USAGE, "--transport");
        assertOneLine(Cli.run("ls", server.url(), "--no-such-option"), ExitCode.USAGE, "--no-such-option");
        assertOneLine(Cli.run("frobnicate"), ExitCode.USAGE, "frobnicate");
        assertOneLine(Cli.run(), ExitCode.USAGE, "missing command");
        assertOneLine(Cli.run("get", server.url()), ExitCode.USAGE, "REMOTE");
    }

    @Test
    void verboseAddsTheStackTrace() {
        Cli.Result r = Cli.run("stat", server.url(), "/no/such", "--verbose");
        assertThat(r.code()).isEqualTo(ExitCode.NFS.code());
        assertThat(r.err()).contains("/no/such: no such file or directory").contains("\tat ");
    }

    @Test
    void helpListsCommandsAndExitCodes() {
        Cli.Result r = Cli.run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("Commands:").contains("ls").contains("Exit codes:")
                .contains("130").contains("connection or transport failure");
    }
}

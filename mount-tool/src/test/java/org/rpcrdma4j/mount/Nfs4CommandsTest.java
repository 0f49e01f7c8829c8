package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.v4.state.StateConfig;

/** The one-shot commands (ls, put, stat, get) over NFSv4.1 and 4.2 ({@code ?vers=} in the URL) against the embedded server over TCP. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Nfs4CommandsTest {
    @TempDir
    static Path temp;
    private Path exported;
    private Path local;
    private TcpServerFixture server;

    @BeforeAll
    void start() throws IOException {
        exported = Files.createDirectories(temp.resolve("exported"));
        local = Files.createDirectories(temp.resolve("local"));
        Files.createDirectories(exported.resolve("sub"));
        Files.write(exported.resolve("hello.txt"), "hello, world\n".getBytes());
        StateConfig d = StateConfig.defaults();
        server = new TcpServerFixture(exported, new StateConfig(Duration.ofSeconds(60), Duration.ZERO,
                d.foreLimits(), d.backLimits(), d.maxSessionsPerClient()));
    }

    @AfterAll
    void stop() throws IOException {
        server.close();
    }

    @ParameterizedTest(name = "vers={0}")
    @ValueSource(strings = {"4.1", "4.2"})
    void lsPutStatGetSpeakTheVersionAsked(String vers) throws IOException {
        String url = server.url() + "?vers=" + vers;
        long compounds = server.server().nfs4().compounds();
        Cli.Result ls = Cli.run("ls", url);
        assertThat(ls.code()).as(ls.toString()).isZero();
        assertThat(ls.out().lines()).contains("hello.txt", "sub/");

        byte[] data = new byte[(1 << 20) + 4097];
        new Random(vers.hashCode()).nextBytes(data);
        Path src = Files.write(local.resolve("up-" + vers + ".bin"), data);
        Cli.Result put = Cli.run("put", url, src.toString(), "/sub/up-" + vers + ".bin");
        assertThat(put.code()).as(put.toString()).isZero();
        assertThat(Files.readAllBytes(exported.resolve("sub/up-" + vers + ".bin"))).isEqualTo(data);

        Cli.Result stat = Cli.run("stat", url, "/sub/up-" + vers + ".bin");
        assertThat(stat.code()).as(stat.toString()).isZero();
        assertThat(stat.out()).contains("Type: regular file").contains("Size: " + data.length + " ");

        Path back = local.resolve("back-" + vers + ".bin");
        Cli.Result get = Cli.run("get", url, "/sub/up-" + vers + ".bin", back.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(data);
        assertThat(server.server().nfs4().compounds() - compounds).as("NFSv4 COMPOUNDs served").isPositive();
    }

    @ParameterizedTest(name = "vers={0}")
    @ValueSource(strings = {"4.1", "4.2"})
    void statsSayWhichVersionWasMountedAndCountTheOperations(String vers) throws IOException {
        Path src = Files.write(local.resolve("stats-" + vers + ".bin"), new byte[70_000]);
        Cli.Result text = Cli.run("put", "--stats", server.url() + "?vers=" + vers, src.toString(),
                "/stats-" + vers + ".bin");
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("p/v: 100003/4 (nfs " + vers + ")")
                .containsPattern("\\s+EXCHANGE_ID: 1 0 0 0 ")
                .containsPattern("\\s+CREATE_SESSION: 1 0 0 0 ")
                .containsPattern("\\s+OPEN: [1-9] 0 0 0 ")
                .containsPattern("\\s+WRITE: 1 0 0 70000 ")
                .containsPattern("\\s+CLOSE: [1-9] 0 0 0 ")
                .doesNotContain("MKDIR:");
        Cli.Result json = Cli.run("stats", "--json", server.url() + "?vers=" + vers);
        assertThat(json.code()).as(json.toString()).isZero();
        assertThat(json.out()).contains("\"nfs_version\": \"" + vers + "\"").contains("\"EXCHANGE_ID\"");
    }

    /** As mount.nfs: without vers, the newest version the server speaks. */
    @org.junit.jupiter.api.Test
    void withoutVersTheCommandsSpeakNfs42() {
        long compounds = server.server().nfs4().compounds();
        Cli.Result ls = Cli.run("ls", server.url());
        assertThat(ls.code()).as(ls.toString()).isZero();
        assertThat(ls.out().lines()).contains("hello.txt", "sub/");
        assertThat(server.server().nfs4().compounds() - compounds).as("NFSv4 COMPOUNDs served").isPositive();
        Cli.Result stats = Cli.run("stats", server.url());
        assertThat(stats.out()).contains("p/v: 100003/4 (nfs 4.2)");
        Cli.Result v3 = Cli.run("stats", server.url() + "?vers=3");
        assertThat(v3.out()).contains("p/v: 100003/3 (nfs)").containsPattern("\\s+NULL: [1-9][0-9]* ");
    }

    @org.junit.jupiter.api.Test
    void lockTakesTestsWaitsAndNamesTheLockInItsWay() throws Exception {
        String url = server.url() + "?vers=4.2";
        Files.write(exported.resolve("locked.db"), new byte[100]);
        Cli.Result free = Cli.run("lock", url, "/locked.db", "--test");
        assertThat(free.code()).as(free.toString()).isZero();
        assertThat(free.out()).contains("free: a WRITE lock of bytes 0-end of /locked.db can be taken");
        Cli.Result taken = Cli.run("lock", url, "/locked.db", "--read", "--offset", "10", "--length", "5");
        assertThat(taken.code()).as(taken.toString()).isZero();
        assertThat(taken.out()).contains("locked: READ lock of bytes 10-14 of /locked.db").contains("unlocked");

        try (Nfs41Client other = Nfs41Client.mount(server.url() + "?vers=4.1")) {
            FileHandle fh = other.resolve("/locked.db");
            other.lock(fh, LockType.WRITE, 0, 100);
            Cli.Result held = Cli.run("lock", url, "/locked.db", "--test");
            assertThat(held.code()).as(held.toString()).isEqualTo(ExitCode.NFS.code());
            assertThat(held.out()).contains("held elsewhere: WRITE lock of bytes 0-99 held by client "
                    + Long.toHexString(other.session().clientId()));
            Cli.Result denied = Cli.run("lock", url, "/locked.db", "--read");
            assertThat(denied.code()).as(denied.toString()).isEqualTo(ExitCode.NFS.code());
            assertThat(denied.err()).contains("NFS4ERR_DENIED").contains("WRITE lock of bytes 0-99");

            CompletableFuture<Cli.Result> waiting = CompletableFuture.supplyAsync(() -> Cli.run("lock", url,
                    "/locked.db", "--wait", "60s"));
            Thread.sleep(300);
            assertThat(waiting).as("granted while the other client held its lock").isNotDone();
            other.unlock(fh, 0, 100);
            Cli.Result got = waiting.get(60, TimeUnit.SECONDS);
            assertThat(got.code()).as(got.toString()).isZero();
            assertThat(got.out()).contains("locked: WRITE lock of bytes 0-end").contains("unlocked");
        }
        Cli.Result v3 = Cli.run("lock", server.url() + "?vers=3", "/locked.db");
        assertThat(v3.code()).as(v3.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(v3.err()).contains("NFSv4.1 or later");
    }

    @org.junit.jupiter.api.Test
    void cpCopiesWithinTheServerIntoAFileOrADirectoryAndNeedsNfs42() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 5];
        new Random(61).nextBytes(data);
        Files.write(exported.resolve("big.bin"), data);
        Files.write(exported.resolve("old.bin"), new byte[10 * 1024 * 1024]);
        Cli.Result cp = Cli.run("cp", server.url(), "/big.bin", "/old.bin");
        assertThat(cp.code()).as(cp.toString()).isZero();
        assertThat(cp.out()).contains("/big.bin -> /old.bin: " + data.length + " bytes copied within the server");
        assertThat(Files.readAllBytes(exported.resolve("old.bin"))).as("replaced by the copy").isEqualTo(data);
        Cli.Result self = Cli.run("cp", server.url(), "/big.bin", "/");
        assertThat(self.code()).as(self.toString()).isZero();
        assertThat(Files.readAllBytes(exported.resolve("big.bin"))).as("a copy onto itself leaves it whole")
                .isEqualTo(data);
        Cli.Result into = Cli.run("cp", server.url() + "?vers=4.2", "big.bin", "/sub");
        assertThat(into.code()).as(into.toString()).isZero();
        assertThat(Files.readAllBytes(exported.resolve("sub/big.bin"))).isEqualTo(data);

        for (String vers : new String[] {"3", "4.1"}) {
            Cli.Result old = Cli.run("cp", server.url() + "?vers=" + vers, "/big.bin", "/other.bin");
            assertThat(old.code()).as(old.toString()).isEqualTo(ExitCode.USAGE.code());
            assertThat(old.err()).contains("needs NFSv4.2").contains("speaks NFS " + vers);
        }
        assertThat(exported.resolve("other.bin")).doesNotExist();
        Cli.Result clone = Cli.run("cp", "--clone", server.url(), "/big.bin", "/other.bin");
        assertThat(clone.code()).as("a directory's file system shares no storage: %s", clone)
                .isEqualTo(ExitCode.NFS.code());
        assertThat(clone.err()).contains("/other.bin");
        Cli.Result missing = Cli.run("cp", server.url(), "/nothing", "/other.bin");
        assertThat(missing.code()).as(missing.toString()).isEqualTo(ExitCode.NFS.code());
        assertThat(exported.resolve("other.bin")).doesNotExist();
        try (var left = Files.list(exported)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no temporary file left")
                    .noneMatch(n -> n.startsWith("."));
        }
    }
}

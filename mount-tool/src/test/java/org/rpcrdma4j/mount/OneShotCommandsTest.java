package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** ls, stat, df, get, put and stats against the embedded server over TCP: outputs, bytes, error statuses. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OneShotCommandsTest {
    @TempDir
    static Path temp;
    private Path exported;
    private Path local;
    private TcpServerFixture server;

    @BeforeAll
    void start() throws IOException {
        exported = Files.createDirectories(temp.resolve("exported"));
        local = Files.createDirectories(temp.resolve("local"));
        Files.createDirectories(exported.resolve("sub/deeper"));
        Files.createDirectories(exported.resolve("w/deeper"));
        Files.write(exported.resolve("hello.txt"), "hello, world\n".getBytes());
        Files.write(exported.resolve("sub/data.bin"), random(1, 70_001));
        server = new TcpServerFixture(exported);
    }

    @AfterAll
    void stop() throws IOException {
        server.close();
    }

    private static byte[] random(int seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void lsListsTheExportSortedWithDirectoriesMarked() {
        Cli.Result r = Cli.run("ls", server.url());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out().lines()).containsExactly("hello.txt", "sub/", "w/");
        Cli.Result sub = Cli.run("ls", "-l", server.url(), "/sub");
        assertThat(sub.code()).as(sub.toString()).isZero();
        assertThat(sub.out().lines()).hasSize(2);
        assertThat(sub.out().lines().filter(l -> l.endsWith(" data.bin")).findFirst().orElseThrow())
                .startsWith("-rw").contains(" 70001 ");
        assertThat(sub.out().lines().filter(l -> l.endsWith(" deeper/")).findFirst().orElseThrow()).startsWith("d");
    }

    @Test
    void statShowsTypeAndSize() {
        Cli.Result r = Cli.run("stat", server.url(), "sub/data.bin");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("  File: /sub/data.bin").contains("Type: regular file").contains("Size: 70001 ");
        Cli.Result dir = Cli.run("stat", server.url(), "/sub");
        assertThat(dir.out()).contains("Type: directory");
    }

    @Test
    void dfShowsTheExport() {
        Cli.Result r = Cli.run("df", server.url());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out().lines().toList()).hasSize(2);
        assertThat(r.out()).contains("Filesystem").contains("Avail").contains("/export");
    }

    @Test
    void putThenGetReturnsTheSameBytes() throws IOException {
        byte[] data = random(7, (1 << 20) + 4097);
        Path src = Files.write(local.resolve("up.bin"), data);
        Cli.Result put = Cli.run("put", server.url(), src.toString(), "/w/up.bin", "--io-size", "64k");
        assertThat(put.code()).as(put.toString()).isZero();
        assertThat(put.out()).contains("-> /w/up.bin: " + data.length + " bytes");
        assertThat(Files.readAllBytes(exported.resolve("w/up.bin"))).isEqualTo(data);

        Path back = local.resolve("back.bin");
        Cli.Result get = Cli.run("get", server.url(), "/w/up.bin", back.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(data);
        assertThat(leftovers(local)).isEmpty();
        assertThat(leftovers(exported.resolve("w"))).isEmpty();
    }

    @Test
    void getIntoADirectoryKeepsTheRemoteNameAndPutIntoADirectoryTheLocalOne() throws IOException {
        Path dir = Files.createDirectories(local.resolve("into"));
        Cli.Result get = Cli.run("get", server.url(), "hello.txt", dir.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readString(dir.resolve("hello.txt"))).isEqualTo("hello, world\n");

        Path src = Files.write(local.resolve("named.txt"), "named\n".getBytes());
        Cli.Result put = Cli.run("put", server.url(), src.toString(), "/w/deeper");
        assertThat(put.code()).as(put.toString()).isZero();
        assertThat(Files.readString(exported.resolve("w/deeper/named.txt"))).isEqualTo("named\n");
    }

    /** A name of 250 bytes, whose temporary name would pass 255 bytes if not cut short. */
    @Test
    void aNameOf250BytesRoundTrips() throws IOException {
        String name = "n".repeat(246) + ".bin";
        byte[] data = random(11, 5000);
        Path src = Files.write(local.resolve(name), data);
        Cli.Result put = Cli.run("put", server.url(), src.toString(), "/w/" + name);
        assertThat(put.code()).as(put.toString()).isZero();
        assertThat(Files.readAllBytes(exported.resolve("w").resolve(name))).isEqualTo(data);

        Path into = Files.createDirectories(local.resolve("long-back"));
        Cli.Result get = Cli.run("get", server.url(), "/w/" + name, into.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readAllBytes(into.resolve(name))).isEqualTo(data);
        assertThat(leftovers(into)).isEmpty();
        assertThat(leftovers(exported.resolve("w"))).isEmpty();
    }

    /**
     * put gives a new file the local file's permission bits, and a file it replaces keeps its own, as cp does (a
     * server may give a file made without a mode mode 0, as Linux's does).
     */
    @Test
    void putSendsTheLocalFilesModeForANewFileAndKeepsAReplacedFilesMode() throws IOException {
        Path src = Files.write(local.resolve("moded.sh"), "#!/bin/sh\n".getBytes());
        Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rwxr-x--x"));
        for (String version : new String[] {"3", "4.2"}) {
            String name = "/w/moded-" + version + ".sh";
            Cli.Result put = Cli.run("put", server.url() + "?vers=" + version, src.toString(), name);
            assertThat(put.code()).as(put.toString()).isZero();
            Path made = exported.resolve(name.substring(1));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made))).as("NFS %s", version)
                    .isEqualTo("rwxr-x--x");
        }

        Path kept = Files.write(exported.resolve("w/kept.txt"), "old\n".getBytes());
        Files.setPosixFilePermissions(kept, PosixFilePermissions.fromString("rw-------"));
        Path newer = Files.write(local.resolve("kept.txt"), "new\n".getBytes());
        Files.setPosixFilePermissions(newer, PosixFilePermissions.fromString("rwxrwxr-x"));
        Cli.Result replace = Cli.run("put", server.url(), newer.toString(), "/w/kept.txt");
        assertThat(replace.code()).as(replace.toString()).isZero();
        assertThat(Files.readString(kept)).isEqualTo("new\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(kept))).isEqualTo("rw-------");
    }

    @Test
    void emptyFileRoundTrips() throws IOException {
        Path src = Files.write(local.resolve("empty"), new byte[0]);
        assertThat(Cli.run("put", server.url(), src.toString(), "/w/deeper/empty").code()).isZero();
        Path back = local.resolve("empty.back");
        assertThat(Cli.run("get", server.url(), "/w/deeper/empty", back.toString()).code()).isZero();
        assertThat(Files.size(back)).isZero();
    }

    @Test
    void statsPrintsPerOperationCountersAsTextAndJson() {
        Cli.Result text = Cli.run("stats", server.url());
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).startsWith("device 127.0.0.1:/export mounted on tcp://127.0.0.1:")
                .contains("per-op statistics").containsPattern("GETATTR: 1 0 0 0 ");
        Cli.Result json = Cli.run("stats", "--json", server.url());
        assertThat(json.code()).as(json.toString()).isZero();
        assertThat(json.out()).startsWith("{").contains("\"transport\": \"tcp\"").contains("\"FSINFO\": {");
    }

    @Test
    void statsOptionAfterAnotherCommand() {
        Cli.Result r = Cli.run("ls", server.url(), "--stats");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("hello.txt").contains("per-op statistics").containsPattern("READDIR(PLUS)?: 1 ");
    }

    static java.util.List<String> leftovers(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.contains(".part-")).toList();
        }
    }
}

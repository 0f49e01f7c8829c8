package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.mount.server.EmbeddedServer;

/**
 * The client commands over rdma:// against the embedded server on the software device: bytes round-trip, the
 * transport options reach the transport (registration modes, CRC, inline sizes, credits), counters show the chunks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaCommandsTest {
    @TempDir
    static Path temp;
    private Path exported;
    private Path local;
    private EmbeddedServer server;
    private String url;

    @BeforeAll
    void start() throws IOException {
        exported = Files.createDirectories(temp.resolve("exported"));
        local = Files.createDirectories(temp.resolve("local"));
        Files.createDirectories(exported.resolve("dir"));
        Files.writeString(exported.resolve("dir/hello.txt"), "hello over rdma\n");
        server = EmbeddedServer.start(EmbeddedServer.Settings.local(exported, "/export", "soft", Map.of()));
        url = server.rdmaUrl("127.0.0.1");
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static byte[] random(int seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static long counter(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(json);
        assertThat(m.find()).as(name + " in " + json).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** put then get of {@code data} with extra options; returns the JSON counters of the get. */
    private String roundTrip(String name, byte[] data, String... options) throws IOException {
        Path src = Files.write(local.resolve(name), data);
        String[] put = concat(new String[] {"put", url, src.toString(), "/" + name}, options);
        Cli.Result p = Cli.run(put);
        assertThat(p.code()).as(p.toString()).isZero();
        assertThat(Files.readAllBytes(exported.resolve(name))).isEqualTo(data);
        Path back = local.resolve(name + ".back");
        String[] get = concat(new String[] {"get", url, "/" + name, back.toString(), "--stats", "--json"}, options);
        Cli.Result g = Cli.run(get);
        assertThat(g.code()).as(g.toString()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(data);
        return g.out();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void getAndPutMoveBulkDataThroughChunks() throws IOException {
        byte[] data = random(1, (2 << 20) + 3);
        String json = roundTrip("chunks.bin", data);
        assertThat(json).contains("\"transport\": \"rdma\"").contains("\"mountstats\": \"xprt:\\trdma 0 0 1 ");
        assertThat(counter(json, "write_chunk_count")).as("READ data through write chunks").isPositive();
        assertThat(counter(json, "connects")).isEqualTo(1);
    }

    @Test
    void everyRegistrationModeWorks() throws IOException {
        for (String mode : new String[] {"frwr", "fmr", "regmr"}) {
            String json = roundTrip("reg-" + mode, random(2, 300_000), "--registration", mode);
            long hardway = counter(json, "hardway_register_count");
            if (mode.equals("regmr")) {
                assertThat(hardway).as("synchronous registrations are counted").isPositive();
            } else {
                assertThat(hardway).as(mode).isZero();
            }
        }
    }

    @Test
    void transportOptionsReachTheTransport() throws IOException {
        String json = roundTrip("opts.bin", random(3, 200_001), "--inline-send", "1k", "--inline-recv", "2k",
                "--credits", "4", "--device-option", "crc=true", "--io-size", "64k", "--window", "2");
        assertThat(counter(json, "inline_send")).isEqualTo(1024);
        assertThat(counter(json, "inline_recv")).isEqualTo(2048);
        assertThat(counter(json, "credits_granted")).isLessThanOrEqualTo(4);
        assertThat(counter(json, "calls_in_flight")).isZero();
    }

    @Test
    void lsStatDfAndStatsOverRdma() {
        Cli.Result ls = Cli.run("ls", "-l", url, "/dir");
        assertThat(ls.code()).as(ls.toString()).isZero();
        assertThat(ls.out()).containsPattern("-rw\\S+ +1 .* 16 .* hello\\.txt");
        Cli.Result stat = Cli.run("stat", url, "/dir/hello.txt");
        assertThat(stat.out()).contains("Size: 16 ");
        Cli.Result df = Cli.run("df", url);
        assertThat(df.out()).contains("/export");
        Cli.Result stats = Cli.run("stats", url);
        assertThat(stats.code()).as(stats.toString()).isZero();
        assertThat(stats.out()).containsPattern("\txprt:\trdma( \\d+){27}\n").contains("read_chunk_count")
                .contains("NULL: 1 0 0 0");
    }

    @Test
    void shellOverRdma() throws IOException {
        byte[] data = random(4, 1 << 20);
        Path src = Files.write(local.resolve("shell.bin"), data);
        Cli.Result r = Cli.runWithInput(String.join("\n", "cd dir", "put " + src, "cat hello.txt",
                "get shell.bin " + local.resolve("shell.back"), "rm shell.bin", "ls", "stats") + "\n", "shell", url);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("hello over rdma\n").contains("xprt:\trdma");
        assertThat(Files.readAllBytes(local.resolve("shell.back"))).isEqualTo(data);
        assertThat(exported.resolve("dir/shell.bin")).doesNotExist();
    }

    @Test
    void benchOverRdmaAndOverTcpOnTheSameServer() {
        Cli.Result rdma = Cli.run("bench", url, "--time", "200ms", "--file-size", "2M", "--size", "256k", "--depth",
                "4", "--workload", "seqwrite,randread");
        assertThat(rdma.code()).as(rdma.toString()).isZero();
        assertThat(rdma.out()).startsWith("bench rdma://").containsPattern("(?m)^seqwrite +[1-9]\\d*")
                .containsPattern("(?m)^randread +[1-9]\\d*");
        Cli.Result tcp = Cli.run("bench", url, "--transport", "tcp", "--time", "200ms", "--file-size", "2M",
                "--size", "256k", "--depth", "4", "--workload", "seqread");
        assertThat(tcp.code()).as(tcp.toString()).isZero();
        assertThat(tcp.out()).startsWith("bench tcp://127.0.0.1:" + server.tcpPort() + "/export")
                .containsPattern("(?m)^seqread +[1-9]\\d*");
    }

    @Test
    void missingExportOverRdmaIsAnNfsError() {
        Cli.Result r = Cli.run("ls", url.replace("/export?", "/nope?"));
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.NFS.code());
        assertThat(r.err()).contains("MNT3ERR_ACCES");
    }
}

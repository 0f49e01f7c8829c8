package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.nfs.vfs.LocalVfs;

/**
 * {@code check}: random I/O against the embedded server over RDMA with NFSv4.2 and NFSv3 passes, removes its file and
 * says what it did; the same seed runs the same operations; a server that returns wrong READ data fails the check
 * with status 6, the operation and the seed named, and the file kept; short READs are no difference; Ctrl-C ends it
 * with status 130 and its file removed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckCommandTest {
    @TempDir
    Path temp;

    private static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void randomIoOverRdmaPassesAndLeavesNothingBehind() throws IOException {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.Settings.local(exported, "/export", "soft",
                Map.of()))) {
            String url = server.rdmaUrl("127.0.0.1");
            Cli.Result v4 = Cli.run("check", url, "--ops", "300", "--file-size", "2M", "--stats");
            assertThat(v4.code()).as(v4.toString()).isZero();
            assertThat(v4.out()).contains("(NFSv4.2)").contains("300 operations").contains("ok: seed ")
                    .contains("BURST");
            assertThat(v4.out()).as("the transport's counters (--stats)").containsPattern("xprt:\\trdma ");
            Cli.Result v3 = Cli.run("check", url + "&vers=3", "--ops", "300", "--no-holes", "--seed", "7");
            assertThat(v3.code()).as(v3.toString()).isZero();
            assertThat(v3.out()).contains("(NFSv3)").contains("seed 7,").contains("no holes").contains("ok: seed 7,");
            assertThat(names(exported)).as("the check's files removed").isEmpty();

            Cli.Result again = Cli.run("check", url + "&vers=3", "--ops", "300", "--no-holes", "--seed", "7");
            assertThat(summary(again.out())).as("the same seed, the same operations").isEqualTo(summary(v3.out()));
        }
    }

    /** What a run did, without its times. */
    private static String summary(String out) {
        Matcher m = Pattern.compile("ok: (.*), in [0-9.]+ s").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return m.group(1).replaceAll(" \\([0-9]+ us each\\)", "");
    }

    @Test
    void shortReadsAreNoDifference() throws IOException {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        GateVfs vfs = new GateVfs(LocalVfs.open(exported));
        try (TcpServerFixture server = new TcpServerFixture(vfs)) {
            vfs.shortReads();
            Cli.Result r = Cli.run("check", server.url() + "?vers=3", "--ops", "300");
            assertThat(r.code()).as(r.toString()).isZero();
            assertThat(r.out()).containsPattern("size \\d+, \\d+ short READs");
            assertThat(names(exported)).isEmpty();
        }
    }

    @Test
    void ctrlCEndsTheCheckAndRemovesItsFile() throws Exception {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        GateVfs vfs = new GateVfs(LocalVfs.open(exported));
        try (TcpServerFixture server = new TcpServerFixture(vfs)) {
            try {
                vfs.holdWrites();
                // far more operations than run before the interrupt
                Cli.Running check = Cli.start("check", server.url(), "--ops", "1000000", "--file", "/interrupted");
                assertThat(vfs.awaitHeld(30)).as("the check reached the server").isTrue();
                vfs.release(); // the server goes on answering, as a real one would
                Cli.Result r = check.interrupt(30);
                assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INTERRUPTED.code());
                assertThat(names(exported)).as("the check's file removed").isEmpty();
            } finally {
                vfs.release();
            }
        }
    }

    @Test
    void wrongReadDataFailsTheCheckAndKeepsTheFile() throws IOException {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        GateVfs vfs = new GateVfs(LocalVfs.open(exported));
        try (TcpServerFixture server = new TcpServerFixture(vfs)) {
            vfs.corruptReads();
            Cli.Result r = Cli.run("check", server.url(), "--ops", "500", "--seed", "11", "--file", "/checked");
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.VERIFY.code());
            assertThat(r.err()).contains("/checked: seed 11: READ off").contains("expected")
                    .contains("the last operations").contains("run again with --seed 11");
            assertThat(names(exported)).as("the file kept for a look").containsExactly("checked");
        }
    }
}

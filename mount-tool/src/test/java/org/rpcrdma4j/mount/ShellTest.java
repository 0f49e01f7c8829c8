package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The shell driven through standard input, against the embedded server over TCP. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShellTest {
    @TempDir
    Path temp;
    private Path exported;
    private Path local;
    private TcpServerFixture server;

    @BeforeEach
    void start() throws IOException {
        exported = Files.createDirectories(temp.resolve("exported"));
        local = Files.createDirectories(temp.resolve("local"));
        server = new TcpServerFixture(exported);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private Cli.Result shell(String... lines) {
        return Cli.runWithInput(String.join("\n", lines) + "\n", "shell", server.url());
    }

    @Test
    void aScriptedSessionMakesDirectoriesCopiesMovesAndRemoves() throws IOException {
        byte[] data = new byte[300_001];
        new Random(3).nextBytes(data);
        Path src = Files.write(local.resolve("blob.bin"), data);
        Files.writeString(local.resolve("note.txt"), "grüße über RDMA\nsecond line\n");
        Cli.Result r = shell(
                "mkdir docs 'with space'",
                "cd docs",
                "pwd",
                "put " + src,
                "cp blob.bin ../blob2.bin",
                "put \"" + local.resolve("note.txt") + "\" note.txt",
                "ls -l",
                "cat note.txt",
                "mv note.txt ../with\\ space",
                "cd ..",
                "ls 'with space'",
                "stat docs/blob.bin",
                "get docs/blob.bin " + local.resolve("copy.bin"),
                "rm docs/blob.bin",
                "rmdir docs",
                "ls",
                "df",
                "stats",
                "quit",
                "ls this line is never run");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).as(r.toString()).isEmpty();
        assertThat(r.out()).contains("/docs\n")
                .contains("-> /docs/blob.bin: 300001 bytes")
                .contains("/blob2.bin: 300001 bytes copied within the server")
                .contains("grüße über RDMA\nsecond line\n")
                .contains("  File: /docs/blob.bin")
                .contains("Size: 300001 ")
                .contains("Filesystem")
                .contains("per-op statistics")
                .doesNotContain("never run");
        assertThat(r.out()).containsPattern("-rw\\S+ +1 .* 300001 .* blob\\.bin");
        assertThat(Files.readAllBytes(local.resolve("copy.bin"))).isEqualTo(data);
        assertThat(Files.readAllBytes(exported.resolve("blob2.bin"))).isEqualTo(data);
        assertThat(Files.readString(exported.resolve("with space/note.txt"))).startsWith("grüße");
        assertThat(exported.resolve("docs")).doesNotExist();
        // the final listing shows only what is left
        String last = r.out().substring(r.out().lastIndexOf("Size: 300001"));
        assertThat(last).containsPattern("(?m)^with space/$").doesNotContainPattern("(?m)^docs/$");
    }

    @Test
    void failuresPrintOneLineAndTheSessionGoesOn() {
        Cli.Result r = shell(
                "cd nowhere",
                "frobnicate",
                "cat 'unclosed",
                "rm /",
                "mkdir ok",
                "mkdir ok",
                "pwd");
        assertThat(r.err().lines().toList()).as(r.toString()).containsExactly(
                "cd: /nowhere: no such file or directory",
                "frobnicate: unknown command (type 'help')",
                "shell: unclosed ' quote",
                "rm: /: is a directory (use rmdir)",
                "mkdir: /ok: file exists");
        assertThat(r.out()).endsWith("/\n");
        assertThat(exported.resolve("ok")).isDirectory();
        assertThat(r.code()).as("the last failure's status").isEqualTo(ExitCode.NFS.code());
    }

    @Test
    void endOfInputEndsTheSession() {
        Cli.Result r = Cli.runWithInput("", "shell", server.url());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).isEmpty();
    }

    @Test
    void helpListsEveryCommand() {
        Cli.Result r = shell("help");
        for (String c : new String[] {"ls", "cd", "pwd", "stat", "get", "put", "cat", "rm", "mkdir", "rmdir", "mv",
                "cp", "df", "stats", "help", "quit"}) {
            assertThat(r.out()).containsPattern("(?m)^" + c + " ");
        }
    }
}

package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.mount.cli.ClientOptions;
import org.rpcrdma4j.mount.cli.Durations;
import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Transfers;
import org.rpcrdma4j.mount.shell.Words;
import org.rpcrdma4j.nfs.client.NfsUrl;
import picocli.CommandLine;

/** The small parsers: sizes, durations, shell words, remote paths, verbosity, transport overrides. */
class ParsingTest {
    @Test
    void sizes() {
        assertThat(Sizes.parse("4096")).isEqualTo(4096);
        assertThat(Sizes.parse("4k")).isEqualTo(4096);
        assertThat(Sizes.parse("1M")).isEqualTo(1 << 20);
        assertThat(Sizes.parse("1MiB")).isEqualTo(1 << 20);
        assertThat(Sizes.parse("2 g")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> Sizes.parse("lots")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> Sizes.parse("99999999999999T")).hasMessageContaining("too large");
        assertThat(Sizes.format(1000)).isEqualTo("1000 B");
        assertThat(Sizes.format(4095)).isEqualTo("4.0 KiB");
        assertThat(Sizes.format((1 << 20) + (1 << 19))).isEqualTo("1.5 MiB");
    }

    @Test
    void durations() {
        assertThat(Durations.parse("10")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("not a duration");
    }

    @Test
    void shellWords() {
        assertThat(Words.split("  put 'a b'  \"c d\" e\\ f # comment")).containsExactly("put", "a b", "c d", "e f");
        assertThat(Words.split("")).isEmpty();
        assertThat(Words.split("ls ''")).containsExactly("ls", "");
        assertThat(Words.split("cat it\\'s")).containsExactly("cat", "it's");
        assertThatThrownBy(() -> Words.split("cat \"open")).hasMessageContaining("unclosed");
    }

    @Test
    void remotePaths() {
        assertThat(RemotePaths.resolve("/a/b", "../c/./d")).isEqualTo("/a/c/d");
        assertThat(RemotePaths.resolve("/a", "/x//y/")).isEqualTo("/x/y");
        assertThat(RemotePaths.resolve("/", "../../..")).isEqualTo("/");
        assertThat(RemotePaths.parent("/a/b")).isEqualTo("/a");
        assertThat(RemotePaths.parent("/a")).isEqualTo("/");
        assertThat(RemotePaths.name("/a/b.txt")).isEqualTo("b.txt");
        assertThat(RemotePaths.name("/")).isEmpty();
    }

    @Test
    void temporaryNamesAreHiddenAndRecognised() {
        String t = Transfers.temporaryName("data.bin");
        assertThat(t).startsWith(".data.bin.part-");
        assertThat(Transfers.isTemporaryName(t)).isTrue();
        assertThat(Transfers.isTemporaryName("data.bin")).isFalse();
        assertThat(Transfers.temporaryName("data.bin")).isNotEqualTo(t);
    }

    /** A temporary name stays within 255 bytes of UTF-8, its name part cut between characters. */
    @Test
    void temporaryNamesOfLongNamesStayWithin255Bytes() {
        for (String name : new String[] {"n".repeat(250), "\u00e9".repeat(125), "\ud83d\ude00".repeat(63),
                "x" + "\u20ac".repeat(83)}) {
            String t = Transfers.temporaryName(name);
            assertThat(t.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).as(t).isBetween(252, 255);
            assertThat(Transfers.isTemporaryName(t)).isTrue();
            String part = t.substring(1, t.lastIndexOf(".part-"));
            assertThat(name).startsWith(part);
            assertThat(Character.isHighSurrogate(part.charAt(part.length() - 1))).as("no pair cut in two").isFalse();
        }
        assertThat(Transfers.temporaryName("n".repeat(240))).startsWith("." + "n".repeat(240) + ".part-");
    }

    @Test
    void verbosityIsCountedBeforeParsing() {
        assertThat(Logging.verbosity(new String[] {"ls", "url"})).isZero();
        assertThat(Logging.verbosity(new String[] {"-vv", "ls"})).isEqualTo(2);
        assertThat(Logging.verbosity(new String[] {"ls", "--verbose", "-v"})).isEqualTo(2);
        assertThat(Logging.verbosity(new String[] {"get", "--", "-v"})).isZero();
    }

    private static ClientOptions options(String... args) {
        ClientOptions o = new ClientOptions();
        new CommandLine(new Object() {
            @CommandLine.Mixin
            ClientOptions mixin = o;
        }).parseArgs(args);
        return o;
    }

    @Test
    void transportOverrideKeepsTheServer() {
        NfsUrl rdma = NfsUrl.parse("rdma://h:30000/e?mountport=3000");
        assertThat(options().effectiveUrl(rdma)).isEqualTo(rdma);
        assertThat(options("--transport", "tcp").effectiveUrl(rdma))
                .isEqualTo(new NfsUrl("tcp", "h", 3000, "/e", 3000));
        NfsUrl tcp = NfsUrl.parse("tcp://h:3000/e");
        assertThat(options("--transport", "rdma", "--rdma-port", "30000").effectiveUrl(tcp))
                .isEqualTo(new NfsUrl("rdma", "h", 30000, "/e", 3000));
        assertThat(options("--transport", "rdma").effectiveUrl(tcp).port()).isEqualTo(20049);
        assertThat(options("--mount-port", "111").effectiveUrl(rdma).mountPort()).isEqualTo(111);
    }
}

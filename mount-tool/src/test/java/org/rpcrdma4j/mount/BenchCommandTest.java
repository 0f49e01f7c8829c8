package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** bench against the embedded server over TCP: every workload moves data, percentiles are ordered, no file is left. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BenchCommandTest {
    private static final Pattern LINE = Pattern.compile(
            "(?m)^(seqwrite|seqread|randwrite|randread) +(\\d+) +([\\d.]+) +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(\\d+)$");

    @TempDir
    Path temp;
    private TcpServerFixture server;

    @BeforeEach
    void start() throws IOException {
        server = new TcpServerFixture(temp);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private List<String> exported() throws IOException {
        try (var s = Files.list(temp)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void everyWorkloadReportsThroughputAndOrderedPercentiles() throws IOException {
        Cli.Result r = Cli.run("bench", server.url(), "--time", "300ms", "--file-size", "2M", "--size", "64k",
                "--depth", "4");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("bench tcp://127.0.0.1:").contains("I/O 64.0 KiB, depth 4");
        Matcher m = LINE.matcher(r.out());
        int lines = 0;
        while (m.find()) {
            lines++;
            long ops = Long.parseLong(m.group(2));
            assertThat(ops).as(m.group()).isPositive();
            assertThat(Double.parseDouble(m.group(3))).as(m.group()).isPositive();
            long p50 = Long.parseLong(m.group(5));
            long p90 = Long.parseLong(m.group(6));
            long p99 = Long.parseLong(m.group(7));
            long p999 = Long.parseLong(m.group(8));
            long max = Long.parseLong(m.group(9));
            assertThat(p50).isLessThanOrEqualTo(p90);
            assertThat(p90).isLessThanOrEqualTo(p99);
            assertThat(p99).isLessThanOrEqualTo(p999);
            assertThat(p999).isLessThanOrEqualTo(max + 1);
        }
        assertThat(lines).as(r.toString()).isEqualTo(4);
        assertThat(exported()).as("the benchmark file is removed").isEmpty();
    }

    @Test
    void jsonOutputAndAKeptFile() throws IOException {
        Cli.Result r = Cli.run("bench", server.url(), "--duration", "200ms", "--file-size", "1M", "--size", "128k",
                "--outstanding", "3", "--workload", "seqread", "--json", "--file", "/kept.bin", "--keep");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("{").contains("\"workload\": \"seqread\"").contains("\"p99.9\"")
                .contains("\"transport\": \"tcp\"").contains("\"depth\": 3")
                .contains("\"seconds_per_workload\": 0.2");
        assertThat(Files.size(temp.resolve("kept.bin"))).as("prefilled for reading").isEqualTo(1 << 20);
    }

    @Test
    void anExistingFileIsNotOverwritten() throws IOException {
        Files.write(temp.resolve("precious"), new byte[] {42});
        Cli.Result r = Cli.run("bench", server.url(), "--time", "100ms", "--file-size", "1M", "--file", "/precious");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.NFS.code());
        assertThat(r.err()).contains("/precious: file exists");
        assertThat(Files.readAllBytes(temp.resolve("precious"))).containsExactly(42);
    }

    @Test
    void badSettingsAreUsageErrors() {
        assertThat(Cli.run("bench", server.url(), "--workload", "sideways").err()).contains("unknown workload");
        assertThat(Cli.run("bench", server.url(), "--depth", "0").code()).isEqualTo(ExitCode.USAGE.code());
        assertThat(Cli.run("bench", server.url(), "--size", "128M").code()).isEqualTo(ExitCode.USAGE.code());
    }
}

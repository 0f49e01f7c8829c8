package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's first command: the demo runs on its own, verifies every byte, and cleans up after itself. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DemoTest {
    /** 0 + 1 + 4095 + 4096 + 4097 + (1 MiB + 1) + 3 MiB + 1000 + (64 KiB + 13) + (2 MiB - 1). */
    private static final long FILE_SET_BYTES = 6_370_294L;

    @Test
    void demoVerifiesTheFileSetOverRdmaComparesWithTcpAndCleansUp() {
        Cli.Result r = Cli.run("demo", "--bench-time", "300ms");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).as(r.toString()).isEmpty();
        String out = r.out();
        assertThat(out).contains("Verified " + FILE_SET_BYTES + " bytes in 10 files over RDMA");
        assertThat(out.lines().filter(l -> l.endsWith("  ok"))).hasSize(10);
        assertThat(out).contains("Mounted over RDMA: CONNECTED").contains("credits granted 128");
        assertThat(out).containsPattern("(?m)^  RDMA +\\d+\\.\\d +\\d+\\.\\d$")
                .containsPattern("(?m)^  TCP +\\d+\\.\\d +\\d+\\.\\d$")
                .containsPattern("(?m)^  RDMA/TCP +\\d+\\.\\d\\dx +\\d+\\.\\d\\dx$");
        assertThat(out).containsPattern("\txprt:\trdma( \\d+){27}\n");
        assertThat(out).contains("/nested/deeper/two-mib-minus-one");
        Matcher temp = Pattern.compile("Temporary directory (\\S+)").matcher(out);
        assertThat(temp.find()).isTrue();
        assertThat(Files.exists(Path.of(temp.group(1)))).as("temporary directory removed").isFalse();
        assertThat(out).containsPattern("ports \\d+ and \\d+ closed");
    }
}

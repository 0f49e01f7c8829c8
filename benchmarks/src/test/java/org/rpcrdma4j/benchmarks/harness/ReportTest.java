package org.rpcrdma4j.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;

/** The tables' ratios and the targets' verdicts are computed from the figures, not written in. */
class ReportTest {

    private static Report figures(double rdmaRead, double tcpRead, double rdmaGetattr, double tcpGetattr) {
        Report r = new Report();
        r.put(Report.WIRE_TCP, 2000);
        r.put(NfsRow.READ_1M.figure(Client.RDMA), rdmaRead);
        r.put(NfsRow.READ_1M.figure(Client.TCP), tcpRead);
        r.put(NfsRow.WRITE_1M.figure(Client.RDMA), 600);
        r.put(NfsRow.WRITE_1M.figure(Client.TCP), 400);
        r.put(NfsRow.GETATTR_P50.figure(Client.RDMA), rdmaGetattr);
        r.put(NfsRow.GETATTR_P50.figure(Client.TCP), tcpGetattr);
        r.put(Report.MEM_DIRECT, 9 << 20);
        r.unavailable(NfsRow.READ_1M.figure(Client.EMC), "no portmapper on port 111");
        return r;
    }

    @Test
    void ratiosAndVerdictsFollowTheFigures() {
        String md = figures(1500, 1000, 50, 40).toMarkdown(HarnessConfig.fullRun());
        assertThat(md).contains("| READ 1 MiB sequential | MiB/s | 1,500 | 1,000 | n/a | 1.50× | – | 0.75× |");
        assertThat(md).contains("| READ 1 MiB over RDMA ≥ 1.3× oncrpc4j TCP | 1.50× | met |");
        assertThat(md).contains("| READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP | 0.75× | met |");
        assertThat(md).contains("| WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP | 1.50× | met |");
        assertThat(md).contains("| GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP | 1.25× | **missed** |");
        assertThat(md).contains("9.00 MiB | **missed** |");
        assertThat(md).contains("- n/a: no portmapper on port 111");

        String other = figures(1100, 1000, 30, 40).toMarkdown(HarnessConfig.fullRun());
        assertThat(other).contains("| READ 1 MiB over RDMA ≥ 1.3× oncrpc4j TCP | 1.10× | **missed** |");
        assertThat(other).contains("| GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP | 0.75× | met |");
    }

    @Test
    void quickRunsJudgeNoTargets() {
        assertThat(figures(1500, 1000, 50, 40).toMarkdown(HarnessConfig.quickRun())).doesNotContain("#### Targets");
    }
}

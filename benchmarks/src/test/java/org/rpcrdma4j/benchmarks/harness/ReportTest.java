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

    /** Records figures taken side by side: {@code a[i]} and {@code b[i]} in turn (or round) {@code i}. */
    private static void putTurns(Report r, String keyA, double[] a, String keyB, double[] b) {
        for (int i = 0; i < a.length; i++) {
            r.put(keyA, a[i]);
            r.put(keyB, b[i]);
        }
    }

    @Test
    void ratiosAndVerdictsFollowTheFigures() {
        String md = figures(1500, 1000, 50, 40).toMarkdown(HarnessConfig.fullRun());
        assertThat(md).contains("| READ 1 MiB sequential | MiB/s | 1,500 | 1,000 | n/a | – | – | 1.50× | – | 0.75× | – |");
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
    void figuresInRoundsAreMediansAndRatiosAreTakenWithinEachRound() {
        Report r = new Report();
        // raw TCP's mode changes between rounds; the device follows it
        double[] tcp = {4000, 2000, 3000};
        double[] write = {3200, 1800, 2850};
        putTurns(r, Report.WIRE_TCP, tcp, Report.WIRE_RDMA_WRITE, write);
        assertThat(r.figure(Report.WIRE_TCP).orElseThrow()).isEqualTo(3000);
        assertThat(r.figure(Report.WIRE_RDMA_WRITE).orElseThrow()).isEqualTo(2850);
        assertThat(r.rounds(Report.WIRE_TCP)).containsExactly(4000.0, 2000.0, 3000.0);
        // within rounds 0.80, 0.90, 0.95: median 0.90 (the medians' ratio would be 0.95)
        assertThat(r.ratios(Report.WIRE_RDMA_WRITE, Report.WIRE_TCP)).containsExactly(0.9, 0.8, 0.95);
        String md = r.toMarkdown(HarnessConfig.quickRun());
        assertThat(md).contains("| soft iWARP RDMA WRITE, 8 in flight | 2,850 | 0.90× (0.80-0.95) |");
        assertThat(md).contains("| 3,000 | 1.00× |");

        // an even number of rounds: the mean of the middle two; the targets judge the median ratio
        Report g = figures(1500, 1000, 50, 40);
        g.put(NfsRow.GETATTR_P50.figure(Client.RDMA), 30);
        g.put(NfsRow.GETATTR_P50.figure(Client.TCP), 40);
        assertThat(g.figure(NfsRow.GETATTR_P50.figure(Client.RDMA)).orElseThrow()).isEqualTo(40);
        assertThat(g.toMarkdown(HarnessConfig.fullRun()))
                .contains("| GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP | 1.00× (0.75-1.25) | met |");
        // rounds missing on one side: the ratio of the figures
        g.put(Report.WIRE_RDMA_READ, 1000);
        assertThat(g.ratios(Report.WIRE_RDMA_READ, Report.WIRE_TCP)).containsExactly(0.5);
    }

    @Test
    void deviceRowsAreJudgedOnTheRatiosWithinEachTurn() {
        Report r = new Report();
        // raw TCP's mode swings from turn to turn; the device stays put
        double[] tcp = {5000, 3000, 4000};
        double[] write = {3500, 3600, 3400};
        putTurns(r, Report.WIRE_TCP, tcp, Report.WIRE_RDMA_WRITE, write);
        String md = r.toMarkdown(HarnessConfig.fullRun());
        // within turns 0.70, 1.20, 0.85: median 0.85 (the medians' ratio would be 0.88)
        assertThat(md).contains("| soft iWARP RDMA WRITE, 8 in flight | 3,500 | 0.85× (0.70-1.20) |");
        assertThat(md)
                .contains("| soft iWARP RDMA WRITE 1 MiB ≥ 0.8× raw loopback TCP | 0.85× (0.70-1.20) | met |");
        r.put(Report.WIRE_TCP, 6000);
        r.put(Report.WIRE_RDMA_WRITE, 3000);
        r.put(Report.WIRE_TCP, 6000);
        r.put(Report.WIRE_RDMA_WRITE, 3000);
        // within turns 0.70, 1.20, 0.85, 0.50, 0.50: median 0.70
        assertThat(r.toMarkdown(HarnessConfig.fullRun()))
                .contains("| soft iWARP RDMA WRITE 1 MiB ≥ 0.8× raw loopback TCP | 0.70× (0.50-1.20) "
                        + "| **missed** |");
        // missed by less than the rounding: the third digit shows why
        Report close = new Report();
        close.put(Report.WIRE_TCP, 1000);
        close.put(Report.WIRE_RDMA_READ, 799);
        assertThat(close.toMarkdown(HarnessConfig.fullRun()))
                .contains("| soft iWARP RDMA READ 1 MiB ≥ 0.8× raw loopback TCP | 0.799× | **missed** |");
        // a row not measured: no verdict
        assertThat(md).contains("| soft iWARP SEND 1 MiB ≥ 0.8× raw loopback TCP | – | – |");
    }

    @Test
    void readTakingTurnsWithRawTcpHasItsRowAndTarget() {
        Report r = figures(1500, 1000, 50, 40);
        double[] rdma = {2400, 2000, 2500};
        double[] raw = {4000, 4000, 3000};
        putTurns(r, Report.READ_TURNS_RDMA, rdma, Report.READ_TURNS_RAW_TCP, raw);
        String md = r.toMarkdown(HarnessConfig.fullRun());
        // within turns 0.60, 0.50, 0.83: median 0.60; against the wire row's raw TCP (2000) 0.75
        assertThat(md).contains("| READ 1 MiB sequential, RDMA and raw TCP (4,000 MiB/s) taking turns in short slices "
                + "| MiB/s | 2,400 |  |  |  |  |  |  | 0.60× (0.50-0.83) |  |");
        assertThat(md).contains("| READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP, taking turns | 0.60× (0.50-0.83) "
                + "| met |");
        assertThat(md).contains("| READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP | 0.75× | met |");
        r.put(Report.READ_TURNS_RDMA, 2000);
        r.put(Report.READ_TURNS_RAW_TCP, 4000);
        assertThat(r.toMarkdown(HarnessConfig.fullRun()))
                .contains("| READ 1 MiB over RDMA ≥ 0.6× raw loopback TCP, taking turns | 0.55× (0.50-0.83) "
                        + "| **missed** |");
    }

    @Test
    void writeTakingTurnsWithTcpHasItsRowAndTarget() {
        Report r = figures(1500, 1000, 50, 40);
        double[] rdma = {3000, 2000, 2600};
        double[] tcp = {2000, 2000, 2000};
        putTurns(r, Report.WRITE_TURNS_RDMA, rdma, Report.WRITE_TURNS_TCP, tcp);
        String md = r.toMarkdown(HarnessConfig.fullRun());
        // within turns 1.50, 1.00, 1.30: median 1.30
        assertThat(md).contains("| WRITE 1 MiB sequential (UNSTABLE), RDMA and oncrpc4j TCP taking turns in short "
                + "slices | MiB/s | 2,600 | 2,000 |  |  |  | 1.30× (1.00-1.50) |  |  |  |");
        assertThat(md).contains("| WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP, taking turns | 1.30× (1.00-1.50) | met |");
        r.put(Report.WRITE_TURNS_RDMA, 2200);
        r.put(Report.WRITE_TURNS_TCP, 2000);
        r.put(Report.WRITE_TURNS_RDMA, 2000);
        r.put(Report.WRITE_TURNS_TCP, 2000);
        // 1.50, 1.00, 1.30, 1.10, 1.00: median 1.10
        assertThat(r.toMarkdown(HarnessConfig.fullRun()))
                .contains("| WRITE 1 MiB over RDMA ≥ 1.2× oncrpc4j TCP, taking turns | 1.10× (1.00-1.50) | **missed** |");
    }

    @Test
    void alternatingGetattrHasItsRowAndTarget() {
        Report r = figures(1500, 1000, 50, 40);
        double[] rdma = {90, 99, 80};
        double[] tcp = {100, 90, 100};
        putTurns(r, Report.GETATTR_PAIRED_RDMA, rdma, Report.GETATTR_PAIRED_TCP, tcp);
        String md = r.toMarkdown(HarnessConfig.fullRun());
        // within rounds 0.90, 1.10, 0.80: median 0.90
        assertThat(md).contains("| GETATTR round trip p50, RDMA and TCP calls alternating on one thread | µs | 90.0 | "
                + "100.0 |  |  |  | 0.90× (0.80-1.10) |  |  |  |");
        assertThat(md).contains("| GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP, calls alternating on one thread | "
                + "0.90× (0.80-1.10) | met |");
        r.put(Report.GETATTR_PAIRED_RDMA, 120);
        r.put(Report.GETATTR_PAIRED_TCP, 100);
        r.put(Report.GETATTR_PAIRED_RDMA, 130);
        r.put(Report.GETATTR_PAIRED_TCP, 100);
        assertThat(r.toMarkdown(HarnessConfig.fullRun()))
                .contains("| GETATTR p50 over RDMA ≤ 1.0× oncrpc4j TCP, calls alternating on one thread | "
                        + "1.10× (0.80-1.30) | **missed** |");
    }

    @Test
    void quickRunsJudgeNoTargets() {
        assertThat(figures(1500, 1000, 50, 40).toMarkdown(HarnessConfig.quickRun())).doesNotContain("#### Targets");
    }
}

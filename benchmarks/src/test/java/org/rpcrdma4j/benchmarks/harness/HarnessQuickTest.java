package org.rpcrdma4j.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;

/**
 * The harness's quick mode end to end, so that it cannot rot: every row of every table is measured (over the
 * software device, oncrpc4j TCP and EMC's client against the embedded server, and the memory probe in a child JVM)
 * and comes out positive. No figure is judged: the windows are far too short for that.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class HarnessQuickTest {

    @Test
    void quickRunMeasuresEveryRowWithPositiveFigures() throws Exception {
        HarnessConfig config = HarnessConfig.quickRun();
        Report report = Harness.run(config, System.err);
        String markdown = report.toMarkdown(config);
        System.err.println(markdown);

        for (String wire : new String[] {Report.WIRE_TCP, Report.WIRE_RDMA_WRITE, Report.WIRE_RDMA_READ,
            Report.WIRE_RDMA_SEND, Report.WIRE_COLD_TCP}) {
            assertThat(report.rounds(wire)).as(wire).hasSize(config.wireSlices());
            assertThat(report.figure(wire)).as(wire).isPresent();
            assertThat(report.figure(wire).getAsDouble()).as(wire).isPositive();
            assertThat(report.figure(Report.cpuPerMib(wire)).orElseThrow()).as(wire + " CPU").isPositive();
        }
        String emcMissing = report.unavailable().get(NfsRow.READ_1M.figure(Client.EMC));
        for (NfsRow row : NfsRow.values()) {
            assertThat(markdown).contains("| " + row.label() + " |");
            for (Client client : Client.values()) {
                String key = row.figure(client);
                if (client == Client.EMC && emcMissing != null) {
                    // only where port 111 cannot be bound, and then for every EMC row alike
                    assertThat(emcMissing).contains("port 111");
                    assertThat(report.unavailable()).containsKey(key);
                    continue;
                }
                assertThat(report.unavailable()).as(key).doesNotContainKey(key);
                assertThat(report.figure(key)).as(key).isPresent();
                assertThat(report.figure(key).getAsDouble()).as(key).isPositive();
                // every round measured (p99: once, over the calls of all rounds)
                assertThat(report.rounds(key)).as(key).hasSize(row == NfsRow.GETATTR_P99 ? 1 : config.rounds());
                if (row != NfsRow.GETATTR_P99) {
                    assertThat(report.figure(row.allocation(client))).as(row.allocation(client)).isPresent();
                    assertThat(report.figure(row.cpu(client)).orElseThrow()).as(row.cpu(client)).isPositive();
                }
            }
            assertThat(report.figure(NfsRow.GETATTR_P99.figure(Client.RDMA)).getAsDouble())
                    .isGreaterThanOrEqualTo(report.figure(NfsRow.GETATTR_P50.figure(Client.RDMA)).getAsDouble());
        }

        for (String turns : new String[] {Report.READ_TURNS_RDMA, Report.READ_TURNS_RAW_TCP, Report.WRITE_TURNS_RDMA,
            Report.WRITE_TURNS_TCP}) {
            assertThat(report.rounds(turns)).as(turns).hasSize(config.wireSlices());
            assertThat(report.figure(turns).orElseThrow()).as(turns).isPositive();
        }
        assertThat(markdown).contains("| READ 1 MiB sequential, RDMA and raw TCP (");
        assertThat(markdown).contains("| WRITE 1 MiB sequential (UNSTABLE), RDMA and oncrpc4j TCP taking turns");
        for (String paired : new String[] {Report.GETATTR_PAIRED_RDMA, Report.GETATTR_PAIRED_TCP}) {
            assertThat(report.rounds(paired)).as(paired).hasSize(config.rounds());
            assertThat(report.figure(paired).orElseThrow()).as(paired).isPositive();
        }
        assertThat(markdown)
                .contains("| GETATTR round trip p50, RDMA and TCP calls alternating on one thread | µs | ");

        double registered = report.figure(Report.MEM_REGISTERED).orElseThrow();
        double inUse = report.figure(Report.MEM_IN_USE).orElseThrow();
        assertThat(inUse).isPositive().isLessThanOrEqualTo(registered);
        assertThat(report.figure(Report.MEM_DIRECT).orElseThrow()).isGreaterThanOrEqualTo(registered);
        assertThat(report.figure(Report.MEM_DIRECT_SECOND).orElseThrow()).isPositive();
        assertThat(report.figure(Report.MEM_REGISTERED_BURST).orElseThrow()).isGreaterThanOrEqualTo(registered);
        assertThat(markdown).doesNotContain("–").contains("#### Memory per mount");
    }
}

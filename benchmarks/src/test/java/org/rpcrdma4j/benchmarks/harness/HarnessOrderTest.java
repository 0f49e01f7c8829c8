package org.rpcrdma4j.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.benchmarks.harness.NfsRow.Client;

/** Peers take turns at going first: over as many rounds as there are peers, each leads once. */
class HarnessOrderTest {

    @Test
    void eachPeerLeadsOneRoundAndEveryRoundHasEveryPeer() {
        Client[] peers = Client.values();
        Set<Client> leaders = new HashSet<>();
        for (int round = 0; round < peers.length; round++) {
            List<Client> order = Harness.inTurn(peers, round);
            assertThat(order).containsExactlyInAnyOrder(peers);
            leaders.add(order.get(0));
        }
        assertThat(leaders).containsExactlyInAnyOrder(peers);
        assertThat(Harness.inTurn(peers, 0)).containsExactly(peers);
    }

    @Test
    void wireRowsTakeTurnsInSlicesThatFillTheWindow() {
        HarnessConfig full = HarnessConfig.fullRun();
        assertThat(full.wireSlice()).isEqualTo(java.time.Duration.ofMillis(200));
        assertThat(full.wireSlices()).isEqualTo(30);
        // a round's window shorter than a slice: slices of the round's window
        HarnessConfig quick = HarnessConfig.quickRun();
        assertThat(quick.wireSlice()).isEqualTo(java.time.Duration.ofMillis(125));
        assertThat(quick.wireSlices()).isEqualTo(2);
    }
}

package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The client's slot table: lowest free slot first, waiting in order when all are busy, the server's limits, retiring. */
class ClientSlotTableTest {
    private final ClientSlotTable table = new ClientSlotTable(3, Runnable::run);

    @Test
    void slotsAreHandedOutLowestFirstAndWaitersGetThemInOrder() {
        ClientSlotTable.Slot a = table.acquire().join();
        ClientSlotTable.Slot b = table.acquire().join();
        ClientSlotTable.Slot c = table.acquire().join();
        assertThat(new int[] {a.id, b.id, c.id}).containsExactly(0, 1, 2);
        assertThat(table.highestSlotInUse()).isEqualTo(2);
        CompletableFuture<ClientSlotTable.Slot> first = table.acquire();
        CompletableFuture<ClientSlotTable.Slot> second = table.acquire();
        assertThat(first).isNotDone();
        assertThat(table.waiting()).isEqualTo(2);
        table.release(b);
        assertThat(first).isCompletedWithValue(b);
        assertThat(second).isNotDone();
        table.release(a);
        assertThat(second).isCompletedWithValue(a);
        table.release(c);
        assertThat(table.inUse()).isEqualTo(2);
        assertThat(table.highestSlotInUse()).isEqualTo(1);
        assertThat(table.tryAcquire()).isSameAs(c);
    }

    @Test
    void theServersHighestSlotIdLimitsTheSlotsUsedUntilItGrows() {
        table.serverLimits(2, 0); // target 0: one slot
        ClientSlotTable.Slot a = table.acquire().join();
        CompletableFuture<ClientSlotTable.Slot> waiting = table.acquire();
        assertThat(a.id).isZero();
        assertThat(waiting).isNotDone();
        table.serverLimits(1, 1);
        assertThat(waiting).isCompleted();
        assertThat(waiting.join().id).isEqualTo(1);
        table.serverLimits(0, 2); // highest 0: slot 1 is not handed out again once released
        table.release(waiting.join());
        CompletableFuture<ClientSlotTable.Slot> next = table.acquire();
        assertThat(next).isNotDone();
        table.release(a);
        assertThat(next).isCompletedWithValue(a);
        assertThat(table.limit()).isZero();
    }

    @Test
    void aRetiredTableTellsItsWaitersAndTakesNothingBack() {
        ClientSlotTable.Slot a = table.acquire().join();
        table.acquire().join();
        table.acquire().join();
        CompletableFuture<ClientSlotTable.Slot> waiting = table.acquire();
        table.retire();
        assertThat(waiting).isCompletedWithValue(null);
        assertThat(table.acquire()).isCompletedWithValue(null);
        table.release(a);
        assertThat(table.tryAcquire()).isNull();
        assertThat(table.isRetired()).isTrue();
    }

    @Test
    void sequenceIdsAreTheSlotsOwn() {
        ClientSlotTable.Slot a = table.acquire().join();
        assertThat(a.sequenceId).isZero();
        a.sequenceId = 1;
        table.release(a);
        assertThat(table.acquire().join().sequenceId).isEqualTo(1);
    }
}

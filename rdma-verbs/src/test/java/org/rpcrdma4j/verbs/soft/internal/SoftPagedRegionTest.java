package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.soft.SoftIwarpOptions;

/**
 * A paged region mapped from a run of a table backed by memory registered on the same device reaches the whole run
 * through one piece (the backing region's per-engine views, with their variants), at the run's place in that memory;
 * any other mapping reaches its bytes page by page.
 */
class SoftPagedRegionTest {
    private static final int PAGE = 4096;

    @Test
    void aBackedRunIsOnePieceOfTheBackingMemory() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            SoftRegisteredMemory arena = (SoftRegisteredMemory) pd.registerMemory(
                    ByteBuffer.allocateDirect(32 * PAGE), Access.LOCAL_WRITE);
            PageTable table = PageTable.of(arena, PAGE);
            assertThat(table.backing()).isSameAs(arena);
            SoftFmr fmr = (SoftFmr) pd.allocFmr(20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            // pages 5..21 of the arena, starting 100 bytes into page 5
            fmr.map(new PageList(20).addRun(table, 5, 17).set(100, 17 * PAGE - 100, 0x10000L + 100));

            long[] offsets = {0, PAGE - 100, 3 * PAGE + 7, 17 * PAGE - 101};
            for (long offset : offsets) {
                assertThat(fmr.piece(offset, 0)).as("offset %d", offset).isSameAs(arena.piece(0, 0));
                assertThat(fmr.pieceIndex(offset)).as("offset %d", offset).isEqualTo((int) (5 * PAGE + 100 + offset));
                assertThat(fmr.pieceRemaining(offset)).as("offset %d", offset)
                        .isEqualTo((int) (17 * PAGE - 100 - offset));
                assertThat(fmr.pieceCut(offset)).isZero();
            }
            assertThat(fmr.piece(0, 1)).isSameAs(arena.piece(0, 1)).isNotSameAs(fmr.piece(0, 0));
            assertThat(fmr.pieceVariant(0, 0, 3)).isSameAs(arena.pieceVariant(0, 0, 3));
            assertThatThrownBy(() -> fmr.piece(17 * PAGE - 100, 0)).isInstanceOf(IndexOutOfBoundsException.class);

            // the piece reaches the run's bytes: what the arena holds at the run's place is what the mapping reads
            ByteBuffer whole = arena.buffer();
            for (int i = 0; i < whole.capacity(); i++) {
                whole.put(i, (byte) (i * 31 + 7));
            }
            ByteBuffer out = ByteBuffer.allocate(3 * PAGE);
            fmr.copyOut(PAGE - 50, out, 0, out.capacity());
            assertThat(out.array()).isEqualTo(bytesOf(whole, 6 * PAGE + 50, 3 * PAGE));
            ByteBuffer piece = fmr.piece(PAGE - 50, 0);
            assertThat(piece.get(fmr.pieceIndex(PAGE - 50))).isEqualTo(whole.get(6 * PAGE + 50));
        } finally {
            device.close();
        }
    }

    @Test
    void unbackedTablesAndOtherDevicesMemoryArePlacedPageByPage() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        SoftDevice other = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            SoftPd otherPd = (SoftPd) other.allocProtectionDomain();
            ByteBuffer memory = ByteBuffer.allocateDirect(8 * PAGE);
            ByteBuffer[] views = new ByteBuffer[8];
            for (int p = 0; p < 8; p++) {
                views[p] = memory.slice(p * PAGE, PAGE);
            }
            PageTable plain = new PageTable(views, PAGE);
            PageTable elsewhere = PageTable.of(otherPd.registerMemory(ByteBuffer.allocateDirect(8 * PAGE),
                    Access.LOCAL_WRITE), PAGE);
            assertThat(plain.backing()).isNull();
            for (PageTable table : new PageTable[] {plain, elsewhere}) {
                SoftFmr fmr = (SoftFmr) pd.allocFmr(4, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                fmr.map(new PageList(4).addRun(table, 2, 3).set(100, 3 * PAGE - 100, 0x10000L + 100));
                assertThat(fmr.piece(0, 0)).isSameAs(table.page(2));
                assertThat(fmr.piece(PAGE - 100, 0)).isSameAs(table.page(3));
                assertThat(fmr.pieceIndex(PAGE - 90)).isEqualTo(10);
                assertThat(fmr.pieceRemaining(PAGE - 90)).isEqualTo(PAGE - 10);
                assertThat(fmr.pieceCut(PAGE - 90)).isEqualTo(10);
                assertThat(fmr.pieceVariant(0, 0, 1)).isNull();
            }
        } finally {
            device.close();
            other.close();
        }
    }

    private static byte[] bytesOf(ByteBuffer b, int from, int length) {
        byte[] out = new byte[length];
        b.get(from, out);
        return out;
    }
}

package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.fake.FakeDevice;

class ScatterListTest {
    static final int PAGE = 4096;
    RegisteredBufferPool pool;
    RegisteredBuffer buffer;

    @BeforeEach
    void setUp() throws Exception {
        pool = RegisteredBufferPool.create(FakeDevice.regMrOnly().allocProtectionDomain(),
                new BufferPoolConfig(64 * PAGE, 1, 1, Duration.ofSeconds(1)));
        buffer = pool.allocate(8 * PAGE);
    }

    @AfterEach
    void tearDown() {
        buffer.release();
        pool.close();
    }

    @Test
    void rangesAreCutIntoPagePiecesAndContiguousAddsMerge() {
        ScatterList list = new ScatterList(16);
        list.add(buffer, 100, PAGE);            // 100..4195: two pieces
        list.add(buffer, 100 + PAGE, 10);       // continues the second piece
        list.add(buffer, 3 * PAGE, 0);          // nothing
        list.add(buffer, 2 * PAGE, PAGE);       // new page, whole
        assertThat(list.pieceCount()).isEqualTo(3);
        assertThat(list.length()).isEqualTo(2L * PAGE + 10);
        assertThat(list.offsetInPage(0)).isEqualTo(100);
        assertThat(list.length(0)).isEqualTo(PAGE - 100);
        assertThat(list.offsetInPage(1)).isZero();
        assertThat(list.length(1)).isEqualTo(110);
        assertThat(list.page(2)).isEqualTo(buffer.firstPage() + 2);
        assertThat(list.arenaOffset(2)).isEqualTo(buffer.arenaOffset() + 2 * PAGE);
        assertThat(list.clear().pieceCount()).isZero();
        assertThat(list.length()).isZero();
    }

    @Test
    void theSamePageTwiceIsTwoPieces() {
        ScatterList list = new ScatterList(4).add(buffer, 0, PAGE).add(buffer, 0, PAGE);
        assertThat(list.pieceCount()).isEqualTo(2);
        assertThat(list.joins(0, true)).as("page aligned: one page list").isTrue();
        assertThat(list.joins(0, false)).as("not contiguous memory").isFalse();
    }

    @Test
    void contiguousRunsAndTheirLengthsAndTheSplittingRule() {
        ScatterList list = new ScatterList(16);
        list.add(buffer, 100, 3 * PAGE - 100);  // pieces 0..2, one contiguous run
        list.add(buffer, 5 * PAGE, PAGE);       // piece 3: page-aligned gap, joins the page list only
        list.add(buffer, 6 * PAGE, 50);         // piece 4: continues piece 3
        list.add(buffer, 7 * PAGE + 8, 8);      // piece 5: starts mid-page, joins nothing
        assertThat(list.pieceCount()).isEqualTo(6);
        assertThat(list.contiguous(0, 3)).isTrue();
        assertThat(list.contiguous(1, 2)).isTrue();
        assertThat(list.contiguous(0, 4)).isFalse();
        assertThat(list.contiguous(3, 2)).isTrue();
        assertThat(list.contiguous(2, 2)).isFalse();
        assertThat(list.contiguousLength(0, 3)).isEqualTo(3L * PAGE - 100);
        assertThat(list.contiguousLength(1, 2)).isEqualTo(2L * PAGE);
        assertThat(list.contiguousLength(3, 2)).isEqualTo(PAGE + 50L);
        assertThat(MemRegOps.run(list, 0, 6, 256, true)).as("page list: up to the mid-page start").isEqualTo(5);
        assertThat(MemRegOps.run(list, 0, 6, 256, false)).as("contiguous: up to the gap").isEqualTo(3);
        assertThat(MemRegOps.run(list, 1, 5, 2, true)).as("depth").isEqualTo(2);
        assertThat(MemRegOps.run(list, 3, 3, 256, false)).isEqualTo(2);
        assertThat(MemRegOps.run(list, 5, 1, 256, true)).isEqualTo(1);
        assertThat(MemRegOps.run(list, 0, 2, 256, true)).as("at most n").isEqualTo(2);
    }

    @Test
    void aContiguousRunFillsThePageListAsATableRunAndAGapPageByPage() {
        ScatterList list = new ScatterList(16);
        list.add(buffer, 100, 3 * PAGE - 100).add(buffer, 5 * PAGE, PAGE);
        RegisteredArena arena = buffer.arena();
        org.rpcrdma4j.verbs.PageList pages = new org.rpcrdma4j.verbs.PageList(8);
        assertThat(MemRegOps.fill(pages, list, 0, 3)).isEqualTo(3L * PAGE - 100);
        assertThat(pages.table()).isSameAs(arena.pageTable());
        assertThat(pages.tableFirst()).isEqualTo(buffer.firstPage());
        assertThat(pages.count()).isEqualTo(3);
        assertThat(MemRegOps.fill(pages, list, 0, 4)).isEqualTo(4L * PAGE - 100);
        assertThat(pages.table()).as("a gap: page by page").isNull();
        assertThat(pages.count()).isEqualTo(4);
        for (int i = 0; i < 3; i++) {
            assertThat(pages.page(i)).isSameAs(arena.page(buffer.firstPage() + i));
        }
        assertThat(pages.page(3)).isSameAs(arena.page(buffer.firstPage() + 5));
    }

    @Test
    void aFullListRefusesARangeWithoutTakingPartOfIt() {
        ScatterList list = new ScatterList(3).add(buffer, 0, PAGE);
        assertThatThrownBy(() -> list.add(buffer, PAGE + 1, 3 * PAGE)).isInstanceOf(IllegalStateException.class);
        assertThat(list.pieceCount()).isEqualTo(1);
        assertThat(list.length()).isEqualTo(PAGE);
        assertThatThrownBy(() -> list.add(buffer, 8 * PAGE - 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.add(buffer, -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}

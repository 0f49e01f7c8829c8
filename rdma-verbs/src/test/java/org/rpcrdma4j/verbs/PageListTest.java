package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class PageListTest {
    private static ByteBuffer[] views(int n) {
        ByteBuffer memory = ByteBuffer.allocateDirect(n * 4096);
        ByteBuffer[] views = new ByteBuffer[n];
        for (int p = 0; p < n; p++) {
            views[p] = memory.slice(p * 4096, 4096);
        }
        return views;
    }

    @Test
    void aRunIntoAnEmptyListNamesTheTable() {
        ByteBuffer[] views = views(8);
        PageTable table = new PageTable(views, 4096);
        PageList list = new PageList(4).addRun(table, 3, 4);
        assertThat(list.table()).isSameAs(table);
        assertThat(list.tableFirst()).isEqualTo(3);
        assertThat(list.count()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(list.page(i)).isSameAs(views[3 + i]);
        }
        assertThatThrownBy(() -> list.page(4)).isInstanceOf(IndexOutOfBoundsException.class);
        list.set(10, 4 * 4096 - 10, 0x1000);
        assertThatThrownBy(() -> list.set(10, 4 * 4096 - 9, 0x1000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void addingToARunCopiesThePagesAndForgetsTheTable() {
        ByteBuffer[] views = views(8);
        PageTable table = new PageTable(views, 4096);
        PageList list = new PageList(6).addRun(table, 0, 2).add(views[5]).addRun(table, 6, 2);
        assertThat(list.table()).isNull();
        assertThat(list.count()).isEqualTo(5);
        assertThat(list.page(0)).isSameAs(views[0]);
        assertThat(list.page(1)).isSameAs(views[1]);
        assertThat(list.page(2)).isSameAs(views[5]);
        assertThat(list.page(3)).isSameAs(views[6]);
        assertThat(list.page(4)).isSameAs(views[7]);
        list.clear();
        assertThat(list.count()).isZero();
        assertThat(list.addRun(table, 1, 1).table()).isSameAs(table);
        assertThat(list.clear().table()).isNull();
    }

    @Test
    void runsAreChecked() {
        PageTable table = new PageTable(views(4), 4096);
        PageList list = new PageList(2);
        assertThatThrownBy(() -> list.addRun(table, 3, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.addRun(table, -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.addRun(table, 0, 3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new PageList(2, 8192).addRun(table, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(list.count()).isZero();
    }

    @Test
    void aTableTakesOnlyDirectPagesOfItsSize() {
        assertThatThrownBy(() -> new PageTable(new ByteBuffer[] {ByteBuffer.allocate(4096)}, 4096))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PageTable(new ByteBuffer[] {ByteBuffer.allocateDirect(2048)}, 4096))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PageTable(new ByteBuffer[0], 3000)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer[] views = views(2);
        PageTable table = new PageTable(views, 4096);
        ByteBuffer first = views[0];
        views[0] = views[1];
        assertThat(table.page(0)).as("the table copied the array").isSameAs(first);
    }
}

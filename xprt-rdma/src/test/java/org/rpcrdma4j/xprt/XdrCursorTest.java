package org.rpcrdma4j.xprt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class XdrCursorTest {

    @Test
    void readsAndSkipsWithinTheRegion() throws Exception {
        ByteBuf b = Unpooled.buffer().writeInt(7).writeLong(-2L).writeInt(1).writeInt(5).writeBytes(new byte[8]);
        XdrCursor c = new XdrCursor().wrap(b);
        assertThat(c.readInt()).isEqualTo(7);
        assertThat(c.readLong()).isEqualTo(-2L);
        assertThat(c.readBoolean()).isTrue();
        assertThat(c.skipVariableOpaque(5)).isEqualTo(5);
        assertThat(c.offset()).isEqualTo(4 + 8 + 4 + 4 + 8);
        assertThat(c.hasRemaining()).isFalse();
        assertThat(b.readerIndex()).isZero();
    }

    @Test
    void refusesToReadPastTheEnd() {
        ByteBuf b = Unpooled.buffer().writeInt(0x7FFF_FFF0).writeInt(0);
        XdrCursor c = new XdrCursor().wrap(b);
        assertThatThrownBy(() -> c.skipVariableOpaque(Integer.MAX_VALUE)).isInstanceOf(XdrFormatException.class)
                .hasMessageContaining("needs");
        XdrCursor d = new XdrCursor().wrap(b);
        assertThatThrownBy(() -> d.skipVariableOpaque(16)).isInstanceOf(XdrFormatException.class)
                .hasMessageContaining("exceeds its bound 16");
        XdrCursor e = new XdrCursor().wrap(b, 0, 6);
        assertThatThrownBy(() -> { e.readInt(); e.readInt(); }).isInstanceOf(XdrFormatException.class);
        XdrCursor f = new XdrCursor().wrap(Unpooled.buffer().writeInt(2));
        assertThatThrownBy(f::readBoolean).isInstanceOf(XdrFormatException.class);
    }

    @Test
    void successfulReadsAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // a wrapped buffer: allocator buffers are leak-tracked under paranoid detection, which records every access
        ByteBuf b = Unpooled.wrappedBuffer(new byte[28]).setIndex(0, 0).writeInt(12).writeZero(12).writeLong(1)
                .writeInt(0);
        XdrCursor c = new XdrCursor();
        long sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += walk(c, b);
        }
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            sink += walk(c, b);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertThat(sink).isPositive();
        assertThat(allocated).isLessThan(1024);
    }

    private static long walk(XdrCursor c, ByteBuf b) throws XdrFormatException {
        c.wrap(b);
        int n = c.skipVariableOpaque(64);
        return n + c.readLong() + c.readInt();
    }
}

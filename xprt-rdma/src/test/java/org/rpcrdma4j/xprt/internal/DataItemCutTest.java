package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xprt.XdrFormatException;

class DataItemCutTest {
    private final DataItemCut cut = new DataItemCut();
    private final RpcHeader header = new RpcHeader();

    /** xid 9, CALL, program 7 version 1 procedure 3, AUTH_NONE credential and verifier: 40 bytes, then args. */
    private static ByteBuf call(int program, int version) {
        return Unpooled.buffer().writeInt(9).writeInt(RpcHeader.CALL).writeInt(2).writeInt(program).writeInt(version)
                .writeInt(3).writeZero(16);
    }

    /** xid 9, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS: 24 bytes, then results. */
    private static ByteBuf reply(int acceptStat) {
        return Unpooled.buffer().writeInt(9).writeInt(RpcHeader.REPLY).writeInt(0).writeZero(8).writeInt(acceptStat);
    }

    @Test
    void aCallIsCutAroundItsArgumentWithThePadInBetween() throws Exception {
        ByteBuf m = Unpooled.buffer().writeZero(8).writeBytes(call(7, 1)).writeInt(5).writeBytes(new byte[5])
                .writeZero(3).writeInt(77);
        header.parse(m, 8, m.writerIndex());
        assertThat(cut.cutCall(new OpaqueBinding(7, 1, 4), header, m.duplicate(), 8, m.writerIndex())).isTrue();
        assertThat(cut.headLength()).isEqualTo(44);
        assertThat(cut.itemOffset()).isEqualTo(44);
        assertThat(cut.itemLength()).isEqualTo(5);
        assertThat(cut.padLength()).isEqualTo(3);
        assertThat(cut.tailOffset()).isEqualTo(52);
        assertThat(cut.tailLength()).isEqualTo(4);
    }

    @Test
    void aReplyIsCutOnlyWhenAcceptedWithSuccess() throws Exception {
        ByteBuf ok = reply(0).writeInt(8).writeZero(8);
        assertThat(cut.cutReply(new OpaqueBinding(7, 1, 4), 1, 3, ok, 0, ok.writerIndex())).isTrue();
        assertThat(cut.itemOffset()).isEqualTo(28);
        assertThat(cut.tailLength()).isZero();
        ByteBuf failed = reply(5).writeInt(8).writeZero(8);
        assertThat(cut.cutReply(new OpaqueBinding(7, 1, 4), 1, 3, failed, 0, failed.writerIndex())).isFalse();
        assertThat(cut.found()).isFalse();
        assertThat(cut.headLength()).isEqualTo(failed.writerIndex());
        assertThat(cut.tailLength()).isZero();
    }

    @Test
    void anItemBeyondTheMessageIsAFormatError() throws Exception {
        ByteBuf m = call(7, 1).writeInt(100).writeZero(8);
        header.parse(m, 0, m.writerIndex());
        assertThatThrownBy(() -> cut.cutCall(new OpaqueBinding(7, 1, 4), header, m, 0, m.writerIndex()))
                .isInstanceOf(XdrFormatException.class).hasMessageContaining("beyond");
    }
}

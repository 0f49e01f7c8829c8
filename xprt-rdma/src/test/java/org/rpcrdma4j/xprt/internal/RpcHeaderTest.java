package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xprt.XdrFormatException;

class RpcHeaderTest {

    private static ByteBuf call(int credBody) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(0x11223344).writeInt(0).writeInt(2).writeInt(100003).writeInt(3).writeInt(7);
        b.writeInt(1).writeInt(credBody); // AUTH_UNIX-ish flavor, opaque body length
        b.writeZero((credBody + 3) & ~3);
        b.writeInt(0).writeInt(0); // AUTH_NONE verifier
        b.writeInt(0xCAFE); // first argument word
        return b;
    }

    @Test
    void callHeaderFindsArguments() throws Exception {
        ByteBuf b = call(21);
        RpcHeader h = new RpcHeader().parse(b, 0, b.writerIndex());
        assertThat(h.isCall()).isTrue();
        assertThat(h.xid()).isEqualTo(0x11223344);
        assertThat(h.program()).isEqualTo(100003);
        assertThat(h.version()).isEqualTo(3);
        assertThat(h.procedure()).isEqualTo(7);
        assertThat(h.credentialFlavor()).isEqualTo(1);
        assertThat(h.credentialOffset()).isEqualTo(28);
        assertThat(h.credentialLength()).isEqualTo(4 + 24);
        assertThat(h.bodyOffset()).isEqualTo(28 + 28 + 8);
        assertThat(b.getInt(h.bodyOffset())).isEqualTo(0xCAFE);
    }

    @Test
    void everyTruncationFails() {
        ByteBuf b = call(8);
        int end = b.writerIndex() - 4; // without the argument word the header is complete
        for (int cut = 0; cut < end; cut++) {
            int to = cut;
            assertThatThrownBy(() -> new RpcHeader().parse(b, 0, to)).isInstanceOf(XdrFormatException.class);
        }
    }

    @Test
    void oversizedCredentialIsRefused() {
        ByteBuf b = call(401);
        assertThatThrownBy(() -> new RpcHeader().parse(b, 0, b.writerIndex()))
                .isInstanceOf(XdrFormatException.class).hasMessageContaining("bound 400");
    }

    @Test
    void acceptedAndDeniedReplies() throws Exception {
        ByteBuf ok = Unpooled.buffer().writeInt(5).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(0xBEEF);
        RpcHeader h = new RpcHeader().parse(ok, 0, ok.writerIndex());
        assertThat(h.isSuccessfulReply()).isTrue();
        assertThat(ok.getInt(h.bodyOffset())).isEqualTo(0xBEEF);

        ByteBuf denied = Unpooled.buffer().writeInt(6).writeInt(1).writeInt(1).writeInt(1);
        RpcHeader d = new RpcHeader().parse(denied, 0, denied.writerIndex());
        assertThat(d.isReply()).isTrue();
        assertThat(d.isSuccessfulReply()).isFalse();
        assertThat(d.replyStat()).isEqualTo(RpcHeader.MSG_DENIED);
        assertThat(denied.getInt(d.bodyOffset())).isEqualTo(1);

        ByteBuf garbage = Unpooled.buffer().writeInt(6).writeInt(7);
        assertThatThrownBy(() -> new RpcHeader().parse(garbage, 0, 8)).isInstanceOf(XdrFormatException.class);
    }
}

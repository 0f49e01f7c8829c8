package org.rpcrdma4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.XdrFormatException;

/** Hand-built XDR with the offsets worked out by hand. */
class Nfs3UpperLayerBindingTest {
    private final Nfs3UpperLayerBinding ulb = Nfs3UpperLayerBinding.INSTANCE;

    private static ByteBuf words(int... ints) {
        ByteBuf b = Unpooled.buffer();
        for (int i : ints) {
            b.writeInt(i);
        }
        return b;
    }

    @Test
    void identifiesTheProgram() {
        assertThat(ulb.program()).isEqualTo(100003);
        assertThat(ulb.supportsVersion(3)).isTrue();
        assertThat(ulb.supportsVersion(2)).isFalse();
        assertThat(ulb.supportsVersion(4)).isFalse();
    }

    @Test
    void writeDataStartsAfterItsLengthWord() throws Exception {
        // 7 bytes of garbage before the arguments: offsets are relative to the reader index
        ByteBuf b = Unpooled.buffer();
        b.writeBytes(new byte[7]);
        b.readerIndex(7);
        b.writeInt(5).writeBytes(new byte[] {1, 2, 3, 4, 5, 0, 0, 0}); // fh: 4 + 8 = 12
        b.writeLong(4096); // offset: 20
        b.writeInt(5); // count: 24
        b.writeInt(0); // UNSTABLE: 28
        b.writeInt(5); // data length: 32
        b.writeBytes("hello".getBytes(StandardCharsets.US_ASCII)).writeZero(3);
        DataItem item = new DataItem();
        assertThat(ulb.locateCallItem(3, Nfs3.WRITE, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(32);
        assertThat(item.length()).isEqualTo(5);
        assertThat(item.paddedLength()).isEqualTo(8);
        assertThat(b.readerIndex()).isEqualTo(7);
        assertThat(b.toString(7 + item.offset(), 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
    }

    @Test
    void writeWithoutItsPaddingIsTruncated() {
        ByteBuf b = words(0, 0, 0, 0, 0, 5).writeBytes(new byte[5]); // fh empty, offset(2), count, stable, len
        assertThatThrownBy(() -> ulb.locateCallItem(3, Nfs3.WRITE, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class);
    }

    @Test
    void writeWithABadStableHowIsGarbage() {
        ByteBuf b = words(0, 0, 0, 0, 3, 0);
        assertThatThrownBy(() -> ulb.locateCallItem(3, Nfs3.WRITE, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class).hasMessageContaining("stable_how");
    }

    @Test
    void writeWithAnOversizedHandleIsGarbage() {
        ByteBuf b = words(65).writeZero(68 + 24);
        assertThatThrownBy(() -> ulb.locateCallItem(3, Nfs3.WRITE, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class);
    }

    @Test
    void symlinkPathFollowsTheAttributes() throws Exception {
        ByteBuf b = words(0); // empty fh: 4
        b.writeInt(2).writeBytes("ab".getBytes(StandardCharsets.US_ASCII)).writeZero(2); // name: 12
        b.writeInt(1).writeInt(0755); // mode set: 20
        b.writeInt(0); // uid unset: 24
        b.writeInt(0); // gid unset: 28
        b.writeInt(1).writeLong(0); // size set: 40
        b.writeInt(2).writeInt(100).writeInt(5); // atime client: 52
        b.writeInt(1); // mtime server: 56
        b.writeInt(6).writeBytes("../etc".getBytes(StandardCharsets.US_ASCII)).writeZero(2); // path at 60
        DataItem item = new DataItem();
        assertThat(ulb.locateCallItem(3, Nfs3.SYMLINK, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(60);
        assertThat(item.length()).isEqualTo(6);
    }

    @Test
    void symlinkWithABadTimeHowIsGarbage() {
        ByteBuf b = words(0, 0, 0, 0, 0, 0, 3);
        assertThatThrownBy(() -> ulb.locateCallItem(3, Nfs3.SYMLINK, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class).hasMessageContaining("time_how");
    }

    @Test
    void otherCallsHaveNoItem() throws Exception {
        ByteBuf b = words(0, 0, 0, 0, 0, 0, 0, 0);
        for (int proc = 0; proc <= 21; proc++) {
            if (proc != Nfs3.WRITE && proc != Nfs3.SYMLINK) {
                assertThat(ulb.locateCallItem(3, proc, b, new DataItem())).as("proc %d", proc).isFalse();
            }
        }
        assertThat(ulb.locateCallItem(2, Nfs3.WRITE, b, new DataItem())).isFalse();
    }

    @Test
    void readReplyDataAfterAttributesCountAndEof() throws Exception {
        ByteBuf b = words(0, 1, 1); // OK, attributes follow, ftype REG
        b.writeZero(80); // rest of fattr3: 4 + 4 + 84 = 92
        b.writeInt(3).writeInt(1); // count, eof: 100
        b.writeInt(3).writeBytes(new byte[] {9, 8, 7, 0}); // data at 104
        DataItem item = new DataItem();
        assertThat(ulb.locateReplyItem(3, Nfs3.READ, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(104);
        assertThat(item.length()).isEqualTo(3);
    }

    @Test
    void reducedReadReplyHasOnlyTheLengthWord() throws Exception {
        ByteBuf b = words(0, 0, 3, 1, 4096); // OK, no attributes, count, eof, length; bytes not inline
        DataItem item = new DataItem();
        assertThat(ulb.locateReducedReplyItem(3, Nfs3.READ, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(20);
        assertThat(item.length()).isEqualTo(4096);
        assertThatThrownBy(() -> ulb.locateReplyItem(3, Nfs3.READ, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class);
    }

    @Test
    void readlinkReplyWithoutAttributes() throws Exception {
        ByteBuf b = words(0, 0, 1).writeBytes(new byte[] {'x', 0, 0, 0});
        DataItem item = new DataItem();
        assertThat(ulb.locateReplyItem(3, Nfs3.READLINK, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(12);
        assertThat(item.length()).isEqualTo(1);
    }

    @Test
    void errorRepliesCarryNoItem() throws Exception {
        ByteBuf b = words(70, 0); // NFS3ERR_STALE, no attributes
        assertThat(ulb.locateReplyItem(3, Nfs3.READ, b, new DataItem())).isFalse();
        assertThat(ulb.locateReplyItem(3, Nfs3.READLINK, b, new DataItem())).isFalse();
        assertThat(ulb.locateReplyItem(3, Nfs3.GETATTR, words(0), new DataItem())).isFalse();
    }

    @Test
    void aReadAttributeWithABadTypeIsGarbage() {
        ByteBuf b = words(0, 1, 9).writeZero(200);
        assertThatThrownBy(() -> ulb.locateReplyItem(3, Nfs3.READ, b, new DataItem()))
                .isInstanceOf(XdrFormatException.class).hasMessageContaining("ftype3");
    }

    @Test
    void maxReplyItemLengthIsTheReadCountOrMaxPathLen() throws Exception {
        ByteBuf read = words(8, 1, 2, 0, 0, 0xFFFFFFFF); // fh of 8 bytes, offset, count 2^32-1
        assertThat(ulb.maxReplyItemLength(3, Nfs3.READ, read)).isEqualTo(0xFFFFFFFFL);
        assertThat(ulb.maxReplyItemLength(3, Nfs3.READLINK, words(0))).isEqualTo(1024);
        assertThat(ulb.maxReplyItemLength(3, Nfs3.GETATTR, words(0))).isEqualTo(-1);
        assertThatThrownBy(() -> ulb.maxReplyItemLength(3, Nfs3.READ, words(0, 0)))
                .isInstanceOf(XdrFormatException.class);
    }

    @Test
    void maxInlineReplySizeOfReaddirFollowsItsCount() throws Exception {
        ByteBuf readdir = words(0, 0, 0, 0, 0, 8192); // fh, cookie(2), verf(2), count
        assertThat(ulb.maxInlineReplySize(3, Nfs3.READDIR, readdir))
                .isEqualTo(Nfs3UpperLayerBinding.MAX_REPLY_HEADER + 4 + 8192);
        ByteBuf plus = words(0, 0, 0, 0, 0, 1024, 32768);
        assertThat(ulb.maxInlineReplySize(3, Nfs3.READDIRPLUS, plus))
                .isEqualTo(Nfs3UpperLayerBinding.MAX_REPLY_HEADER + 4 + 32768);
        ByteBuf tiny = words(0, 0, 0, 0, 0, 1);
        assertThat(ulb.maxInlineReplySize(3, Nfs3.READDIR, tiny))
                .isEqualTo(Nfs3UpperLayerBinding.MAX_REPLY_HEADER + 4 + 88);
        assertThat(ulb.maxInlineReplySize(3, 22, words())).isEqualTo(-1);
        assertThat(ulb.maxInlineReplySize(3, Nfs3.NULL, words())).isEqualTo(Nfs3UpperLayerBinding.MAX_REPLY_HEADER);
    }
}

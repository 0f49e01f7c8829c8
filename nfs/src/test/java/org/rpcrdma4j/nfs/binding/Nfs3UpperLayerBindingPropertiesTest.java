package org.rpcrdma4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.testing.Values;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;
import org.rpcrdma4j.nfs.xdr.ReadRes;
import org.rpcrdma4j.nfs.xdr.ReadlinkRes;
import org.rpcrdma4j.nfs.xdr.SymlinkArgs;
import org.rpcrdma4j.nfs.xdr.WriteArgs;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The binding against messages our own codecs encode, with random handles, names, attributes and data: the located
 * item is exactly the data the codec wrote; every truncation fails; garbage never yields an inconsistent item.
 */
class Nfs3UpperLayerBindingPropertiesTest {
    private final Nfs3UpperLayerBinding ulb = Nfs3UpperLayerBinding.INSTANCE;

    @Provide
    Arbitrary<FileHandle> handles() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(64).map(FileHandle::wrap);
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('\u0020', '\ud7ff').ofMinLength(0).ofMaxLength(80)
                .filter(s -> Nfs3Xdr.utf8Length(s) <= 255);
    }

    @Provide
    Arbitrary<SetAttributes> sattrs() {
        Arbitrary<Integer> optInt = Arbitraries.integers().injectNull(0.5);
        Arbitrary<Long> optSize = Arbitraries.longs().greaterOrEqual(0).injectNull(0.5);
        Arbitrary<TimeSetting> time = Arbitraries.oneOf(Arbitraries.just(null), Arbitraries.just(TimeSetting.SERVER_TIME),
                Arbitraries.longs().between(0, 0xFFFFFFFFL).map(s -> TimeSetting.client(new NfsTime(s, 17))));
        return Combinators.combine(optInt, optInt, optInt, optSize, time, time).as(SetAttributes::new);
    }

    private static ByteBuf withPrefix(byte[] message, int prefix) {
        ByteBuf b = Unpooled.buffer(prefix + message.length);
        b.writeZero(prefix).writeBytes(message);
        b.readerIndex(prefix);
        return b;
    }

    @Property
    void writeItemIsTheData(@ForAll("handles") FileHandle fh, @ForAll long offset,
                            @ForAll @Size(max = 300) byte[] data, @ForAll StableHow stable,
                            @ForAll @IntRange(max = 13) int prefix) throws Exception {
        byte[] call = XdrBytes.encode(new WriteArgs(fh, offset, stable, Unpooled.wrappedBuffer(data)));
        ByteBuf b = withPrefix(call, prefix);
        DataItem item = new DataItem();
        assertThat(ulb.locateCallItem(3, Nfs3.WRITE, b, item)).isTrue();
        assertThat(item.offset()).isEqualTo(Nfs3Xdr.opaqueSize(fh.length()) + 8 + 4 + 4 + 4);
        assertThat(item.length()).isEqualTo(data.length);
        assertThat(ByteBufUtil.getBytes(b, prefix + item.offset(), data.length)).isEqualTo(data);
        assertThat(item.offset() + item.paddedLength()).isEqualTo(call.length);
        assertEveryTruncationFails(call, (buf, out) -> ulb.locateCallItem(3, Nfs3.WRITE, buf, out));
    }

    @Property
    void symlinkItemIsThePath(@ForAll("handles") FileHandle fh, @ForAll("names") String name,
                              @ForAll("sattrs") SetAttributes sattr, @ForAll("names") String target,
                              @ForAll @IntRange(max = 5) int prefix) throws Exception {
        byte[] call = XdrBytes.encode(new SymlinkArgs(fh, name, sattr, target));
        ByteBuf b = withPrefix(call, prefix);
        DataItem item = new DataItem();
        assertThat(ulb.locateCallItem(3, Nfs3.SYMLINK, b, item)).isTrue();
        byte[] path = Nfs3Xdr.utf8(target);
        assertThat(item.length()).isEqualTo(path.length);
        assertThat(item.offset() + item.paddedLength()).isEqualTo(call.length);
        assertThat(ByteBufUtil.getBytes(b, prefix + item.offset(), path.length)).isEqualTo(path);
        assertThat(b.getInt(prefix + item.offset() - 4)).isEqualTo(path.length);
        assertEveryTruncationFails(call, (buf, out) -> ulb.locateCallItem(3, Nfs3.SYMLINK, buf, out));
    }

    @Property
    void readReplyItemIsTheData(@ForAll boolean withAttributes, @ForAll boolean eof,
                                @ForAll @Size(max = 300) byte[] data) throws Exception {
        ReadRes res = new ReadRes();
        res.status = 0;
        res.attributes = withAttributes ? Values.attributes(FileType.REGULAR, data.length) : null;
        res.count = data.length;
        res.eof = eof;
        res.data = java.nio.ByteBuffer.wrap(data);
        byte[] reply = XdrBytes.encode(res);
        DataItem item = new DataItem();
        assertThat(ulb.locateReplyItem(3, Nfs3.READ, Unpooled.wrappedBuffer(reply), item)).isTrue();
        int expected = 4 + (withAttributes ? 88 : 4) + 4 + 4 + 4;
        assertThat(item.offset()).isEqualTo(expected);
        assertThat(item.length()).isEqualTo(data.length);
        assertThat(ByteBufUtil.getBytes(Unpooled.wrappedBuffer(reply), item.offset(), data.length)).isEqualTo(data);
        assertEveryTruncationFails(reply, (buf, out) -> ulb.locateReplyItem(3, Nfs3.READ, buf, out));

        // the same reply reduced: length word inline, bytes gone
        byte[] reduced = java.util.Arrays.copyOf(reply, expected);
        DataItem r = new DataItem();
        assertThat(ulb.locateReducedReplyItem(3, Nfs3.READ, Unpooled.wrappedBuffer(reduced), r)).isTrue();
        assertThat(r.offset()).isEqualTo(item.offset());
        assertThat(r.length()).isEqualTo(item.length());
        assertEveryTruncationFails(reduced, (buf, out) -> ulb.locateReducedReplyItem(3, Nfs3.READ, buf, out));
    }

    @Property
    void readlinkReplyItemIsThePath(@ForAll boolean withAttributes, @ForAll("names") String target) throws Exception {
        ReadlinkRes res = new ReadlinkRes();
        res.attributes = withAttributes ? Values.attributes(FileType.SYMLINK, 3) : null;
        res.target = target;
        byte[] reply = XdrBytes.encode(res);
        DataItem item = new DataItem();
        assertThat(ulb.locateReplyItem(3, Nfs3.READLINK, Unpooled.wrappedBuffer(reply), item)).isTrue();
        byte[] path = Nfs3Xdr.utf8(target);
        assertThat(item.offset()).isEqualTo(4 + (withAttributes ? 88 : 4) + 4);
        assertThat(ByteBufUtil.getBytes(Unpooled.wrappedBuffer(reply), item.offset(), path.length)).isEqualTo(path);
        assertEveryTruncationFails(reply, (buf, out) -> ulb.locateReplyItem(3, Nfs3.READLINK, buf, out));
    }

    @Property
    void failedReadRepliesNeverYieldAnItem(@ForAll @IntRange(min = 1) int status, @ForAll boolean withAttributes)
            throws Exception {
        ReadRes res = new ReadRes();
        res.status = status;
        res.attributes = withAttributes ? Values.attributes(FileType.REGULAR, 1) : null;
        assertThat(ulb.locateReplyItem(3, Nfs3.READ, XdrBytes.encodeToBuf(res), new DataItem())).isFalse();
    }

    @Property(tries = 2000)
    void garbageNeverYieldsAnInconsistentItem(@ForAll @Size(max = 160) byte[] garbage,
                                              @ForAll @IntRange(min = 0, max = 3) int which) {
        ByteBuf b = Unpooled.wrappedBuffer(garbage);
        DataItem item = new DataItem();
        boolean found;
        try {
            found = switch (which) {
                case 0 -> ulb.locateCallItem(3, Nfs3.WRITE, b, item);
                case 1 -> ulb.locateCallItem(3, Nfs3.SYMLINK, b, item);
                case 2 -> ulb.locateReplyItem(3, Nfs3.READ, b, item);
                default -> ulb.locateReplyItem(3, Nfs3.READLINK, b, item);
            };
        } catch (XdrFormatException e) {
            return;
        }
        if (found) {
            assertThat(item.offset() + item.paddedLength()).isLessThanOrEqualTo(garbage.length);
            assertThat(b.getInt(item.offset() - 4) & 0xFFFFFFFFL).isEqualTo(item.length());
        }
        assertThat(b.readerIndex()).isZero();
    }

    interface Locate {
        boolean apply(ByteBuf buf, DataItem out) throws XdrFormatException;
    }

    private static void assertEveryTruncationFails(byte[] message, Locate locate) {
        for (int len = 0; len < message.length; len++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(message, 0, len);
            assertThatThrownBy(() -> locate.apply(truncated, new DataItem()))
                    .as("truncated to %d of %d bytes", len, message.length)
                    .isInstanceOf(XdrFormatException.class);
        }
    }
}

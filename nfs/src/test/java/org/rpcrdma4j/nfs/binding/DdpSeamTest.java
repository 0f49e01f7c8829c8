package org.rpcrdma4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.testing.Values;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.xdr.DdpArgument;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.ReadRes;
import org.rpcrdma4j.nfs.xdr.SymlinkArgs;
import org.rpcrdma4j.nfs.xdr.WriteArgs;
import org.rpcrdma4j.xprt.DataItem;

/**
 * The hooks an RDMA transport will use, done by hand here: a call marshaled as "arguments before the item, the
 * item's length word, the item moved to a read chunk" is the flat call minus the item's bytes, at the offset the
 * binding reports; a reply whose READ data the server placed into the caller's sink decodes from the reduced stream.
 */
class DdpSeamTest {

    private static byte[] reducedCall(DdpArgument args) throws Exception {
        try (Xdr xdr = new Xdr(64)) {
            xdr.beginEncoding();
            args.encodeBeforeItem(xdr);
            xdr.xdrEncodeInt(args.item().readableBytes());
            xdr.endEncoding();
            return xdr.getBytes();
        }
    }

    @Property(tries = 200)
    void aReducedCallIsTheFlatCallUpToTheItem(@ForAll @Size(max = 64) byte[] fh, @ForAll @Size(max = 300) byte[] data,
                                             @ForAll boolean symlink) throws Exception {
        DdpArgument args = symlink
                ? new SymlinkArgs(FileHandle.wrap(fh), "name", SetAttributes.NONE.withMode(0777), "t".repeat(data.length))
                : new WriteArgs(FileHandle.wrap(fh), 7, StableHow.UNSTABLE, Unpooled.wrappedBuffer(data));
        byte[] flat = XdrBytes.encode(args);
        byte[] reduced = reducedCall(args);
        DataItem item = new DataItem();
        assertThat(Nfs3UpperLayerBinding.INSTANCE.locateCallItem(3, symlink ? Nfs3.SYMLINK : Nfs3.WRITE,
                Unpooled.wrappedBuffer(flat), item)).isTrue();
        assertThat(reduced.length).isEqualTo(item.offset());
        assertThat(reduced).isEqualTo(Arrays.copyOf(flat, item.offset()));
        assertThat(ByteBufUtil.getBytes(args.item())).isEqualTo(Arrays.copyOfRange(flat, item.offset(),
                item.offset() + (int) item.length()));
    }

    @Property(tries = 200)
    void aReplyWhoseDataWasPlacedDecodesFromTheReducedStream(@ForAll @Size(max = 300) byte[] data,
                                                             @ForAll boolean eof, @ForAll boolean attributes)
            throws Exception {
        ReadRes server = new ReadRes();
        server.attributes = attributes ? Values.attributes(FileType.REGULAR, data.length) : null;
        server.count = data.length;
        server.eof = eof;
        server.data = ByteBuffer.wrap(data);
        byte[] flat = XdrBytes.encode(server);
        DataItem item = new DataItem();
        assertThat(Nfs3UpperLayerBinding.INSTANCE.locateReplyItem(3, Nfs3.READ, Unpooled.wrappedBuffer(flat), item))
                .isTrue();

        // the responder writes the item into the requester's write chunk (the sink) and sends the rest inline
        ByteBuf sink = Unpooled.buffer(512, 512);
        sink.writeBytes(new byte[] {1, 2, 3}); // what the caller had in the buffer before
        sink.setBytes(sink.writerIndex(), flat, item.offset(), (int) item.length());
        byte[] reduced = Arrays.copyOf(flat, item.offset());

        ReadRes client = new ReadRes(sink);
        Xdr xdr = new Xdr(reduced);
        xdr.beginDecoding();
        client.decodeReduced(xdr, item.length());
        assertThat(client.count).isEqualTo(data.length);
        assertThat(client.eof).isEqualTo(eof);
        assertThat(client.attributes).isEqualTo(server.attributes);
        assertThat(sink.readableBytes()).isEqualTo(3 + data.length);
        assertThat(Arrays.copyOfRange(sink.array(), 3, 3 + data.length)).isEqualTo(data);
    }
}

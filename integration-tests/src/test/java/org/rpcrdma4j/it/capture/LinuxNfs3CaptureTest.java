package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.xprt.DataItem;

/**
 * Our NFSv3 upper-layer binding against what the Linux 6.1 client and knfsd actually did (the NFSv3 reference
 * capture): for every call and reply the binding finds exactly the data items Linux moved into chunks, at the Read
 * chunk's position with its length, and the reduced READ replies where it expects them; it finds none where Linux
 * moved none. Putting the chunks' bytes back yields the 4 MiB pattern file byte for byte, which shows that the
 * capture reader reassembled the RDMA traffic correctly.
 */
class LinuxNfs3CaptureTest {
    private static final Nfs3UpperLayerBinding ULB = Nfs3UpperLayerBinding.INSTANCE;

    @Test
    void theBindingFindsExactlyTheItemsLinuxPlacedInChunks() throws Exception {
        RpcRdmaTrace trace = LinuxCaptures.trace(LinuxCaptures.NFSV3);
        Map<String, Integer> counts = new TreeMap<>();
        BitSet fileRead = new BitSet(LinuxCaptures.PATTERN_FILE_SIZE);
        BitSet fileWritten = new BitSet();
        int exchanges = 0;
        for (RpcRdmaExchange x : trace.exchanges()) {
            RpcRdmaMessage call = x.call();
            OncRpcHeader rpc = call.rpcHeader();
            if (rpc.program() != Nfs3.PROGRAM || rpc.version() != Nfs3.VERSION) {
                counts.merge("other program " + rpc.program() + "/" + rpc.version(), 1, Integer::sum);
                continue;
            }
            exchanges++;
            assertThat(x.reply()).as("reply to %s", call).isNotNull();
            int proc = rpc.procedure();
            byte[] unreduced = call.unreducedCall();
            ByteBuf args = Unpooled.wrappedBuffer(unreduced, rpc.bodyOffset(), unreduced.length - rpc.bodyOffset());

            // the call: a data item exactly where Linux put a Read chunk, none elsewhere
            DataItem item = new DataItem();
            boolean found = ULB.locateCallItem(Nfs3.VERSION, proc, args, item);
            int chunk = call.dataItemReadChunk();
            assertThat(found).as("call item in %s %s", Nfs3.procedureName(proc), call).isEqualTo(chunk >= 0);
            if (found) {
                assertThat(rpc.bodyOffset() + item.offset()).as("position").isEqualTo(
                        call.header().readChunkPosition(chunk));
                assertThat(item.length()).as("length").isEqualTo(call.header().readChunkLength(chunk));
                counts.merge(Nfs3.procedureName(proc) + " call item in a read chunk", 1, Integer::sum);
                if (proc == Nfs3.WRITE) {
                    long offset = fileOffset(unreduced, rpc.bodyOffset());
                    fileWritten.set((int) offset, (int) (offset + item.length()));
                }
            }
            assertThat(call.header().hasPositionZeroReadChunk()).isFalse();

            // the reply: the reduced READ reply holds the item's length word where the binding expects it
            RpcRdmaMessage reply = x.reply();
            OncRpcHeader replyRpc = reply.rpcHeader();
            assertThat(replyRpc.successfulReply()).isTrue();
            byte[] reduced = reply.rpcMessage();
            ByteBuf results = Unpooled.wrappedBuffer(reduced, replyRpc.bodyOffset(),
                    reduced.length - replyRpc.bodyOffset());
            boolean written = reply.header().writeChunkCount() > 0;
            DataItem r = new DataItem();
            if (written) {
                assertThat(ULB.locateReducedReplyItem(Nfs3.VERSION, proc, results, r)).as("%s", reply).isTrue();
                byte[] data = reply.writeChunkData(0);
                assertThat(r.length()).as("item length = bytes written").isEqualTo(data.length);
                assertThat(replyRpc.bodyOffset() + r.offset()).as("nothing follows READ data").isEqualTo(
                        reduced.length);
                assertThat(ULB.maxReplyItemLength(Nfs3.VERSION, proc, args)).as("write chunk provided")
                        .isEqualTo(call.header().writeChunkLength(0));
                // put the data back: the unreduced reply locates the same item, holding those bytes
                byte[] whole = reply.unreducedReply(replyRpc.bodyOffset() + r.offset());
                DataItem u = new DataItem();
                assertThat(ULB.locateReplyItem(Nfs3.VERSION, proc, Unpooled.wrappedBuffer(whole, replyRpc.bodyOffset(),
                        whole.length - replyRpc.bodyOffset()), u)).isTrue();
                assertThat(u.offset()).isEqualTo(r.offset());
                assertThat(u.length()).isEqualTo(r.length());
                assertThat(proc).isEqualTo(Nfs3.READ);
                long offset = fileOffset(unreduced, rpc.bodyOffset());
                assertPattern(data, offset);
                fileRead.set((int) offset, (int) (offset + data.length));
                counts.merge("READ reply item in a write chunk", 1, Integer::sum);
            } else {
                byte[] message = reply.rpcMessage();
                assertThat(ULB.locateReplyItem(Nfs3.VERSION, proc, Unpooled.wrappedBuffer(message,
                        replyRpc.bodyOffset(), message.length - replyRpc.bodyOffset()), r))
                        .as("reply item in %s %s", Nfs3.procedureName(proc), reply).isFalse();
                counts.merge(Nfs3.procedureName(proc) + " reply without item" + (reply.usesBodyChunk() ? " (reply chunk)" : ""),
                        1, Integer::sum);
            }
        }
        System.out.println(LinuxCaptures.NFSV3 + ": " + exchanges + " NFSv3 calls and replies " + counts);
        assertThat(fileRead.cardinality()).as("bytes of the pattern file read").isEqualTo(
                LinuxCaptures.PATTERN_FILE_SIZE);
        assertThat(fileWritten.cardinality()).as("bytes written").isEqualTo(1 << 20);
        assertThat(fileWritten.nextClearBit(0)).isEqualTo(1 << 20);
        assertThat(counts).containsEntry("WRITE call item in a read chunk", 8)
                .containsEntry("READ reply item in a write chunk", 35);
    }

    /** READ3args and WRITE3args begin with the file handle, then the file offset. */
    private static long fileOffset(byte[] call, int args) {
        ByteBuffer b = ByteBuffer.wrap(call);
        int handle = b.getInt(args);
        return b.getLong(args + 4 + ((handle + 3) & ~3));
    }

    static void assertPattern(byte[] data, long offset) {
        for (int i = 0; i < data.length; i++) {
            if (data[i] != LinuxCaptures.patternByte(offset + i)) {
                throw new AssertionError("READ data at file offset " + (offset + i) + " is " + (data[i] & 0xFF)
                        + ", the pattern has " + (LinuxCaptures.patternByte(offset + i) & 0xFF) + "; first bytes "
                        + Arrays.toString(Arrays.copyOf(data, Math.min(8, data.length))));
            }
        }
    }
}

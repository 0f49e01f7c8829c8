package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4UpperLayerBinding;
import org.rpcrdma4j.xprt.DataItem;

/**
 * Our NFSv4 upper-layer binding against the Linux 6.1 client and knfsd speaking NFSv4.1 (the NFSv4.1 reference
 * capture: mount, ls, read the 4 MiB pattern file, write 1 MiB, symlink, remove, umount).
 * <p>
 * For every COMPOUND call and reply the binding finds exactly the data items Linux placed in chunks: WRITE data at
 * the Read chunk's position with its length (in the unreduced call, and in the reduced call as a responder sees
 * it), READ data where the reduced reply keeps its length word, with the length the server wrote into the Write
 * chunk. It finds none in the replies Linux sent without a Write chunk (some of them whole in a Reply chunk), and in
 * calls without a data Read chunk only the DDP-eligible items the client chose to send inline (a call that fits the
 * inline threshold goes inline whatever it carries). The READ data put back are the pattern file, byte for byte.
 * Where the binding bounds a reply, the reply Linux sent is within the bound.
 */
class LinuxNfs41CaptureTest {
    private static final Nfs4UpperLayerBinding ULB = Nfs4UpperLayerBinding.INSTANCE;
    /** Both sides announced 4 KiB inline thresholds (RFC 8797 private data in the MPA frames). */
    private static final int INLINE_THRESHOLD = 4096;

    @Test
    void theBindingFindsExactlyTheItemsLinuxPlacedInChunks() throws Exception {
        RpcRdmaTrace trace = LinuxCaptures.trace(LinuxCaptures.NFSV41);
        Map<String, Integer> counts = new TreeMap<>();
        BitSet fileRead = new BitSet(LinuxCaptures.PATTERN_FILE_SIZE);
        BitSet fileWritten = new BitSet();
        for (RpcRdmaExchange x : trace.exchanges()) {
            RpcRdmaMessage call = x.call();
            OncRpcHeader rpc = call.rpcHeader();
            assertThat(rpc.program()).isEqualTo(Nfs4.PROGRAM);
            assertThat(rpc.version()).isEqualTo(Nfs4.VERSION);
            assertThat(x.reply()).as("reply to %s", call).isNotNull();
            int proc = rpc.procedure();
            counts.merge(proc == Nfs4.PROC_COMPOUND ? "COMPOUND" : "procedure " + proc, 1, Integer::sum);
            checkCall(call, rpc, counts, fileWritten);
            checkReply(call, rpc, x.reply(), counts, fileRead);
        }
        System.out.println(LinuxCaptures.NFSV41 + ": " + trace.exchanges().size() + " NFSv4 calls and replies "
                + counts);
        assertThat(counts).containsEntry("WRITE data in a read chunk", 8)
                .containsEntry("READ data in a write chunk", 35)
                .containsKey("reply without item, in the reply chunk");
        assertThat(fileRead.cardinality()).as("bytes of the pattern file read").isEqualTo(
                LinuxCaptures.PATTERN_FILE_SIZE);
        assertThat(fileWritten.cardinality()).as("bytes written").isEqualTo(1 << 20);
        assertThat(fileWritten.nextClearBit(0)).isEqualTo(1 << 20);
    }

    private static void checkCall(RpcRdmaMessage call, OncRpcHeader rpc, Map<String, Integer> counts,
                                  BitSet fileWritten) throws Exception {
        int proc = rpc.procedure();
        byte[] unreduced = call.unreducedCall();
        ByteBuf args = Unpooled.wrappedBuffer(unreduced, rpc.bodyOffset(), unreduced.length - rpc.bodyOffset());
        DataItem item = new DataItem();
        boolean found = ULB.locateCallItem(Nfs4.VERSION, proc, args, item);
        int chunk = call.dataItemReadChunk();
        assertThat(call.header().hasPositionZeroReadChunk()).isFalse();
        if (chunk >= 0) {
            assertThat(found).as("item in %s", call).isTrue();
            assertThat(rpc.bodyOffset() + item.offset()).as("position").isEqualTo(
                    call.header().readChunkPosition(chunk));
            assertThat(item.length()).as("length").isEqualTo(call.header().readChunkLength(chunk));
            // the responder's view: the reduced call (length word inline, bytes in the chunk) gives the same answer
            byte[] reduced = call.rpcMessage();
            DataItem r = new DataItem();
            assertThat(ULB.locateReducedCallItem(Nfs4.VERSION, proc, Unpooled.wrappedBuffer(reduced, rpc.bodyOffset(),
                    reduced.length - rpc.bodyOffset()), r)).isTrue();
            assertThat(r.offset()).isEqualTo(item.offset());
            assertThat(r.length()).isEqualTo(item.length());
            // WRITE4args: stateid, offset, stable_how, then the data's length word
            long offset = ByteBuffer.wrap(unreduced).getLong(rpc.bodyOffset() + item.offset() - 4 - 4 - 8);
            fileWritten.set((int) offset, (int) (offset + item.length()));
            counts.merge("WRITE data in a read chunk", 1, Integer::sum);
        } else if (found) {
            // eligible, but Linux sent the whole call inline: it fits the threshold
            assertThat(call.header().proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
            assertThat(call.header().readChunkCount()).isZero();
            assertThat(call.payload().length).isLessThanOrEqualTo(INLINE_THRESHOLD);
            counts.merge("call with an eligible item of " + item.length() + " bytes sent inline", 1, Integer::sum);
        } else {
            counts.merge("call without item", 1, Integer::sum);
        }
    }

    private static void checkReply(RpcRdmaMessage call, OncRpcHeader rpc, RpcRdmaMessage reply,
                                   Map<String, Integer> counts, BitSet fileRead) throws Exception {
        int proc = rpc.procedure();
        byte[] unreducedCall = call.unreducedCall();
        ByteBuf args = Unpooled.wrappedBuffer(unreducedCall, rpc.bodyOffset(),
                unreducedCall.length - rpc.bodyOffset());
        OncRpcHeader replyRpc = reply.rpcHeader();
        assertThat(replyRpc.successfulReply()).isTrue();
        byte[] reduced = reply.rpcMessage();
        ByteBuf results = Unpooled.wrappedBuffer(reduced, replyRpc.bodyOffset(), reduced.length - replyRpc.bodyOffset());
        DataItem r = new DataItem();

        long bound = ULB.maxInlineReplySize(Nfs4.VERSION, proc, args);
        if (bound >= 0) {
            assertThat((long) reduced.length).as("reply within the binding's bound, %s", reply)
                    .isLessThanOrEqualTo(bound);
            counts.merge("reply bounded by the binding", 1, Integer::sum);
        }

        if (reply.header().writeChunkCount() > 0) {
            assertThat(ULB.locateReducedReplyItem(Nfs4.VERSION, proc, results, r)).as("%s", reply).isTrue();
            byte[] data = reply.writeChunkData(0);
            assertThat(r.length()).as("item length = bytes written").isEqualTo(data.length);
            assertThat(replyRpc.bodyOffset() + r.offset()).as("READ is the last result").isEqualTo(reduced.length);
            assertThat(ULB.maxReplyItemLength(Nfs4.VERSION, proc, args)).as("write chunk provided")
                    .isEqualTo(call.header().writeChunkLength(0));
            byte[] whole = reply.unreducedReply(replyRpc.bodyOffset() + r.offset());
            DataItem u = new DataItem();
            assertThat(ULB.locateReplyItem(Nfs4.VERSION, proc, Unpooled.wrappedBuffer(whole, replyRpc.bodyOffset(),
                    whole.length - replyRpc.bodyOffset()), u)).isTrue();
            assertThat(u.offset()).isEqualTo(r.offset());
            assertThat(u.length()).isEqualTo(r.length());
            long offset = linuxReadOffset(unreducedCall, rpc.bodyOffset());
            LinuxNfs3CaptureTest.assertPattern(data, offset);
            fileRead.set((int) offset, (int) (offset + data.length));
            counts.merge("READ data in a write chunk", 1, Integer::sum);
        } else {
            assertThat(ULB.locateReplyItem(Nfs4.VERSION, proc, results, r)).as("item in %s", reply).isFalse();
            assertThat(call.header().writeChunkCount()).isZero();
            counts.merge(reply.usesBodyChunk() ? "reply without item, in the reply chunk" : "reply without item",
                    1, Integer::sum);
        }
    }

    /**
     * Every real COMPOUND walked to its end: each call without a data item gets a WRITE appended (and its operation
     * count raised), each reply without one a successful READ result; the binding must find the appended item at
     * the very end, which it can only do if it walked every operation Linux sent before it with its exact size. The
     * exceptions are the COMPOUNDs the binding deliberately does not walk (EXCHANGE_ID, CREATE_SESSION) and replies
     * whose COMPOUND failed (the appended result would follow a failure).
     */
    @Test
    void theBindingWalksEveryCompoundLinuxSentToItsEnd() throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        byte[] data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
        for (RpcRdmaExchange x : LinuxCaptures.trace(LinuxCaptures.NFSV41).exchanges()) {
            OncRpcHeader rpc = x.call().rpcHeader();
            if (rpc.procedure() != Nfs4.PROC_COMPOUND) {
                continue;
            }
            byte[] call = x.call().unreducedCall();
            ByteBuf args = Unpooled.wrappedBuffer(call, rpc.bodyOffset(), call.length - rpc.bodyOffset());
            DataItem item = new DataItem();
            boolean walkable = !startsWith(args, 0, Nfs4.OP_EXCHANGE_ID, Nfs4.OP_CREATE_SESSION);
            // WRITE4args before the data: stateid (4 words), offset (2), stable_how (1, here UNSTABLE4 = 0)
            if (!ULB.locateCallItem(Nfs4.VERSION, Nfs4.PROC_COMPOUND, args, item)) {
                ByteBuf extended = appendOperation(args, 0, Nfs4.OP_WRITE, new int[7], data);
                boolean found = ULB.locateCallItem(Nfs4.VERSION, Nfs4.PROC_COMPOUND, extended, item);
                assertThat(found).as("appended WRITE after %s", x.call()).isEqualTo(walkable);
                if (found) {
                    assertThat(item.offset()).isEqualTo(args.readableBytes() + 4 + 28 + 4);
                    assertThat(item.length()).isEqualTo(data.length);
                    counts.merge("calls walked to the end", 1, Integer::sum);
                } else {
                    counts.merge("calls not walked (EXCHANGE_ID, CREATE_SESSION)", 1, Integer::sum);
                }
            }
            OncRpcHeader replyRpc = x.reply().rpcHeader();
            byte[] reply = x.reply().rpcMessage();
            ByteBuf results = Unpooled.wrappedBuffer(reply, replyRpc.bodyOffset(), reply.length - replyRpc.bodyOffset());
            if (x.reply().header().writeChunkCount() == 0) {
                assertThat(ULB.locateReplyItem(Nfs4.VERSION, Nfs4.PROC_COMPOUND, results, item)).isFalse();
                boolean succeeded = results.getInt(results.readerIndex()) == Nfs4.NFS4_OK;
                ByteBuf extended = appendOperation(results, 4, Nfs4.OP_READ, new int[] {Nfs4.NFS4_OK, 1}, data);
                boolean found = ULB.locateReplyItem(Nfs4.VERSION, Nfs4.PROC_COMPOUND, extended, item);
                assertThat(found).as("appended READ result after %s", x.reply()).isEqualTo(walkable && succeeded);
                if (found) {
                    assertThat(item.offset()).isEqualTo(results.readableBytes() + 4 + 4 + 4 + 4);
                    assertThat(item.length()).isEqualTo(data.length);
                    counts.merge("replies walked to the end" + (x.reply().usesBodyChunk() ? " (reply chunk)" : ""),
                            1, Integer::sum);
                } else {
                    counts.merge(succeeded ? "replies not walked (EXCHANGE_ID, CREATE_SESSION)"
                            : "failed COMPOUND replies", 1, Integer::sum);
                }
            }
        }
        System.out.println(LinuxCaptures.NFSV41 + ", with an item appended: " + counts);
        assertThat(counts.get("calls walked to the end")).isGreaterThanOrEqualTo(70);
        assertThat(counts.get("replies walked to the end")).isGreaterThanOrEqualTo(40);
        assertThat(counts).containsKey("replies walked to the end (reply chunk)");
    }

    /** Whether the COMPOUND (args, or results after {@code skip} bytes of status) starts with one of {@code ops}. */
    private static boolean startsWith(ByteBuf compound, int skip, int... ops) {
        int at = compound.readerIndex() + skip;
        at += 4 + ((compound.getInt(at) + 3) & ~3); // tag
        at += skip == 0 ? 4 : 0; // a call's minor version
        if (compound.getInt(at) == 0) {
            return false;
        }
        int first = compound.getInt(at + 4);
        for (int op : ops) {
            if (first == op) {
                return true;
            }
        }
        return false;
    }

    /**
     * A copy of a COMPOUND (args, or results after {@code skip} bytes of status) with one more operation: its count
     * raised by one, then {@code op}, the words {@code fixed}, and {@code data} as an XDR opaque.
     */
    private static ByteBuf appendOperation(ByteBuf compound, int skip, int op, int[] fixed, byte[] data) {
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(compound, compound.readerIndex(), compound.readableBytes());
        int at = skip;
        at += 4 + ((out.getInt(at) + 3) & ~3); // tag
        at += skip == 0 ? 4 : 0; // minor version
        out.setInt(at, out.getInt(at) + 1);
        out.writeInt(op);
        for (int w : fixed) {
            out.writeInt(w);
        }
        out.writeInt(data.length).writeBytes(data).writeZero((4 - (data.length & 3)) & 3);
        return out;
    }

    /**
     * The file offset of a Linux READ COMPOUND (SEQUENCE, PUTFH, READ), parsed here on its own rather than with the
     * binding under test: tag, minor version, 3 operations, SEQUENCE's 32 bytes, PUTFH's handle, READ's stateid and
     * offset.
     */
    private static long linuxReadOffset(byte[] call, int args) {
        ByteBuffer b = ByteBuffer.wrap(call);
        int at = args;
        at += 4 + ((b.getInt(at) + 3) & ~3); // tag
        at += 4; // minor version
        assertThat(b.getInt(at)).as("operations").isEqualTo(3);
        at += 4;
        assertThat(b.getInt(at)).isEqualTo(Nfs4.OP_SEQUENCE);
        at += 4 + 32;
        assertThat(b.getInt(at)).isEqualTo(Nfs4.OP_PUTFH);
        at += 4;
        at += 4 + ((b.getInt(at) + 3) & ~3);
        assertThat(b.getInt(at)).isEqualTo(Nfs4.OP_READ);
        return b.getLong(at + 4 + 16);
    }
}

package org.rpcrdma4j.it.linux;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.it.capture.CaptureFormatException;
import org.rpcrdma4j.it.capture.OncRpcHeader;
import org.rpcrdma4j.it.capture.RdmapMessage;
import org.rpcrdma4j.it.capture.RpcRdmaExchange;
import org.rpcrdma4j.it.capture.RpcRdmaMessage;
import org.rpcrdma4j.it.capture.RpcRdmaTrace;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * The NFSv3 file I/O of a captured RPC-over-RDMA connection: every READ and WRITE with how its data travelled (inline,
 * a Read chunk the server pulled with RDMA Read, a Write chunk the server filled with RDMA Write) and the file images
 * the wire bytes add up to, per file handle. So a test can say "the bytes knfsd pulled are the file" without trusting
 * either end's own account.
 */
final class Nfs3Traffic {
    /** How a READ's or WRITE's data crossed the wire. */
    enum Carrier {
        INLINE, READ_CHUNK, WRITE_CHUNK
    }

    /**
     * One READ or WRITE and its answer.
     *
     * @param procedure    {@link Nfs3#READ} or {@link Nfs3#WRITE}
     * @param handle       the file handle, in hex
     * @param offset       the file offset of the call
     * @param count        the call's count (WRITE: the data's length)
     * @param carrier      how the data travelled
     * @param chunkLength  READ: the Write chunk offered (0 when none); WRITE: the Read chunk's length (0 when inline)
     * @param chunkSegments segments of that chunk
     * @param data         the data that crossed (WRITE: what the server received; READ: what it returned)
     * @param replyOpcode  the RDMAP opcode of the reply's Send
     * @param replyInvalidated the STag the reply invalidated (Send With Invalidate), or 0
     * @param callHandles  the distinct handles of the call's chunks
     */
    record Io(int procedure, String handle, long offset, long count, Carrier carrier, long chunkLength,
              int chunkSegments, byte[] data, int replyOpcode, int replyInvalidated, List<Integer> callHandles) {
    }

    private final List<Io> ios = new ArrayList<>();
    private final Map<String, FileImage> written = new HashMap<>();
    private final Map<String, FileImage> read = new HashMap<>();

    private Nfs3Traffic() {
    }

    /** Reads the NFSv3 READs and WRITEs of a trace. */
    static Nfs3Traffic of(RpcRdmaTrace trace) throws CaptureFormatException {
        Nfs3Traffic t = new Nfs3Traffic();
        for (RpcRdmaExchange x : trace.exchanges()) {
            OncRpcHeader rpc = x.call().rpcHeader();
            if (rpc == null || rpc.program() != Nfs3.PROGRAM || rpc.version() != Nfs3.VERSION || x.reply() == null
                    || (rpc.procedure() != Nfs3.READ && rpc.procedure() != Nfs3.WRITE)) {
                continue;
            }
            if (x.reply().header().proc() == RpcRdmaProc.RDMA_ERROR) {
                continue;
            }
            t.add(x, rpc);
        }
        return t;
    }

    private void add(RpcRdmaExchange x, OncRpcHeader rpc) throws CaptureFormatException {
        RpcRdmaMessage call = x.call();
        RpcRdmaMessage reply = x.reply();
        RpcRdmaHeader h = call.header();
        byte[] args = call.unreducedCall();
        ByteBuffer a = ByteBuffer.wrap(args);
        int at = rpc.bodyOffset();
        int fhLength = a.getInt(at);
        String handle = HexFormat.of().formatHex(args, at + 4, at + 4 + fhLength);
        at += 4 + ((fhLength + 3) & ~3);
        long offset = a.getLong(at);
        long count = Integer.toUnsignedLong(a.getInt(at + 8));
        List<Integer> handles = handles(h);
        int opcode = reply.send().opcode();
        int invalidated = reply.send().invalidates() ? reply.send().invalidateStag() : 0;
        OncRpcHeader replyRpc = reply.rpcHeader();
        if (!replyRpc.successfulReply()) {
            return;
        }
        if (rpc.procedure() == Nfs3.WRITE) {
            int dataAt = at + 16; // offset, count, stable
            int length = a.getInt(dataAt);
            byte[] data = java.util.Arrays.copyOfRange(args, dataAt + 4, dataAt + 4 + length);
            int chunk = call.dataItemReadChunk();
            Carrier carrier = chunk >= 0 ? Carrier.READ_CHUNK : Carrier.INLINE;
            long chunkLength = chunk >= 0 ? h.readChunkLength(chunk) : 0;
            int segments = chunk >= 0 ? h.readChunkSegmentCount(chunk) : 0;
            ios.add(new Io(Nfs3.WRITE, handle, offset, count, carrier, chunkLength, segments, data, opcode,
                    invalidated, handles));
            written.computeIfAbsent(handle, k -> new FileImage()).put(offset, data);
            return;
        }
        // READ3resok: status, post_op_attr, count, eof, data<>
        byte[] results = reply.rpcMessage();
        ByteBuffer r = ByteBuffer.wrap(results);
        int p = replyRpc.bodyOffset();
        if (r.getInt(p) != 0) {
            return; // an NFS error: no data
        }
        p += 4;
        p += r.getInt(p) != 0 ? 4 + 84 : 4; // attributes_follow, fattr3
        int returned = r.getInt(p);
        p += 8; // count, eof
        byte[] data;
        Carrier carrier;
        if (reply.header().writeChunkCount() > 0) {
            data = reply.writeChunkData(0);
            carrier = Carrier.WRITE_CHUNK;
            if (data.length != returned) {
                throw new CaptureFormatException("READ reply " + reply + " returned " + returned + " bytes but wrote "
                        + data.length + " into the Write chunk");
            }
        } else {
            int length = r.getInt(p);
            data = java.util.Arrays.copyOfRange(results, p + 4, p + 4 + length);
            carrier = Carrier.INLINE;
        }
        long offered = h.writeChunkCount() > 0 ? h.writeChunkLength(0) : 0;
        int segments = h.writeChunkCount() > 0 ? h.writeSegmentCount(0) : 0;
        ios.add(new Io(Nfs3.READ, handle, offset, count, carrier, offered, segments, data, opcode, invalidated,
                handles));
        read.computeIfAbsent(handle, k -> new FileImage()).put(offset, data);
    }

    private static List<Integer> handles(RpcRdmaHeader h) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < h.readSegmentCount(); i++) {
            addDistinct(out, h.readHandle(i));
        }
        for (int c = 0; c < h.writeChunkCount(); c++) {
            for (int i = 0; i < h.writeSegmentCount(c); i++) {
                addDistinct(out, h.writeHandle(c, i));
            }
        }
        if (h.hasReplyChunk()) {
            for (int i = 0; i < h.replySegmentCount(); i++) {
                addDistinct(out, h.replyHandle(i));
            }
        }
        return out;
    }

    private static void addDistinct(List<Integer> list, int handle) {
        if (!list.contains(handle)) {
            list.add(handle);
        }
    }

    /** @return every READ and WRITE, in call order */
    List<Io> ios() {
        return List.copyOf(ios);
    }

    /** @return the bytes the WRITEs to {@code handle} carried, at their offsets (null when none) */
    byte[] writtenImage(String handle) {
        FileImage f = written.get(handle);
        return f == null ? null : f.bytes();
    }

    /** @return the bytes the READs of {@code handle} returned, at their offsets (null when none) */
    byte[] readImage(String handle) {
        FileImage f = read.get(handle);
        return f == null ? null : f.bytes();
    }

    /** @return the handles READ from */
    java.util.Set<String> readHandles() {
        return read.keySet();
    }

    /** @return the handles WRITTEN to */
    java.util.Set<String> writtenHandles() {
        return written.keySet();
    }

    /** A file put together from pieces at offsets (a later piece wins where they overlap); a hole is an error. */
    private static final class FileImage {
        private byte[] bytes = new byte[0];
        private final java.util.BitSet covered = new java.util.BitSet();
        private int end;

        void put(long offset, byte[] data) {
            if (offset + data.length > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("file image beyond 2 GiB");
            }
            int at = (int) offset;
            if (at + data.length > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(at + data.length, bytes.length * 2));
            }
            System.arraycopy(data, 0, bytes, at, data.length);
            covered.set(at, at + data.length);
            end = Math.max(end, at + data.length);
        }

        /** @return the bytes from offset 0 to the end of the last piece */
        byte[] bytes() {
            int hole = covered.nextClearBit(0);
            if (hole < end) {
                throw new IllegalStateException("no data at offset " + hole + " of " + end);
            }
            return java.util.Arrays.copyOf(bytes, end);
        }
    }

    /** @return a count of the Sends of each opcode the server sent */
    static Map<String, Integer> serverSendOpcodes(RpcRdmaTrace trace) {
        Map<String, Integer> out = new java.util.TreeMap<>();
        for (RpcRdmaMessage m : trace.messages()) {
            if (!m.fromClient()) {
                out.merge(RdmapMessage.opcodeName(m.send().opcode()), 1, Integer::sum);
            }
        }
        return out;
    }
}

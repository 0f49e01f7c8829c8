package org.rpcrdma4j.it.capture;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;

/**
 * The RPC-over-RDMA view of one iWARP connection: every Send decoded as an RPC-over-RDMA message with our codec,
 * its chunks filled in from the RDMA traffic, and calls paired with their replies.
 * <p>
 * How chunk contents are found (PROTOCOLS.md A.2, A.3):
 * <ul>
 *   <li><b>Read chunks</b> of a call: the responder pulls them with RDMA Read Requests whose <em>source</em> STag
 *       and TO are the read segment's handle and offset; the requester answers each Read Request, in order, with a
 *       Read Response to the request's <em>sink</em>. The i-th Read Request one side sent is paired with the i-th
 *       Read Response the other side sent (RFC 5040 section 5.2: responses come in request order), and the pair
 *       checked (sink STag, sink TO, size). A segment's data are the pairs issued after the call arrived, matched by
 *       handle and offset range, which must cover the segment exactly.</li>
 *   <li><b>Write chunks and the Reply chunk</b> of a reply: the responder writes them with RDMA Writes to the
 *       segments' handles and offsets before it sends the reply. The reply's own header repeats each segment's handle
 *       and offset with the length actually written; those bytes are read back from a model of the requester's
 *       memory fed by every earlier RDMA Write of the same sender, and the range is then forgotten (the requester
 *       invalidates it).</li>
 * </ul>
 * A chunk whose data the capture does not show, or shows only in part, raises {@link CaptureFormatException}.
 * <p>
 * One departure is tolerated and counted ({@link #overlongZeroLengthReadResponses()}): a zero-length Read Request
 * (a placement probe) answered at the right sink with bytes, which Linux siw 6.1 sometimes sends.
 */
public final class RpcRdmaTrace {
    private final IwarpConnection connection;
    private final List<RpcRdmaMessage> messages;
    private final List<RpcRdmaExchange> exchanges;
    private final int overlongZeroLengthReadResponses;

    private RpcRdmaTrace(IwarpConnection connection, List<RpcRdmaMessage> messages, List<RpcRdmaExchange> exchanges,
                         int overlongZeroLengthReadResponses) {
        this.connection = connection;
        this.messages = messages;
        this.exchanges = exchanges;
        this.overlongZeroLengthReadResponses = overlongZeroLengthReadResponses;
    }

    /**
     * @return how many zero-length Read Requests were answered with a Read Response that carried bytes (to the right
     *     sink STag and TO); those bytes belong to no chunk and are ignored
     */
    public int overlongZeroLengthReadResponses() {
        return overlongZeroLengthReadResponses;
    }

    /** @return the connection the trace was read from */
    public IwarpConnection connection() {
        return connection;
    }

    /** @return every RPC-over-RDMA message of both sides, in capture order */
    public List<RpcRdmaMessage> messages() {
        return messages;
    }

    /** @return calls (of either direction) with their replies, in the order of the calls */
    public List<RpcRdmaExchange> exchanges() {
        return exchanges;
    }

    /** A Read Request and the Read Response that answered it. */
    private record ReadTransfer(RdmapMessage.ReadRequest request, RdmapMessage.Tagged response) {
    }

    /** Builds the trace of one connection. */
    public static RpcRdmaTrace of(IwarpConnection c) throws CaptureFormatException {
        // read chunks the server pulls from the client, and (rarely) the other way round
        int[] overlong = new int[1];
        List<ReadTransfer> serverReads = transfers("responder", c.fromServer(), c.fromClient(), overlong);
        List<ReadTransfer> clientReads = transfers("initiator", c.fromClient(), c.fromServer(), overlong);
        List<RpcRdmaMessage> all = new ArrayList<>();
        side(true, c.fromClient(), serverReads, all);
        side(false, c.fromServer(), clientReads, all);
        all.sort(Comparator.comparingInt(RpcRdmaMessage::frame).thenComparingInt(m -> m.send().index()));
        return new RpcRdmaTrace(c, List.copyOf(all), pair(all), overlong[0]);
    }

    private static List<ReadTransfer> transfers(String who, List<RdmapMessage> requester, List<RdmapMessage> responder,
                                                int[] overlong) throws CaptureFormatException {
        List<RdmapMessage.ReadRequest> requests = new ArrayList<>();
        for (RdmapMessage m : requester) {
            if (m instanceof RdmapMessage.ReadRequest r) {
                requests.add(r);
            }
        }
        List<ReadTransfer> out = new ArrayList<>(requests.size());
        int i = 0;
        for (RdmapMessage m : responder) {
            if (m instanceof RdmapMessage.Tagged t && t.opcode() == RdmapMessage.READ_RESPONSE) {
                if (i >= requests.size()) {
                    throw new CaptureFormatException("Read Response (frame " + t.frame() + ") to no Read Request of the "
                            + who);
                }
                RdmapMessage.ReadRequest r = requests.get(i++);
                if (r.size() == 0 && t.stag() == r.sinkStag() && t.taggedOffset() == r.sinkOffset()
                        && t.payload().length > 0) {
                    overlong[0]++;
                    continue; // a probe answered with stale bytes: no chunk's data
                }
                if (t.stag() != r.sinkStag() || t.taggedOffset() != r.sinkOffset() || t.payload().length != r.size()) {
                    throw new CaptureFormatException(String.format("Read Response (frame %d: STag %08x TO %x, %d bytes) "
                                    + "does not answer the %s's Read Request (frame %d: sink %08x TO %x, %d bytes)",
                            t.frame(), t.stag(), t.taggedOffset(), t.payload().length, who, r.frame(), r.sinkStag(),
                            r.sinkOffset(), r.size()));
                }
                out.add(new ReadTransfer(r, t));
            }
        }
        return out;
    }

    private static void side(boolean fromClient, List<RdmapMessage> sent, List<ReadTransfer> pulledByPeer,
                             List<RpcRdmaMessage> out) throws CaptureFormatException {
        TaggedMemory peerMemory = new TaggedMemory();
        boolean[] consumed = new boolean[pulledByPeer.size()];
        for (RdmapMessage m : sent) {
            if (m instanceof RdmapMessage.Tagged t && t.opcode() == RdmapMessage.WRITE) {
                peerMemory.write(t.stag(), t.taggedOffset(), t.payload());
            } else if (m instanceof RdmapMessage.Send s) {
                out.add(message(fromClient, s, peerMemory, pulledByPeer, consumed));
            }
        }
    }

    private static RpcRdmaMessage message(boolean fromClient, RdmapMessage.Send s, TaggedMemory written,
                                          List<ReadTransfer> pulled, boolean[] consumed)
            throws CaptureFormatException {
        RpcRdmaHeader h = new RpcRdmaHeader();
        int length;
        try {
            length = RpcRdmaDecoder.decode(Unpooled.wrappedBuffer(s.payload()), h);
        } catch (RpcRdmaDecodeException e) {
            return new RpcRdmaMessage(fromClient, false, s, null, 0, e, List.of(), List.of(), null);
        }
        if (carriesCall(h, s.payload(), length)) {
            List<byte[]> reads = new ArrayList<>(h.readChunkCount());
            for (int c = 0; c < h.readChunkCount(); c++) {
                ByteArrayOutputStream chunk = new ByteArrayOutputStream();
                int first = h.readChunkFirstSegment(c);
                for (int i = first; i < first + h.readChunkSegmentCount(c); i++) {
                    chunk.writeBytes(pulledSegment(s, h.readHandle(i), h.readOffset(i), h.readLengthUnsigned(i),
                            pulled, consumed));
                }
                reads.add(chunk.toByteArray());
            }
            // a call's Write list and Reply chunk only offer memory; the reply tells what was written
            return new RpcRdmaMessage(fromClient, true, s, h, length, null, reads, null, null);
        }
        List<byte[]> writes = new ArrayList<>(h.writeChunkCount());
        for (int c = 0; c < h.writeChunkCount(); c++) {
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            for (int i = 0; i < h.writeSegmentCount(c); i++) {
                chunk.writeBytes(writtenSegment(s, "Write chunk " + c, h.writeHandle(c, i), h.writeOffset(c, i),
                        h.writeLengthUnsigned(c, i), written));
            }
            writes.add(chunk.toByteArray());
        }
        byte[] reply = null;
        if (h.hasReplyChunk()) {
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            for (int i = 0; i < h.replySegmentCount(); i++) {
                chunk.writeBytes(writtenSegment(s, "Reply chunk", h.replyHandle(i), h.replyOffset(i),
                        h.replyLengthUnsigned(i), written));
            }
            reply = chunk.toByteArray();
        }
        if (h.readChunkCount() > 0) {
            throw new CaptureFormatException("reply at frame " + s.frame() + " carries a Read list");
        }
        return new RpcRdmaMessage(fromClient, false, s, h, length, null, List.of(), writes, reply);
    }

    /**
     * Whether the message carries an RPC call: an RDMA_MSG whose inline RPC message says CALL, or an RDMA_NOMSG with a
     * Position-Zero Read chunk. (An RDMA_NOMSG without one carries a reply in the Reply chunk; RDMA_ERROR answers a
     * call.)
     */
    private static boolean carriesCall(RpcRdmaHeader h, byte[] payload, int headerLength) {
        return switch (h.proc()) {
            case RDMA_MSG -> payload.length >= headerLength + 8
                    && java.nio.ByteBuffer.wrap(payload).getInt(headerLength + 4) == OncRpcHeader.CALL;
            case RDMA_NOMSG -> h.hasPositionZeroReadChunk();
            default -> false;
        };
    }

    /**
     * The bytes the peer pulled from {@code [handle, offset, offset + length)} after the call arrived. A call's
     * chunks are pulled only once its Send is there, so only transfers requested after {@code s.frame()} count.
     */
    private static byte[] pulledSegment(RdmapMessage.Send s, int handle, long offset, long length,
                                        List<ReadTransfer> pulled, boolean[] consumed) throws CaptureFormatException {
        if (length > Integer.MAX_VALUE) {
            throw new CaptureFormatException("read segment of " + length + " bytes");
        }
        byte[] out = new byte[(int) length];
        long covered = 0;
        List<Integer> used = new ArrayList<>();
        // earliest unconsumed transfers first; they must tile the segment in order of their source offsets
        Map<Long, Integer> byOffset = new HashMap<>();
        for (int i = 0; i < pulled.size(); i++) {
            RdmapMessage.ReadRequest r = pulled.get(i).request();
            if (!consumed[i] && r.frame() >= s.frame() && r.sourceStag() == handle && r.sourceOffset() >= offset
                    && r.sourceOffset() < offset + length) {
                byOffset.putIfAbsent(r.sourceOffset(), i);
            }
        }
        while (covered < length) {
            Integer i = byOffset.get(offset + covered);
            if (i == null) {
                throw new CaptureFormatException(String.format("Send at frame %d: no RDMA Read of [%08x, %x) after "
                        + "it; the read segment [%08x, %x, %d bytes) is covered up to %d", s.frame(), handle,
                        offset + covered, handle, offset, length, covered));
            }
            byte[] data = pulled.get(i).response().payload();
            if (data.length == 0) {
                throw new CaptureFormatException("Send at frame " + s.frame() + ": a zero-length RDMA Read inside a "
                        + "read segment");
            }
            if (covered + data.length > length) {
                throw new CaptureFormatException(String.format("Send at frame %d: an RDMA Read of %d bytes runs past "
                        + "the read segment [%08x, %x, %d bytes)", s.frame(), data.length, handle, offset, length));
            }
            System.arraycopy(data, 0, out, (int) covered, data.length);
            covered += data.length;
            used.add(i);
        }
        for (int i : used) {
            consumed[i] = true;
        }
        return out;
    }

    private static byte[] writtenSegment(RdmapMessage.Send s, String what, int handle, long offset, long length,
                                         TaggedMemory written) throws CaptureFormatException {
        if (length > Integer.MAX_VALUE) {
            throw new CaptureFormatException(what + " segment of " + length + " bytes");
        }
        byte[] data = written.read(handle, offset, (int) length);
        if (data == null) {
            throw new CaptureFormatException(String.format("Send at frame %d: %s segment [%08x, %x, %d bytes written]"
                    + " was not all written by RDMA Writes before it", s.frame(), what, handle, offset, length));
        }
        written.forget(handle, offset, length);
        return data;
    }

    private static List<RpcRdmaExchange> pair(List<RpcRdmaMessage> all) throws CaptureFormatException {
        List<RpcRdmaExchange> out = new ArrayList<>();
        Map<String, Integer> pending = new HashMap<>(); // caller side + xid -> index in out
        for (RpcRdmaMessage m : all) {
            if (m.header() == null) {
                continue;
            }
            if (m.isCall()) {
                pending.put((m.fromClient() ? "c" : "s") + m.header().xid(), out.size());
                out.add(new RpcRdmaExchange(m, null));
            } else {
                // a reply or an RDMA_ERROR answers the other side's call with the same xid
                Integer at = pending.remove((m.fromClient() ? "s" : "c") + m.header().xid());
                if (at == null) {
                    throw new CaptureFormatException("reply " + m + " to no call in the capture");
                }
                out.set(at, new RpcRdmaExchange(out.get(at).call(), m));
            }
        }
        return List.copyOf(out);
    }
}

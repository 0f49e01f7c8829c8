package org.rpcrdma4j.it.capture;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * One RPC-over-RDMA message of a capture (a Send), its transport header decoded with our codec, and the contents of
 * its chunks as the capture shows them: Read chunks as the responder pulled them (RDMA Read Requests answered by
 * Read Responses), Write and Reply chunks as the responder wrote them (RDMA Writes before the reply). Immutable;
 * built by {@link RpcRdmaTrace}.
 * <p>
 * Offsets into "the RPC message" follow RFC 8166: a Read chunk's position is an offset in the <em>unreduced</em>
 * message; the inline part of an RDMA_MSG is the <em>reduced</em> message (each data item's bytes and XDR pad
 * removed, its length word kept).
 */
public final class RpcRdmaMessage {
    private final boolean fromClient;
    private final boolean call;
    private final RdmapMessage.Send send;
    private final RpcRdmaHeader header;
    private final int headerLength;
    private final RpcRdmaDecodeException decodeError;
    private final List<byte[]> readChunks;
    private final List<byte[]> writeChunks;
    private final byte[] replyChunk;

    RpcRdmaMessage(boolean fromClient, boolean call, RdmapMessage.Send send, RpcRdmaHeader header, int headerLength,
                   RpcRdmaDecodeException decodeError, List<byte[]> readChunks, List<byte[]> writeChunks,
                   byte[] replyChunk) {
        this.fromClient = fromClient;
        this.call = call;
        this.send = send;
        this.header = header;
        this.headerLength = headerLength;
        this.decodeError = decodeError;
        this.readChunks = readChunks;
        this.writeChunks = writeChunks;
        this.replyChunk = replyChunk;
    }

    /** @return whether the connection's initiator (the RPC client, for forward-channel traffic) sent it */
    public boolean fromClient() {
        return fromClient;
    }

    /**
     * @return whether it carries an RPC call (an RDMA_MSG whose RPC message is a CALL, or an RDMA_NOMSG with a
     *         Position-Zero Read chunk); false for replies, RDMA_ERROR and undecodable messages
     */
    public boolean isCall() {
        return call;
    }

    /** @return the Send that carried it */
    public RdmapMessage.Send send() {
        return send;
    }

    /** @return the capture frame after which the receiver had the whole message */
    public int frame() {
        return send.frame();
    }

    /** @return the decoded transport header, or null when {@link #decodeError()} is set. Do not modify it. */
    public RpcRdmaHeader header() {
        return header;
    }

    /** @return the transport header's length in bytes (0 when it did not decode) */
    public int headerLength() {
        return headerLength;
    }

    /** @return why the header did not decode, or null */
    public RpcRdmaDecodeException decodeError() {
        return decodeError;
    }

    /** @return a copy of the whole Send payload: transport header and inline part */
    public byte[] payload() {
        return send.payload().clone();
    }

    /** @return a copy of the bytes after the transport header (the reduced RPC message of an RDMA_MSG) */
    public byte[] inline() {
        return Arrays.copyOfRange(send.payload(), headerLength, send.payload().length);
    }

    /** @return the data of Read chunk {@code chunk} as the responder pulled it (a copy) */
    public byte[] readChunkData(int chunk) {
        return readChunks.get(chunk).clone();
    }

    /**
     * @return the bytes the responder wrote into Write chunk {@code chunk} (per this reply's lengths; a copy)
     * @throws IllegalStateException for a call: its Write chunks only offer memory
     */
    public byte[] writeChunkData(int chunk) {
        if (call) {
            throw new IllegalStateException("a call's Write chunks hold nothing yet; its reply tells what was written");
        }
        return writeChunks.get(chunk).clone();
    }

    /**
     * @return the bytes the responder wrote into the Reply chunk (a copy), or null when the reply has none
     * @throws IllegalStateException for a call: its Reply chunk only offers memory
     */
    public byte[] replyChunkData() {
        if (call) {
            throw new IllegalStateException("a call's Reply chunk holds nothing yet; its reply tells what was written");
        }
        return replyChunk == null ? null : replyChunk.clone();
    }

    /**
     * @return the index of the Read chunk that carries a data item (the first at a non-zero position), or -1
     */
    public int dataItemReadChunk() {
        if (header == null) {
            return -1;
        }
        for (int c = 0; c < header.readChunkCount(); c++) {
            if (header.readChunkPosition(c) != 0) {
                return c;
            }
        }
        return -1;
    }

    /** @return whether the message travels in a body chunk: a Position-Zero Read chunk or the Reply chunk */
    public boolean usesBodyChunk() {
        return header != null && header.proc() == RpcRdmaProc.RDMA_NOMSG;
    }

    /**
     * The RPC message as its receiver finds it before any data item is put back: the inline part of an RDMA_MSG,
     * the Position-Zero Read chunk of an RDMA_NOMSG call, the Reply chunk of an RDMA_NOMSG reply.
     *
     * @return a copy, or null for RDMA_ERROR and undecodable headers
     */
    public byte[] rpcMessage() {
        if (header == null || header.proc() == RpcRdmaProc.RDMA_ERROR) {
            return null;
        }
        if (header.proc() == RpcRdmaProc.RDMA_MSG) {
            return inline();
        }
        return call ? readChunkData(0) : replyChunkData();
    }

    /** @return the ONC RPC header of {@link #rpcMessage()}, or null when there is no RPC message */
    public OncRpcHeader rpcHeader() throws CaptureFormatException {
        byte[] m = rpcMessage();
        return m == null ? null : OncRpcHeader.parse(m);
    }

    /**
     * The call as its sender marshaled it before reduction: {@link #rpcMessage()} with the data of every Read chunk at
     * a non-zero position put back at its position, followed by XDR pad bytes (zero) when its length is not a
     * multiple of 4 (RFC 8166: neither the chunk nor the inline part carries that pad).
     *
     * @throws CaptureFormatException when a position lies outside the message
     */
    public byte[] unreducedCall() throws CaptureFormatException {
        byte[] reduced = rpcMessage();
        if (reduced == null) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(reduced.length);
        int consumed = 0; // bytes of the reduced message copied so far
        for (int c = 0; c < header.readChunkCount(); c++) {
            long position = Integer.toUnsignedLong(header.readChunkPosition(c));
            if (position == 0) {
                continue;
            }
            long upTo = position - out.size() + consumed; // the position, in the reduced message
            if (upTo < consumed || upTo > reduced.length) {
                throw new CaptureFormatException("Read chunk " + c + " at position " + position
                        + " lies outside a reduced call of " + reduced.length + " bytes");
            }
            out.write(reduced, consumed, (int) upTo - consumed);
            consumed = (int) upTo;
            byte[] data = readChunks.get(c);
            out.writeBytes(data);
            out.write(new byte[(4 - (data.length & 3)) & 3], 0, (4 - (data.length & 3)) & 3);
        }
        out.write(reduced, consumed, reduced.length - consumed);
        return out.toByteArray();
    }

    /**
     * The reply as its sender marshaled it before reduction, given where the data item belongs: the data of Write
     * chunk 0 and its XDR pad inserted at {@code itemOffset} of {@link #rpcMessage()} (just after the item's length
     * word, which stayed inline).
     *
     * @param itemOffset offset in {@link #rpcMessage()}, a multiple of 4
     */
    public byte[] unreducedReply(int itemOffset) {
        byte[] reduced = rpcMessage();
        if (itemOffset < 4 || itemOffset > reduced.length || (itemOffset & 3) != 0) {
            throw new IllegalArgumentException("item offset " + itemOffset + " in a reply of " + reduced.length);
        }
        byte[] data = writeChunks.get(0);
        int pad = (4 - (data.length & 3)) & 3;
        byte[] out = new byte[reduced.length + data.length + pad];
        System.arraycopy(reduced, 0, out, 0, itemOffset);
        System.arraycopy(data, 0, out, itemOffset, data.length);
        System.arraycopy(reduced, itemOffset, out, itemOffset + data.length + pad, reduced.length - itemOffset);
        return out;
    }

    @Override
    public String toString() {
        return "RpcRdmaMessage[" + (fromClient ? "client" : "server") + ", frame " + frame() + ", "
                + (header != null ? header : "undecodable: " + decodeError.getMessage()) + "]";
    }
}

package org.rpcrdma4j.xprt.client.fake;

import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * A call as the fake server received it: the transport header (a copy), the bytes that came inline, the bytes pulled
 * from the Read chunk with RDMA READ, and the call rebuilt from them (what the server's program sees).
 *
 * @param connection  number of the connection it came on (0 for the first one accepted)
 * @param header      the transport header (a private copy)
 * @param inline      the inline RPC message bytes (empty for RDMA_NOMSG)
 * @param chunkData   the Read chunk's bytes as RDMA READ fetched them (empty when there was none)
 * @param call        the whole RPC call message, rebuilt (chunk data put back at its position, XDR pad restored)
 * @param remoteInvalidationOffered whether the client's private data offered remote invalidation
 */
public record ReceivedCall(int connection, RpcRdmaHeader header, byte[] inline, byte[] chunkData, byte[] call,
                           boolean remoteInvalidationOffered) {

    public int xid() {
        return header.xid();
    }

    public RpcRdmaProc proc() {
        return header.proc();
    }

    public int creditsRequested() {
        return header.credits();
    }

    public boolean hasReadChunk() {
        return header.readChunkCount() > 0;
    }

    public boolean hasWriteChunk() {
        return header.writeChunkCount() > 0;
    }

    public boolean hasReplyChunk() {
        return header.hasReplyChunk();
    }

    /** Every handle (STag) the call exposed, in header order, duplicates removed. */
    public int[] handles() {
        java.util.LinkedHashSet<Integer> set = new java.util.LinkedHashSet<>();
        for (int i = 0; i < header.readSegmentCount(); i++) {
            set.add(header.readHandle(i));
        }
        for (int c = 0; c < header.writeChunkCount(); c++) {
            for (int s = 0; s < header.writeSegmentCount(c); s++) {
                set.add(header.writeHandle(c, s));
            }
        }
        for (int s = 0; s < header.replySegmentCount(); s++) {
            set.add(header.replyHandle(s));
        }
        return set.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The procedure number of the rebuilt call. */
    public int procedure() {
        return java.nio.ByteBuffer.wrap(call).getInt(20);
    }

    @Override
    public String toString() {
        return "ReceivedCall[conn " + connection + ", " + header + ", inline " + inline.length + ", chunk "
                + chunkData.length + ", call " + call.length + "]";
    }
}

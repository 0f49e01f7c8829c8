package org.rpcrdma4j.xprt.client.fake;

import java.nio.ByteBuffer;
import java.util.Optional;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaErrorCode;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * One accepted connection of the {@link FakeRdmaServer}: its queue pair, completion queues and registered memory.
 * Everything but construction runs on the server's thread.
 */
final class FakeConnection {
    static final int BULK = 8 << 20;
    private static final int SEND_SIZE = 256 << 10;
    private static final long WAIT_NANOS = 10_000_000_000L;

    final int number;
    final QueuePair qp;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final RegisteredMemory receive;
    final RegisteredMemory send;
    final RegisteredMemory readSink;
    final RegisteredMemory writeSource;
    final int receiveSize;
    final int receiveCount;
    final boolean clientOffersRemoteInvalidation;
    /**
     * The largest reply sent inline: the smaller of the client's inline receive size and this server's inline send
     * size (the private data it accepted with, 1024 without), as a real server bounds it.
     */
    final int inlineReplyLimit;
    /** Receive completions taken early (to count calls outstanding at once), served before new ones. */
    final java.util.ArrayDeque<WorkCompletion> backlog = new java.util.ArrayDeque<>();
    volatile ConnectionEventType lostBy;
    volatile boolean established;
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private long nextWrId = 1;

    FakeConnection(int number, RdmaDevice device, ProtectionDomain pd, int receiveCount, int receiveSize,
                   byte[] clientPrivateData, int serverInlineSend) throws VerbsException {
        this.number = number;
        this.receiveCount = receiveCount;
        this.receiveSize = receiveSize;
        Optional<RpcRdmaPrivateData> client = RpcRdmaPrivateData.decode(clientPrivateData);
        this.clientOffersRemoteInvalidation = client.map(RpcRdmaPrivateData::remoteInvalidation).orElse(false);
        this.inlineReplyLimit = Math.min(serverInlineSend,
                client.map(RpcRdmaPrivateData::inlineReceiveSize).orElse(1024));
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        sendCq = device.createCompletionQueue(4096);
        recvCq = device.createCompletionQueue(receiveCount + 16);
        qp = pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 2048, receiveCount + 16, 4, 1, 0));
        receive = pd.registerMemory(ByteBuffer.allocateDirect(receiveCount * receiveSize), Access.LOCAL_WRITE);
        send = pd.registerMemory(ByteBuffer.allocateDirect(SEND_SIZE), Access.LOCAL_WRITE);
        readSink = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        writeSource = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE);
        for (int i = 0; i < receiveCount; i++) {
            postReceive(i);
        }
    }

    void postReceive(int index) throws VerbsException {
        RecvWorkRequest wr = new RecvWorkRequest(1);
        wr.wrId = index;
        wr.addSge().set(receive, (long) index * receiveSize, receiveSize);
        qp.postRecv(wr);
    }

    boolean alive() {
        return lostBy == null;
    }

    /** Takes the next receive completion into {@code out} (the backlog first); false when none. */
    boolean pollReceive(WorkCompletion out) {
        WorkCompletion early = backlog.poll();
        if (early != null) {
            out.copyFrom(early);
            return true;
        }
        WorkCompletion[] one = {out};
        return recvCq.poll(one) == 1;
    }

    /** Moves every receive completion already there into the backlog; returns the backlog's size. */
    int takeWaiting() {
        WorkCompletion[] one = {new WorkCompletion()};
        while (recvCq.poll(one) == 1) {
            if (one[0].status != WcStatus.SUCCESS) {
                continue;
            }
            backlog.add(new WorkCompletion().copyFrom(one[0]));
        }
        return backlog.size();
    }

    /** The bytes of receive {@code index}. */
    byte[] received(int index, int length) {
        byte[] b = new byte[length];
        receive.buffer().get(index * receiveSize, b);
        return b;
    }

    // ------------------------------------------------------------------ one call

    /** Decodes a received message and pulls its Read chunk; null when it is not a decodable call. */
    ReceivedCall readCall(byte[] message) {
        RpcRdmaHeader header = new RpcRdmaHeader();
        int headerLength;
        try {
            headerLength = RpcRdmaDecoder.decode(Unpooled.wrappedBuffer(message), header);
        } catch (RpcRdmaDecodeException e) {
            return null;
        }
        byte[] inline = java.util.Arrays.copyOfRange(message, headerLength, message.length);
        byte[] chunk = new byte[0];
        byte[] call = inline;
        if (header.readChunkCount() > 0) {
            int c = 0;
            long length = header.readChunkLength(c);
            chunk = new byte[(int) length];
            int at = 0;
            for (int s = header.readChunkFirstSegment(c); s < header.readChunkFirstSegment(c)
                    + header.readChunkSegmentCount(c); s++) {
                int len = header.readLength(s);
                WcStatus st = rdma(Opcode.RDMA_READ, readSink, 0, len, header.readHandle(s), header.readOffset(s));
                if (st != WcStatus.SUCCESS) {
                    throw new IllegalStateException("RDMA READ of the read chunk failed: " + st);
                }
                readSink.buffer().get(0, chunk, at, len);
                at += len;
            }
            int position = header.readChunkPosition(c);
            if (position == 0) {
                call = chunk;
            } else {
                int pad = (4 - (chunk.length & 3)) & 3;
                call = new byte[inline.length + chunk.length + pad];
                System.arraycopy(inline, 0, call, 0, position);
                System.arraycopy(chunk, 0, call, position, chunk.length);
                System.arraycopy(inline, position, call, position + chunk.length + pad, inline.length - position);
            }
        }
        return new ReceivedCall(number, header, inline, chunk, call, clientOffersRemoteInvalidation);
    }

    /** Posts one RDMA READ or WRITE and waits for its completion; returns its status. */
    WcStatus rdma(Opcode op, RegisteredMemory local, long localOffset, int length, int rkey, long remote) {
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = nextWrId++;
        wr.opcode = op;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.rkey = rkey;
        wr.remoteAddress = remote;
        wr.addSge().set(local, localOffset, length);
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            return WcStatus.GENERAL_ERR;
        }
        return await(wr.wrId);
    }

    private WcStatus await(long wrId) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        WorkCompletion[] one = {batch[0]};
        while (System.nanoTime() - deadline < 0) {
            if (sendCq.poll(one) == 1) {
                if (one[0].wrId == wrId) {
                    return one[0].status;
                }
                continue;
            }
            Thread.onSpinWait();
        }
        return WcStatus.GENERAL_ERR;
    }

    /** Answers {@code call} as {@code reply} says. */
    void respond(ReceivedCall call, Reply reply, int defaultGrant, boolean useRemoteInvalidation)
            throws VerbsException {
        RpcRdmaHeader in = call.header();
        int credits = reply.credits != null ? reply.credits : defaultGrant;
        int xid = reply.transportXid != null ? reply.transportXid : in.xid();
        ByteBuf out = Unpooled.buffer(SEND_SIZE);
        if (reply.error != null) {
            RpcRdmaEncoder.encodeError(out, xid, credits, reply.error, reply.errorLow, reply.errorHigh);
            sendMessage(out, 0);
            return;
        }
        RpcRdmaHeader h = new RpcRdmaHeader().xid(xid).credits(credits).proc(RpcRdmaProc.RDMA_MSG);
        byte[] msg = reply.message.clone();
        if (reply.transportXid != null && msg.length >= 4) {
            ByteBuffer.wrap(msg).putInt(0, reply.transportXid);
        }
        byte[] inline = msg;
        if (in.writeChunkCount() > 0) {
            h.copyWriteListFrom(in);
            long written = 0;
            if (reply.itemOffset >= 0) {
                written = writeChunk(in, msg, reply.itemOffset, reply.itemLength);
                int pad = (4 - (reply.itemLength & 3)) & 3;
                inline = new byte[msg.length - reply.itemLength - pad];
                System.arraycopy(msg, 0, inline, 0, reply.itemOffset);
                System.arraycopy(msg, reply.itemOffset + reply.itemLength + pad, inline, reply.itemOffset,
                        msg.length - reply.itemOffset - reply.itemLength - pad);
            }
            h.setWriteChunkBytesWritten(0, written);
            if (reply.reportWriteLength >= 0) {
                h.setWriteSegmentLength(0, 0, (int) reply.reportWriteLength);
            }
        } else if (in.hasReplyChunk()) {
            h.copyReplyChunkFrom(in).proc(RpcRdmaProc.RDMA_NOMSG);
            long at = 0;
            for (int s = 0; s < in.replySegmentCount() && at < msg.length; s++) {
                int len = (int) Math.min(in.replyLengthUnsigned(s), msg.length - at);
                writeSource.buffer().put(0, msg, (int) at, len);
                WcStatus st = rdma(Opcode.RDMA_WRITE, writeSource, 0, len, in.replyHandle(s), in.replyOffset(s));
                if (st != WcStatus.SUCCESS) {
                    throw new VerbsException("RDMA WRITE into the reply chunk failed: " + st);
                }
                at += len;
            }
            if (at < msg.length) {
                RpcRdmaEncoder.encodeErrChunk(out, xid, credits);
                sendMessage(out, 0);
                return;
            }
            h.setReplyChunkBytesWritten(msg.length);
            if (reply.reportReplyLength >= 0) {
                h.setReplySegmentLength(0, (int) reply.reportReplyLength);
            }
            inline = new byte[0];
        }
        RpcRdmaEncoder.encode(out, h);
        if (h.proc() == RpcRdmaProc.RDMA_MSG) {
            if (out.readableBytes() + inline.length > inlineReplyLimit) {
                out.clear();
                RpcRdmaEncoder.encodeErrChunk(out, xid, credits);
                sendMessage(out, 0);
                return;
            }
            out.writeBytes(inline);
        }
        if (reply.disconnectBeforeSend) {
            qp.disconnect();
            return;
        }
        int invalidate = 0;
        if (reply.invalidateStag != null) {
            invalidate = reply.invalidateStag;
        } else if (useRemoteInvalidation && !reply.noRemoteInvalidation && call.remoteInvalidationOffered()
                && in.soleHandle() >= 0) {
            invalidate = (int) in.soleHandle();
        }
        sendMessage(out, invalidate);
    }

    private long writeChunk(RpcRdmaHeader in, byte[] msg, int from, int length) throws VerbsException {
        long at = 0;
        for (int s = 0; s < in.writeSegmentCount(0) && at < length; s++) {
            int len = (int) Math.min(in.writeLengthUnsigned(0, s), length - at);
            writeSource.buffer().put(0, msg, from + (int) at, len);
            WcStatus st = rdma(Opcode.RDMA_WRITE, writeSource, 0, len, in.writeHandle(0, s), in.writeOffset(0, s));
            if (st != WcStatus.SUCCESS) {
                throw new VerbsException("RDMA WRITE into the write chunk failed: " + st);
            }
            at += len;
        }
        if (at < length) {
            throw new VerbsException("the write chunk holds " + at + " of " + length + " bytes");
        }
        return at;
    }

    /** Sends the readable bytes of {@code out} (Send With Invalidate when {@code invalidateStag != 0}). */
    void sendMessage(ByteBuf out, int invalidateStag) throws VerbsException {
        int length = out.readableBytes();
        byte[] bytes = new byte[length];
        out.getBytes(out.readerIndex(), bytes);
        sendRaw(bytes, invalidateStag);
    }

    void sendRaw(byte[] bytes, int invalidateStag) throws VerbsException {
        send.buffer().put(0, bytes);
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = nextWrId++;
        wr.opcode = invalidateStag != 0 ? Opcode.SEND_WITH_INV : Opcode.SEND;
        wr.invalidateStag = invalidateStag;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(send, 0, bytes.length);
        qp.postSend(wr);
        WcStatus st = await(wr.wrId);
        if (st != WcStatus.SUCCESS && alive()) {
            throw new VerbsException("the Send of a reply failed: " + st);
        }
    }

    /** Drains stale completions (a receive completion's opcode is RECV). */
    static boolean isReceive(WorkCompletion wc) {
        return wc.opcode == WcOpcode.RECV;
    }

    void close() {
        try {
            qp.close();
        } catch (RuntimeException e) {
            // already gone
        }
        WorkCompletion[] scratch = batch;
        while (sendCq.poll(scratch) > 0) {
            // discard
        }
        while (recvCq.poll(scratch) > 0) {
            // discard
        }
        receive.close();
        send.close();
        readSink.close();
        writeSource.close();
        try {
            sendCq.close();
            recvCq.close();
        } catch (VerbsException e) {
            // best effort in a test fixture
        }
    }

    static RpcRdmaErrorCode none() {
        return null;
    }
}

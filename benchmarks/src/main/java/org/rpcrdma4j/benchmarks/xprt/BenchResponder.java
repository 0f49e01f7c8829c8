package org.rpcrdma4j.benchmarks.xprt;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal RPC-over-RDMA responder for the client benchmarks, allocation-free per call, serving one connection of a
 * benchmark program: procedure 0 (NULL) and 2 (PUT: a DDP-eligible argument, pulled from the Read chunk with RDMA
 * READ; answers the byte count) answer inline; procedure 3 (GET count) places {@code count} bytes into the call's Write
 * chunk with RDMA WRITE and answers with the reduced reply. Replies grant 128 credits and use Send With Invalidate
 * when the call exposed exactly one handle and the client offered it, as Linux's server does.
 */
final class BenchResponder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BenchResponder.class);
    static final int PROGRAM = 0x2000_4243;
    static final int VERSION = 1;
    static final int NULL = 0;
    static final int PUT = 2;
    static final int GET = 3;

    private static final int RECEIVES = 160;
    private static final int RECEIVE_SIZE = 4096;
    private static final int SENDS = 16;
    private static final int BULK = 1 << 20;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RdmaListener listener;
    private final CompletableFuture<ConnectionRequest> request = new CompletableFuture<>();
    private Thread thread;
    private volatile boolean running = true;

    private QueuePair qp;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private RegisteredMemory receive;
    private RegisteredMemory send;
    private RegisteredMemory sink;
    private RegisteredMemory source;
    private ByteBuf receiveBuf;
    private ByteBuf sendBuf;
    private boolean clientTakesInvalidate;

    private final RpcRdmaHeader call = new RpcRdmaHeader();
    private final RpcRdmaHeader reply = new RpcRdmaHeader();
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final WorkCompletion[] one = new WorkCompletion[1];
    private final RecvWorkRequest[] recvWrs = new RecvWorkRequest[RECEIVES];
    private final SendWorkRequest readWr = new SendWorkRequest(1);
    private final SendWorkRequest writeWr = new SendWorkRequest(1);
    private final SendWorkRequest sendWr = new SendWorkRequest(1);
    private final boolean[] sendBusy = new boolean[SENDS];
    private int nextSend;
    private long readId = 1L << 40;

    BenchResponder(RdmaDevice device) throws VerbsException {
        this.device = device;
        this.pd = device.allocProtectionDomain();
        this.listener = device.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                request::complete);
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        one[0] = new WorkCompletion();
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /** Accepts the one connection (the client connects first, on another thread) and starts serving it. */
    void acceptAndServe() throws Exception {
        ConnectionRequest r = request.get(30, TimeUnit.SECONDS);
        clientTakesInvalidate = RpcRdmaPrivateData.decode(r.privateData())
                .map(RpcRdmaPrivateData::remoteInvalidation).orElse(false);
        sendCq = device.createCompletionQueue(4096);
        recvCq = device.createCompletionQueue(RECEIVES + 16);
        qp = pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 1024, RECEIVES + 16, 1, 1, 0));
        receive = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * RECEIVE_SIZE), Access.LOCAL_WRITE);
        send = pd.registerMemory(ByteBuffer.allocateDirect(SENDS * RECEIVE_SIZE), Access.LOCAL_WRITE);
        sink = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        source = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE);
        receiveBuf = Unpooled.wrappedBuffer(receive.buffer());
        sendBuf = Unpooled.wrappedBuffer(send.buffer()).clear();
        for (int i = 0; i < RECEIVES; i++) {
            recvWrs[i] = new RecvWorkRequest(1);
            post(i);
        }
        thread = new Thread(this::serve, "bench-responder");
        thread.setDaemon(true);
        recvCq.setListener(cq -> LockSupport.unpark(thread));
        r.accept(qp, new AcceptParameters(RpcRdmaPrivateData.of(false, RECEIVE_SIZE, RECEIVE_SIZE).encode(), 0,
                Math.max(1, r.responderResources())), e -> LockSupport.unpark(thread));
        thread.start();
    }

    private void post(int index) throws VerbsException {
        RecvWorkRequest wr = recvWrs[index].reset();
        wr.wrId = index;
        wr.addSge().set(receive, (long) index * RECEIVE_SIZE, RECEIVE_SIZE);
        qp.postRecv(wr);
    }

    private void serve() {
        try {
            while (running) {
                int n = recvCq.poll(batch);
                if (n == 0) {
                    recvCq.requestNotify();
                    n = recvCq.poll(batch);
                    if (n == 0) {
                        LockSupport.parkNanos(this, 1_000_000);
                        continue;
                    }
                }
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = batch[i];
                    if (!wc.ok()) {
                        return;
                    }
                    int index = (int) wc.wrId;
                    answer(index * RECEIVE_SIZE, wc.byteLen);
                    post(index);
                }
            }
        } catch (VerbsException | RpcRdmaDecodeException | RuntimeException e) {
            if (running) {
                LOG.warn("responder stopped", e);
            }
        }
    }

    private void answer(int at, int length) throws VerbsException, RpcRdmaDecodeException {
        int headerLength = RpcRdmaDecoder.decodeAt(receiveBuf, at, length, call);
        int msg = at + headerLength;
        int xid = call.xid();
        int procedure = call.proc() == RpcRdmaProc.RDMA_MSG ? receiveBuf.getInt(msg + 20) : -1;
        int slot = takeSendSlot();
        int base = slot * RECEIVE_SIZE;
        reply.clear().xid(xid).credits(128).proc(RpcRdmaProc.RDMA_MSG);
        int result = 0;
        if (call.readSegmentCount() > 0) {
            for (int s = 0; s < call.readSegmentCount(); s++) {
                rdmaRead(call.readHandle(s), call.readOffset(s), call.readLength(s));
            }
            result = (int) call.readChunkLength(0);
        }
        if (procedure == GET && call.writeChunkCount() > 0) {
            int count = receiveBuf.getInt(msg + 40);
            long left = count;
            reply.copyWriteListFrom(call);
            for (int s = 0; s < call.writeSegmentCount(0) && left > 0; s++) {
                int len = (int) Math.min(left, call.writeLengthUnsigned(0, s));
                rdmaWrite(call.writeHandle(0, s), call.writeOffset(0, s), len);
                left -= len;
            }
            reply.setWriteChunkBytesWritten(0, count - left);
            result = count;
        }
        int h = RpcRdmaEncoder.encodeAt(sendBuf, base, reply);
        int m = base + h;
        sendBuf.setInt(m, xid).setInt(m + 4, 1).setInt(m + 8, 0).setInt(m + 12, 0).setInt(m + 16, 0)
                .setInt(m + 20, 0);
        int replyLength = 24;
        if (procedure == PUT || procedure == GET) {
            sendBuf.setInt(m + 24, result);
            replyLength += 4;
        }
        SendWorkRequest wr = sendWr.reset();
        wr.wrId = slot;
        wr.flags = SendWorkRequest.SIGNALED;
        long sole = call.soleHandle();
        if (clientTakesInvalidate && sole >= 0) {
            wr.opcode = Opcode.SEND_WITH_INV;
            wr.invalidateStag = (int) sole;
        } else {
            wr.opcode = Opcode.SEND;
        }
        wr.addSge().set(send, base, h + replyLength);
        sendBusy[slot] = true;
        qp.postSend(wr);
    }

    private int takeSendSlot() {
        int slot = nextSend;
        nextSend = (nextSend + 1) % SENDS;
        while (sendBusy[slot]) {
            drainSends(0);
        }
        return slot;
    }

    /** Polls send completions until the one with {@code wanted} is seen (0: until the queue is empty). */
    private void drainSends(long wanted) {
        while (true) {
            if (sendCq.poll(one) == 1) {
                long id = one[0].wrId;
                if (id < SENDS) {
                    sendBusy[(int) id] = false;
                }
                if (id == wanted && wanted != 0) {
                    return;
                }
            } else if (wanted == 0) {
                return;
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void rdmaRead(int handle, long offset, int length) throws VerbsException {
        SendWorkRequest wr = readWr.reset();
        wr.wrId = ++readId;
        wr.opcode = Opcode.RDMA_READ;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.rkey = handle;
        wr.remoteAddress = offset;
        wr.addSge().set(sink, 0, length);
        qp.postSend(wr);
        drainSends(wr.wrId);
    }

    private void rdmaWrite(int handle, long offset, int length) throws VerbsException {
        SendWorkRequest wr = writeWr.reset();
        wr.wrId = 1L << 50;
        wr.opcode = Opcode.RDMA_WRITE;
        wr.rkey = handle;
        wr.remoteAddress = offset;
        wr.addSge().set(source, 0, length);
        qp.postSend(wr);
    }

    @Override
    public void close() throws Exception {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            thread.join(5000);
        }
        listener.close();
        if (qp != null) {
            qp.close();
            while (sendCq.poll(batch) > 0) {
                // drop
            }
            while (recvCq.poll(batch) > 0) {
                // drop
            }
            receive.close();
            send.close();
            sink.close();
            source.close();
            sendCq.close();
            recvCq.close();
        }
        pd.close();
    }
}

package org.rpcrdma4j.it.reliability;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEventType;
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
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.xprt.client.fake.TestProgram;
import org.rpcrdma4j.xprt.internal.RpcHeader;

/**
 * A lean RPC-over-RDMA responder for the xprt module's {@link TestProgram} (NULL, ECHO, PUT, GET), written on the
 * verbs SPI and the codec, that turns hostile between calls: when a call with a new xid arrives, and so the client
 * (which calls one at a time) has completed its previous call, it first tries an RDMA READ or RDMA WRITE (alternating)
 * with a handle (STag) of an earlier call — every other try the call just completed, else the older ones in turn —
 * and only serves the call if the try did not break the connection. A refused try tears the connection down (iWARP
 * Terminate); the client then sends the call again on a new connection, where it is served.
 * <p>
 * With a {@link #mutator} set it fuzzes the client's receive path instead: every reply is preceded by a mutated
 * copy of it.
 * <p>
 * Handles the current call exposes are never tried (the same STag value may legitimately be open for it). RDMA WRITE
 * tries write {@link #POISON} bytes. Registered memory is shared by all connections and allocated once; a connection
 * costs a queue pair, two completion queues and 32 KiB of receives. One thread serves everything.
 */
final class HostileServer implements AutoCloseable {
    static final byte POISON = (byte) 0xEE;
    private static final int RECEIVES = 8;
    private static final int RECEIVE_SIZE = 4096;
    private static final int BULK = 256 * 1024;
    private static final int PROBE_LENGTH = 64;
    private static final long WAIT_NANOS = 10_000_000_000L;
    /** Where in {@link #send} a mutated reply goes, clear of the real one. */
    private static final int MUTATED_AT = BULK / 2;

    private final ProtectionDomain pd;
    private final RdmaDevice device;
    private final RdmaListener listener;
    private final RegisteredMemory bulk;
    private final RegisteredMemory send;
    private final RegisteredMemory poison;
    private final ConcurrentLinkedQueue<Conn> fresh = new ConcurrentLinkedQueue<>();
    private final List<Conn> live = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private final WorkCompletion[] one = {new WorkCompletion()};
    private long nextWrId = 1;

    // the hostile part, all on the server thread except the counters
    private final List<int[]> given = new ArrayList<>();
    private final List<long[]> givenSegments = new ArrayList<>();
    private final Set<Integer> probedXids = new HashSet<>();
    private int cursor;
    final Map<WcStatus, AtomicInteger> statuses = new EnumMap<>(WcStatus.class);
    final AtomicInteger readTries = new AtomicInteger();
    final AtomicInteger writeTries = new AtomicInteger();
    final AtomicInteger skippedOpen = new AtomicInteger();
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger handlesGiven = new AtomicInteger();
    volatile Throwable failure;
    /** When set: tries nothing; instead every reply is preceded by a copy of it this mutates (fuzzing the client). */
    volatile java.util.function.UnaryOperator<byte[]> mutator;
    /** Whether it tries handles between calls (on by default; off makes it a plain, correct responder). */
    volatile boolean probing = true;
    final AtomicInteger mutatedSent = new AtomicInteger();

    HostileServer(RdmaDevice device) throws VerbsException {
        for (WcStatus s : WcStatus.values()) {
            statuses.put(s, new AtomicInteger());
        }
        this.device = device;
        this.pd = device.allocProtectionDomain();
        this.bulk = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.send = pd.registerMemory(ByteBuffer.allocateDirect(BULK), Access.LOCAL_WRITE);
        ByteBuffer p = ByteBuffer.allocateDirect(PROBE_LENGTH);
        for (int i = 0; i < PROBE_LENGTH; i++) {
            p.put(i, POISON);
        }
        this.poison = pd.registerMemory(p, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.listener = device.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                this::onRequest);
        this.thread = new Thread(this::run, "hostile-server");
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    int tries() {
        return readTries.get() + writeTries.get();
    }

    /** One connection: its queue pair, completion queues and receives. */
    private final class Conn {
        final QueuePair qp;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final RegisteredMemory receives;
        final boolean remoteInvalidation;
        volatile boolean lost;

        Conn(byte[] clientPrivateData) throws VerbsException {
            Optional<RpcRdmaPrivateData> client = RpcRdmaPrivateData.decode(clientPrivateData);
            remoteInvalidation = client.map(RpcRdmaPrivateData::remoteInvalidation).orElse(false);
            sendCq = device.createCompletionQueue(64);
            recvCq = device.createCompletionQueue(RECEIVES + 4);
            qp = pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 32, RECEIVES + 4, 4, 1, 0));
            receives = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * RECEIVE_SIZE), Access.LOCAL_WRITE);
            for (int i = 0; i < RECEIVES; i++) {
                postReceive(i);
            }
        }

        void postReceive(int index) throws VerbsException {
            RecvWorkRequest wr = new RecvWorkRequest(1);
            wr.wrId = index;
            wr.addSge().set(receives, (long) index * RECEIVE_SIZE, RECEIVE_SIZE);
            qp.postRecv(wr);
        }

        void close() {
            qp.close();
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            while (sendCq.poll(batch) > 0 || recvCq.poll(batch) > 0) {
                // discard flushed work
            }
            receives.close();
            try {
                sendCq.close();
                recvCq.close();
            } catch (VerbsException e) {
                // a test fixture: nothing more to do
            }
        }
    }

    private void onRequest(ConnectionRequest request) {
        if (!running) {
            request.reject(new byte[0]);
            return;
        }
        try {
            Conn c = new Conn(request.privateData());
            request.accept(c.qp, new AcceptParameters(RpcRdmaPrivateData.of(false, RECEIVE_SIZE, RECEIVE_SIZE)
                    .encode(), 0, Math.max(1, request.responderResources())), e -> {
                        if (e.type() == ConnectionEventType.DISCONNECTED
                                || e.type() == ConnectionEventType.DEVICE_REMOVAL) {
                            c.lost = true;
                        }
                        LockSupport.unpark(thread);
                    });
            connections.incrementAndGet();
            fresh.add(c);
            LockSupport.unpark(thread);
        } catch (VerbsException | RuntimeException e) {
            request.reject(new byte[0]);
        }
    }

    private void run() {
        WorkCompletion wc = new WorkCompletion();
        WorkCompletion[] batch = {wc};
        while (running) {
            Conn c;
            while ((c = fresh.poll()) != null) {
                live.add(c);
            }
            boolean work = false;
            for (int i = 0; i < live.size(); i++) {
                Conn conn = live.get(i);
                if (conn.lost) {
                    conn.close();
                    live.remove(i--);
                    continue;
                }
                while (!conn.lost && conn.recvCq.poll(batch) == 1) {
                    work = true;
                    if (wc.status == WcStatus.SUCCESS) {
                        try {
                            onMessage(conn, (int) wc.wrId, wc.byteLen);
                        } catch (Throwable e) {
                            if (!conn.lost) {
                                failure = e;
                            }
                        }
                    }
                }
            }
            if (!work) {
                LockSupport.parkNanos(100_000);
            }
        }
        for (Conn conn : live) {
            conn.close();
        }
        live.clear();
    }

    private void onMessage(Conn c, int index, int length) throws Exception {
        ByteBuf message = Unpooled.buffer(length);
        ByteBuffer view = c.receives.buffer().duplicate();
        view.limit(index * RECEIVE_SIZE + length).position(index * RECEIVE_SIZE);
        message.writeBytes(view);
        c.postReceive(index);
        RpcRdmaHeader in = new RpcRdmaHeader();
        int headerLength;
        try {
            headerLength = RpcRdmaDecoder.decode(message.duplicate(), in);
        } catch (RpcRdmaDecodeException e) {
            throw new IllegalStateException("the client sent an undecodable header", e);
        }
        byte[] call = rebuildCall(c, in, message, headerLength);
        if (call == null) {
            return; // the read chunk could not be pulled: the connection is gone
        }
        int[] open = handles(in);
        if (probing && mutator == null && probedXids.add(in.xid()) && !given.isEmpty() && !probe(c, open)) {
            return; // the try broke the connection; the client sends the call again
        }
        serve(c, in, call);
        long[] segs = segments(in);
        if (segs.length > 0) {
            given.add(open);
            givenSegments.add(segs);
            handlesGiven.addAndGet(open.length);
        }
    }

    /** One try; true when the connection is still up (the try succeeded, or was not made). */
    private boolean probe(Conn c, int[] open) {
        int n = cursor++;
        int index = n % 2 == 0 ? given.size() - 1 : (n / 2) % given.size();
        long[] segs = givenSegments.get(index);
        // segs: triples handle, offset, length; take one by turns
        int seg = (n / 4) % (segs.length / 3);
        int handle = (int) segs[seg * 3];
        for (int h : open) {
            if (h == handle) {
                skippedOpen.incrementAndGet();
                return true;
            }
        }
        boolean write = (n / 2) % 2 == 1;
        int len = (int) Math.max(1, Math.min(PROBE_LENGTH, segs[seg * 3 + 2]));
        WcStatus st = rdma(c, write ? Opcode.RDMA_WRITE : Opcode.RDMA_READ, write ? poison : bulk, 0, len, handle,
                segs[seg * 3 + 1]);
        statuses.get(st).incrementAndGet();
        if (st == WcStatus.SUCCESS || st == WcStatus.REM_ACCESS_ERR || st == WcStatus.REM_OP_ERR
                || st == WcStatus.REM_INV_REQ_ERR) {
            (write ? writeTries : readTries).incrementAndGet();
        }
        if (st != WcStatus.SUCCESS) {
            c.lost = true;
            return false;
        }
        return true;
    }

    /** The whole RPC call: inline bytes with the read chunk put back at its position; null if it could not be read. */
    private byte[] rebuildCall(Conn c, RpcRdmaHeader in, ByteBuf message, int headerLength) {
        byte[] inline = new byte[message.readableBytes() - headerLength];
        message.getBytes(headerLength, inline);
        if (in.readChunkCount() == 0) {
            return inline;
        }
        int first = in.readChunkFirstSegment(0);
        int total = (int) in.readChunkLength(0);
        byte[] chunk = new byte[total];
        int at = 0;
        for (int s = first; s < first + in.readChunkSegmentCount(0); s++) {
            int len = in.readLength(s);
            WcStatus st = rdma(c, Opcode.RDMA_READ, bulk, 0, len, in.readHandle(s), in.readOffset(s));
            if (st != WcStatus.SUCCESS) {
                c.lost = true;
                return null;
            }
            bulk.buffer().get(0, chunk, at, len);
            at += len;
        }
        int position = in.readChunkPosition(0);
        if (position == 0) {
            return chunk;
        }
        int pad = (4 - (chunk.length & 3)) & 3;
        byte[] call = new byte[inline.length + chunk.length + pad];
        System.arraycopy(inline, 0, call, 0, position);
        System.arraycopy(chunk, 0, call, position, chunk.length);
        System.arraycopy(inline, position, call, position + chunk.length + pad, inline.length - position);
        return call;
    }

    /** Answers as a correct server of the test program would. */
    private void serve(Conn c, RpcRdmaHeader in, byte[] call) throws Exception {
        ByteBuf buf = Unpooled.wrappedBuffer(call);
        RpcHeader rpc = new RpcHeader().parse(buf, 0, call.length);
        int at = rpc.bodyOffset();
        ByteBuf reply = Unpooled.buffer(64 + call.length);
        reply.writeInt(rpc.xid()).writeInt(RpcHeader.REPLY).writeInt(RpcHeader.MSG_ACCEPTED).writeInt(0).writeInt(0)
                .writeInt(0);
        byte[] item = null;
        switch (rpc.procedure()) {
            case TestProgram.NULL -> {
            }
            case TestProgram.ECHO -> {
                int len = buf.getInt(at);
                reply.writeInt(len).writeBytes(call, at + 4, len).writeZero((4 - (len & 3)) & 3);
            }
            case TestProgram.PUT -> {
                int tag = buf.getInt(at);
                int len = buf.getInt(at + 4);
                reply.writeInt(len).writeInt((int) TestProgram.crc(call, at + 8, len)).writeInt(tag);
            }
            case TestProgram.GET -> {
                int count = buf.getInt(at);
                item = TestProgram.pattern(buf.getInt(at + 4), count);
                reply.writeInt(count);
            }
            default -> throw new IllegalStateException("unexpected procedure " + rpc.procedure());
        }
        RpcRdmaHeader out = new RpcRdmaHeader().xid(in.xid()).credits(8).proc(RpcRdmaProc.RDMA_MSG);
        ByteBuf inline;
        if (item != null && in.writeChunkCount() > 0) {
            writeSegments(c, item, in);
            out.copyWriteListFrom(in).setWriteChunkBytesWritten(0, item.length);
            inline = reply;
        } else {
            if (item != null) {
                reply.writeBytes(item).writeZero((4 - (item.length & 3)) & 3);
                if (in.writeChunkCount() > 0) {
                    out.copyWriteListFrom(in).setWriteChunkBytesWritten(0, 0);
                }
            }
            inline = reply;
            if (in.hasReplyChunk()) {
                byte[] whole = new byte[reply.readableBytes()];
                reply.getBytes(0, whole);
                long at2 = 0;
                for (int s = 0; s < in.replySegmentCount() && at2 < whole.length; s++) {
                    int len = (int) Math.min(in.replyLengthUnsigned(s), whole.length - at2);
                    send.buffer().put(0, whole, (int) at2, len);
                    check(c, rdma(c, Opcode.RDMA_WRITE, send, 0, len, in.replyHandle(s), in.replyOffset(s)));
                    at2 += len;
                }
                out.copyReplyChunkFrom(in).setReplyChunkBytesWritten(whole.length).proc(RpcRdmaProc.RDMA_NOMSG);
                inline = Unpooled.EMPTY_BUFFER;
            }
        }
        ByteBuf wire = Unpooled.buffer();
        RpcRdmaEncoder.encode(wire, out);
        wire.writeBytes(inline);
        byte[] bytes = new byte[wire.readableBytes()];
        wire.getBytes(0, bytes);
        java.util.function.UnaryOperator<byte[]> m = mutator;
        if (m != null) {
            byte[] mutated = m.apply(bytes);
            if (mutated.length <= RECEIVE_SIZE) {
                // from the second half of the send buffer and unsignaled: the real reply's completion, awaited
                // below, stands for both (a wait for this one's own would last until the client's device answers
                // its placement probe, which it holds back until the client sends again)
                send.buffer().put(MUTATED_AT, mutated);
                SendWorkRequest first = new SendWorkRequest(1);
                first.wrId = nextWrId++;
                first.opcode = Opcode.SEND;
                first.flags = 0;
                first.addSge().set(send, MUTATED_AT, mutated.length);
                c.qp.postSend(first);
                mutatedSent.incrementAndGet();
            }
        }
        send.buffer().put(0, bytes);
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = nextWrId++;
        // answer with Send With Invalidate every other time it is allowed, so both invalidation paths are used
        long sole = in.soleHandle();
        if (m == null && c.remoteInvalidation && sole >= 0 && (served.get() & 1) == 1) {
            wr.opcode = Opcode.SEND_WITH_INV;
            wr.invalidateStag = (int) sole;
        } else {
            wr.opcode = Opcode.SEND;
        }
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(send, 0, bytes.length);
        c.qp.postSend(wr);
        check(c, await(c, wr.wrId));
        served.incrementAndGet();
    }

    private void writeSegments(Conn c, byte[] item, RpcRdmaHeader in) throws VerbsException {
        long at = 0;
        for (int s = 0; s < in.writeSegmentCount(0) && at < item.length; s++) {
            int len = (int) Math.min(in.writeLengthUnsigned(0, s), item.length - at);
            bulk.buffer().put(0, item, (int) at, len);
            check(c, rdma(c, Opcode.RDMA_WRITE, bulk, 0, len, in.writeHandle(0, s), in.writeOffset(0, s)));
            at += len;
        }
        if (at < item.length) {
            throw new IllegalStateException("the write chunk holds " + at + " of " + item.length + " bytes");
        }
    }

    private static void check(Conn c, WcStatus st) throws VerbsException {
        if (st != WcStatus.SUCCESS) {
            c.lost = true;
            throw new VerbsException("a serving work request failed: " + st);
        }
    }

    private WcStatus rdma(Conn c, Opcode op, RegisteredMemory local, long localOffset, int length, int rkey,
                          long remote) {
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = nextWrId++;
        wr.opcode = op;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.rkey = rkey;
        wr.remoteAddress = remote;
        wr.addSge().set(local, localOffset, length);
        try {
            c.qp.postSend(wr);
        } catch (VerbsException e) {
            return WcStatus.GENERAL_ERR;
        }
        return await(c, wr.wrId);
    }

    private WcStatus await(Conn c, long wrId) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() - deadline < 0) {
            if (c.sendCq.poll(one) == 1) {
                if (one[0].wrId == wrId) {
                    return one[0].status;
                }
                continue;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000); // two shared cores: no busy wait
        }
        return WcStatus.GENERAL_ERR;
    }

    static int[] handles(RpcRdmaHeader h) {
        LinkedHashSet<Integer> set = new LinkedHashSet<>();
        for (int i = 0; i < h.readSegmentCount(); i++) {
            set.add(h.readHandle(i));
        }
        for (int c = 0; c < h.writeChunkCount(); c++) {
            for (int s = 0; s < h.writeSegmentCount(c); s++) {
                set.add(h.writeHandle(c, s));
            }
        }
        for (int s = 0; s < h.replySegmentCount(); s++) {
            set.add(h.replyHandle(s));
        }
        return set.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Every segment of the header as (handle, offset, length) triples. */
    private static long[] segments(RpcRdmaHeader h) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < h.readSegmentCount(); i++) {
            out.add((long) h.readHandle(i));
            out.add(h.readOffset(i));
            out.add(h.readLengthUnsigned(i));
        }
        for (int c = 0; c < h.writeChunkCount(); c++) {
            for (int s = 0; s < h.writeSegmentCount(c); s++) {
                out.add((long) h.writeHandle(c, s));
                out.add(h.writeOffset(c, s));
                out.add(h.writeLengthUnsigned(c, s));
            }
        }
        for (int s = 0; s < h.replySegmentCount(); s++) {
            out.add((long) h.replyHandle(s));
            out.add(h.replyOffset(s));
            out.add(h.replyLengthUnsigned(s));
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listener.close();
        Conn c;
        while ((c = fresh.poll()) != null) {
            c.close();
        }
        bulk.close();
        send.close();
        poison.close();
        try {
            pd.close();
        } catch (VerbsException e) {
            // a test fixture: nothing more to do
        }
    }
}

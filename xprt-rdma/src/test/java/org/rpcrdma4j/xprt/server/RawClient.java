package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * A "raw" RPC-over-RDMA requester for tests, written on the verbs SPI and the codec only: it registers its own
 * memory, builds transport headers and RPC calls byte by byte, and hands back exactly what arrived. It can also
 * misbehave on purpose (any bytes, any chunk list, any private data, more calls than granted).
 * Owns its own software device; {@link #close()} closes everything and checks the device is empty.
 */
final class RawClient implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SEND_SLOTS = 64;
    private static final int SLOT_SIZE = 8192;
    private static final int RECEIVES = 32;
    private static final int RECEIVE_SIZE = 8192;

    /** What arrived in one receive. */
    record Received(ByteBuf bytes, boolean withInvalidate, int invalidatedStag) {
        /** The transport header decoded. */
        RpcRdmaHeader header() throws Exception {
            RpcRdmaHeader h = new RpcRdmaHeader();
            RpcRdmaDecoder.decodeAt(bytes, 0, bytes.readableBytes(), h);
            return h;
        }

        /** The inline RPC message after the header (RDMA_MSG). */
        ByteBuf message() throws Exception {
            RpcRdmaHeader h = new RpcRdmaHeader();
            int length = RpcRdmaDecoder.decodeAt(bytes, 0, bytes.readableBytes(), h);
            return bytes.slice(length, bytes.readableBytes() - length);
        }
    }

    /** Memory exposed to the server for one chunk. */
    static final class Chunk {
        final ByteBuffer memory;
        final int stag;
        final long iova;
        final int length;
        private final FastRegMemoryRegion mr;

        Chunk(ByteBuffer memory, int stag, long iova, int length, FastRegMemoryRegion mr) {
            this.memory = memory;
            this.stag = stag;
            this.iova = iova;
            this.length = length;
            this.mr = mr;
        }

        byte[] bytes(int offset, int n) {
            byte[] b = new byte[n];
            memory.get(offset, b);
            return b;
        }

        boolean valid() {
            return mr == null || mr.state() == org.rpcrdma4j.verbs.MrState.VALID;
        }
    }

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final RegisteredMemory sendMemory;
    private final RegisteredMemory recvMemory;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private final LinkedBlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final Deque<WorkCompletion> receives = new ArrayDeque<>();
    private int nextSendSlot;
    private long sends;
    private long sendCompletions;
    private long nextFastRegWr = 1000;
    ConnectionInfo info;

    private RawClient(RdmaDevice device) throws Exception {
        this.device = device;
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        pd = own(device.allocProtectionDomain());
        sendCq = own(device.createCompletionQueue(1024));
        recvCq = own(device.createCompletionQueue(256));
        // receive queue headroom: a device may show a receive's completion before it frees the receive's slot
        qp = own(pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 512, 2 * RECEIVES, 4, 1, 0)));
        sendMemory = own(pd.registerMemory(ByteBuffer.allocateDirect(SEND_SLOTS * SLOT_SIZE), Access.LOCAL_WRITE));
        recvMemory = own(pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * RECEIVE_SIZE), Access.LOCAL_WRITE));
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
    }

    /** Connects with RFC 8797 private data (4 KiB each way), remote invalidation as given, IRD 16. */
    static RawClient connect(InetSocketAddress server, boolean remoteInvalidation) throws Exception {
        return connect(server, RpcRdmaPrivateData.of(remoteInvalidation, 4096, 4096).encode(), 16);
    }

    /** Connects with these raw private data bytes and IRD. */
    static RawClient connect(InetSocketAddress server, byte[] privateData, int ird) throws Exception {
        RdmaDevice device = TestDevices.open(Map.of("name", "raw-client", "engineThreads", "1"));
        RawClient client = null;
        try {
            client = new RawClient(device);
            client.info = device.connectionManager().connect(client.qp, server,
                    new ConnectParameters(privateData, ird, 0), client.events::add)
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return client;
        } catch (Exception e) {
            if (client != null) {
                client.close();
            } else {
                device.close();
            }
            throw e;
        }
    }

    private <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    QueuePair queuePair() {
        return qp;
    }

    RdmaDevice device() {
        return device;
    }

    // ------------------------------------------------------------------ memory for chunks

    /** Registers {@code size} bytes (page-aligned) with a long-lived STag and the given access. */
    Chunk registered(int size, int access) throws Exception {
        ByteBuffer memory = pages(size);
        RegisteredMemory mr = own(pd.registerMemory(memory, access));
        return new Chunk(memory, mr.rkey(), mr.iova(), size, null);
    }

    /**
     * Registers {@code size} bytes (page-aligned) with a fast-register MR, which a Send With Invalidate can
     * invalidate. Iova {@code 0x5000_0000_0000 + n * 2^24}; on a device that fast-registers by binding memory windows,
     * memory registered for it, at its address.
     */
    Chunk fastRegistered(int size, int access) throws Exception {
        ByteBuffer memory = pages(size);
        int pages = (size + 4095) / 4096;
        FastRegMemoryRegion mr = own(pd.allocFastRegMr(pages));
        PageList list = new PageList(pages);
        long iova;
        if (pd.device().attributes().has(org.rpcrdma4j.verbs.DeviceCapability.MEMORY_WINDOW)) {
            // a window binds a run of registered memory, at its address
            RegisteredMemory backing = own(pd.registerMemory(memory, Access.LOCAL_WRITE));
            list.addRun(org.rpcrdma4j.verbs.PageTable.of(backing, 4096), 0, pages);
            iova = backing.iova();
        } else {
            for (int p = 0; p < pages; p++) {
                list.add(memory.slice(p * 4096, 4096));
            }
            iova = 0x5000_0000_0000L + (nextFastRegWr << 24);
        }
        list.set(0, size, iova);
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = nextFastRegWr++;
        wr.opcode = Opcode.REG_MR;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.mr = mr;
        wr.pageList = list;
        wr.access = access;
        wr.key = Stag.nextKey(mr.rkey());
        qp.postSend(wr);
        WorkCompletion wc = awaitSendCompletion(wr.wrId);
        assertThat(wc.status).as("REG_MR").isEqualTo(WcStatus.SUCCESS);
        return new Chunk(memory, wr.key, iova, size, mr);
    }

    private static ByteBuffer pages(int size) {
        int pages = Math.max(1, (size + 4095) / 4096);
        return ByteBuffer.allocateDirect((pages + 1) * 4096).alignedSlice(4096).limit(pages * 4096).slice();
    }

    // ------------------------------------------------------------------ sending

    /** Sends {@code message} (transport header + whatever follows) and waits for the Send to complete. */
    void send(ByteBuf message) {
        post(message);
        awaitSends();
    }

    /** Posts a Send of {@code message} without waiting. */
    void post(ByteBuf message) {
        int slot = nextSendSlot++ % SEND_SLOTS;
        int length = message.readableBytes();
        assertThat(length).isLessThanOrEqualTo(SLOT_SIZE);
        ByteBuffer view = sendMemory.buffer();
        message.getBytes(message.readerIndex(), view.position(slot * SLOT_SIZE).limit(slot * SLOT_SIZE + length));
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = 1;
        wr.opcode = Opcode.SEND;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(sendMemory, (long) slot * SLOT_SIZE, length);
        try {
            qp.postSend(wr);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        sends++;
        message.release();
    }

    /** Sends a header and an RPC message after it. */
    void send(RpcRdmaHeader header, ByteBuf rpc) {
        ByteBuf out = Unpooled.buffer();
        RpcRdmaEncoder.encode(out, header);
        if (rpc != null) {
            out.writeBytes(rpc);
            rpc.release();
        }
        send(out);
    }

    /** Waits until every Send posted so far has completed (successfully or not). */
    void awaitSends() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sendCompletions < sends) {
            int n = sendCq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (batch[i].opcode == WcOpcode.SEND) {
                    sendCompletions++;
                }
            }
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    fail("Sends did not complete within " + WAIT);
                }
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private WorkCompletion awaitSendCompletion(long wrId) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            int n = sendCq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (batch[i].opcode == WcOpcode.SEND) {
                    sendCompletions++;
                }
                if (batch[i].wrId == wrId) {
                    return new WorkCompletion().copyFrom(batch[i]);
                }
            }
            if (n == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
        throw new AssertionError("no completion of wr " + wrId);
    }

    // ------------------------------------------------------------------ receiving

    private void postReceive(int index) throws Exception {
        RecvWorkRequest wr = new RecvWorkRequest(1);
        wr.wrId = index;
        wr.addSge().set(recvMemory, (long) index * RECEIVE_SIZE, RECEIVE_SIZE);
        qp.postRecv(wr);
    }

    /** The next message from the server (a copy), reposting its receive buffer. Fails after {@link #WAIT}. */
    Received receive() throws Exception {
        Received r = receive(WAIT);
        if (r == null) {
            fail("no message from the server within " + WAIT + "; events " + events);
        }
        return r;
    }

    /** The next message, or null after {@code timeout}. */
    Received receive(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (receives.isEmpty()) {
                int n = recvCq.poll(batch);
                for (int i = 0; i < n; i++) {
                    receives.add(new WorkCompletion().copyFrom(batch[i]));
                }
            }
            WorkCompletion wc = receives.poll();
            if (wc != null) {
                if (wc.status != WcStatus.SUCCESS) {
                    fail("receive completed with " + wc);
                }
                int index = (int) wc.wrId;
                ByteBuf copy = Unpooled.buffer(wc.byteLen);
                ByteBuffer view = recvMemory.buffer();
                view.position(index * RECEIVE_SIZE).limit(index * RECEIVE_SIZE + wc.byteLen);
                copy.writeBytes(view);
                postReceive(index);
                return new Received(copy, wc.withInvalidate(), wc.invalidatedStag);
            }
            if (System.nanoTime() - deadline > 0) {
                return null;
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /** Waits for the connection to end (DISCONNECTED); false after {@code timeout}. */
    boolean awaitDisconnected(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            ConnectionEvent e = events.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (e == null) {
                return false;
            }
            if (e.type() == ConnectionEventType.DISCONNECTED || e.type() == ConnectionEventType.DEVICE_REMOVAL) {
                return true;
            }
        }
    }

    /** A header object with the limits a server uses. */
    static RpcRdmaHeader header() {
        return new RpcRdmaHeader(RpcRdmaLimits.DEFAULT);
    }

    @Override
    public void close() {
        try {
            qp.disconnect();
        } catch (RuntimeException e) {
            // closing anyway
        }
        RuntimeException failure = null;
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new RuntimeException(e);
                }
            }
        }
        ResourceCounts counts = device.resourceCounts();
        device.close();
        if (failure != null) {
            throw failure;
        }
        assertThat(counts).as("client device resources left open").isEqualTo(ResourceCounts.NONE);
    }
}

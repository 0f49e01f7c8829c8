package org.rpcrdma4j.xprt.client.fake;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.xprt.TestDevices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scriptable RPC-over-RDMA responder for client tests, written directly on the verbs SPI and the codec: it
 * accepts connections with configurable RFC 8797 private data, receives calls, pulls their Read chunks with RDMA
 * READ, rebuilds each call, records it, and answers as the {@link Script} says — by default like a well-behaved
 * server running {@link TestProgram}. One thread serves every connection; scripts run on it.
 */
public final class FakeRdmaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeRdmaServer.class);

    /** Decides the answer to one call (on the server thread). */
    @FunctionalInterface
    public interface Script {
        Reply onCall(ReceivedCall call) throws Exception;
    }

    /** Settings. */
    public static final class Options {
        /** The private data to accept with; null for none. Read at each accept: a test may change it in between. */
        public volatile RpcRdmaPrivateData privateData = RpcRdmaPrivateData.of(false, 4096, 4096);
        public int grant = 32;
        public int receives = 160;
        public int receiveSize = 4096;
        /** Whether to answer with Send With Invalidate where Linux would. */
        public boolean remoteInvalidation = true;
    }

    private final RdmaDevice device;
    private final Options options;
    private final ProtectionDomain pd;
    private final RdmaListener listener;
    private final Thread thread;
    private final ConcurrentLinkedQueue<FakeConnection> pending = new ConcurrentLinkedQueue<>();
    private final List<FakeConnection> connections = new ArrayList<>();
    private final CopyOnWriteArrayList<FakeConnection> all = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final LinkedBlockingQueue<ReceivedCall> calls = new LinkedBlockingQueue<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger maxOutstanding = new AtomicInteger();
    private volatile Script script = TestProgram::serve;
    private volatile byte[] lastPrivateData;
    private volatile int lastResponderResources = -1;
    private volatile int lastInitiatorDepth = -1;
    private volatile boolean running = true;
    private volatile boolean frozen;
    private volatile boolean refuse;

    public FakeRdmaServer(RdmaDevice device, Options options) throws VerbsException {
        this.device = device;
        this.options = options;
        this.pd = device.allocProtectionDomain();
        this.listener = device.connectionManager().listen(new InetSocketAddress(TestDevices.address(), 0),
                this::onRequest);
        this.thread = new Thread(this::run, "fake-rdma-server");
        thread.setDaemon(true);
        thread.start();
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /** Replaces the script (default: {@link TestProgram#serve}). */
    public FakeRdmaServer script(Script s) {
        this.script = s;
        return this;
    }

    /** The next call received (waiting up to 30 s). */
    public ReceivedCall nextCall() throws InterruptedException {
        ReceivedCall c = calls.poll(30, TimeUnit.SECONDS);
        if (c == null) {
            throw new AssertionError("the fake server received no call within 30 s");
        }
        return c;
    }

    /** Calls received and not yet taken with {@link #nextCall()}. */
    public List<ReceivedCall> drainCalls() {
        List<ReceivedCall> out = new ArrayList<>();
        calls.drainTo(out);
        return out;
    }

    /** The most calls seen outstanding at once on one connection (counted when each is answered). */
    public int maxOutstanding() {
        return maxOutstanding.get();
    }

    public int acceptedConnections() {
        return accepted.get();
    }

    /** Stops answering and accepting, as a hung server would (connections stay up). */
    public void freeze() {
        frozen = true;
    }

    /** Refuses every connection request from now on. */
    public void refuseConnections() {
        refuse = true;
    }

    /** Runs {@code task} on the server thread and waits for it. */
    public <T> T onServerThread(java.util.concurrent.Callable<T> task) throws Exception {
        if (Thread.currentThread() == thread) {
            return task.call();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        LockSupport.unpark(thread);
        return f.get(30, TimeUnit.SECONDS);
    }

    /** Answers an earlier call (one the script left without reply) on the connection it came on. */
    public void respondLater(ReceivedCall call, Reply reply) throws Exception {
        onServerThread(() -> {
            FakeConnection c = connection(call.connection());
            c.respond(call, reply, options.grant, options.remoteInvalidation);
            return null;
        });
    }

    /** Sends raw bytes (a whole RPC-over-RDMA message) on the newest live connection. */
    public void sendRaw(byte[] message) throws Exception {
        onServerThread(() -> {
            newest().sendRaw(message, 0);
            return null;
        });
    }

    /**
     * Tries an RDMA READ (or WRITE) of {@code length} bytes with every handle {@code call} exposed, on the connection
     * it came on, and returns the statuses in order; it stops at the first failure, which breaks the connection.
     */
    public List<WcStatus> probe(ReceivedCall call, boolean write) throws Exception {
        return onServerThread(() -> {
            List<WcStatus> out = new ArrayList<>();
            FakeConnection c = connection(call.connection());
            org.rpcrdma4j.codec.RpcRdmaHeader h = call.header();
            List<long[]> segments = new ArrayList<>();
            for (int i = 0; i < h.readSegmentCount(); i++) {
                segments.add(new long[] {h.readHandle(i), h.readOffset(i), Math.max(1, h.readLength(i))});
            }
            for (int s = 0; h.writeChunkCount() > 0 && s < h.writeSegmentCount(0); s++) {
                segments.add(new long[] {h.writeHandle(0, s), h.writeOffset(0, s), Math.max(1, h.writeLength(0, s))});
            }
            for (int s = 0; s < h.replySegmentCount(); s++) {
                segments.add(new long[] {h.replyHandle(s), h.replyOffset(s), Math.max(1, h.replyLength(s))});
            }
            for (long[] seg : segments) {
                int len = (int) Math.min(seg[2], 64);
                WcStatus st = c.rdma(write ? Opcode.RDMA_WRITE : Opcode.RDMA_READ, write ? c.writeSource : c.readSink,
                        0, len, (int) seg[0], seg[1]);
                if (write && st == WcStatus.SUCCESS && !TestDevices.soft()) {
                    // an iWARP RNIC (siw) completes a Write once sent; the peer's refusal ends the connection, which
                    // a Read, answered by the peer, finds out
                    st = c.rdma(Opcode.RDMA_READ, c.readSink, 0, 1, (int) seg[0], seg[1]);
                }
                out.add(st);
                if (st != WcStatus.SUCCESS) {
                    break;
                }
            }
            return out;
        });
    }

    /** Drops every connection abruptly (TCP reset), as a crashing server's host would. */
    public void dropConnections() throws Exception {
        TestDevices.assumeSoft("a TCP reset under the connection: the software device's fault injection");
        onServerThread(() -> {
            for (FakeConnection c : connections) {
                org.rpcrdma4j.verbs.soft.SoftIwarpFaults.of(c.qp).dropConnection();
            }
            return null;
        });
    }

    private FakeConnection connection(int number) {
        for (FakeConnection c : connections) {
            if (c.number == number) {
                return c;
            }
        }
        throw new IllegalStateException("no connection " + number);
    }

    private FakeConnection newest() {
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (connections.get(i).alive()) {
                return connections.get(i);
            }
        }
        throw new IllegalStateException("no live connection");
    }

    // ------------------------------------------------------------------ accepting

    /** The private data of the last connection request. */
    public byte[] lastPrivateData() {
        return lastPrivateData;
    }

    /** The IRD the last connection request offered. */
    public int lastResponderResources() {
        return lastResponderResources;
    }

    /** The ORD the last connection request asked for. */
    public int lastInitiatorDepth() {
        return lastInitiatorDepth;
    }

    private void onRequest(ConnectionRequest request) {
        lastPrivateData = request.privateData();
        lastResponderResources = request.responderResources();
        lastInitiatorDepth = request.initiatorDepth();
        if (refuse || frozen || !running) {
            if (refuse) {
                request.reject(new byte[0]);
            }
            return; // frozen: never answered, the client's handshake times out
        }
        try {
            int number = accepted.getAndIncrement();
            RpcRdmaPrivateData own = options.privateData;
            FakeConnection c = new FakeConnection(number, device, pd, options.receives, options.receiveSize,
                    request.privateData(), own == null ? RpcRdmaPrivateData.DEFAULT_INLINE : own.inlineSendSize());
            all.add(c);
            byte[] pdata = own == null ? new byte[0] : own.encode();
            request.accept(c.qp, new AcceptParameters(pdata, 0, Math.max(1, request.responderResources())), e -> {
                if (e.type() == ConnectionEventType.ESTABLISHED) {
                    c.established = true;
                } else if (e.type() == ConnectionEventType.DISCONNECTED
                        || e.type() == ConnectionEventType.DEVICE_REMOVAL) {
                    c.lostBy = e.type();
                }
                LockSupport.unpark(thread);
            });
            pending.add(c);
            LockSupport.unpark(thread);
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("fake server: accept failed", e);
            request.reject(new byte[0]);
        }
    }

    // ------------------------------------------------------------------ serving

    private void run() {
        WorkCompletion wc = new WorkCompletion();
        while (running) {
            int work = 0;
            Runnable task;
            while ((task = tasks.poll()) != null) {
                task.run();
                work++;
            }
            FakeConnection fresh;
            while ((fresh = pending.poll()) != null) {
                connections.add(fresh);
            }
            for (int i = 0; i < connections.size() && !frozen; i++) {
                FakeConnection c = connections.get(i);
                if (!c.alive()) {
                    continue;
                }
                while (c.alive() && !frozen && c.pollReceive(wc)) {
                    work++;
                    serve(c, wc);
                }
            }
            if (work == 0) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private void serve(FakeConnection c, WorkCompletion wc) {
        int index = (int) wc.wrId;
        if (wc.status != WcStatus.SUCCESS) {
            return;
        }
        byte[] message = c.received(index, wc.byteLen);
        try {
            c.postReceive(index);
        } catch (VerbsException e) {
            return;
        }
        ReceivedCall call;
        try {
            call = c.readCall(message);
        } catch (RuntimeException e) {
            LOG.warn("fake server: could not read a call: {}", e.toString());
            return;
        }
        if (call == null) {
            LOG.warn("fake server: undecodable message of {} bytes", message.length);
            return;
        }
        calls.add(call);
        try {
            Reply reply = script.onCall(call);
            if (reply == null || reply.none) {
                return;
            }
            if (reply.delayMillis > 0) {
                Thread.sleep(reply.delayMillis);
            }
            maxOutstanding.accumulateAndGet(1 + c.takeWaiting(), Math::max);
            c.respond(call, reply, options.grant, options.remoteInvalidation);
        } catch (Exception e) {
            if (c.alive()) {
                LOG.warn("fake server: answering {} failed: {}", call, e.toString());
            }
        }
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
        FakeConnection c;
        while ((c = pending.poll()) != null) {
            connections.add(c);
        }
        for (FakeConnection each : all) {
            each.close();
        }
        try {
            pd.close();
        } catch (VerbsException e) {
            LOG.warn("fake server: closing its protection domain failed: {}", e.toString());
        }
    }
}

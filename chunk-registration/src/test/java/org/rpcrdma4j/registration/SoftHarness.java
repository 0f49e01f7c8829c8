package org.rpcrdma4j.registration;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * {@link Harness} over the software iWARP device: the client and the peer are two queue pairs connected over
 * loopback TCP in this JVM, in separate protection domains. The peer's RDMA READ / WRITE probes run on a separate
 * "probe" connection whose client end is in the client's protection domain (STags belong to a PD, not a QP), because
 * a refused tagged access terminates the connection that carried it; the main connection (REG_MR, Send,
 * LOCAL_INV) stays up.
 */
final class SoftHarness implements Harness {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    final RdmaDevice device;
    final ProtectionDomain pd;
    final ProtectionDomain peerPd;
    final RegisteredBufferPool buffers;
    final RegistrationPool pool;
    final CompletionQueue deviceCq;
    final CompletionQueue cq;
    final CompletionQueue recvCq;
    final CompletionQueue peerCq;
    final RdmaListener listener;
    /** Peer memory: sink of its RDMA READs and Sends, source of its RDMA WRITEs (LOCAL_WRITE | REMOTE_WRITE). */
    final RegisteredMemory peerMemory;
    /** Client memory for its Send and receive buffers. */
    final RegisteredMemory clientMemory;
    private final Semaphore wakeups = new Semaphore(0);
    private final Semaphore peerWakeups = new Semaphore(0);
    private final Semaphore recvWakeups = new Semaphore(0);
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private volatile QueuePair accepted;
    QueuePair qp;
    QueuePair peerQp;
    private QueuePair probeQp;
    private QueuePair probePeerQp;
    private long nextWrId = 1;

    /**
     * Opens the software device with placement confirmed unless {@code options} say otherwise: the registration suite
     * checks that a handle once invalidated refuses the peer, which shows as REM_ACCESS_ERR at the peer's request.
     */
    static RdmaDevice open(Map<String, String> options) throws VerbsException {
        Map<String, String> confirmed = new java.util.HashMap<>(options);
        confirmed.putIfAbsent("confirmPlacement", "true");
        return RdmaProviders.select("soft").open(confirmed);
    }

    /** Whether the soft provider is on the class path here. */
    static boolean available() {
        try {
            RdmaProviders.select("soft");
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    SoftHarness(Map<String, String> options, RegistrationConfig config) throws Exception {
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        device = open(options);
        pd = device.allocProtectionDomain();
        peerPd = device.allocProtectionDomain();
        buffers = RegisteredBufferPool.create(pd, new BufferPoolConfig(1 << 20, 1, 8, Duration.ofSeconds(10)));
        pool = RegistrationPool.create(pd, config);
        deviceCq = device.createCompletionQueue(4096);
        cq = pool.wrap(deviceCq);
        cq.setListener(c -> wakeups.release());
        recvCq = device.createCompletionQueue(256);
        recvCq.setListener(c -> recvWakeups.release());
        peerCq = device.createCompletionQueue(4096);
        peerCq.setListener(c -> peerWakeups.release());
        peerMemory = peerPd.registerMemory(ByteBuffer.allocateDirect(4 << 20), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        clientMemory = pd.registerMemory(ByteBuffer.allocateDirect(64 << 10), Access.LOCAL_WRITE);
        listener = device.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                request -> {
                    try {
                        request.accept(accepted, new AcceptParameters(new byte[0], 16, 16), event -> { });
                    } catch (VerbsException e) {
                        request.reject(new byte[0]);
                    }
                });
        QueuePair[] pair = connect(pd, deviceCq, recvCq);
        qp = pair[0];
        peerQp = pair[1];
        pool.attach(qp);
    }

    /** A connected pair: [0] in {@code clientPd} on the given CQs, [1] the peer's. */
    private QueuePair[] connect(ProtectionDomain clientPd, CompletionQueue sendCq, CompletionQueue rcq)
            throws Exception {
        QueuePair client = clientPd.createQueuePair(new QueuePairConfig(sendCq, rcq, 1024, 64, 2, 2, 64));
        QueuePair peer = peerPd.createQueuePair(new QueuePairConfig(peerCq, peerCq, 1024, 64, 2, 2, 64));
        // one receive per expected Send from the client
        for (int i = 0; i < 32; i++) {
            RecvWorkRequest recv = new RecvWorkRequest(1);
            recv.wrId = WrIds.of(WrIds.Kind.RECEIVE, 0, 1000 + i);
            recv.addSge().set(peerMemory, (long) i * 1024, 1024);
            peer.postRecv(recv);
        }
        accepted = peer;
        CompletableFuture<?> established = device.connectionManager().connect(client, listener.localAddress(),
                new ConnectParameters(new byte[0], 16, 16), event -> { });
        established.get(30, TimeUnit.SECONDS);
        return new QueuePair[] {client, peer};
    }

    @Override
    public RegisteredBufferPool buffers() {
        return buffers;
    }

    @Override
    public RegistrationPool pool() {
        return pool;
    }

    @Override
    public void send(Registration registration) throws Exception {
        SendWorkRequest send = new SendWorkRequest(1);
        send.opcode = Opcode.SEND;
        send.wrId = WrIds.of(WrIds.Kind.SEND, 0, registration.index());
        send.addSge().set(clientMemory, 0, 16);
        qp.postSend(registration.linkAfterPending(send));
        // the peer receiving the Send proves the REG_MRs ahead of it have executed
        awaitPeer(WcStatus.SUCCESS, null);
        RecvWorkRequest recv = new RecvWorkRequest(1);
        recv.wrId = WrIds.of(WrIds.Kind.RECEIVE, 0, 2000);
        recv.addSge().set(peerMemory, 0, 1024);
        peerQp.postRecv(recv);
    }

    /** Waits for the next peer completion; returns it (copied). */
    private WorkCompletion awaitPeer(WcStatus expected, String what) throws Exception {
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            if (peerCq.poll(one) == 1) {
                if (expected != null && one[0].status != expected) {
                    throw new AssertionError("peer completion " + one[0] + (what == null ? "" : " for " + what));
                }
                return one[0];
            }
            peerCq.requestNotify();
            if (peerCq.poll(one) == 1) {
                if (expected != null && one[0].status != expected) {
                    throw new AssertionError("peer completion " + one[0]);
                }
                return one[0];
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !peerWakeups.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("no peer completion (hang guard)");
            }
        }
    }

    private void ensureProbe() throws Exception {
        if (probeQp == null) {
            CompletionQueue probeCq = deviceCq; // the client end of a probe posts nothing
            QueuePair[] pair = connect(pd, probeCq, recvCq);
            probeQp = pair[0];
            probePeerQp = pair[1];
        }
    }

    private void dropProbe() {
        if (probeQp != null) {
            probePeerQp.close();
            probeQp.close();
            probeQp = null;
            probePeerQp = null;
            drainPeer();
        }
    }

    private void drainPeer() {
        WorkCompletion[] sink = {new WorkCompletion(), new WorkCompletion()};
        while (peerCq.poll(sink) > 0) {
            // flushed receives of a closed pair
        }
    }

    private PeerResult probe(Opcode opcode, int stag, long offset, byte[] data, int length) throws Exception {
        if (length > peerMemory.length() - 64 * 1024) {
            throw new IllegalArgumentException("probe too long: " + length);
        }
        ensureProbe();
        long sinkOffset = 64 * 1024;
        if (data != null) {
            ByteBuffer view = peerMemory.buffer();
            view.position((int) sinkOffset);
            view.put(data);
        }
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.opcode = opcode;
        wr.wrId = nextWrId++;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.rkey = stag;
        wr.remoteAddress = offset;
        wr.addSge().set(peerMemory, sinkOffset, length);
        probePeerQp.postSend(wr);
        WorkCompletion wc = awaitPeer(null, null);
        while (wc.wrId != wr.wrId) {
            wc = awaitPeer(null, null); // a flushed receive of the probe pair
        }
        if (!wc.ok()) {
            dropProbe(); // the refused access terminated the probe connection
            return new PeerResult(wc.status == WcStatus.WR_FLUSH_ERR ? WcStatus.REM_ACCESS_ERR : wc.status, null);
        }
        byte[] out = null;
        if (data == null) {
            out = new byte[length];
            ByteBuffer view = peerMemory.buffer();
            view.position((int) sinkOffset);
            view.get(out);
        }
        return new PeerResult(WcStatus.SUCCESS, out);
    }

    @Override
    public PeerResult peerRead(int stag, long offset, int length) throws Exception {
        return probe(Opcode.RDMA_READ, stag, offset, null, length);
    }

    @Override
    public PeerResult peerWrite(int stag, long offset, byte[] data) throws Exception {
        return probe(Opcode.RDMA_WRITE, stag, offset, data, data.length);
    }

    @Override
    public boolean supportsRemoteInvalidation() {
        return pool.mode() == RegistrationMode.FRWR && device.attributes().has(DeviceCapability.SEND_WITH_INV)
                && device.attributes().has(DeviceCapability.REMOTE_INV);
    }

    @Override
    public WorkCompletion peerSendWithInvalidate(int stag) throws Exception {
        RecvWorkRequest recv = new RecvWorkRequest(1);
        recv.wrId = WrIds.of(WrIds.Kind.RECEIVE, 0, 7);
        recv.addSge().set(clientMemory, 1024, 1024);
        qp.postRecv(recv);
        SendWorkRequest send = new SendWorkRequest(1);
        send.opcode = Opcode.SEND_WITH_INV;
        send.invalidateStag = stag;
        send.wrId = nextWrId++;
        send.flags = SendWorkRequest.SIGNALED;
        send.addSge().set(peerMemory, 0, 28);
        peerQp.postSend(send);
        awaitPeer(WcStatus.SUCCESS, "send with invalidate");
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (recvCq.poll(one) == 0) {
            recvCq.requestNotify();
            if (recvCq.poll(one) == 1) {
                break;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !recvWakeups.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("no receive completion (hang guard)");
            }
        }
        return one[0];
    }

    int pollOnce() {
        int n = cq.poll(batch);
        for (int i = 0; i < n; i++) {
            if (pool.owns(batch[i].wrId)) {
                pool.onCompletion(batch[i]);
            } else if (!batch[i].ok() && batch[i].status != WcStatus.WR_FLUSH_ERR) {
                throw new AssertionError("client send completion " + batch[i]);
            }
        }
        return n;
    }

    @Override
    public void pumpUntil(BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            while (pollOnce() > 0) {
                // drain
            }
            if (done.getAsBoolean()) {
                return;
            }
            cq.requestNotify();
            if (pollOnce() > 0 || done.getAsBoolean()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !wakeups.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("no completion arrived (hang guard)");
            }
        }
    }

    @Override
    public void disconnect() throws Exception {
        qp.disconnect();
        pool.onDisconnect();
        qp.close();
        peerQp.close();
        dropProbe();
        while (pollOnce() > 0) {
            // flushed work requests of the old QP: stale for the pool
        }
        drainPeer();
        QueuePair[] pair = connect(pd, deviceCq, recvCq);
        qp = pair[0];
        peerQp = pair[1];
        pool.attach(qp);
    }

    @Override
    public boolean injectRegistrationFailure() {
        return false;
    }

    @Override
    public int deviceRegions() {
        return device.resourceCounts().memoryRegions() - 2; // peerMemory and clientMemory
    }

    @Override
    public void close() throws Exception {
        dropProbe();
        qp.close();
        peerQp.close();
        listener.close();
        pool.close();
        buffers.close();
        peerMemory.close();
        clientMemory.close();
        cq.close();
        recvCq.close();
        peerCq.close();
        pd.close();
        peerPd.close();
        try {
            if (!device.resourceCounts().isEmpty()) {
                throw new AssertionError("device resources left open: " + device.resourceCounts());
            }
        } finally {
            device.close();
        }
    }
}

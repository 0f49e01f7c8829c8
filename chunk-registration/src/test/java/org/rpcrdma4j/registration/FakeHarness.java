package org.rpcrdma4j.registration;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.rpcrdma4j.registration.fake.FakeCq;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.registration.fake.FakeQp;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WorkCompletion;

/** {@link Harness} over the {@link FakeDevice}; the peer accesses the STag table directly. */
final class FakeHarness implements Harness {
    final FakeDevice device;
    final ProtectionDomain pd;
    final RegisteredBufferPool buffers;
    final RegistrationPool pool;
    FakeCq deviceCq;
    CompletionQueue cq;
    FakeQp qp;
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final Semaphore wakeups = new Semaphore(0);

    FakeHarness(FakeDevice device, RegistrationConfig config) throws Exception {
        this.device = device;
        this.pd = device.allocProtectionDomain();
        this.buffers = RegisteredBufferPool.create(pd, new BufferPoolConfig(1 << 20, 1, 8, Duration.ofSeconds(10)));
        this.pool = RegistrationPool.create(pd, config);
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        connect();
    }

    private void connect() throws Exception {
        deviceCq = device.createCompletionQueue(4096);
        cq = pool.wrap(deviceCq);
        cq.setListener(c -> wakeups.release());
        qp = (FakeQp) pd.createQueuePair(new QueuePairConfig(deviceCq, deviceCq, 1024, 16, 1, 1, 64));
        pool.attach(qp);
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
        send.reset();
        send.opcode = Opcode.SEND;
        send.wrId = WrIds.of(WrIds.Kind.SEND, 0, registration.index());
        qp.postSend(registration.linkAfterPending(send));
    }

    @Override
    public PeerResult peerRead(int stag, long offset, int length) {
        FakeDevice.PeerResult r = device.peerRead(stag, offset, length);
        return new PeerResult(r.status(), r.data());
    }

    @Override
    public PeerResult peerWrite(int stag, long offset, byte[] data) {
        FakeDevice.PeerResult r = device.peerWrite(stag, offset, data);
        return new PeerResult(r.status(), null);
    }

    @Override
    public boolean supportsRemoteInvalidation() {
        return pool.mode() == RegistrationMode.FRWR;
    }

    @Override
    public WorkCompletion peerSendWithInvalidate(int stag) {
        return device.peerSendWithInvalidate(stag, WrIds.of(WrIds.Kind.RECEIVE, 0, 0));
    }

    /** Routes one batch; returns how many completions were seen. */
    int pollOnce() {
        int n = cq.poll(batch);
        for (int i = 0; i < n; i++) {
            if (pool.owns(batch[i].wrId)) {
                pool.onCompletion(batch[i]);
            }
        }
        return n;
    }

    @Override
    public void pumpUntil(BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            while (pollOnce() > 0) {
                // drain
            }
            if (done.getAsBoolean()) {
                return;
            }
            cq.requestNotify();
            if (pollOnce() > 0) {
                continue;
            }
            if (done.getAsBoolean()) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !wakeups.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("no completion arrived (hang guard)");
            }
        }
    }

    @Override
    public void disconnect() throws Exception {
        qp.breakConnection();
        pool.onDisconnect();
        qp.close();
        while (pollOnce() > 0) {
            // late completions of the old QP
        }
        cq.close();
        connect();
    }

    @Override
    public boolean injectRegistrationFailure() {
        switch (pool.mode()) {
            case FRWR:
                device.failRegMr = 1;
                return true;
            case FMR:
                device.failFmrMap = 1;
                return true;
            default:
                device.failRegister = 1;
                return true;
        }
    }

    @Override
    public int deviceRegions() {
        return device.openRegions();
    }

    @Override
    public void close() throws Exception {
        pool.close();
        buffers.close();
        qp.close();
        cq.close();
        pd.close(); // fails if any region is still open: the leak check
    }
}

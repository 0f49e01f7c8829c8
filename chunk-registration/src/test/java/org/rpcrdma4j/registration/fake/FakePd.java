package org.rpcrdma4j.registration.fake;

import java.nio.ByteBuffer;
import java.util.List;

import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

final class FakePd implements ProtectionDomain {
    private final FakeDevice device;
    /** Open regions of this PD; guarded by device.lock. */
    int regions;
    private boolean closed;

    FakePd(FakeDevice device) {
        this.device = device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        if (!buffer.isDirect()) {
            throw new VerbsException("not a direct buffer");
        }
        device.runBeforeMap();
        synchronized (device.lock) {
            if (device.failRegister > 0) {
                device.failRegister--;
                throw new VerbsException("injected registration failure");
            }
            regions++;
        }
        return new FakeRegisteredMemory(device, this, buffer, access);
    }

    @Override
    public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
        if (!device.attributes().has(DeviceCapability.FAST_REG)) {
            throw new VerbsException("no FAST_REG");
        }
        if (maxPages > device.attributes().maxFastRegDepth()) {
            throw new VerbsException("depth " + maxPages + " above " + device.attributes().maxFastRegDepth());
        }
        synchronized (device.lock) {
            regions++;
        }
        return new FakeFastRegMr(device, this, maxPages);
    }

    @Override
    public Fmr allocFmr(int maxPages, int access) throws VerbsException {
        if (!device.attributes().has(DeviceCapability.FMR)) {
            throw new VerbsException("no FMR");
        }
        synchronized (device.lock) {
            regions++;
        }
        return new FakeFmr(device, this, maxPages, access);
    }

    @Override
    public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
        synchronized (device.lock) {
            if (device.failUnmap > 0) {
                device.failUnmap--;
                throw new VerbsException("injected unmap failure");
            }
            for (Fmr fmr : fmrs) {
                ((FakeFmr) fmr).unmap();
            }
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        synchronized (device.lock) {
            device.qps++;
        }
        return new FakeQp(device, this, config);
    }

    @Override
    public void close() throws VerbsException {
        synchronized (device.lock) {
            if (closed) {
                return;
            }
            if (regions != 0) {
                throw new VerbsException("protection domain still has " + regions + " regions");
            }
            closed = true;
            device.pds--;
        }
    }
}

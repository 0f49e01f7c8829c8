package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

/** A protection domain: counts its regions and queue pairs, which must all be closed before it. */
final class SoftPd implements ProtectionDomain {
    private final SoftDevice device;
    private final AtomicInteger regions = new AtomicInteger();
    private final AtomicInteger queuePairs = new AtomicInteger();
    private volatile boolean closed;

    SoftPd(SoftDevice device) {
        this.device = device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        checkOpen();
        if (buffer == null || !buffer.isDirect()) {
            throw new VerbsException("only direct buffers can be registered");
        }
        checkAccess(access);
        long iova = device.nextIova(buffer.remaining());
        SoftRegisteredMemory region = device.stags.insert(
                index -> new SoftRegisteredMemory(device, this, index, buffer, iova, access));
        regionOpened();
        return region;
    }

    @Override
    public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
        checkOpen();
        device.require(DeviceCapability.FAST_REG, "allocFastRegMr");
        checkDepth(maxPages);
        SoftFastRegMr region = device.stags.insert(index -> new SoftFastRegMr(device, this, index, maxPages));
        regionOpened();
        return region;
    }

    @Override
    public Fmr allocFmr(int maxPages, int access) throws VerbsException {
        checkOpen();
        device.require(DeviceCapability.FMR, "allocFmr");
        checkDepth(maxPages);
        checkAccess(access);
        SoftFmr region = device.stags.insert(index -> new SoftFmr(device, this, index, maxPages, access));
        regionOpened();
        return region;
    }

    @Override
    public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
        for (Fmr fmr : fmrs) {
            if (!(fmr instanceof SoftFmr soft) || soft.pd != this) {
                throw new VerbsException("FMR " + fmr + " does not belong to this protection domain");
            }
        }
        for (Fmr fmr : fmrs) {
            ((SoftFmr) fmr).unmap();
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
        checkOpen();
        SoftQp qp = device.createQueuePair(this, config);
        queuePairs.incrementAndGet();
        return qp;
    }

    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        if (regions.get() > 0 || queuePairs.get() > 0) {
            throw new VerbsException("protection domain still has " + regions.get() + " memory regions and "
                    + queuePairs.get() + " queue pairs open");
        }
        release();
    }

    /** Marks the domain closed and updates the device's counts. Idempotent. */
    void release() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        device.protectionDomainClosed(this);
    }

    boolean isClosed() {
        return closed;
    }

    void regionClosed(SoftRegion region) {
        regions.decrementAndGet();
        device.regionClosed(region);
    }

    void queuePairClosed() {
        queuePairs.decrementAndGet();
    }

    private void regionOpened() {
        regions.incrementAndGet();
        device.regionOpened();
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("protection domain is closed");
        }
        device.checkOpen();
    }

    private void checkDepth(int maxPages) throws VerbsException {
        int max = device.attributes().maxFastRegDepth();
        if (maxPages < 1 || maxPages > max) {
            throw new VerbsException("page-list depth " + maxPages + " outside 1.." + max);
        }
    }

    /** Access flags must be known bits, and remote write needs local write (as the kernel's verbs require). */
    static void checkAccess(int access) throws VerbsException {
        if ((access & ~(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ)) != 0) {
            throw new VerbsException("unknown access flags 0x" + Integer.toHexString(access));
        }
        if (Access.has(access, Access.REMOTE_WRITE) && !Access.has(access, Access.LOCAL_WRITE)) {
            throw new VerbsException("REMOTE_WRITE needs LOCAL_WRITE: " + Access.toString(access));
        }
    }

    /** A page list can be mapped on a region of {@code maxPages}. */
    static void checkPageList(PageList list, int maxPages) throws VerbsException {
        if (list == null) {
            throw new VerbsException("no page list");
        }
        if (list.count() > maxPages) {
            throw new VerbsException("page list of " + list.count() + " pages exceeds the region's " + maxPages);
        }
        if (list.length() > 0 && list.count() == 0) {
            throw new VerbsException("page list has a length but no pages");
        }
    }
}

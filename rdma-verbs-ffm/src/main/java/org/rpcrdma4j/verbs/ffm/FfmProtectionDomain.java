package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;

/**
 * A protection domain ({@code ibv_alloc_pd}); memory is registered with {@code ibv_reg_mr} (allowing window binds
 * where the device has windows), fast-register regions are type 2 memory windows.
 */
final class FfmProtectionDomain implements ProtectionDomain {
    private final FfmDevice device;
    private final MemorySegment pd;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Regions and queue pairs open on this domain. */
    final AtomicInteger users = new AtomicInteger();

    FfmProtectionDomain(FfmDevice device) throws VerbsException {
        this.device = device;
        try (Arena arena = Arena.ofConfined()) {
            pd = device.runtime().ibv().allocPd(device.context(), Errno.allocate(arena));
        }
        device.pds.incrementAndGet();
        device.open.add(this);
    }

    MemorySegment pd() {
        return pd;
    }

    FfmDevice ffmDevice() {
        return device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        checkOpen();
        if (!buffer.isDirect()) {
            throw new VerbsException("only direct buffers can be registered");
        }
        if ((access & ~(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ)) != 0) {
            throw new VerbsException("unknown access flags 0x" + Integer.toHexString(access));
        }
        ByteBuffer view = buffer.slice();
        MemorySegment memory = MemorySegment.ofBuffer(view);
        MemorySegment mr;
        // the Access values are libibverbs' IBV_ACCESS_* values; windows may be bound over any registered memory
        int nativeAccess = device.attributes().has(DeviceCapability.MEMORY_WINDOW) ? access | IbvAbi.ACCESS_MW_BIND
                : access;
        try (Arena arena = Arena.ofConfined()) {
            mr = device.runtime().ibv().regMr(pd, memory, memory.byteSize(), nativeAccess, Errno.allocate(arena));
        }
        return new FfmRegisteredMemory(this, view, memory.address(), mr, access);
    }

    @Override
    public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
        checkOpen();
        if (!device.attributes().has(DeviceCapability.FAST_REG)) {
            throw new VerbsException("the ffm provider has no fast registration on " + device.name() + " (it has no "
                    + "type 2 memory windows; register chunks in the REG_MR mode)");
        }
        if (maxPages <= 0 || maxPages > FfmDevice.WINDOW_PAGES) {
            throw new VerbsException("a window of " + maxPages + " pages; between 1 and " + FfmDevice.WINDOW_PAGES);
        }
        return new FfmMemoryWindow(this, maxPages);
    }

    @Override
    public Fmr allocFmr(int maxPages, int access) throws VerbsException {
        throw new VerbsException("the ffm provider has no FMRs (" + device.name() + ")");
    }

    @Override
    public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
        if (!fmrs.isEmpty()) {
            throw new VerbsException("the ffm provider has no FMRs (" + device.name() + ")");
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
        checkOpen();
        return new FfmQueuePair(this, config);
    }

    void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException("the protection domain is closed");
        }
        device.checkOpen();
    }

    @Override
    public void close() throws VerbsException {
        if (closed.get()) {
            return;
        }
        if (users.get() > 0) {
            throw new VerbsException("the protection domain still has " + users.get()
                    + " memory regions or queue pairs open");
        }
        if (closed.compareAndSet(false, true)) {
            device.open.remove(this);
            device.pds.decrementAndGet();
            // after the queue pairs made in it, whose destruction may still wait on a peer
            device.peerBound().execute("ibv_dealloc_pd", errno -> device.runtime().ibv().deallocPd(pd));
        }
    }
}

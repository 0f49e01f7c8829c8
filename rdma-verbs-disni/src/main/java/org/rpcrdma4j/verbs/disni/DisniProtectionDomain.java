package org.rpcrdma4j.verbs.disni;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A protection domain over DiSNI's {@link IbvPd}. Memory is registered synchronously ({@code ibv_reg_mr}); DiSNI 2.1
 * has no fast-registration or FMR verbs, so {@link #allocFastRegMr} and {@link #allocFmr} refuse.
 * <p>
 * Each registration allocates (DiSNI makes a registration call object and an {@code IbvMr}, this provider a region
 * object): per-I/O registration, the only protected mode DiSNI allows, is not allocation-free.
 */
final class DisniProtectionDomain implements ProtectionDomain {
    private final DisniDevice device;
    private final IbvPd pd;
    private final AtomicInteger regions = new AtomicInteger();
    private final AtomicInteger queuePairs = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniProtectionDomain(DisniDevice device, IbvPd pd) {
        this.device = device;
        this.pd = pd;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    /**
     * Registers {@code buffer}'s bytes from its position to its limit. Borrows the buffer (the region keeps a
     * reference to it while registered).
     */
    @Override
    public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        checkOpen();
        if (!buffer.isDirect()) {
            throw new VerbsException("only direct buffers can be registered");
        }
        int length = buffer.remaining();
        if (length == 0) {
            throw new VerbsException("cannot register an empty buffer");
        }
        int ibvAccess = AccessFlags.toIbv(access);
        ByteBuffer memory = buffer.slice();
        IbvMr mr;
        SVCRegMr call = null;
        try {
            // DiSNI's regMr(ByteBuffer) registers the whole capacity; the SPI registers position..limit
            call = pd.regMr(MemoryUtils.getAddress(buffer) + buffer.position(), length, ibvAccess);
            mr = call.execute().getMr();
        } catch (Exception | IllegalAccessError e) {
            throw DisniErrors.failure("ibv_reg_mr of " + length + " bytes with " + Access.toString(access), e);
        } finally {
            if (call != null) {
                call.free();
            }
        }
        DisniMemoryRegion region = new DisniMemoryRegion(this, mr, memory, access, r -> {
            regions.decrementAndGet();
            device.resources().memoryRegionClosed(r);
        });
        regions.incrementAndGet();
        device.resources().memoryRegionOpened(region);
        return region;
    }

    @Override
    public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
        throw new VerbsException("fast registration is not supported by the DiSNI provider: DiSNI 2.1 has no "
                + "ibv_alloc_mr and no REG_MR work request (no FAST_REG capability); use registerMemory");
    }

    @Override
    public Fmr allocFmr(int maxPages, int access) throws VerbsException {
        throw new VerbsException("FMRs are not supported by the DiSNI provider: libibverbs and DiSNI have no FMR "
                + "verbs (no FMR capability); use registerMemory");
    }

    @Override
    public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
        if (!fmrs.isEmpty()) {
            throw new VerbsException("FMRs are not supported by the DiSNI provider; these were not made by it");
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
        checkOpen();
        DisniQueuePair qp = device.createQueuePair(this, pd, config, () -> queuePairs.decrementAndGet());
        queuePairs.incrementAndGet();
        return qp;
    }

    @Override
    public void close() throws VerbsException {
        if (closed.get()) {
            return;
        }
        if (regions.get() > 0 || queuePairs.get() > 0) {
            throw new VerbsException("protection domain still has " + regions.get() + " memory region(s) and "
                    + queuePairs.get() + " queue pair(s) open");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            pd.deallocPd();
        } catch (Exception e) {
            throw DisniErrors.failure("ibv_dealloc_pd", e);
        } finally {
            device.resources().protectionDomainClosed(this);
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException("protection domain is closed");
        }
    }
}

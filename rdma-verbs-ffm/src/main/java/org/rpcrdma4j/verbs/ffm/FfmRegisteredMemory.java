package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A direct buffer registered with {@code ibv_reg_mr}. Its IOVA is the buffer's address. The buffer is held for as
 * long as the region is open, so the device never reaches freed memory.
 */
final class FfmRegisteredMemory implements RegisteredMemory {
    private static final Logger LOG = LoggerFactory.getLogger(FfmRegisteredMemory.class);

    private final FfmProtectionDomain pd;
    private final ByteBuffer buffer;
    private final long address;
    private final MemorySegment mr;
    private final int lkey;
    private final int rkey;
    private final int access;
    private final AtomicBoolean closed = new AtomicBoolean();

    FfmRegisteredMemory(FfmProtectionDomain pd, ByteBuffer buffer, long address, MemorySegment mr, int access) {
        this.pd = pd;
        this.buffer = buffer;
        this.address = address;
        this.mr = mr;
        MemorySegment fields = mr.reinterpret(IbvAbi.MR_RKEY + 4);
        this.lkey = fields.get(java.lang.foreign.ValueLayout.JAVA_INT, IbvAbi.MR_LKEY);
        this.rkey = fields.get(java.lang.foreign.ValueLayout.JAVA_INT, IbvAbi.MR_RKEY);
        this.access = access;
        pd.users.incrementAndGet();
        pd.ffmDevice().mrs.incrementAndGet();
        pd.ffmDevice().open.add(this);
    }

    /** The native {@code ibv_mr}. */
    MemorySegment mr() {
        return mr;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer.duplicate().clear();
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long iova() {
        return address;
    }

    @Override
    public long length() {
        return buffer.capacity();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MrState state() {
        return closed.get() ? MrState.FREE : MrState.VALID;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        FfmDevice device = pd.ffmDevice();
        device.open.remove(this);
        try {
            device.runtime().ibv().deregMr(mr);
        } catch (VerbsException e) {
            LOG.warn("ibv_dereg_mr failed: {}", e.getMessage());
        }
        device.mrs.decrementAndGet();
        pd.users.decrementAndGet();
    }
}

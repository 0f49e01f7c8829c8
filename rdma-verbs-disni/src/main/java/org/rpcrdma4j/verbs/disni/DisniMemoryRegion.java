package org.rpcrdma4j.verbs.disni;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import com.ibm.disni.verbs.IbvMr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memory registered with {@code ibv_reg_mr} through DiSNI. The IOVA is the buffer's virtual address (what ibv_reg_mr
 * uses); on iWARP the lkey equals the rkey. Borrows the buffer: keeps a reference to it so the memory stays put while
 * registered, and never frees it.
 */
final class DisniMemoryRegion implements RegisteredMemory {
    private static final Logger LOG = LoggerFactory.getLogger(DisniMemoryRegion.class);

    private final ProtectionDomain pd;
    private final IbvMr mr;
    private final ByteBuffer memory;
    private final int access;
    private final Consumer<DisniMemoryRegion> onClose;
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniMemoryRegion(ProtectionDomain pd, IbvMr mr, ByteBuffer memory, int access,
                      Consumer<DisniMemoryRegion> onClose) {
        this.pd = pd;
        this.mr = mr;
        this.memory = memory;
        this.access = access;
        this.onClose = onClose;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    public long iova() {
        return mr.getAddr();
    }

    @Override
    public long length() {
        return mr.getLength() & 0xFFFF_FFFFL;
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
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            mr.deregMr().execute().free();
        } catch (Exception e) {
            LOG.warn("ibv_dereg_mr of rkey 0x{} failed: {}", Integer.toHexString(mr.getRkey()), e.toString());
        } finally {
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return "DisniMemoryRegion[iova=0x" + Long.toHexString(iova()) + ", len=" + length() + ", rkey=0x"
                + Integer.toHexString(rkey()) + ", " + state() + "]";
    }
}

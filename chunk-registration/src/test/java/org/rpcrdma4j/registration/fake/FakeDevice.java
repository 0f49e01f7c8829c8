package org.rpcrdma4j.registration.fake;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A small in-memory verbs device for unit tests: a real STag table (index, 8-bit key, state, access, bounds, page
 * lists), queue pairs that execute REG_MR / LOCAL_INV / SEND synchronously at post time, and a "peer" that performs
 * tagged accesses (RDMA READ / WRITE, Send with Invalidate) against the table, as a remote RNIC would. Fault
 * injection: failing REG_MR, failing FMR maps and registrations, queue pairs in error (flush). Thread-safe enough for
 * the tests (one lock).
 */
public final class FakeDevice implements RdmaDevice {
    public static final int PAGE = PageList.DEFAULT_PAGE_SIZE;

    private final DeviceAttributes attributes;
    final Object lock = new Object();
    private final Map<Integer, FakeRegion> stags = new HashMap<>();
    private int nextIndex = 1;
    private long nextAddress = 0x1000_0000L;
    int pds;
    int qps;
    int cqs;

    /** Fault injection: the next n REG_MR work requests fail (LOC_QP_OP_ERR). */
    public int failRegMr;
    /** Fault injection: the next n FMR maps throw. */
    public int failFmrMap;
    /** Fault injection: the next n synchronous registrations throw. */
    public int failRegister;
    /** Fault injection: the next n FMR unmap batches throw. */
    public int failUnmap;
    /**
     * Run once, then cleared, when the next FMR map or synchronous registration begins (before it checks its handle):
     * what another thread could do at that moment, e.g. a reset of the registration pool.
     */
    public volatile Runnable beforeMap;

    public FakeDevice(DeviceAttributes attributes) {
        this.attributes = attributes;
    }

    /** A device of {@code transport} with {@code depth} pages per fast registration and these capabilities. */
    public static FakeDevice of(TransportType transport, int depth, DeviceCapability... capabilities) {
        Set<DeviceCapability> caps = capabilities.length == 0 ? Set.of() : EnumSet.of(capabilities[0], capabilities);
        return new FakeDevice(new DeviceAttributes(transport, depth, 4, 64, 16, 16, 4096, 65536, 1 << 30, 196, caps));
    }

    /** iWARP with FRWR, remote invalidation and READ_WITH_INV (like siw). */
    public static FakeDevice frwr(int depth) {
        return of(TransportType.IWARP, depth, DeviceCapability.FAST_REG, DeviceCapability.LOCAL_INV,
                DeviceCapability.SEND_WITH_INV, DeviceCapability.REMOTE_INV, DeviceCapability.READ_WITH_INV);
    }

    public static FakeDevice fmr(int depth) {
        return of(TransportType.IB, depth, DeviceCapability.FMR);
    }

    /** Synchronous registration only (like DiSNI). */
    public static FakeDevice regMrOnly() {
        return of(TransportType.ROCE, 0);
    }

    /** Everything, for mode overrides. */
    public static FakeDevice all(TransportType transport, int depth) {
        return of(transport, depth, DeviceCapability.values());
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() {
        synchronized (lock) {
            pds++;
        }
        return new FakePd(this);
    }

    @Override
    public FakeCq createCompletionQueue(int entries) {
        synchronized (lock) {
            cqs++;
        }
        return new FakeCq(this, entries);
    }

    @Override
    public ConnectionManager connectionManager() {
        throw new UnsupportedOperationException("the fake device has no connection manager");
    }

    @Override
    public ResourceCounts resourceCounts() {
        synchronized (lock) {
            int mrs = 0;
            for (FakeRegion r : stags.values()) {
                if (r.state != MrState.FREE) {
                    mrs++;
                }
            }
            return new ResourceCounts(pds, mrs, qps, cqs, 0);
        }
    }

    /** Open memory regions (what a leak check compares). */
    public int openRegions() {
        return resourceCounts().memoryRegions();
    }

    @Override
    public void close() {
    }

    // ---------------------------------------------------------------- STag table

    int newIndex(FakeRegion region) {
        synchronized (lock) {
            int index = nextIndex++;
            stags.put(index, region);
            return index;
        }
    }

    long newAddress(long length) {
        synchronized (lock) {
            long a = nextAddress;
            nextAddress += (length + PAGE) & ~(long) (PAGE - 1);
            return a;
        }
    }

    void forget(int index) {
        synchronized (lock) {
            stags.remove(index);
        }
    }

    FakeRegion lookup(int stag) {
        synchronized (lock) {
            return stags.get(Stag.index(stag));
        }
    }

    /** The result of a peer's tagged access. */
    public record PeerResult(WcStatus status, byte[] data, String why) {
        public boolean ok() {
            return status == WcStatus.SUCCESS;
        }
    }

    /** The peer reads {@code length} bytes at tagged offset {@code to} under {@code stag}. */
    public PeerResult peerRead(int stag, long to, int length) {
        synchronized (lock) {
            String why = check(stag, to, length, Access.REMOTE_READ);
            if (why != null) {
                return new PeerResult(WcStatus.REM_ACCESS_ERR, null, why);
            }
            byte[] out = new byte[length];
            lookup(stag).copyOut(to, out);
            return new PeerResult(WcStatus.SUCCESS, out, null);
        }
    }

    /** The peer writes {@code data} at tagged offset {@code to} under {@code stag}. */
    public PeerResult peerWrite(int stag, long to, byte[] data) {
        synchronized (lock) {
            String why = check(stag, to, data.length, Access.REMOTE_WRITE);
            if (why != null) {
                return new PeerResult(WcStatus.REM_ACCESS_ERR, null, why);
            }
            lookup(stag).copyIn(to, data);
            return new PeerResult(WcStatus.SUCCESS, null, null);
        }
    }

    /**
     * The peer sends with invalidate naming {@code stag}: the STag is invalidated (only fast-register regions can be)
     * and the receive completion the consumer would see is returned.
     */
    public WorkCompletion peerSendWithInvalidate(int stag, long recvWrId) {
        synchronized (lock) {
            FakeRegion region = lookup(stag);
            WorkCompletion wc = new WorkCompletion();
            wc.wrId = recvWrId;
            wc.opcode = WcOpcode.RECV;
            if (region == null || !(region instanceof FakeFastRegMr)) {
                wc.status = WcStatus.REM_OP_ERR;
                return wc;
            }
            region.state = MrState.INVALID;
            wc.status = WcStatus.SUCCESS;
            wc.flags = WorkCompletion.WITH_INVALIDATE;
            wc.invalidatedStag = stag;
            return wc;
        }
    }

    private String check(int stag, long to, int length, int right) {
        FakeRegion region = lookup(stag);
        if (region == null) {
            return "unknown STag " + Stag.toString(stag);
        }
        if (region.stag != stag) {
            return "wrong key: " + Stag.toString(stag) + " vs " + Stag.toString(region.stag);
        }
        if (region.state != MrState.VALID) {
            return "STag " + Stag.toString(stag) + " is " + region.state;
        }
        if (!Access.has(region.access, right)) {
            return "missing right " + Access.toString(right) + " in " + Access.toString(region.access);
        }
        if (to < region.iova || to + length > region.iova + region.length) {
            return "out of bounds";
        }
        return null;
    }

    /** Every region currently VALID (for leak checks after invalidation). */
    public List<Integer> validStags() {
        synchronized (lock) {
            List<Integer> valid = new ArrayList<>();
            for (FakeRegion r : stags.values()) {
                if (r.state == MrState.VALID && !(r instanceof FakeRegisteredMemory)) {
                    valid.add(r.stag);
                }
            }
            return valid;
        }
    }

    /** A region behind an STag: contiguous memory or a page list. */
    abstract static class FakeRegion {
        final FakeDevice device;
        final FakePd pd;
        int stag;
        MrState state = MrState.INVALID;
        int access;
        long iova;
        long length;

        FakeRegion(FakeDevice device, FakePd pd) {
            this.device = device;
            this.pd = pd;
        }

        abstract ByteBuffer byteAt(long offset);

        void copyOut(long to, byte[] out) {
            for (int i = 0; i < out.length; i++) {
                ByteBuffer b = byteAt(to - iova + i);
                out[i] = b.get(b.position());
            }
        }

        void copyIn(long to, byte[] data) {
            for (int i = 0; i < data.length; i++) {
                ByteBuffer b = byteAt(to - iova + i);
                b.put(b.position(), data[i]);
            }
        }
    }

    /** A region mapped from a page list (fast-register MR or FMR). */
    abstract static class FakePageListRegion extends FakeRegion {
        ByteBuffer[] pages = new ByteBuffer[0];
        int fbo;
        int pageSize = PAGE;

        FakePageListRegion(FakeDevice device, FakePd pd) {
            super(device, pd);
        }

        void load(PageList list) {
            pages = new ByteBuffer[list.count()];
            for (int i = 0; i < pages.length; i++) {
                pages[i] = list.page(i);
            }
            fbo = list.firstByteOffset();
            length = list.length();
            iova = list.iova();
            pageSize = list.pageSize();
        }

        @Override
        ByteBuffer byteAt(long offset) {
            long abs = fbo + offset;
            ByteBuffer page = pages[(int) (abs / pageSize)];
            return page.duplicate().position((int) (abs % pageSize));
        }
    }

    /** Runs and clears {@link #beforeMap}. */
    void runBeforeMap() {
        Runnable r = beforeMap;
        if (r != null) {
            beforeMap = null;
            r.run();
        }
    }
}

package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.rpcrdma4j.verbs.ffm.internal.Libc;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RDMA device through libibverbs and librdmacm. Its verbs context is the one librdmacm opened for it
 * ({@code rdma_get_devices}), so the identifiers the connection manager binds to it and the protection domains and
 * completion queues made here belong together. One device thread ({@link FfmEventLoop}) owns the connection manager's
 * identifiers and the completion events.
 * <p>
 * What it claims: the device's own limits ({@code ibv_query_device}); {@link DeviceCapability#SEND_WITH_INV} where
 * the device has the memory management extensions; and where it also has type 2 memory windows, fast registration
 * by binding them ({@link DeviceCapability#FAST_REG} with {@link DeviceCapability#MEMORY_WINDOW}), local and remote
 * invalidation ({@link DeviceCapability#LOCAL_INV}, {@link DeviceCapability#REMOTE_INV}). Without windows, memory is
 * registered with {@code ibv_reg_mr} only. User space has no FMRs and no Read with Invalidate.
 */
final class FfmDevice implements RdmaDevice {
    private static final Logger LOG = LoggerFactory.getLogger(FfmDevice.class);
    /** The private data librdmacm carries: InfiniBand's REQ (92 bytes) less its own header (36). */
    static final int IB_PRIVATE_DATA = 56;
    /** iWARP: 256 bytes of MPA private data less the 4 that carry IRD/ORD in MPA version 2. */
    static final int IWARP_PRIVATE_DATA = 196;
    /**
     * The most pages a window is allowed to bind. A window has no page list, so this only bounds what one REG_MR maps
     * (4 MiB of 4 KiB pages: four times a default chunk, and the page lists users allocate for it stay small).
     */
    static final int WINDOW_PAGES = 1024;
    /**
     * How long the device's close waits for the calls that wait on a peer (a queue pair whose handshake is under way is
     * destroyed once siw's MPA reply timer ended it); past it, what they still hold is left to the process's end.
     */
    private static final Duration PEER_BOUND_DRAIN = Duration.ofSeconds(30);

    private final FfmRuntime rt;
    private final FfmOptions options;
    private final RdmaCm.Devices list;
    private final MemorySegment context;
    private final FfmDeviceInfo info;
    private final DeviceAttributes attributes;
    private final MemorySegment cmChannel;
    private final MemorySegment compChannel;
    private final int wakeFd;
    private final FfmEventLoop loop;
    private final PeerBoundCalls peerBound;
    private final FfmConnectionManager connectionManager;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger qpNumbers = new AtomicInteger();
    final AtomicInteger pds = new AtomicInteger();
    final AtomicInteger mrs = new AtomicInteger();
    final AtomicInteger qps = new AtomicInteger();
    final AtomicInteger cqs = new AtomicInteger();
    final AtomicInteger listeners = new AtomicInteger();
    /** The memory windows, by STag index. */
    final FfmWindows windows = new FfmWindows();
    /** Everything open, closed with the device when its owner did not. */
    final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();

    private FfmDevice(FfmRuntime rt, FfmOptions options, RdmaCm.Devices list, MemorySegment context,
                      FfmDeviceInfo info, MemorySegment cmChannel, MemorySegment compChannel, int wakeFd) {
        this.rt = rt;
        this.options = options;
        this.list = list;
        this.context = context;
        this.info = info;
        this.cmChannel = cmChannel;
        this.compChannel = compChannel;
        this.wakeFd = wakeFd;
        this.attributes = attributesOf(info);
        this.loop = new FfmEventLoop(rt, cmChannel, compChannel, wakeFd, options.tickMillis());
        this.peerBound = new PeerBoundCalls("ffm-" + info.name() + "-peer");
        this.connectionManager = new FfmConnectionManager(this);
        loop.start("ffm-" + info.name());
    }

    /** Opens the device {@code options} name (by address, by name, or the first). */
    static FfmDevice open(FfmRuntime rt, FfmOptions options) throws VerbsException {
        List<AutoCloseable> undo = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            RdmaCm.Devices list = rt.cm().getDevices(errno);
            undo.add(() -> rt.cm().freeDevices(list));
            MemorySegment context = choose(rt, options, list, arena, errno);
            FfmDeviceInfo info = rt.devices().describe(context);
            MemorySegment cmChannel = rt.cm().createEventChannel(errno);
            undo.add(() -> rt.cm().destroyEventChannel(cmChannel));
            MemorySegment compChannel = rt.ibv().createCompChannel(context, errno);
            undo.add(() -> rt.ibv().destroyCompChannel(compChannel));
            // the other thread destroys queues and identifiers, and their pending events with them: a read after a poll
            // must not wait for the next event of another
            Libc.nonBlocking(cmChannel.reinterpret(8).get(JAVA_INT, RdmaCmAbi.EVENT_CHANNEL_FD), errno);
            Libc.nonBlocking(compChannel.reinterpret(16).get(JAVA_INT, IbvAbi.COMP_CHANNEL_FD), errno);
            int wakeFd = Libc.eventfd(errno);
            undo.clear();
            FfmDevice d = new FfmDevice(rt, options, list, context, info, cmChannel, compChannel, wakeFd);
            LOG.info("RDMA device {} ({}) opened through libibverbs", info.name(), info.transport());
            return d;
        } catch (VerbsException | RuntimeException e) {
            for (int i = undo.size() - 1; i >= 0; i--) {
                try {
                    undo.get(i).close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static MemorySegment choose(FfmRuntime rt, FfmOptions options, RdmaCm.Devices list, Arena arena,
                                        MemorySegment errno) throws VerbsException {
        if (list.contexts().isEmpty()) {
            throw new VerbsException("librdmacm lists no RDMA device; --provider soft runs without RDMA hardware");
        }
        if (options.address() != null) {
            // the device an address belongs to is the one an identifier bound to it reaches
            MemorySegment channel = rt.cm().createEventChannel(errno);
            try {
                MemorySegment id = rt.cm().createId(arena, channel, errno);
                try {
                    rt.cm().bindAddr(id, RdmaCm.sockaddr(arena, new InetSocketAddress(options.address(), 0)), errno);
                    long verbs = RdmaCm.verbs(id);
                    for (MemorySegment c : list.contexts()) {
                        if (c.address() == verbs) {
                            return c;
                        }
                    }
                    throw new VerbsException(options.address().getHostAddress() + " is not the address of an RDMA "
                            + "device's interface (devices: " + names(rt, list) + ")");
                } finally {
                    rt.cm().destroyId(id, errno);
                }
            } finally {
                rt.cm().destroyEventChannel(channel);
            }
        }
        if (options.device() != null) {
            for (MemorySegment c : list.contexts()) {
                if (rt.devices().describe(c).name().equals(options.device())) {
                    return c;
                }
            }
            throw new VerbsException("no RDMA device named " + options.device() + " (devices: " + names(rt, list)
                    + ")");
        }
        return list.contexts().get(0);
    }

    private static String names(FfmRuntime rt, RdmaCm.Devices list) throws VerbsException {
        List<String> names = new ArrayList<>();
        for (MemorySegment c : list.contexts()) {
            names.add(rt.devices().describe(c).name());
        }
        return String.join(", ", names);
    }

    private DeviceAttributes attributesOf(FfmDeviceInfo d) {
        Set<DeviceCapability> caps = EnumSet.noneOf(DeviceCapability.class);
        if (d.memoryManagementExtensions()) {
            caps.add(DeviceCapability.SEND_WITH_INV);
            if (d.memoryWindowType2()) {
                caps.add(DeviceCapability.FAST_REG);
                caps.add(DeviceCapability.MEMORY_WINDOW);
                caps.add(DeviceCapability.LOCAL_INV);
                caps.add(DeviceCapability.REMOTE_INV);
            }
        }
        long maxMessage = Math.min(d.maxMrSize() < 0 ? Long.MAX_VALUE : d.maxMrSize(), 1L << 31);
        int depth = caps.contains(DeviceCapability.MEMORY_WINDOW) ? WINDOW_PAGES : 0;
        return new DeviceAttributes(d.transport(), depth, d.maxSge(), options.maxInlineData(), d.maxQpRdAtom(),
                d.maxQpInitRdAtom(), d.maxQpWr(), d.maxCqe(), maxMessage,
                d.transport() == TransportType.IWARP ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA, caps);
    }

    FfmRuntime runtime() {
        return rt;
    }

    /**
     * Whether the device's completions carry the kernel's {@code wc_flags} (rxe: a peer's invalidation is bit 2
     * there, see {@link IbvAbi#KERNEL_WC_WITH_INVALIDATE}).
     */
    boolean kernelWcFlags() {
        return info.vendorId() == IbvAbi.RXE_VENDOR_ID;
    }

    /**
     * Whether the device carries inline data only in a Send or an RDMA Write: siw refuses a Send with Invalidate
     * posted inline (the post fails), so such a request goes from its SGEs instead.
     */
    boolean inlinesOnlySendAndWrite() {
        return info.vendorId() == IbvAbi.SIW_VENDOR_ID;
    }

    FfmOptions options() {
        return options;
    }

    FfmEventLoop loop() {
        return loop;
    }

    /** The calls that can wait on a peer, off the device thread, in order; see {@link PeerBoundCalls}. */
    PeerBoundCalls peerBound() {
        return peerBound;
    }

    /** The verbs context (librdmacm's). */
    MemorySegment context() {
        return context;
    }

    MemorySegment cmChannel() {
        return cmChannel;
    }

    MemorySegment compChannel() {
        return compChannel;
    }

    int nextQpNum() {
        return qpNumbers.incrementAndGet();
    }

    boolean isClosed() {
        return closed.get();
    }

    void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException("the device " + info.name() + " is closed");
        }
    }

    @Override
    public String name() {
        return info.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        checkOpen();
        return new FfmProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        checkOpen();
        if (entries <= 0 || entries > attributes.maxCqe()) {
            throw new VerbsException("a completion queue of " + entries + " entries: the device " + info.name()
                    + " allows 1.." + attributes.maxCqe());
        }
        return new FfmCompletionQueue(this, entries);
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    @Override
    public ResourceCounts resourceCounts() {
        return new ResourceCounts(pds.get(), mrs.get(), qps.get(), cqs.get(), listeners.get());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            loop.call(() -> {
                connectionManager.deviceClosing();
                return null;
            });
        } catch (VerbsException e) {
            LOG.warn("ending the connections of {} failed: {}", info.name(), e.getMessage());
        }
        // what the owner left open: memory windows first (a window bound through a queue pair holds it: rxe waits in its
        // destruction), then queue pairs, memory, queues, domains
        for (Class<?> kind : List.of(FfmMemoryWindow.class, FfmQueuePair.class, FfmRegisteredMemory.class,
                FfmCompletionQueue.class, FfmProtectionDomain.class)) {
            for (AutoCloseable c : List.copyOf(open)) {
                if (kind.isInstance(c)) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        LOG.warn("closing a left-over {} of {} failed: {}", kind.getSimpleName(), info.name(),
                                e.getMessage());
                    }
                }
            }
        }
        // the destruction of queue pairs, completion queues and domains handed over runs while the device thread still
        // acknowledges their events
        boolean drained = peerBound.drain(PEER_BOUND_DRAIN);
        peerBound.stop();
        loop.stop();
        if (!drained) {
            LOG.warn("{}: a connection's handshake still holds its queue pair in the kernel after {} s; the device's "
                    + "event channels are left open for it", info.name(), PEER_BOUND_DRAIN.toSeconds());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            rt.ibv().destroyCompChannel(compChannel);
            rt.cm().destroyEventChannel(cmChannel);
            Libc.close(wakeFd, errno);
            rt.cm().freeDevices(list);
        } catch (VerbsException e) {
            LOG.warn("releasing {} failed: {}", info.name(), e.getMessage());
        }
        loop.release();
        LOG.info("RDMA device {} closed", info.name());
    }

    @Override
    public String toString() {
        return "FfmDevice[" + info.name() + ", " + info.transport() + "]";
    }
}

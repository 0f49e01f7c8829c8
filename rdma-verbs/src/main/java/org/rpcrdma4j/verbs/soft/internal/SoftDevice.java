package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.soft.SoftIwarpOptions;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The software iWARP device: engines, the STag table, the objects it has open and its connection manager.
 */
public final class SoftDevice implements RdmaDevice {
    private static final Logger LOG = LoggerFactory.getLogger(SoftDevice.class);

    /** IRD and ORD limit per queue pair (siw's). */
    public static final int MAX_READ_DEPTH = 128;
    public static final int MAX_FAST_REG_DEPTH = 256;
    public static final int MAX_SGE = 8;
    /** Inline data per Send: bytes the CPU copies at post time (larger than siw's 80; a Send header plus a small RPC). */
    public static final int MAX_INLINE = 256;
    public static final int MAX_QP_WR = 16384;
    public static final int MAX_CQE = 1 << 18;

    final StagTable stags = new StagTable();
    private final SoftIwarpOptions options;
    private final DeviceAttributes attributes;
    private final Engine[] engines;
    private final SoftConnectionManager connectionManager;
    private final AtomicInteger nextEngine = new AtomicInteger();
    private final AtomicInteger nextQpNum = new AtomicInteger(1);
    private final AtomicLong nextIova = new AtomicLong(0x10_0000_0000L);
    private final AtomicInteger protectionDomains = new AtomicInteger();
    private final AtomicInteger memoryRegions = new AtomicInteger();
    private final AtomicInteger queuePairs = new AtomicInteger();
    private final AtomicInteger completionQueues = new AtomicInteger();
    private final AtomicInteger listeners = new AtomicInteger();
    private final Set<SoftPd> openPds = ConcurrentHashMap.newKeySet();
    private final Set<SoftCq> openCqs = ConcurrentHashMap.newKeySet();
    private final Set<SoftQp> openQps = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private SoftDevice(SoftIwarpOptions options) throws IOException {
        this.options = options;
        this.attributes = new DeviceAttributes(TransportType.IWARP, MAX_FAST_REG_DEPTH, MAX_SGE, MAX_INLINE,
                MAX_READ_DEPTH, MAX_READ_DEPTH, MAX_QP_WR, MAX_CQE, Integer.MAX_VALUE,
                options.mpaRevision() == 2 ? MpaFrame.MAX_PRIVATE_DATA - MpaFrame.ENHANCED_BLOCK_LENGTH
                        : MpaFrame.MAX_PRIVATE_DATA,
                options.capabilities());
        this.engines = new Engine[options.engineThreads()];
        try {
            for (int i = 0; i < engines.length; i++) {
                engines[i] = new Engine(options.name(), i);
            }
        } catch (IOException e) {
            for (Engine engine : engines) {
                if (engine != null) {
                    engine.selector.close();
                }
            }
            throw e;
        }
        this.connectionManager = new SoftConnectionManager(this);
        for (Engine engine : engines) {
            engine.start();
        }
    }

    /** Opens a device with these options; its engine threads start at once. */
    public static SoftDevice open(SoftIwarpOptions options) throws VerbsException {
        try {
            SoftDevice device = new SoftDevice(options);
            LOG.debug("software iWARP device '{}' opened: {}", options.name(), options.toMap());
            return device;
        } catch (IOException e) {
            throw new VerbsException("cannot open the software iWARP device: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return options.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    public SoftIwarpOptions options() {
        return options;
    }

    int engineCount() {
        return engines.length;
    }

    /** The next engine in turn, for a new queue pair or accepted socket. */
    Engine pickEngine() {
        return engines[Math.floorMod(nextEngine.getAndIncrement(), engines.length)];
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        checkOpen();
        SoftPd pd = new SoftPd(this);
        openPds.add(pd);
        protectionDomains.incrementAndGet();
        return pd;
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        checkOpen();
        if (entries < 1 || entries > MAX_CQE) {
            throw new VerbsException("completion queue entries " + entries + " outside 1.." + MAX_CQE);
        }
        SoftCq cq = new SoftCq(this, entries);
        openCqs.add(cq);
        completionQueues.incrementAndGet();
        return cq;
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    @Override
    public ResourceCounts resourceCounts() {
        return new ResourceCounts(protectionDomains.get(), memoryRegions.get(), queuePairs.get(),
                completionQueues.get(), listeners.get());
    }

    SoftQp createQueuePair(SoftPd pd, QueuePairConfig config) throws VerbsException {
        checkOpen();
        if (config.maxSendWr() > MAX_QP_WR || config.maxRecvWr() > MAX_QP_WR) {
            throw new VerbsException("queue depth above the device's " + MAX_QP_WR + " work requests");
        }
        if (config.maxSendSge() > MAX_SGE || config.maxRecvSge() > MAX_SGE) {
            throw new VerbsException("SGEs per work request above the device's " + MAX_SGE);
        }
        if (config.maxInlineData() > MAX_INLINE) {
            throw new VerbsException("inline data above the device's " + MAX_INLINE + " bytes");
        }
        for (CompletionQueue cq : new CompletionQueue[] {config.sendCq(), config.recvCq()}) {
            if (!(cq instanceof SoftCq soft) || !openCqs.contains(soft) || soft.isClosed()) {
                throw new VerbsException("completion queue " + cq + " is not an open queue of this device");
            }
        }
        SoftQp qp = new SoftQp(this, pd, config, nextQpNum.getAndIncrement(), pickEngine());
        ((SoftCq) config.sendCq()).attach();
        ((SoftCq) config.recvCq()).attach();
        openQps.add(qp);
        queuePairs.incrementAndGet();
        return qp;
    }

    long nextIova(long length) {
        long span = ((Math.max(length, 1) + 0xFFF) & ~0xFFFL) + 0x1000;
        return nextIova.getAndAdd(span);
    }

    void require(DeviceCapability capability, String verb) throws VerbsException {
        if (!attributes.has(capability)) {
            throw new VerbsException(verb + " needs device capability " + capability + ", which this device lacks");
        }
    }

    void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("device '" + name() + "' is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    void regionOpened() {
        memoryRegions.incrementAndGet();
    }

    void regionClosed(SoftRegion region) {
        memoryRegions.decrementAndGet();
    }

    void protectionDomainClosed(SoftPd pd) {
        if (openPds.remove(pd)) {
            protectionDomains.decrementAndGet();
        }
    }

    void completionQueueClosed(SoftCq cq) {
        if (openCqs.remove(cq)) {
            completionQueues.decrementAndGet();
        }
    }

    void queuePairClosed(SoftQp qp) {
        if (openQps.remove(qp)) {
            queuePairs.decrementAndGet();
        }
    }

    void listenerOpened() {
        listeners.incrementAndGet();
    }

    void listenerClosed() {
        listeners.decrementAndGet();
    }

    /**
     * Closes the device: every live queue pair is aborted with DEVICE_REMOVAL (its work requests flushed), listeners
     * and handshakes close, the engine threads stop, and every object is released.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        List<SoftQp> qps = new ArrayList<>(openQps);
        CountDownLatch removed = new CountDownLatch(engines.length);
        for (Engine engine : engines) {
            engine.execute(() -> {
                for (SoftQp qp : qps) {
                    if (qp.engine == engine) {
                        qp.deviceRemoved();
                        queuePairClosed(qp);
                    }
                }
                connectionManager.closeAll(engine);
                removed.countDown();
            });
        }
        if (!Engine.onAnyEngine()) {
            try {
                removed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Engine engine : engines) {
            engine.stop();
        }
        for (SoftQp qp : new ArrayList<>(openQps)) {
            queuePairClosed(qp);
        }
        for (SoftCq cq : new ArrayList<>(openCqs)) {
            cq.release();
        }
        for (SoftPd pd : new ArrayList<>(openPds)) {
            pd.release();
        }
        stags.forEachRegion(SoftRegion::close);
        LOG.debug("software iWARP device '{}' closed", name());
    }

    @Override
    public String toString() {
        return "SoftDevice[" + name() + "]";
    }
}

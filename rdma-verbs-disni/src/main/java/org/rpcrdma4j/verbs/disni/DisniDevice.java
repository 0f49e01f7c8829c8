package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Paths;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RDMA device reached through DiSNI: the verbs context of an rdma_cm id bound to the configured address.
 * <p>
 * Threads: a connection-manager thread ({@link CmEventLoop}) owns the event channel and every rdma_cm id; a
 * completion-event thread ({@link CompletionEventLoop}) calls completion listeners. Both are daemon threads and stop
 * when the device is closed.
 */
final class DisniDevice implements RdmaDevice {
    private static final Logger LOG = LoggerFactory.getLogger(DisniDevice.class);

    private final String name;
    private final DeviceAttributes attributes;
    private final DisniDeviceConfig config;
    private final RdmaEventChannel channel;
    private final RdmaCmId anchor;
    private final IbvContext context;
    private final CmEventLoop cmLoop;
    private final CompletionEventLoop cqLoop;
    private final DisniConnectionManager connectionManager;
    private final DeviceResources resources = new DeviceResources();
    private final AtomicInteger qpNumbers = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    private DisniDevice(String name, DeviceAttributes attributes, DisniDeviceConfig config, RdmaEventChannel channel,
                        RdmaCmId anchor, IbvContext context, int contextKey) {
        this.name = name;
        this.attributes = attributes;
        this.config = config;
        this.channel = channel;
        this.anchor = anchor;
        this.context = context;
        this.cmLoop = new CmEventLoop(channel, config.cmPollMillis());
        this.cqLoop = new CompletionEventLoop(TimeUnit.MICROSECONDS.toNanos(config.cqIdleMicros()));
        this.connectionManager = new DisniConnectionManager(this, cmLoop, new QpConnection.Settings(
                config.retryCount(), config.rnrRetryCount(), config.ird(), config.ord(), contextKey),
                config.address());
        cmLoop.setRequestSink(connectionManager);
    }

    /** Binds an rdma_cm id to the configured address, takes its verbs context and starts the device's threads. */
    static DisniDevice open(DisniDeviceConfig config) throws VerbsException {
        RdmaEventChannel channel = null;
        RdmaCmId anchor = null;
        try {
            channel = RdmaEventChannel.createEventChannel();
            if (channel == null) {
                throw new VerbsException("rdma_create_event_channel failed (is rdma_ucm loaded?)");
            }
            anchor = channel.createId(RdmaCm.RDMA_PS_TCP);
            try {
                anchor.bindAddr(new InetSocketAddress(config.address(), 0));
            } catch (IOException e) {
                throw new VerbsException("cannot bind rdma_cm to " + config.address().getHostAddress() + ": "
                        + DisniErrors.describe(e) + " (is it the address of an RDMA-capable interface? ibv_devices "
                        + "and 'rdma link' list them)", e);
            }
            IbvContext context = anchor.getVerbs();
            if (context == null) {
                throw new VerbsException(config.address().getHostAddress() + " is not the address of an RDMA device");
            }
            int contextKey = context.getCmd_fd();
            SysfsRdmaDevices.Resolution device = SysfsRdmaDevices.resolve(
                    SysfsRdmaDevices.scan(Paths.get("/sys/class/infiniband")), netdev(config), config.device(),
                    config.transport());
            DisniDevice d = new DisniDevice(device.name(), attributes(config, device.transport()), config, channel,
                    anchor, context, contextKey);
            d.cmLoop.start("disni-cm-" + device.name());
            d.cqLoop.start("disni-cq-" + device.name());
            LOG.info("DiSNI device {} ({}, {}) opened on {}; limits are the configured ones (DiSNI cannot query "
                    + "the device): {}", device.name(), device.transport(), device.how(),
                    config.address().getHostAddress(), d.attributes);
            return d;
        } catch (VerbsException e) {
            destroy(channel, anchor);
            throw e;
        } catch (IOException | RuntimeException | LinkageError e) {
            destroy(channel, anchor);
            throw DisniErrors.failure("opening the DiSNI device on " + config.address().getHostAddress(), e);
        }
    }

    private static String netdev(DisniDeviceConfig config) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(config.address());
            return nif == null ? null : nif.getName();
        } catch (SocketException e) {
            return null;
        }
    }

    private static void destroy(RdmaEventChannel channel, RdmaCmId anchor) {
        try {
            if (anchor != null) {
                anchor.destroyId();
            }
            if (channel != null) {
                channel.destroyEventChannel();
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.debug("cleaning up a failed open: {}", e.toString());
        }
    }

    /**
     * What a DiSNI device offers: no optional capability at all (DiSNI 2.1 has no fast registration, FMR, LOCAL_INV,
     * Send with Invalidate or READ_WITH_INV, and reports no remote invalidation), no fast-register depth, and the
     * configured limits (DiSNI has no ibv_query_device). Chunk registration therefore picks synchronous REG_MR.
     */
    static DeviceAttributes attributes(DisniDeviceConfig config, TransportType transport) {
        return new DeviceAttributes(transport, 0, config.maxSge(), config.maxInlineData(), config.ird(), config.ord(),
                config.maxQpWr(), config.maxCqe(), config.maxMessageSize(), DisniConnectionManager.MAX_PRIVATE_DATA,
                Set.<DeviceCapability>of());
    }

    DeviceResources resources() {
        return resources;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        checkOpen();
        try {
            IbvPd pd = context.allocPd();
            if (pd == null) {
                throw new VerbsException("ibv_alloc_pd failed");
            }
            DisniProtectionDomain p = new DisniProtectionDomain(this, pd);
            resources.protectionDomainOpened(p);
            return p;
        } catch (IOException e) {
            throw DisniErrors.failure("ibv_alloc_pd", e);
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        checkOpen();
        if (entries <= 0 || entries > config.maxCqe()) {
            throw new VerbsException("a completion queue holds 1.." + config.maxCqe() + " entries (option "
                    + DisniDeviceConfig.MAX_CQE + "), not " + entries);
        }
        DisniNativeCq nativeCq;
        try {
            nativeCq = DisniNativeCq.create(context, entries);
        } catch (IOException e) {
            throw DisniErrors.failure("ibv_create_cq", e);
        }
        try {
            DisniCompletionQueue[] cq = new DisniCompletionQueue[1];
            cq[0] = new DisniCompletionQueue(nativeCq, entries, cqLoop, () -> resources.completionQueueClosed(cq[0]));
            resources.completionQueueOpened(cq[0]);
            return cq[0];
        } catch (IOException | RuntimeException e) {
            try {
                nativeCq.destroy();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw DisniErrors.failure("preparing the completion queue's poll call", e);
        }
    }

    /** Creates a queue pair (called by a protection domain of this device). */
    DisniQueuePair createQueuePair(DisniProtectionDomain pd, IbvPd ibvPd, QueuePairConfig qpConfig,
                                   Runnable onClose) throws VerbsException {
        checkOpen();
        for (CompletionQueue cq : new CompletionQueue[] {qpConfig.sendCq(), qpConfig.recvCq()}) {
            if (!(cq instanceof DisniCompletionQueue) || !resources.owns((DisniCompletionQueue) cq)) {
                throw new VerbsException("the queue pair's completion queues must belong to this DiSNI device");
            }
        }
        checkLimit("maxSendSge", qpConfig.maxSendSge(), config.maxSge(), DisniDeviceConfig.MAX_SGE);
        checkLimit("maxRecvSge", qpConfig.maxRecvSge(), config.maxSge(), DisniDeviceConfig.MAX_SGE);
        checkLimit("maxInlineData", qpConfig.maxInlineData(), config.maxInlineData(),
                DisniDeviceConfig.MAX_INLINE_DATA);
        checkLimit("maxSendWr", qpConfig.maxSendWr(), config.maxQpWr(), DisniDeviceConfig.MAX_QP_WR);
        checkLimit("maxRecvWr", qpConfig.maxRecvWr(), config.maxQpWr(), DisniDeviceConfig.MAX_QP_WR);
        DisniQueuePair[] qp = new DisniQueuePair[1];
        qp[0] = new DisniQueuePair(qpNumbers.incrementAndGet(), pd, ibvPd, qpConfig,
                QpLimits.of(qpConfig, attributes.transportType()), cmLoop, () -> {
                    resources.queuePairClosed(qp[0]);
                    onClose.run();
                });
        resources.queuePairOpened(qp[0]);
        return qp[0];
    }

    private static void checkLimit(String what, int asked, int limit, String option) throws VerbsException {
        if (asked > limit) {
            throw new VerbsException(what + "=" + asked + " exceeds this device's " + limit + " (option " + option
                    + "; DiSNI cannot query the device, so the configured limit applies)");
        }
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    @Override
    public ResourceCounts resourceCounts() {
        return resources.counts();
    }

    private void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException("device " + name + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (DisniListener l : resources.listeners()) {
            l.close();
        }
        for (DisniQueuePair qp : resources.queuePairs()) {
            qp.deviceClosing();
        }
        for (DisniQueuePair qp : resources.queuePairs()) {
            qp.close();
        }
        for (DisniMemoryRegion mr : resources.memoryRegions()) {
            mr.close();
        }
        for (DisniCompletionQueue cq : resources.completionQueues()) {
            try {
                cq.close();
            } catch (VerbsException e) {
                LOG.warn("closing a completion queue of {}: {}", name, e.getMessage());
            }
        }
        for (DisniProtectionDomain pd : resources.protectionDomains()) {
            try {
                pd.close();
            } catch (VerbsException e) {
                LOG.warn("closing a protection domain of {}: {}", name, e.getMessage());
            }
        }
        cqLoop.stop();
        cmLoop.stop();
        destroy(channel, anchor);
        LOG.info("DiSNI device {} closed", name);
    }

    @Override
    public String toString() {
        return "DisniDevice[" + name + " on " + config.address().getHostAddress() + "]";
    }
}

package org.rpcrdma4j.xprt.client;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.JMException;
import javax.management.ObjectName;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.RegistrationCounter;
import org.rpcrdma4j.registration.RegistrationConfig;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.AgentRunner;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.RpcHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RPC-over-RDMA version 1 client transport (RFC 8166), the Java counterpart of Linux's xprtrdma: one reliable
 * connection to one server, over any {@link org.rpcrdma4j.verbs.RdmaProvider}.
 * <p>
 * <b>As an oncrpc4j {@link RpcTransport}</b>: an unmodified {@code RpcCall} (and so nfs4j's client code) runs over it.
 * {@link #send} takes the encoded call, {@link #getReplyQueue()} matches replies to handlers. Bulk arguments and results
 * of programs with an {@link org.rpcrdma4j.xprt.UpperLayerBinding} still move through chunks, copied into and out of
 * registered transport buffers. Handlers run on the callback executor, never on the connection's thread.
 * <p>
 * <b>DDP API</b>: {@link #call(RdmaCall)} and {@link #submit(RdmaCall, RdmaCallListener)} move a payload from the
 * caller's registered memory as a Read chunk and place a result into the caller's registered memory through a Write
 * chunk, without copies and without allocation per call. Allocate those buffers from {@link #bufferPool()}.
 * <p>
 * <b>Life cycle</b>: {@link #connect} returns once the first connection is up (or throws within the configured connect
 * timeout). A lost connection is made again, and every call not yet answered is marshaled and sent again
 * (failed when its timeout expires first); {@link #isOpen()} stays true meanwhile. {@link #close()} fails what is left.
 * <p>
 * Threads: every method may be called from any thread except the connection's own (the one running
 * {@link RdmaCallListener}s). The transport's state belongs to one agent thread; see the package documentation.
 */
public final class RdmaClientTransport implements RpcTransport, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClientTransport.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final InetSocketAddress server;
    private final RdmaClientConfig config;
    private final String name;
    private final RdmaDevice device;
    private final boolean ownsDevice;
    private final ProtectionDomain pd;
    private final RegistrationPool registrations;
    private final RegisteredBufferPool buffers;
    private final ClientReplyQueue replyQueue = new ClientReplyQueue();
    private final AgentRunner runner;
    private final boolean ownsRunner;
    private final Executor callbacks;
    private final ExecutorService ownedCallbacks;
    private final ExecutorService recovery;
    private final Executor reverseCalls;
    private final ExecutorService ownedReverseCalls;
    private final AtomicInteger xids = new AtomicInteger(new SecureRandom().nextInt());
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ClientAgent agent;
    private final CallMarshaler marshaler;
    private final long defaultTimeoutNanos;
    private volatile InetSocketAddress localAddress;
    private ObjectName mbeanName;

    private RdmaClientTransport(InetSocketAddress server, RdmaClientConfig config) throws IOException {
        this.server = server;
        this.config = config;
        this.name = config.name() != null ? config.name()
                : "rdma-client-" + server.getHostString() + ":" + server.getPort() + "-" + INSTANCES.incrementAndGet();
        this.defaultTimeoutNanos = config.defaultCallTimeout().toNanos();
        RdmaDevice dev = config.device();
        boolean owned = false;
        if (dev == null) {
            dev = RdmaProviders.select(config.provider()).open(config.providerOptions());
            owned = true;
        }
        this.device = dev;
        this.ownsDevice = owned;
        ProtectionDomain p = null;
        RegistrationPool r = null;
        RegisteredBufferPool b = null;
        try {
            p = device.allocProtectionDomain();
            r = RegistrationPool.create(p, RegistrationConfig.defaults(config.maxCredits() + 1)
                    .withMode(config.registrationMode())
                    .withSizes(config.maxPayloadSize(), Math.max(4096, config.defaultMaxReplySize())));
            int arena = Math.max(BufferPoolConfig.DEFAULT_ARENA_SIZE,
                    roundToPage(config.maxPayloadSize() + config.inlineSendSize() + 4096));
            int arenas = (int) Math.max(2, (config.bufferPoolBytes() + arena - 1) / arena);
            b = RegisteredBufferPool.create(p, new BufferPoolConfig(arena, 1, arenas, config.bufferWait()));
        } catch (VerbsException | RuntimeException e) {
            closeQuietly(r, b, p);
            if (owned) {
                dev.close();
            }
            throw e;
        }
        this.pd = p;
        this.registrations = r;
        this.buffers = b;
        if (config.runner() != null) {
            this.runner = config.runner().runner();
            this.ownsRunner = false;
        } else {
            this.runner = new AgentRunner("rpcrdma-" + name);
            this.ownsRunner = true;
        }
        if (config.callbackExecutor() != null) {
            this.callbacks = config.callbackExecutor();
            this.ownedCallbacks = null;
        } else {
            this.ownedCallbacks = Executors.newSingleThreadExecutor(daemon("rpcrdma-callbacks-" + name));
            this.callbacks = ownedCallbacks;
        }
        this.recovery = Executors.newSingleThreadExecutor(daemon("rpcrdma-recovery-" + name));
        if (config.reverseExecutor() != null) {
            this.reverseCalls = config.reverseExecutor();
            this.ownedReverseCalls = null;
        } else {
            // threads start on the first reverse-direction call; one per reverse credit
            this.ownedReverseCalls = Executors.newFixedThreadPool(ReverseServer.REQUESTS,
                    daemon("rpcrdma-reverse-" + name));
            this.reverseCalls = ownedReverseCalls;
        }
        ClientAgent a;
        try {
            a = new ClientAgent(config, server, name, device, pd, registrations, buffers, this::deliverPlain,
                    recovery, reverseCalls, xids);
        } catch (VerbsException e) {
            shutdownResources(null);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdownResources(null);
            throw new RdmaConnectionException("interrupted while setting up the transport", e);
        }
        this.agent = a;
        this.marshaler = a.marshaler();
        a.reverse().forward(this);
    }

    private static int roundToPage(int bytes) {
        return (bytes + BufferPoolConfig.PAGE_SIZE - 1) / BufferPoolConfig.PAGE_SIZE * BufferPoolConfig.PAGE_SIZE;
    }

    private static java.util.concurrent.ThreadFactory daemon(String threadName) {
        return r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Opens a transport to {@code server} and waits for the first connection: it is established, or the call fails
     * within the configured connect timeout ({@link RdmaClientConfig.Builder#timeouts}) with an
     * {@link RdmaConnectionException} naming why (refused, unreachable, handshake error, the timeout), leaving nothing
     * open.
     */
    public static RdmaClientTransport connect(InetSocketAddress server, RdmaClientConfig config) throws IOException {
        RdmaClientTransport t = new RdmaClientTransport(server, config);
        CompletableFuture<Void> connected = new CompletableFuture<>();
        t.agent.start(t.runner, connected);
        // the agent fails the attempt at the connect timeout; a second more for its verdict to arrive
        long bound = config.connectTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        try {
            connected.get(bound, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            t.close();
            Throwable cause = e.getCause();
            throw new RdmaConnectionException("cannot connect to " + server + " over RDMA: " + cause.getMessage(),
                    cause);
        } catch (TimeoutException e) {
            t.close();
            throw new RdmaConnectionException("connecting to " + server + " over RDMA did not finish within "
                    + TimeUnit.NANOSECONDS.toMillis(bound) + " ms", e);
        } catch (InterruptedException e) {
            t.close();
            Thread.currentThread().interrupt();
            throw new RdmaConnectionException("interrupted while connecting to " + server, e);
        }
        t.localAddress = t.agent.localAddress();
        t.registerMBean();
        LOG.debug("{}: open ({})", t.name, config);
        return t;
    }

    // ------------------------------------------------------------------ DDP API

    /** A new xid for a call this caller encodes itself (DDP API). */
    public int nextXid() {
        return xids.incrementAndGet();
    }

    /**
     * Registered memory of this transport, for DDP payloads and sinks ({@link RdmaCall#payload}, {@link RdmaCall#sink}).
     * Buffers must be released by the caller once the calls using them are done.
     */
    public RegisteredBufferPool bufferPool() {
        return buffers;
    }

    /** The registration handles of this transport's connections (tests in this package starve it). */
    RegistrationPool registrationPool() {
        return registrations;
    }

    /**
     * Whether {@code buffer} is registered memory of this transport (a {@link org.rpcrdma4j.registration.RegisteredBuffer}
     * of {@link #bufferPool()}), so that it can be a call's payload or sink.
     */
    public boolean isRegisteredHere(ByteBuf buffer) {
        return buffer instanceof org.rpcrdma4j.registration.RegisteredBuffer r && r.registeredWith(pd);
    }

    /**
     * Sends a call and waits for it to be done. On return every registration the call exposed is invalid and the reply
     * (if any) is in the call's reply buffer.
     *
     * @throws RdmaTransportException the call failed (its timeout, a connection or protocol error, RDMA_ERROR)
     * @throws InterruptedException   interrupted while waiting; the call stays in flight and completes later (the
     *                                transport holds its payload and sink until then: releasing them is safe)
     */
    public void call(RdmaCall call) throws IOException, InterruptedException {
        submit(call, null);
        while (!call.awaitDone(TimeUnit.SECONDS.toNanos(60))) {
            LOG.trace("still waiting for {}", call);
        }
        Throwable failure = call.failure();
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure != null) {
            throw new RdmaTransportException(failure.toString(), failure);
        }
    }

    /**
     * Sends a call; {@code listener} (may be null) is told when it is done. Blocks only while no request slot is free
     * or registration handles are short, and no longer than the call's timeout. The outcome is also reported on the
     * call itself.
     *
     * @throws IllegalArgumentException for a call without message or reply buffer, or buffers of another transport or
     *                                  released already
     * @throws IllegalStateException    when called on the connection's own thread, or with the call in flight
     */
    public void submit(RdmaCall call, RdmaCallListener listener) {
        if (agent.onAgentThread()) {
            throw new IllegalStateException("calls may not be made on the connection's thread (from a listener)");
        }
        ByteBuf message = call.message();
        if (message == null || message.readableBytes() < 4 || call.replyBuffer() == null) {
            throw new IllegalArgumentException("a call needs an encoded RPC message and a reply buffer");
        }
        if (call.payload() != null && !isRegisteredHere(call.payload())
                || call.sink() != null && !isRegisteredHere(call.sink())) {
            throw new IllegalArgumentException("a payload or sink must come from this transport's buffer pool");
        }
        if (call.payload() != null && call.payload().refCnt() == 0 || call.sink() != null && call.sink().refCnt() == 0) {
            throw new IllegalArgumentException("the call's payload or sink was released already");
        }
        int xid = message.getInt(message.readerIndex());
        call.start(xid, listener);
        long timeout = call.timeoutNanos() > 0 ? call.timeoutNanos() : defaultTimeoutNanos;
        long deadline = timeout > 0 ? deadline(timeout) : 0;
        RequestSlot slot;
        try {
            slot = agent.acquire(deadline);
        } catch (RdmaConnectionException e) {
            call.complete(e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.complete(new RdmaConnectionException("interrupted while waiting for a request slot", e));
            return;
        }
        if (slot == null) {
            agent.counters().increment(XprtCounter.TIMEOUTS);
            call.complete(new RdmaCallTimeoutException("no request slot of " + server + " came free within the "
                    + "call's timeout (" + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms) for xid 0x"
                    + Integer.toHexString(xid)));
            return;
        }
        slot.ddpCall = call;
        slot.deadlineNanos = deadline;
        try {
            slot.pin(call); // a payload or sink released by now fails the call here, and frees the slot with it
            marshaler.prepare(slot, call);
            agent.noteProgram(slot.program, slot.version);
            marshaler.marshalAcrossResets(slot);
            slot.command = RequestSlot.Command.SEND;
        } catch (Exception | Error e) {
            slot.failure = marshalFailure(slot, e);
            slot.command = RequestSlot.Command.FAIL;
        }
        agent.submit(slot);
    }

    private static long deadline(long timeoutNanos) {
        long d = System.nanoTime() + timeoutNanos;
        return d == 0 ? 1 : d;
    }

    /**
     * What a call whose marshaling failed fails with. An {@link Error} (a binding's assertion, memory) fails the call
     * like any other failure, so that its slot and handles come back, and is logged.
     */
    private Throwable marshalFailure(RequestSlot slot, Throwable e) {
        if (e instanceof Error) {
            LOG.error("{}: marshaling xid 0x{} failed", name, Integer.toHexString(slot.xid), e);
        }
        if (agent.closeRequested() && !(e instanceof InterruptedException)) {
            return new RdmaConnectionException("the RDMA transport to " + server + " was closed", e);
        }
        if (e instanceof RdmaMarshalException) {
            agent.counters().increment(XprtCounter.FAILED_MARSHAL_COUNT);
            return e;
        }
        if (e instanceof RdmaCallTimeoutException) {
            agent.counters().increment(XprtCounter.TIMEOUTS);
            return e;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new RdmaConnectionException("interrupted while marshaling xid 0x" + Integer.toHexString(slot.xid),
                    e);
        }
        agent.counters().increment(XprtCounter.FAILED_MARSHAL_COUNT);
        return new RdmaMarshalException("cannot marshal xid 0x" + Integer.toHexString(slot.xid) + ": " + e, e);
    }

    // ------------------------------------------------------------------ oncrpc4j RpcTransport

    /**
     * Sends an encoded oncrpc4j call. The handler is told {@code completed} once the call is handed to the connection
     * (or {@code failed} when it cannot be); the reply goes to the handler registered in {@link #getReplyQueue()}.
     * Reverse-direction replies are not supported yet.
     */
    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        EncodedCall encoded = new EncodedCall(xdr); // read in place: the marshaler copies it once, or not at all
        ByteBuf message = encoded.message();
        int length = message.readableBytes();
        if (length < 8 || message.getInt(4) != RpcHeader.CALL) {
            handler.failed(new UnsupportedOperationException("the RDMA client transport sends calls only (no "
                    + "reverse-direction replies yet)"), attachment);
            return;
        }
        int xid = message.getInt(0);
        long deadline = replyQueue.takeDeadline(xid);
        if (agent.onAgentThread()) {
            handler.failed(new IllegalStateException("calls may not be made on the connection's thread"), attachment);
            return;
        }
        RequestSlot slot;
        try {
            slot = agent.acquire(deadline);
        } catch (RdmaConnectionException e) {
            handler.failed(e, attachment);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            handler.failed(e, attachment);
            return;
        }
        if (slot == null) {
            agent.counters().increment(XprtCounter.TIMEOUTS);
            handler.failed(new TimeoutException("no request slot of " + server + " came free within the call's "
                    + "timeout for xid 0x" + Integer.toHexString(xid)), attachment);
            return;
        }
        slot.plain = true;
        slot.deadlineNanos = deadline;
        try {
            marshaler.prepare(slot, encoded);
            agent.noteProgram(slot.program, slot.version);
            marshaler.marshalAcrossResets(slot);
            slot.command = RequestSlot.Command.SEND;
        } catch (Exception | Error e) {
            Throwable failure = marshalFailure(slot, e);
            slot.plain = false; // reported here, not again through the reply queue
            slot.failure = failure;
            slot.command = RequestSlot.Command.FAIL;
            agent.submit(slot);
            handler.failed(failure, attachment);
            return;
        }
        agent.submit(slot);
        handler.completed(length, attachment);
    }

    /**
     * Hands an oncrpc4j reply or failure to the handler registered for its xid, on the callback executor, which also
     * makes the reply flat (and gives back the transport buffer it may hold).
     */
    private void deliverPlain(int xid, PlainReply reply, Throwable failure) {
        try {
            callbacks.execute(() -> dispatchPlain(xid, reply, failure));
        } catch (RuntimeException e) {
            if (reply != null) {
                reply.release();
            }
            LOG.warn("{}: could not hand the reply to xid 0x{} to its handler: {}", name, Integer.toHexString(xid),
                    e.toString());
            // the handler hears of it here: nothing else would time the call out (the transport owns its timeout)
            CompletionHandler<RpcReply, RpcTransport> handler = replyQueue.get(xid);
            if (handler != null) {
                handler.failed(new RdmaTransportException("the callback executor refused the "
                        + (failure != null ? "failure" : "reply") + " of xid 0x" + Integer.toHexString(xid), e), this);
            }
        }
    }

    private void dispatchPlain(int xid, PlainReply plainReply, Throwable failure) {
        CompletionHandler<RpcReply, RpcTransport> handler = replyQueue.get(xid);
        if (handler == null || failure != null || plainReply == null) {
            if (plainReply != null) {
                plainReply.release();
            }
            if (handler != null) {
                handler.failed(failure != null ? failure : new RdmaBadReplyException("no reply to xid 0x"
                        + Integer.toHexString(xid), null), this);
            }
            return; // with no handler, the caller gave up on it
        }
        byte[] reply = plainReply.flatten();
        try {
            Xdr xdr = new Xdr(reply);
            xdr.beginDecoding();
            xdr.xdrDecodeInt(); // xid
            xdr.xdrDecodeInt(); // message type: REPLY
            RpcReply r = new RpcReply(xid, xdr, this);
            if (!r.isAccepted()) {
                handler.failed(new OncRpcRejectedException(r.getRejectStatus()), this);
            } else if (r.getAcceptStatus() != RpcAccepsStatus.SUCCESS) {
                handler.failed(new OncRpcAcceptedException(r.getAcceptStatus()), this);
            } else {
                handler.completed(r, this);
            }
        } catch (IOException | RuntimeException e) {
            handler.failed(new RdmaBadReplyException("the reply to xid 0x" + Integer.toHexString(xid)
                    + " does not decode: " + e.getMessage(), e), this);
        }
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    /** True until {@link #close()}, also while the connection is being made again. */
    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    /** The local address of the first connection (kept for oncrpc4j, which files calls under it). Never null. */
    @Override
    public InetSocketAddress getLocalSocketAddress() {
        InetSocketAddress a = localAddress;
        return a != null ? a : new InetSocketAddress(0);
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return server;
    }

    /**
     * Refused: this transport sends calls to the server. The server's reverse-direction calls (RFC 8167, e.g.
     * NFSv4.1 callbacks) are served by the programs registered with
     * {@link RdmaClientConfig.Builder#reverseProgram}; the transport of each such call has this transport as its peer.
     */
    @Override
    public RpcTransport getPeerTransport() {
        throw new UnsupportedOperationException("the RDMA client transport to " + server + " sends calls; "
                + "reverse-direction calls from the server (RFC 8167) are served by the programs registered with "
                + "RdmaClientConfig.Builder.reverseProgram");
    }

    /** Refused: RPC-with-TLS (RFC 9289) is defined for stream transports; RPC-over-RDMA has no TLS. */
    @Override
    public void startTLS() {
        throw new IllegalStateException("TLS cannot be started on an RPC-over-RDMA transport (" + server
                + "): RPC-with-TLS (RFC 9289) is defined for TCP only");
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    // ------------------------------------------------------------------ counters

    /**
     * Counts bytes a layer above copied for a call because they were not in this transport's registered memory: a
     * payload copied into it ({@code pullup_copy_count}) or data copied out of a transport sink into the caller's
     * memory ({@code fixup_copy_count}), so that the counters show every copy a call cost.
     */
    public void countCopies(long pulledUp, long fixedUp) {
        if (pulledUp > 0) {
            agent.counters().add(XprtCounter.PULLUP_COPY_COUNT, pulledUp);
        }
        if (fixedUp > 0) {
            agent.counters().add(XprtCounter.FIXUP_COPY_COUNT, fixedUp);
        }
    }

    /**
     * The inline receive threshold in force (RFC 8797: the smaller of ours and the server's send threshold): the
     * largest reply the server may send in one Send. Cheap; for per-call decisions.
     */
    public int inlineReceiveThreshold() {
        return agent.thresholds().receive();
    }

    /** Connections made so far, the first included: it grows by one with each reconnect. */
    public long connections() {
        return agent.counters().get(XprtCounter.CONNECTS);
    }

    /** A snapshot of the counters and gauges. Allocates; not for the hot path. */
    public RdmaClientStats stats() {
        EnumCounters<XprtCounter> c = agent.counters();
        EnumCounters<ClientCounter> o = agent.ownCounters();
        EnumCounters<RegistrationCounter> r = registrations.registrationCounters();
        c.set(XprtCounter.MRS_RECYCLED, r.get(RegistrationCounter.MRS_RECYCLED));
        c.set(XprtCounter.MRS_ORPHANED, r.get(RegistrationCounter.MRS_ORPHANED));
        c.set(XprtCounter.MRS_ALLOCATED, r.get(RegistrationCounter.MRS_ALLOCATED));
        c.set(XprtCounter.HARDWAY_REGISTER_COUNT, r.get(RegistrationCounter.HARDWAY_REGISTER_COUNT));
        c.set(XprtCounter.REMOTE_INVALIDATIONS, r.get(RegistrationCounter.REMOTE_INV_HONOURED));
        o.set(ClientCounter.REMOTE_INVALIDATIONS_REFUSED, r.get(RegistrationCounter.REMOTE_INV_REFUSED));
        InlineThresholds t = agent.thresholds();
        return new RdmaClientStats(server.toString(), agent.state().name(), agent.granted(), agent.inFlight(),
                agent.freeSlots(), t.send(), t.receive(), agent.idleSeconds(), c.snapshot(), o.snapshot());
    }

    /** The transport's name (threads, logs, MBean). */
    public String name() {
        return name;
    }

    public RdmaClientConfig config() {
        return config;
    }

    /** The MBean's name while registered, else null. */
    public ObjectName mbeanName() {
        return mbeanName;
    }

    private void registerMBean() {
        if (!config.jmx()) {
            return;
        }
        try {
            ObjectName on = new ObjectName("org.rpcrdma4j:type=RdmaClientTransport,name=" + ObjectName.quote(name));
            ManagementFactory.getPlatformMBeanServer().registerMBean(new Bean(), on);
            mbeanName = on;
        } catch (JMException | RuntimeException e) {
            LOG.warn("{}: MBean not registered: {}", name, e.toString());
        }
    }

    private void unregisterMBean() {
        ObjectName on = mbeanName;
        mbeanName = null;
        if (on != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(on);
            } catch (JMException | RuntimeException e) {
                LOG.debug("{}: MBean not unregistered: {}", name, e.toString());
            }
        }
    }

    private final class Bean implements RdmaClientTransportMXBean {
        @Override
        public String getServer() {
            return server.toString();
        }

        @Override
        public String getState() {
            return agent.state().name();
        }

        @Override
        public int getCreditsGranted() {
            return agent.granted();
        }

        @Override
        public int getCallsInFlight() {
            return agent.inFlight();
        }

        @Override
        public int getInlineSendSize() {
            return agent.thresholds().send();
        }

        @Override
        public int getInlineReceiveSize() {
            return agent.thresholds().receive();
        }

        @Override
        public Map<String, Long> getCounters() {
            RdmaClientStats s = stats();
            Map<String, Long> m = new LinkedHashMap<>();
            s.counters().forEach((k, v) -> m.put(k.label(), v));
            s.own().forEach((k, v) -> m.put(k.label(), v));
            return m;
        }

        @Override
        public String getMountstats() {
            return stats().mountstats();
        }
    }

    // ------------------------------------------------------------------ closing

    /**
     * Closes the transport: calls still in it fail with {@link RdmaConnectionException} (oncrpc4j handlers included),
     * the connection is dropped, every registration and buffer of the transport is released, the MBean unregistered.
     * Buffers callers allocated from {@link #bufferPool()} lose their registration. Idempotent. Called from a
     * {@link RdmaCallListener} (the connection's own thread), the closing finishes on another thread after it returns.
     */
    @Override
    public void close() {
        if (agent.onAgentThread()) {
            Thread closer = new Thread(this::close, "rpcrdma-close-" + name);
            closer.setDaemon(true);
            closer.start();
            return;
        }
        if (closed.getAndSet(true)) {
            return;
        }
        replyQueue.close("the RDMA transport to " + server + " is closed");
        agent.requestClose();
        // a caller waiting for memory or handles would wait for what only this close gives back: it fails now
        buffers.refuseWaits();
        registrations.refuseWaits();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!agent.isQuiesced() && System.nanoTime() - until < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (!agent.isQuiesced()) {
            LOG.warn("{}: calls still being marshaled after 10 s; closing anyway", name);
        }
        shutdownResources(agent);
        unregisterMBean();
        replyQueue.handleDisconnect(getLocalSocketAddress());
        replyQueue.shutdown();
        LOG.debug("{}: closed", name);
    }

    private void shutdownResources(ClientAgent a) {
        if (a != null) {
            if (ownsRunner) {
                runner.close();
            } else {
                runner.remove(a);
                if (!runner.isRunnerThread() && !a.onAgentThread()) {
                    a.closed().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
                }
            }
        } else if (ownsRunner) {
            runner.close();
        }
        recovery.shutdownNow();
        registrations.close();
        if (a != null) {
            a.releaseBuffers();
        }
        buffers.close();
        try {
            pd.close();
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("{}: closing the protection domain failed: {}", name, e.toString());
        }
        if (ownsDevice) {
            device.close();
        }
        if (ownedCallbacks != null) {
            ownedCallbacks.shutdown();
        }
        if (ownedReverseCalls != null) {
            ownedReverseCalls.shutdown();
        }
    }

    private static void closeQuietly(RegistrationPool r, RegisteredBufferPool b, ProtectionDomain p) {
        if (r != null) {
            r.close();
        }
        if (b != null) {
            b.close();
        }
        if (p != null) {
            try {
                p.close();
            } catch (VerbsException | RuntimeException e) {
                LOG.debug("closing a protection domain failed: {}", e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "RdmaClientTransport[" + name + " -> " + server + ", " + agent.state() + "]";
    }

    /** The current connection's queue pair, or null: for fault injection in tests (read off the agent's thread). */
    QueuePair queuePair() {
        ClientConnection c = agent.connection();
        return c == null ? null : c.qp;
    }
}

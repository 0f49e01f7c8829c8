package org.rpcrdma4j.xprt.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.internal.AgentRunner;
import org.rpcrdma4j.xprt.internal.Bindings;
import org.rpcrdma4j.xprt.internal.DelegatingTransport;
import org.rpcrdma4j.xprt.internal.ProgramTable;
import org.rpcrdma4j.xprt.internal.WarningLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC-over-RDMA version 1 server (RFC 8166), the counterpart of Linux svcrdma: it listens, accepts clients with
 * RFC 8797 private data, pulls read chunks with RDMA READ, dispatches calls to unmodified oncrpc4j
 * {@link org.dcache.oncrpc4j.rpc.RpcDispatchable} programs (the same objects one registers with {@code OncRpcSvc}),
 * pushes DDP-eligible results into write chunks and long replies into reply chunks, and answers with Send With
 * Invalidate when the client offered it. See the package documentation for the threading model and the zero-copy
 * reply seam ({@link #bufferAllocator()}).
 * <pre>{@code
 * RdmaRpcServer server = RdmaRpcServer.builder()
 *         .port(20049)
 *         .program(new OncRpcProgram(100003, 3), nfs)
 *         .binding(new Nfs3UpperLayerBinding())
 *         .build();
 * server.start();
 * ...
 * server.stop();
 * }</pre>
 * Thread-safe. {@link #start()} once; {@link #stop()} (or {@link #close()}) drains in-flight calls for a bounded time,
 * closes every connection and releases every resource; a stopped server cannot be started again.
 */
public final class RdmaRpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcServer.class);

    /** The NFS/RDMA port (IANA "nfsrdma"). */
    public static final int DEFAULT_PORT = 20049;

    private enum State { NEW, RUNNING, STOPPING, STOPPED }

    final ServerConfig config;
    final ProgramTable programs;
    final EnumCounters<ServerCounter> counters = new EnumCounters<>(ServerCounter.class);
    final RegisteredMemoryIndex memoryIndex = new RegisteredMemoryIndex();
    /** Rate limit of the warnings a client can provoke, by the counter that records their reason. */
    final WarningLimiter<ServerCounter> warnings;
    RdmaDevice device;
    ProtectionDomain pd;
    /** Registered memory for calls: READ sinks, copies of replies, programs' reply buffers. */
    RegisteredBufferPool bufferPool;
    /**
     * Registered memory for connections' fixed buffers, one piece each ({@link ConnectionResources}): arenas of one
     * connection at the server's inline sizes, registered as connections come, at most one per allowed connection.
     */
    RegisteredBufferPool connectionPool;
    ExecutorService dispatchExecutor;
    /** Prepares calls' RDMA READs: takes their sinks, which may wait for registered memory and handles. */
    ExecutorService ioExecutor;
    /**
     * Short tasks that must not wait behind calls waiting for memory: connection set-up, the growth of connections'
     * handle pools, and the delivery of reverse-direction replies. A thread each (made on demand, kept a minute idle),
     * so none waits behind another; how many run at once is bounded by the connections (at most one set-up and one
     * growth each, and a reply per reverse credit).
     */
    ExecutorService connectionExecutor;
    private boolean ownsDevice;
    private boolean ownsDispatchExecutor;
    private AgentRunner[] runners;
    private final AtomicInteger nextRunner = new AtomicInteger();
    private RdmaListener listener;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepting = new AtomicInteger();
    /**
     * Connections that count against {@code maxConnections}: admitted when requested, until refused or released. One
     * count, taken and given back atomically, so that a connection being accepted never counts twice.
     */
    private final AtomicInteger admitted = new AtomicInteger();
    private volatile ReplyQueue replyQueue;
    private final RdmaBufferAllocator allocator;
    /** Pages of call buffers programs keep now ({@link #chargeKept}). */
    private final AtomicLong keptPages = new AtomicLong();
    /** Per io thread: the scatter list a call's READ sink is mapped from (any call up to the size limit fits). */
    private final ThreadLocal<ScatterList> sinkLists;
    private ServerMBean mbean;
    private volatile State state = State.NEW;

    private RdmaRpcServer(ServerConfig config) {
        this.config = config;
        this.warnings = new WarningLimiter<>(ServerCounter.class, config.warningInterval());
        this.programs = new ProgramTable(config.programs(), config.bindings());
        this.allocator = new RdmaBufferAllocator(this);
        // every page of the largest call, plus a partial page at each end of every READ extent (at most one extent
        // per read segment, plus the pieces around the data items)
        int pieces = config.maxCallSize() / ServerConfig.PAGE + 2 * config.limits().maxReadSegments()
                + 4 * config.maxReadChunks() + 8;
        this.sinkLists = ThreadLocal.withInitial(() -> new ScatterList(pieces));
    }

    /** The calling io thread's scatter list, cleared. */
    ScatterList sinkList() {
        return sinkLists.get().clear();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether {@code call} came over an RDMA connection of a server of this class (also through a transport that
     * stands in front of it, as the duplicate request cache's). A program tells RDMA calls from calls over TCP or UDP
     * with it, e.g. to pass them where a source port would be checked, as Linux's server does.
     */
    public static boolean arrivedOverRdma(RpcCall call) {
        return call != null && DelegatingTransport.underlying(call.getTransport()) instanceof CallTransport;
    }

    // ------------------------------------------------------------------ life cycle

    /**
     * Opens the device (unless one was given), allocates the buffer pool, starts the threads, listens, and
     * registers the MBean.
     *
     * @throws IOException when the device, the pool or the listener could not be set up (nothing stays open)
     */
    public synchronized void start() throws IOException {
        if (state != State.NEW) {
            throw new IllegalStateException("server is " + state);
        }
        try {
            if (config.device() != null) {
                device = config.device();
            } else {
                device = RdmaProviders.select(config.provider()).open(config.providerOptions());
                ownsDevice = true;
            }
            pd = device.allocProtectionDomain();
            int arena = config.arenaSize();
            int maxArenas = (int) Math.max(1, Math.min(4096, config.registeredMemoryBytes() / arena));
            bufferPool = RegisteredBufferPool.create(pd, new BufferPoolConfig(arena, 1, maxArenas,
                    config.bufferWait()));
            connectionPool = RegisteredBufferPool.create(pd, new BufferPoolConfig(config.connectionArenaSize(), 0,
                    config.maxConnections(), Duration.ZERO));
            ioExecutor = new ThreadPoolExecutor(config.ioThreads(), config.ioThreads(), 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), threads(config.name() + "-io"));
            connectionExecutor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                    new SynchronousQueue<>(), threads(config.name() + "-conn"));
            if (config.dispatchExecutor() != null) {
                dispatchExecutor = config.dispatchExecutor();
            } else if (!config.sameThreadDispatch()) {
                int queue = Math.max(64, config.maxConnections() * config.slotsPerConnection());
                dispatchExecutor = new ThreadPoolExecutor(config.dispatchThreads(), config.dispatchThreads(), 60,
                        TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), threads(config.name() + "-dispatch"));
                ownsDispatchExecutor = true;
            }
            runners = new AgentRunner[config.agentThreads()];
            for (int i = 0; i < runners.length; i++) {
                runners[i] = new AgentRunner(config.name() + "-agent-" + i);
            }
            listener = device.connectionManager().listen(config.bindAddress(), this::onConnectionRequest);
            state = State.RUNNING;
            if (config.jmx()) {
                mbean = ServerMBean.register(this);
            }
            LOG.info("RPC-over-RDMA server {} listening on {} ({}; {} credits, inline {}/{})", config.name(),
                    listener.localAddress(), device.name(), config.credits(), config.inlineSend(),
                    config.inlineReceive());
        } catch (IOException | RuntimeException e) {
            releaseAll();
            state = State.STOPPED;
            throw e;
        }
    }

    /**
     * Stops: refuses new connections, waits up to the configured stop timeout for calls in flight to be answered,
     * closes every connection, and releases the threads it made, the buffer pool and (if it opened it) the device.
     * A call that arrives once the stop has begun is left unanswered (counted in
     * {@link ServerCounter#MESSAGES_DROPPED}): the client sends it again on its next connection. Idempotent.
     */
    public void stop() {
        synchronized (this) {
            if (state != State.RUNNING) {
                if (state == State.NEW) {
                    state = State.STOPPED;
                }
                return;
            }
            state = State.STOPPING;
        }
        listener.close();
        long deadline = System.nanoTime() + config.stopTimeout().toNanos();
        while (System.nanoTime() - deadline < 0 && (inFlight() > 0 || accepting.get() > 0)) {
            sleep();
        }
        for (Connection c : connections) {
            c.requestClose(ServerCounter.DROPPED_SERVER_STOP);
        }
        long closeDeadline = System.nanoTime() + config.stopTimeout().toNanos();
        while (!connections.isEmpty() && System.nanoTime() - closeDeadline < 0) {
            sleep();
        }
        if (!connections.isEmpty()) {
            LOG.warn("{}: {} connections did not close in time; releasing them", config.name(), connections.size());
        }
        synchronized (this) {
            releaseAll();
            state = State.STOPPED;
        }
        LOG.info("RPC-over-RDMA server {} stopped", config.name());
    }

    @Override
    public void close() {
        stop();
    }

    /** Whether {@link #stop()} has begun: the connections answer the calls they have and take no new ones. */
    boolean stopping() {
        State s = state;
        return s == State.STOPPING || s == State.STOPPED;
    }

    /** Calls received and not completely answered on every connection (read racily; for the drain). */
    private long inFlight() {
        long n = 0;
        for (Connection c : connections) {
            n += c.busy();
        }
        return n;
    }

    private static void sleep() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void releaseAll() {
        if (mbean != null) {
            mbean.unregister();
            mbean = null;
        }
        if (listener != null) {
            listener.close();
        }
        if (runners != null) {
            for (AgentRunner runner : runners) {
                if (runner != null) {
                    runner.close(); // closes the agents still on it: their resources are released
                }
            }
        }
        if (ownsDispatchExecutor && dispatchExecutor != null) {
            shutdown(dispatchExecutor);
        }
        if (ioExecutor != null) {
            shutdown(ioExecutor);
        }
        if (connectionExecutor != null) {
            shutdown(connectionExecutor);
        }
        if (bufferPool != null) {
            bufferPool.close();
        }
        if (connectionPool != null) {
            connectionPool.close();
        }
        if (pd != null) {
            try {
                pd.close();
            } catch (VerbsException e) {
                LOG.warn("{}: closing the protection domain failed: {}", config.name(), e.toString());
            }
        }
        if (ownsDevice && device != null) {
            device.close();
        }
    }

    private static void shutdown(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    // ------------------------------------------------------------------ connections

    /**
     * Device thread: a client wants to connect. Set-up (device calls) runs on a connection thread, never behind calls
     * whose READ sinks wait for memory on the io threads.
     */
    private void onConnectionRequest(ConnectionRequest request) {
        if (state != State.RUNNING) {
            reject(request, "server stopping");
            return;
        }
        if (!admit()) {
            reject(request, "connection limit " + config.maxConnections() + " reached");
            return;
        }
        accepting.incrementAndGet();
        try {
            connectionExecutor.execute(() -> accept(request));
        } catch (RuntimeException e) {
            accepting.decrementAndGet();
            refuse(request, "server stopping");
        }
    }

    /** Counts one more connection unless {@code maxConnections} are counted already. */
    private boolean admit() {
        while (true) {
            int n = admitted.get();
            if (n >= config.maxConnections()) {
                return false;
            }
            if (admitted.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private void accept(ConnectionRequest request) {
        // the request's admission, until its connection holds it or it is refused (given back first, so that the
        // client's next request finds it free)
        boolean holding = true;
        try {
            ConnectionResources resources;
            try {
                resources = ConnectionResources.open(this, request);
            } catch (VerbsException | RuntimeException e) {
                holding = false;
                refuse(request, e.getMessage());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                holding = false;
                refuse(request, "interrupted");
                return;
            }
            AgentRunner runner = runners[Math.floorMod(nextRunner.getAndIncrement(), runners.length)];
            Connection connection;
            try {
                connection = new Connection(this, resources, runner);
                connection.postAllReceives();
            } catch (VerbsException | RuntimeException e) {
                resources.close();
                holding = false;
                refuse(request, e.getMessage());
                return;
            }
            synchronized (this) {
                if (state != State.RUNNING) {
                    resources.close();
                    holding = false;
                    refuse(request, "server stopping");
                    return;
                }
                connections.add(connection);
                holding = false; // the connection's until it is released
                counters.set(ServerCounter.CONNECTIONS_OPEN, connections.size());
            }
            runner.add(connection);
            try {
                request.accept(resources.queues.qp(), new AcceptParameters(resources.privateData, 0, resources.ord),
                        connection::onEvent);
            } catch (VerbsException | RuntimeException e) {
                counters.increment(ServerCounter.CONNECTIONS_REJECTED);
                LOG.warn("{}: accepting {} failed: {}", config.name(), request.remoteAddress(), e.toString());
                connection.requestClose(ServerCounter.DROPPED_INTERNAL_ERROR);
                return;
            }
            connection.count(ServerCounter.CONNECTIONS_ACCEPTED);
            LOG.debug("{}: accepted {} (inline {}/{}, ORD {}, remote invalidation {})", config.name(),
                    request.remoteAddress(), resources.inlineSend, resources.inlineReceive, resources.ord,
                    resources.sendWithInvalidate);
        } finally {
            if (holding) {
                admitted.decrementAndGet();
            }
            accepting.decrementAndGet();
        }
    }

    /** Refuses an admitted request: its admission goes back before the client hears of it. */
    private void refuse(ConnectionRequest request, String why) {
        admitted.decrementAndGet();
        reject(request, why);
    }

    private void reject(ConnectionRequest request, String why) {
        counters.increment(ServerCounter.CONNECTIONS_REJECTED);
        long held = warnings.permit(ServerCounter.CONNECTIONS_REJECTED);
        if (held >= 0) {
            LOG.warn("{}: refusing a connection from {}: {}{}", config.name(), request.remoteAddress(), why,
                    WarningLimiter.suffix(held));
        } else {
            LOG.debug("{}: refusing a connection from {}: {}", config.name(), request.remoteAddress(), why);
        }
        try {
            request.reject(null);
        } catch (RuntimeException e) {
            LOG.debug("reject failed: {}", e.toString());
        }
    }

    /** A connection released everything (its agent thread). */
    void connectionClosed(Connection connection) {
        // once per connection (its agent's release); the admission goes back before the connection leaves the count
        if (connections.contains(connection)) {
            admitted.decrementAndGet();
            connections.remove(connection);
        }
        counters.set(ServerCounter.CONNECTIONS_OPEN, connections.size());
    }

    /** The reply queue oncrpc4j asks a transport for (made on first use: it owns a timer thread). */
    ReplyQueue replyQueue() {
        ReplyQueue q = replyQueue;
        if (q == null) {
            synchronized (this) {
                q = replyQueue;
                if (q == null) {
                    q = new ReplyQueue();
                    replyQueue = q;
                }
            }
        }
        return q;
    }

    // ------------------------------------------------------------------ queries

    /** The address the server listens on (with the real port when port 0 was asked). */
    public InetSocketAddress boundAddress() {
        RdmaListener l = listener;
        if (l == null) {
            throw new IllegalStateException("server is not started");
        }
        return l.localAddress();
    }

    /**
     * Where a program gets registered memory for zero-copy replies (see the package documentation). The same
     * object serves calls from other transports with plain direct memory.
     */
    public RdmaBufferAllocator bufferAllocator() {
        return allocator;
    }

    /** The server-wide counters, as a copy. */
    public Map<ServerCounter, Long> counters() {
        return counters.snapshot();
    }

    /** The counters of each open connection, by the client's address; a copy. */
    public Map<InetSocketAddress, Map<ServerCounter, Long>> connectionCounters() {
        Map<InetSocketAddress, Map<ServerCounter, Long>> all = new LinkedHashMap<>();
        for (Connection c : connections) {
            all.put(c.remoteAddress(), c.counters.snapshot());
        }
        return Collections.unmodifiableMap(all);
    }

    /** Connections open now. */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Pages of the server's registered memory in use now: calls and replies, and connections' fixed buffers (receive
     * buffers, slots, reverse-direction sends).
     */
    public int registeredPagesInUse() {
        return pagesInUse(bufferPool) + pagesInUse(connectionPool);
    }

    private static int pagesInUse(RegisteredBufferPool pool) {
        return pool == null ? 0 : pool.pagesInUse();
    }

    /** Arenas registered now, for calls and for connections (each is one memory region of the device). */
    int arenaCount() {
        return (bufferPool == null ? 0 : bufferPool.arenaCount())
                + (connectionPool == null ? 0 : connectionPool.arenaCount());
    }

    /** Whether programs may keep call memory at all ({@link Builder#keptCallMemory} above 0). */
    boolean keeps() {
        return config.keptCallMemoryBytes() > 0;
    }

    /**
     * Charges {@code pages} of a call's buffer to the kept-memory budget ({@link Builder#keptCallMemory}).
     *
     * @return false, and nothing charged, when they do not fit
     */
    boolean chargeKept(int pages) {
        long bound = config.keptCallMemoryBytes() / BufferPoolConfig.PAGE_SIZE;
        while (true) {
            long now = keptPages.get();
            if (now + pages > bound) {
                return false;
            }
            if (keptPages.compareAndSet(now, now + pages)) {
                return true;
            }
        }
    }

    /** Gives back what {@link #chargeKept} charged, once the kept buffer is released. */
    void refundKept(int pages) {
        keptPages.addAndGet(-pages);
    }

    /** Pages of call buffers kept past their replies now (within {@link Builder#keptCallMemory}). */
    public long keptPages() {
        return keptPages.get();
    }

    /** The open connection to the client at {@code remote}, or null. */
    Connection connectionTo(InetSocketAddress remote) {
        for (Connection c : connections) {
            if (remote.equals(c.remoteAddress())) {
                return c;
            }
        }
        return null;
    }

    /** Each open connection's agent state, one line each (diagnostics). */
    String describeConnections() {
        StringBuilder sb = new StringBuilder();
        for (Connection c : connections) {
            sb.append(c.describe()).append('\n');
        }
        return sb.toString();
    }

    /** The device the server runs on (null before start). */
    public RdmaDevice device() {
        return device;
    }

    /** The server's name (threads, MBean). */
    public String name() {
        return config.name();
    }

    @Override
    public String toString() {
        return "RdmaRpcServer[" + config.name() + " " + state + "]";
    }

    // ------------------------------------------------------------------ builder

    /**
     * Settings of a server. Every setting has a default except the programs (a server without programs answers
     * PROG_UNAVAIL to everything).
     */
    public static final class Builder {
        private InetAddress bindAddress;
        private int port = DEFAULT_PORT;
        private String provider = "auto";
        private Map<String, String> providerOptions = Map.of();
        private RdmaDevice device;
        private int credits = 128;
        private int receiveMargin = -1;
        private int inlineSend = 8192;
        private int inlineReceive = 8192;
        private final Map<OncRpcProgram, RpcDispatchable> programs = new LinkedHashMap<>();
        private final List<UpperLayerBinding> bindings = new ArrayList<>();
        private ExecutorService dispatchExecutor;
        private int dispatchThreads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
        private int ioThreads = 2;
        private int agentThreads = 1;
        private boolean inlineAgentWork = true;
        private boolean sameThreadDispatch;
        private int maxConnections = 64;
        private int maxReadChunkBytes = (1 << 20) + (8 << 10);
        private int maxCallSize = (1 << 20) + (64 << 10);
        private int maxReadChunks = 2;
        private int maxReadsInFlight = 16;
        private long registeredMemoryBytes = 256L << 20;
        private long keptCallMemoryBytes;
        private Duration bufferWait = Duration.ofSeconds(10);
        private Duration stopTimeout = Duration.ofSeconds(10);
        private Duration warningInterval = Duration.ofSeconds(10);
        private Duration reverseReplyTimeout = Duration.ofSeconds(60);
        private RegistrationMode registrationMode = RegistrationMode.AUTO;
        private RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT;
        private String name;
        private boolean jmx = true;
        private org.rpcrdma4j.xprt.drc.DuplicateRequestCache duplicateRequestCache;

        private Builder() {
        }

        /** Address to listen on; default: every local address. */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = address;
            return this;
        }

        /** Port to listen on; default {@value #DEFAULT_PORT}; 0 picks a free one ({@link #boundAddress()}). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /** The RDMA provider to open a device from ({@code soft}, {@code disni}, {@code auto}: the default). */
        public Builder provider(String name, Map<String, String> options) {
            this.provider = Objects.requireNonNull(name, "name");
            this.providerOptions = Map.copyOf(options);
            this.device = null;
            return this;
        }

        /** An open device to use instead of a provider; borrowed (the server does not close it). */
        public Builder device(RdmaDevice device) {
            this.device = Objects.requireNonNull(device, "device");
            return this;
        }

        /** Credits granted in every reply (default 128; never 0): the calls a client may have in flight. */
        public Builder credits(int credits) {
            if (credits < 1 || credits > 4096) {
                throw new IllegalArgumentException("credits must be within 1..4096: " + credits);
            }
            this.credits = credits;
            return this;
        }

        /** Receive buffers and call slots beyond the credits (default: credits / 8, at least 4). */
        public Builder receiveMargin(int margin) {
            if (margin < 1) {
                throw new IllegalArgumentException("the receive margin must be at least 1: " + margin);
            }
            this.receiveMargin = margin;
            return this;
        }

        /**
         * The server's inline thresholds (RFC 8797), default 8192 each (a 4 KiB WRITE fits with its headers); the
         * client's private data may lower them (Linux's client offers 4096).
         * Within 1024..262144.
         */
        public Builder inlineSizes(int send, int receive) {
            this.inlineSend = checkInline("send", send);
            this.inlineReceive = checkInline("receive", receive);
            return this;
        }

        private static int checkInline(String what, int size) {
            if (size < RpcRdmaPrivateData.MIN_INLINE || size > RpcRdmaPrivateData.MAX_INLINE) {
                throw new IllegalArgumentException("inline " + what + " size must be within 1024..262144: " + size);
            }
            return size;
        }

        /** Serves {@code program} with {@code dispatchable} (as {@code OncRpcSvcBuilder.withRpcService} does). */
        public Builder program(OncRpcProgram program, RpcDispatchable dispatchable) {
            programs.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(dispatchable));
            return this;
        }

        /** Serves every entry of {@code programs}. */
        public Builder programs(Map<OncRpcProgram, RpcDispatchable> programs) {
            programs.forEach(this::program);
            return this;
        }

        /**
         * The upper-layer binding of a program (by {@link UpperLayerBinding#program()}): which result is
         * DDP-eligible, for the versions it {@linkplain UpperLayerBinding#supportsVersion supports}. One per program,
         * as on the client: a second for the same program is refused (combine versions with a binding that covers
         * them, such as the NFS module's {@code VersionedBinding}).
         *
         * @throws IllegalArgumentException when the program has a binding already
         */
        public Builder binding(UpperLayerBinding binding) {
            Objects.requireNonNull(binding, "binding");
            Bindings.checkOnePerProgram(bindings, binding);
            bindings.add(binding);
            return this;
        }

        /** Whether a binding for {@code program} was given. */
        public boolean hasBinding(int program) {
            return bindings.stream().anyMatch(b -> b.program() == program);
        }

        /**
         * Where calls run (borrowed: not shut down). Default: a pool of {@link #dispatchThreads} threads with a queue
         * bounded by connections x credits, owned by the server.
         */
        public Builder dispatchExecutor(ExecutorService executor) {
            this.dispatchExecutor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Threads of the default dispatch pool (default: twice the processors, at least 4). */
        public Builder dispatchThreads(int threads) {
            this.dispatchThreads = positive("dispatchThreads", threads);
            return this;
        }

        /**
         * Threads that prepare calls' RDMA READs (default 2): each takes a call's sink, which may wait for registered
         * memory ({@link #bufferWait}) and handles. Connection set-up and reverse-direction replies run elsewhere, so
         * they never wait behind such calls.
         */
        public Builder ioThreads(int threads) {
            this.ioThreads = positive("ioThreads", threads);
            return this;
        }

        /** Threads that run the connections' agents (default 1; connections are spread over them). */
        public Builder agentThreads(int threads) {
            this.agentThreads = positive("agentThreads", threads);
            return this;
        }

        /**
         * Whether other threads may do pieces of a connection agent's work themselves when it is idle (default true):
         * the program's thread posts its reply right after marshaling it, and a completion listener (a device
         * thread) polls the completion queues it signals and hands the calls that arrived to the dispatch executor.
         * Each saves a thread wake-up per call. Send completion handlers may then run on those threads too (they
         * must be short and non-blocking in any case). False hands everything to the agent threads.
         */
        public Builder inlineAgentWork(boolean enabled) {
            this.inlineAgentWork = enabled;
            return this;
        }

        /**
         * Whether calls run on the thread that took them off the connection (default false): the connection's agent
         * thread, or the device thread whose completion it polled ({@link #inlineAgentWork}). That spares the hand-off
         * to the dispatch executor and its thread's wake-up for every call, as oncrpc4j's same-thread I/O strategy
         * does over TCP. Only for programs that never block: while a program runs, its connection (and every other
         * connection of that agent thread or device thread) waits, and a program that waits for something only its
         * connection can deliver (a reverse-direction reply, another call) never gets it. Excludes
         * {@link #dispatchExecutor}.
         */
        public Builder sameThreadDispatch(boolean enabled) {
            this.sameThreadDispatch = enabled;
            return this;
        }

        /**
         * Connections served at once (default 64); more are refused. Each holds its fixed buffers in registered memory
         * of its own (see {@link #registeredMemory}).
         */
        public Builder maxConnections(int max) {
            this.maxConnections = positive("maxConnections", max);
            return this;
        }

        /** Largest call, rebuilt from its inline part and read chunks (default 1 MiB + 64 KiB). */
        public Builder maxCallSize(int bytes) {
            this.maxCallSize = positive("maxCallSize", bytes);
            return this;
        }

        /**
         * Most bytes of read chunks in one call (default 1 MiB + 8 KiB); a call with more gets ERR_CHUNK before any
         * RDMA READ.
         */
        public Builder maxReadChunkBytes(int bytes) {
            this.maxReadChunkBytes = positive("maxReadChunkBytes", bytes);
            return this;
        }

        /** Most read chunks in one call (default 2: a position-zero chunk and one data item). */
        public Builder maxReadChunks(int chunks) {
            this.maxReadChunks = positive("maxReadChunks", chunks);
            return this;
        }

        /** Cap on RDMA READs in flight per connection (default 16; the client's IRD may lower it). */
        public Builder maxReadsInFlight(int reads) {
            this.maxReadsInFlight = positive("maxReadsInFlight", reads);
            return this;
        }

        /**
         * Bound of the registered memory for calls (default 256 MiB): their RDMA READ sinks, copies of replies, and
         * the buffers programs take from {@link RdmaRpcServer#bufferAllocator()}. Connections' fixed buffers (receive
         * buffers, call slots, reverse-direction sends) are registered apart from it, one piece per connection, so that
         * idle connections neither use up nor fragment it: {@code (credits + margin + 2) x inline receive +
         * (credits + margin) x 2 x inline send + 2 x inline send} bytes, each part rounded up to pages (3.4 MiB at the
         * defaults for a client that takes the server's 8 KiB inline sizes, half that for Linux's 4 KiB), registered as
         * connections come and kept for later ones, for at most {@link #maxConnections} connections.
         */
        public Builder registeredMemory(long bytes) {
            if (bytes < 1 << 20) {
                throw new IllegalArgumentException("registered memory below 1 MiB: " + bytes);
            }
            this.registeredMemoryBytes = bytes;
            return this;
        }

        /**
         * How much of the registered memory programs may keep past their replies ({@link RdmaBufferAllocator#keep}:
         * e.g. NFS WRITE data a {@code MemoryVfs} keeps as file blocks instead of copying it). Default 0: nothing is
         * kept. Keeping pins a call's whole buffer (its pages are charged once, when the first piece is kept, and
         * given back when the last kept piece is released), so a workload that overwrites parts of earlier writes can
         * leave whole buffers pinned for a few blocks each; at most this many bytes are ever pinned. At most half the
         * registered memory.
         */
        public Builder keptCallMemory(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("negative kept call memory: " + bytes);
            }
            this.keptCallMemoryBytes = bytes;
            return this;
        }

        /**
         * How long taking registered memory for a call's RDMA READ sink, or for a copy of its reply, may wait (default
         * 10 s). When it runs out the connection is dropped ({@link ServerCounter#DROPPED_NO_RESOURCES}), as Linux
         * svcrdma closes it, and the client sends the call again on its next connection; RDMA_ERROR is kept for chunk
         * lists the server cannot honour.
         */
        public Builder bufferWait(Duration wait) {
            this.bufferWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /** How long {@link #stop()} waits for in-flight calls, and then for connections to close (default 10 s). */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Warnings any client can provoke (connections dropped for hostile input, refused connections) are logged at
         * most once per kind per {@code interval} (default 10 s); the next one says how many were held back, the
         * others go to debug. {@link Duration#ZERO} logs every one.
         */
        public Builder warningInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("negative warning interval " + interval);
            }
            this.warningInterval = interval;
            return this;
        }

        /**
         * How long a reverse-direction call (RFC 8167, sent through a served call's {@code getPeerTransport()}) may go
         * unanswered on the wire (default 60 s). A reverse call holds one of the connection's two reverse credits until
         * its reply comes, whatever its caller's own timeout; when one is unanswered this long the client's back
         * channel is taken to be broken and the connection is dropped
         * ({@link ServerCounter#DROPPED_REVERSE_TIMEOUT}): its reverse credits come back, the callers still waiting
         * fail with an {@code EOFException}, and the client reconnects and sends its unanswered forward calls again.
         */
        public Builder reverseReplyTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("reverse reply timeout must be positive: " + timeout);
            }
            this.reverseReplyTimeout = timeout;
            return this;
        }

        /** Registration strategy for RDMA READ sinks (default AUTO: the best the device has). */
        public Builder registrationMode(RegistrationMode mode) {
            this.registrationMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** Limits on chunks and segments accepted in a call header (default {@link RpcRdmaLimits#DEFAULT}). */
        public Builder headerLimits(RpcRdmaLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Name for threads and the MBean (default {@code rpcrdma-<port>}). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Whether to register the counters MBean on start (default true). */
        public Builder jmx(boolean enabled) {
            this.jmx = enabled;
            return this;
        }

        /**
         * Serves every program through {@code cache} (borrowed, and may be shared with other servers): a call of a
         * procedure it caches that a client retransmits after a reconnect gets its original reply instead of running
         * again. Default: none. See {@link org.rpcrdma4j.xprt.drc.DuplicateRequestCache}.
         */
        public Builder duplicateRequestCache(org.rpcrdma4j.xprt.drc.DuplicateRequestCache cache) {
            this.duplicateRequestCache = Objects.requireNonNull(cache, "cache");
            return this;
        }

        private Map<OncRpcProgram, RpcDispatchable> servedPrograms() {
            if (duplicateRequestCache == null) {
                return Map.copyOf(programs);
            }
            Map<OncRpcProgram, RpcDispatchable> wrapped = new LinkedHashMap<>();
            programs.forEach((program, dispatchable) -> wrapped.put(program,
                    duplicateRequestCache.wrap(dispatchable)));
            return Map.copyOf(wrapped);
        }

        private static int positive(String what, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }

        public RdmaRpcServer build() {
            if (keptCallMemoryBytes > registeredMemoryBytes / 2) {
                throw new IllegalArgumentException("kept call memory " + keptCallMemoryBytes
                        + " exceeds half the registered memory " + registeredMemoryBytes);
            }
            if (sameThreadDispatch && dispatchExecutor != null) {
                throw new IllegalArgumentException("sameThreadDispatch runs calls without a dispatch executor; "
                        + "give one or the other");
            }
            if (maxReadChunkBytes > maxCallSize) {
                throw new IllegalArgumentException("maxReadChunkBytes " + maxReadChunkBytes + " exceeds maxCallSize "
                        + maxCallSize);
            }
            InetSocketAddress bind = bindAddress == null ? new InetSocketAddress(port)
                    : new InetSocketAddress(bindAddress, port);
            int margin = receiveMargin > 0 ? receiveMargin : Math.max(4, credits / 8);
            String serverName = name != null ? name : "rpcrdma-" + port;
            ServerConfig config = new ServerConfig(serverName, bind, provider, providerOptions, device, credits,
                    margin, inlineSend, inlineReceive, servedPrograms(), List.copyOf(bindings), dispatchExecutor,
                    dispatchThreads, ioThreads, agentThreads, maxConnections, maxCallSize, maxReadChunkBytes,
                    maxReadChunks, maxReadsInFlight, registeredMemoryBytes, keptCallMemoryBytes, bufferWait, stopTimeout,
                    warningInterval, reverseReplyTimeout, registrationMode, limits, jmx, inlineAgentWork,
                    sameThreadDispatch);
            config.arenaSize(); // fail early for sizes no buffer can hold
            config.connectionArenaSize();
            return new RdmaRpcServer(config);
        }
    }
}

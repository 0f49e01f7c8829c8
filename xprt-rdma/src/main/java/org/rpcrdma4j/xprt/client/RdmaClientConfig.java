package org.rpcrdma4j.xprt.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.internal.Bindings;

/**
 * Settings of one {@link RdmaClientTransport}. Immutable; made with {@link #builder()}. Every setting has a default,
 * listed with its builder method.
 * <p>
 * Borrowed objects ({@link Builder#device}, {@link Builder#runner}, {@link Builder#callbackExecutor},
 * {@link Builder#reverseExecutor}) are used but
 * never closed by the transport; without them the transport opens, owns and closes its own.
 */
public final class RdmaClientConfig {
    private final String provider;
    private final Map<String, String> providerOptions;
    private final RdmaDevice device;
    private final Duration resolveTimeout;
    private final Duration connectTimeout;
    private final int inlineSendSize;
    private final int inlineReceiveSize;
    private final int maxCredits;
    private final int extraReceives;
    private final int responderResources;
    private final RegistrationMode registrationMode;
    private final int maxPayloadSize;
    private final int defaultMaxReplySize;
    private final long bufferPoolBytes;
    private final Duration bufferWait;
    private final Duration defaultCallTimeout;
    private final Duration keepAliveInterval;
    private final Duration keepAliveTimeout;
    private final Duration reconnectDelayMin;
    private final Duration reconnectDelayMax;
    private final List<UpperLayerBinding> bindings;
    private final AgentThread runner;
    private final Executor callbackExecutor;
    private final Map<OncRpcProgram, RpcDispatchable> reversePrograms;
    private final Executor reverseExecutor;
    private final boolean jmx;
    private final boolean inlineAgentWork;
    private final String name;

    private RdmaClientConfig(Builder b) {
        this.provider = b.provider;
        this.providerOptions = Map.copyOf(b.providerOptions);
        this.device = b.device;
        this.resolveTimeout = b.resolveTimeout;
        this.connectTimeout = b.connectTimeout;
        this.inlineSendSize = b.inlineSendSize;
        this.inlineReceiveSize = b.inlineReceiveSize;
        this.maxCredits = b.maxCredits;
        this.extraReceives = b.extraReceives;
        this.responderResources = b.responderResources;
        this.registrationMode = b.registrationMode;
        this.maxPayloadSize = b.maxPayloadSize;
        this.defaultMaxReplySize = b.defaultMaxReplySize;
        this.bufferPoolBytes = b.bufferPoolBytes;
        this.bufferWait = b.bufferWait;
        this.defaultCallTimeout = b.defaultCallTimeout;
        this.keepAliveInterval = b.keepAliveInterval;
        this.keepAliveTimeout = b.keepAliveTimeout;
        this.reconnectDelayMin = b.reconnectDelayMin;
        this.reconnectDelayMax = b.reconnectDelayMax;
        this.bindings = List.copyOf(b.bindings);
        this.runner = b.runner;
        this.callbackExecutor = b.callbackExecutor;
        this.reversePrograms = Map.copyOf(b.reversePrograms);
        this.reverseExecutor = b.reverseExecutor;
        this.jmx = b.jmx;
        this.inlineAgentWork = b.inlineAgentWork;
        this.name = b.name;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.provider = provider;
        b.providerOptions = providerOptions;
        b.device = device;
        b.resolveTimeout = resolveTimeout;
        b.connectTimeout = connectTimeout;
        b.inlineSendSize = inlineSendSize;
        b.inlineReceiveSize = inlineReceiveSize;
        b.maxCredits = maxCredits;
        b.extraReceives = extraReceives;
        b.responderResources = responderResources;
        b.registrationMode = registrationMode;
        b.maxPayloadSize = maxPayloadSize;
        b.defaultMaxReplySize = defaultMaxReplySize;
        b.bufferPoolBytes = bufferPoolBytes;
        b.bufferWait = bufferWait;
        b.defaultCallTimeout = defaultCallTimeout;
        b.keepAliveInterval = keepAliveInterval;
        b.keepAliveTimeout = keepAliveTimeout;
        b.reconnectDelayMin = reconnectDelayMin;
        b.reconnectDelayMax = reconnectDelayMax;
        b.bindings = new ArrayList<>(bindings);
        b.runner = runner;
        b.callbackExecutor = callbackExecutor;
        b.reversePrograms = new LinkedHashMap<>(reversePrograms);
        b.reverseExecutor = reverseExecutor;
        b.jmx = jmx;
        b.inlineAgentWork = inlineAgentWork;
        b.name = name;
        return b;
    }

    public String provider() {
        return provider;
    }

    public Map<String, String> providerOptions() {
        return providerOptions;
    }

    /** The borrowed device, or null when the transport opens its own from {@link #provider()}. */
    public RdmaDevice device() {
        return device;
    }

    public Duration resolveTimeout() {
        return resolveTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public int inlineSendSize() {
        return inlineSendSize;
    }

    public int inlineReceiveSize() {
        return inlineReceiveSize;
    }

    public int maxCredits() {
        return maxCredits;
    }

    public int extraReceives() {
        return extraReceives;
    }

    public int responderResources() {
        return responderResources;
    }

    public RegistrationMode registrationMode() {
        return registrationMode;
    }

    public int maxPayloadSize() {
        return maxPayloadSize;
    }

    public int defaultMaxReplySize() {
        return defaultMaxReplySize;
    }

    public long bufferPoolBytes() {
        return bufferPoolBytes;
    }

    public Duration bufferWait() {
        return bufferWait;
    }

    public Duration defaultCallTimeout() {
        return defaultCallTimeout;
    }

    public Duration keepAliveInterval() {
        return keepAliveInterval;
    }

    public Duration keepAliveTimeout() {
        return keepAliveTimeout;
    }

    public Duration reconnectDelayMin() {
        return reconnectDelayMin;
    }

    public Duration reconnectDelayMax() {
        return reconnectDelayMax;
    }

    public List<UpperLayerBinding> bindings() {
        return bindings;
    }

    /** The borrowed agent runner, or null when the transport runs its own thread. */
    public AgentThread runner() {
        return runner;
    }

    /** The borrowed executor for oncrpc4j reply handlers, or null for the transport's own thread. */
    public Executor callbackExecutor() {
        return callbackExecutor;
    }

    /** The programs served to the server's reverse-direction calls (RFC 8167); empty: every such call is refused. */
    public Map<OncRpcProgram, RpcDispatchable> reversePrograms() {
        return reversePrograms;
    }

    /** The borrowed executor reverse-direction calls run on, or null for the transport's own threads. */
    public Executor reverseExecutor() {
        return reverseExecutor;
    }

    public boolean jmx() {
        return jmx;
    }

    /**
     * Whether other threads may do pieces of the connection agent's work themselves when it is idle (default true):
     * a caller posts its own Send, a completion listener polls the completion queues it signals and completes the
     * calls answered (so an {@link RdmaCallListener} may run on a device thread or a submitting thread, not only on
     * the agent's). Each such piece saves a thread wake-up per call; false hands everything to the agent thread.
     */
    public boolean inlineAgentWork() {
        return inlineAgentWork;
    }

    /** A name for threads, logs and the MBean; null: derived from the server address. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "RdmaClientConfig[" + (device != null ? "device " + device.name() : "provider " + provider)
                + ", inline " + inlineSendSize + "/" + inlineReceiveSize + ", credits " + maxCredits
                + ", registration " + registrationMode + ", max payload " + maxPayloadSize + ", default max reply "
                + defaultMaxReplySize + ", keep-alive " + keepAliveInterval + "/" + keepAliveTimeout
                + ", reconnect " + reconnectDelayMin + ".." + reconnectDelayMax + ", bindings " + bindings.size()
                + "]";
    }

    /** Builds a {@link RdmaClientConfig}; every method checks its argument at once. */
    public static final class Builder {
        private String provider = "auto";
        private Map<String, String> providerOptions = Map.of();
        private RdmaDevice device;
        private Duration resolveTimeout = ConnectParameters.DEFAULT_RESOLVE_TIMEOUT;
        private Duration connectTimeout = ConnectParameters.DEFAULT_CONNECT_TIMEOUT;
        /** Room for a 4 KiB WRITE with its headers; a peer that offers less (Linux: 4096) gets what it offers. */
        private int inlineSendSize = 8192;
        private int inlineReceiveSize = 8192;
        private int maxCredits = 128;
        private int extraReceives = 8;
        private int responderResources;
        private RegistrationMode registrationMode = RegistrationMode.AUTO;
        private int maxPayloadSize = 1 << 20;
        private int defaultMaxReplySize = 64 << 10;
        private long bufferPoolBytes = 64L << 20;
        private Duration bufferWait = Duration.ofSeconds(30);
        private Duration defaultCallTimeout = Duration.ofSeconds(60);
        private Duration keepAliveInterval = Duration.ofSeconds(30);
        private Duration keepAliveTimeout = Duration.ofSeconds(30);
        private Duration reconnectDelayMin = Duration.ofSeconds(5);
        private Duration reconnectDelayMax = Duration.ofSeconds(60);
        private List<UpperLayerBinding> bindings = new ArrayList<>();
        private AgentThread runner;
        private Executor callbackExecutor;
        private Map<OncRpcProgram, RpcDispatchable> reversePrograms = new LinkedHashMap<>();
        private Executor reverseExecutor;
        private boolean jmx = true;
        private boolean inlineAgentWork = true;
        private String name;

        private Builder() {
        }

        /** The RDMA provider to open a device from (default {@code auto}: hardware if present, else {@code soft}). */
        public Builder provider(String name, Map<String, String> options) {
            this.provider = Objects.requireNonNull(name, "provider");
            this.providerOptions = Map.copyOf(options);
            this.device = null;
            return this;
        }

        /** A device to use instead of opening one (borrowed: the transport never closes it). */
        public Builder device(RdmaDevice borrowed) {
            this.device = Objects.requireNonNull(borrowed, "device");
            return this;
        }

        /**
         * Bounds on connecting (defaults 5 s and 10 s): {@code connect} bounds the whole connection set-up, from the
         * first attempt to reach the server to the end of the handshake, and {@code resolve} the part until the
         * server's listener is reached (at most {@code connect}). {@link RdmaClientTransport#connect} fails within
         * {@code connect}, and so does every reconnect attempt.
         */
        public Builder timeouts(Duration resolve, Duration connect) {
            this.resolveTimeout = positive(resolve, "resolve timeout");
            this.connectTimeout = positive(connect, "connect timeout");
            return this;
        }

        /**
         * Inline thresholds offered in the RFC 8797 private data (default 8192 each, so that a 4 KiB WRITE and a 4 KiB
         * READ's reply fit with their headers and need no chunk); each is capped by the server's (Linux offers 4096).
         * Sizes are rounded down to a whole KiB within 1 KiB..256 KiB, as the private data carries them.
         */
        public Builder inlineSizes(int send, int receive) {
            this.inlineSendSize = wireSize(send, "inline send size");
            this.inlineReceiveSize = wireSize(receive, "inline receive size");
            return this;
        }

        /** Credits requested in every call, and the number of request slots (default 128). */
        public Builder maxCredits(int credits) {
            if (credits < 1 || credits > 4096) {
                throw new IllegalArgumentException("max credits must be within 1..4096: " + credits);
            }
            this.maxCredits = credits;
            return this;
        }

        /** Receives posted beyond the credits, for replies racing with a new grant and reverse calls (default 8). */
        public Builder extraReceives(int extra) {
            if (extra < 1 || extra > 1024) {
                throw new IllegalArgumentException("extra receives must be within 1..1024: " + extra);
            }
            this.extraReceives = extra;
            return this;
        }

        /** IRD offered to the server (its RDMA READs in flight); 0 = the device's maximum (default). */
        public Builder responderResources(int ird) {
            if (ird < 0) {
                throw new IllegalArgumentException("responder resources must not be negative: " + ird);
            }
            this.responderResources = ird;
            return this;
        }

        /** Registration strategy (default AUTO: the best the device has). */
        public Builder registrationMode(RegistrationMode mode) {
            this.registrationMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** The largest bulk payload or result of one call, for registration sizing (default 1 MiB). */
        public Builder maxPayloadSize(int bytes) {
            if (bytes < 4096 || bytes > (64 << 20)) {
                throw new IllegalArgumentException("max payload size must be within 4 KiB..64 MiB: " + bytes);
            }
            this.maxPayloadSize = bytes;
            return this;
        }

        /**
         * The reply size assumed for a program without an {@link UpperLayerBinding}: when it does not fit the inline
         * receive threshold, such calls carry a Reply chunk of this size (default 64 KiB).
         */
        public Builder defaultMaxReplySize(int bytes) {
            if (bytes < 24 || bytes > (64 << 20)) {
                throw new IllegalArgumentException("default max reply size must be within 24..64 MiB: " + bytes);
            }
            this.defaultMaxReplySize = bytes;
            return this;
        }

        /**
         * Registered memory for bulk buffers, including those callers allocate from
         * {@link RdmaClientTransport#bufferPool()} (default 64 MiB), and how long an allocation waits for room
         * (default 30 s).
         */
        public Builder bufferPool(long bytes, Duration wait) {
            if (bytes < (4 << 20)) {
                throw new IllegalArgumentException("buffer pool must hold at least 4 MiB: " + bytes);
            }
            this.bufferPoolBytes = bytes;
            this.bufferWait = positive(wait, "buffer wait");
            return this;
        }

        /** Timeout of DDP calls that set none ({@link RdmaCall#timeout}); {@link Duration#ZERO}: none (default 60 s). */
        public Builder defaultCallTimeout(Duration timeout) {
            this.defaultCallTimeout = notNegative(timeout, "default call timeout");
            return this;
        }

        /**
         * Keep-alive: when calls are outstanding and nothing was received for {@code interval}, a NULL call is sent on
         * a reserved credit; when it is not answered within {@code timeout} the connection is dropped (and the calls
         * are sent again after reconnecting). While every credit the server granted is in use (a grant of 1) no probe
         * can go out: it waits, and a server is never dropped for being slow; the calls' own timeouts apply.
         * {@link Duration#ZERO} interval: off. Defaults 30 s and 30 s.
         */
        public Builder keepAlive(Duration interval, Duration timeout) {
            this.keepAliveInterval = notNegative(interval, "keep-alive interval");
            this.keepAliveTimeout = positive(timeout, "keep-alive timeout");
            return this;
        }

        /**
         * Delay before reconnecting after a failed attempt: starts at {@code min}, doubles up to {@code max}
         * (defaults 5 s and 60 s). The first attempt after losing an established connection is immediate.
         */
        public Builder reconnectDelay(Duration min, Duration max) {
            this.reconnectDelayMin = positive(min, "reconnect delay");
            this.reconnectDelayMax = positive(max, "reconnect delay max");
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("reconnect delay max " + max + " below min " + min);
            }
            return this;
        }

        /**
         * Adds an upper-layer binding (one per program); calls of its program get DDP through it when it
         * {@linkplain UpperLayerBinding#supportsVersion supports} their version.
         *
         * @throws IllegalArgumentException when a binding for the same program is set
         */
        public Builder binding(UpperLayerBinding binding) {
            Objects.requireNonNull(binding, "binding");
            Bindings.checkOnePerProgram(bindings, binding);
            bindings.add(binding);
            return this;
        }

        /** Forgets the bindings added so far. */
        public Builder bindingsCleared() {
            bindings.clear();
            return this;
        }

        /** Runs the connection's agent on a shared runner (borrowed) instead of a thread of its own. */
        public Builder runner(AgentThread borrowed) {
            this.runner = Objects.requireNonNull(borrowed, "runner");
            return this;
        }

        /** Where oncrpc4j reply handlers run (borrowed); default: one thread of the transport. */
        public Builder callbackExecutor(Executor borrowed) {
            this.callbackExecutor = Objects.requireNonNull(borrowed, "executor");
            return this;
        }

        /**
         * Serves {@code program} to the server's reverse-direction calls on this transport's connection (RFC 8167
         * bidirectional RPC, e.g. NFSv4.1 callbacks): calls the server sends through a served call's
         * {@code getPeerTransport()} are dispatched to it, off the connection's thread, and answered on the same
         * connection. Without any, the transport answers every reverse-direction call PROG_UNAVAIL.
         *
         * @throws IllegalArgumentException when the program and version are served already
         */
        public Builder reverseProgram(OncRpcProgram program, RpcDispatchable dispatchable) {
            Objects.requireNonNull(program, "program");
            Objects.requireNonNull(dispatchable, "dispatchable");
            if (reversePrograms.putIfAbsent(program, dispatchable) != null) {
                throw new IllegalArgumentException("reverse-direction program " + program + " is served already");
            }
            return this;
        }

        /**
         * Where reverse-direction calls run (borrowed); default: threads of the transport, one per reverse credit.
         * Never the thread that delivers replies to this side's own calls, so a slow callback does not hold them up.
         */
        public Builder reverseExecutor(Executor borrowed) {
            this.reverseExecutor = Objects.requireNonNull(borrowed, "executor");
            return this;
        }

        /** See {@link RdmaClientConfig#inlineAgentWork()} (default true). */
        public Builder inlineAgentWork(boolean enabled) {
            this.inlineAgentWork = enabled;
            return this;
        }

        /** Whether to register an MBean while the transport is open (default true). */
        public Builder jmx(boolean enabled) {
            this.jmx = enabled;
            return this;
        }

        /** A name for threads, logs and the MBean (default: derived from the server address). */
        public Builder name(String transportName) {
            this.name = Objects.requireNonNull(transportName, "name");
            return this;
        }

        public RdmaClientConfig build() {
            return new RdmaClientConfig(this);
        }

        private static int wireSize(int bytes, String what) {
            if (bytes < RpcRdmaPrivateData.MIN_INLINE || bytes > RpcRdmaPrivateData.MAX_INLINE) {
                throw new IllegalArgumentException(what + " must be within " + RpcRdmaPrivateData.MIN_INLINE + ".."
                        + RpcRdmaPrivateData.MAX_INLINE + ": " + bytes);
            }
            return RpcRdmaPrivateData.decodeSize(RpcRdmaPrivateData.encodeSize(bytes));
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }

        private static Duration notNegative(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative: " + d);
            }
            return d;
        }
    }
}

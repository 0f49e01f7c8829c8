package org.rpcrdma4j.nfs.client;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;

/** Client settings; immutable. Start from {@link #defaults()} and change with the {@code with*} methods. */
public final class NfsClientConfig {
    /** {@link #withReplySpin}'s default: about one small call's round trip over RDMA on loopback. */
    public static final Duration DEFAULT_REPLY_SPIN = Duration.ofNanos(30_000);

    private Duration callTimeout = Duration.ofSeconds(60);
    private Duration connectTimeout = Duration.ofSeconds(10);
    private int retransmits = 3;
    private int uid;
    private int gid;
    private int[] gids = new int[0];
    private String machineName = "rpcrdma4j";
    private int window = 16;
    private int chunkSize = 1 << 20;
    private int readdirBytes = 64 << 10;
    private int workerThreads = 2;
    private int portmapperPort = Portmapper.PORT;
    private Map<String, DataTransportFactory> factories = new HashMap<>();
    private Map<OncRpcProgram, RpcDispatchable> reversePrograms = new LinkedHashMap<>();
    private Executor stageExecutor;
    private Duration replySpin = DEFAULT_REPLY_SPIN;

    private NfsClientConfig() {
    }

    public static NfsClientConfig defaults() {
        return new NfsClientConfig();
    }

    private NfsClientConfig copy() {
        NfsClientConfig c = new NfsClientConfig();
        c.callTimeout = callTimeout;
        c.connectTimeout = connectTimeout;
        c.retransmits = retransmits;
        c.uid = uid;
        c.gid = gid;
        c.gids = gids.clone();
        c.machineName = machineName;
        c.window = window;
        c.chunkSize = chunkSize;
        c.readdirBytes = readdirBytes;
        c.workerThreads = workerThreads;
        c.portmapperPort = portmapperPort;
        c.factories = new HashMap<>(factories);
        c.reversePrograms = new LinkedHashMap<>(reversePrograms);
        c.stageExecutor = stageExecutor;
        c.replySpin = replySpin;
        return c;
    }

    /** How long a call waits for its reply (default 60 s). */
    public NfsClientConfig withCallTimeout(Duration timeout) {
        NfsClientConfig c = copy();
        c.callTimeout = timeout;
        return c;
    }

    public NfsClientConfig withConnectTimeout(Duration timeout) {
        NfsClientConfig c = copy();
        c.connectTimeout = timeout;
        return c;
    }

    /**
     * How many times a call is sent again on a new connection after its connection failed (default 3). NFS over
     * TCP retransmits only after a reconnect; non-idempotent procedures may then report EXIST or NOENT for work
     * the first attempt did.
     */
    public NfsClientConfig withRetransmits(int n) {
        NfsClientConfig c = copy();
        c.retransmits = n;
        return c;
    }

    /** The AUTH_SYS identity calls carry (default uid 0, gid 0). */
    public NfsClientConfig withIdentity(int newUid, int newGid, int... newGids) {
        NfsClientConfig c = copy();
        c.uid = newUid;
        c.gid = newGid;
        c.gids = newGids.clone();
        return c;
    }

    /** READs or WRITEs in flight per file transfer (default 16). */
    public NfsClientConfig withWindow(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
        NfsClientConfig c = copy();
        c.window = n;
        return c;
    }

    /** Bytes per READ or WRITE of a file transfer (default 1 MiB; the server's rtmax/wtmax cap it). */
    public NfsClientConfig withChunkSize(int bytes) {
        if (bytes < 512) {
            throw new IllegalArgumentException("chunk size must be at least 512 bytes");
        }
        NfsClientConfig c = copy();
        c.chunkSize = bytes;
        return c;
    }

    /** READDIR/READDIRPLUS reply size asked for (default 64 KiB). */
    public NfsClientConfig withReaddirBytes(int bytes) {
        NfsClientConfig c = copy();
        c.readdirBytes = bytes;
        return c;
    }

    public NfsClientConfig withWorkerThreads(int n) {
        NfsClientConfig c = copy();
        c.workerThreads = n;
        return c;
    }

    /** Uses {@code factory} for its scheme, ahead of any found by {@link java.util.ServiceLoader}. */
    public NfsClientConfig withTransportFactory(DataTransportFactory factory) {
        NfsClientConfig c = copy();
        c.factories.put(factory.scheme(), factory);
        return c;
    }

    /**
     * Serves {@code program} on the reverse direction of the connections made with this configuration, where the
     * transport has one (RPC-over-RDMA, RFC 8167): calls the server sends back, such as NFSv4.1's callbacks, which
     * the NFSv4.1 client adds itself. A stream transport ignores it.
     */
    public NfsClientConfig withReverseProgram(int program, int version, RpcDispatchable service) {
        NfsClientConfig c = copy();
        c.reversePrograms.put(new OncRpcProgram(program, version), Objects.requireNonNull(service, "service"));
        return c;
    }

    /**
     * Where the dependent stages of an {@code rdma://} mount's futures run ({@code thenApply}, {@code whenComplete},
     * ... registered before the reply came; borrowed, never shut down by the client). By default, and with null, on
     * a thread of the transport's own, so that a stage may block or call the client again without holding up the
     * connection. {@code Runnable::run} runs them on the thread that took the reply off the connection: one thread
     * hand-off less per call, for stages that never block (a blocked stage stops every call on the connection, and a
     * new call made from a stage waits when the connection has no free slot, which is blocking too). A
     * thread waiting in {@code get()} or {@code join()} is woken directly either way. Over {@code tcp://} stages run
     * on oncrpc4j's worker threads as before.
     */
    public NfsClientConfig withStageExecutor(Executor executor) {
        NfsClientConfig c = copy();
        c.stageExecutor = executor;
        return c;
    }

    /**
     * How long a thread that waits for an {@code rdma://} call's reply ({@code get()} or {@code join()} on a future
     * the NFSv3 or NFSv4.1 client returned, as their blocking methods do) polls for it before it parks (default
     * {@link #DEFAULT_REPLY_SPIN}; zero parks at once). A small call's reply over RDMA often comes within it, sooner
     * than a parked thread would be woken for it; a longer wait costs up to this much CPU per call. The thread yields
     * now and then while it polls, so many waiters on few cores do not hold up the thread that takes the replies; and
     * when replies keep coming later than this, waiters park at once until a probe finds them quick again
     * ({@link ReplySpin}).
     */
    public NfsClientConfig withReplySpin(Duration spin) {
        if (spin.isNegative()) {
            throw new IllegalArgumentException("reply spin must not be negative: " + spin);
        }
        NfsClientConfig c = copy();
        c.replySpin = spin;
        return c;
    }

    /** {@link #withReplySpin}. */
    public Duration replySpin() {
        return replySpin;
    }

    /** The executor for dependent stages ({@link #withStageExecutor}), or null for the transport's own thread. */
    public Executor stageExecutor() {
        return stageExecutor;
    }

    /** The programs served on the reverse direction ({@link #withReverseProgram}). */
    public Map<OncRpcProgram, RpcDispatchable> reversePrograms() {
        return Collections.unmodifiableMap(reversePrograms);
    }

    /**
     * Where NFSv3 mounts ask the server's portmapper for MOUNT's port (and NFS's, for a {@code tcp://} URL without a
     * port) when the URL does not name it: the server's port 111 by default; 0 asks no portmapper.
     */
    public NfsClientConfig withPortmapperPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("portmapper port out of range: " + port);
        }
        NfsClientConfig c = copy();
        c.portmapperPort = port;
        return c;
    }

    public int portmapperPort() {
        return portmapperPort;
    }

    public Duration callTimeout() {
        return callTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public int retransmits() {
        return retransmits;
    }

    public int window() {
        return window;
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int readdirBytes() {
        return readdirBytes;
    }

    public int workerThreads() {
        return workerThreads;
    }

    /** A factory configured for {@code scheme}, or null. */
    public DataTransportFactory factory(String scheme) {
        return factories.get(scheme);
    }

    /** The credential for calls (a fresh AUTH_SYS credential with this identity). */
    public RpcAuth credential() {
        return new RpcAuthTypeUnix(uid, gid, gids, (int) (System.currentTimeMillis() / 1000), machineName);
    }
}

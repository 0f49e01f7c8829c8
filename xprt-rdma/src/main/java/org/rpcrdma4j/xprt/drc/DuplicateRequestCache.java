package org.rpcrdma4j.xprt.drc;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.internal.ReplyDrop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A duplicate request cache (a "reply cache", as Linux knfsd's): a call of a non-idempotent procedure that was
 * executed already is answered with its original reply when it arrives again, typically retransmitted by a client
 * that lost its connection before the reply arrived, instead of being executed a second time (a second REMOVE would
 * answer NOENT for a file the first one removed).
 * <p>
 * It sits in front of unmodified oncrpc4j programs and works with every server that dispatches oncrpc4j
 * {@link RpcCall}s: oncrpc4j's {@code OncRpcSvc} (TCP, UDP) and the RDMA server alike.
 * <pre>{@code
 * DuplicateRequestCache drc = DuplicateRequestCache.create(CachedProcedures.nfsV3(), DrcConfig.DEFAULT);
 * new OncRpcSvcBuilder().withRpcService(new OncRpcProgram(100003, 3), drc.wrap(nfs))...;
 * RdmaRpcServer.builder().program(new OncRpcProgram(100003, 3), nfs).duplicateRequestCache(drc)...;
 * }</pre>
 * One cache may front several programs and several servers (keys carry the program and never the connection).
 *
 * <h2>What happens to a call</h2>
 * <ul>
 *   <li>A procedure {@link CachedProcedures} does not name goes straight to the program ({@link DrcCounter#NOT_CACHED}).</li>
 *   <li>Otherwise its key is read in place from the call's stream: the client's IP address (never the port, RFC
 *       8267 section 6), the credential's flavor and body bytes, xid, program, version, procedure, the argument
 *       length and the CRC32C of the first {@link DrcConfig#checksumBytes()} argument bytes.</li>
 *   <li><b>Miss</b>: the program gets an {@code RpcCall} over the same stream bound to a capturing transport; when it
 *       replies, the encoded reply is copied into the cache and the same stream is sent through the call's own
 *       transport. An exception from the program is answered as oncrpc4j's dispatcher would (GARBAGE_ARGS,
 *       SYSTEM_ERR, or the rejection) and that answer is cached like any other.</li>
 *   <li><b>Hit</b>: the cached reply bytes are sent through the new call's transport. Over RDMA that transport
 *       marshals them like any reply: a DDP-eligible result goes into the <em>new</em> call's write chunk by RDMA
 *       WRITE, a long reply into its reply chunk.</li>
 *   <li><b>In progress</b>: a retransmission of a call still executing is parked, not executed: its transport gets
 *       the first call's reply when the program sends it (without a thread waiting). Up to
 *       {@link DrcConfig#maxWaiters()} per call are parked; more are dropped, unanswered
 *       ({@link DrcCounter#IN_PROGRESS_DROPS}); the client retransmits later and hits.</li>
 * </ul>
 *
 * <h2>Bounds</h2>
 * {@link DrcConfig#maxEntries()} and {@link DrcConfig#maxBytes()} hold at all times; the oldest cached reply is
 * evicted first. A call still executing is never evicted for room (when nothing else is left the new call runs
 * uncached, {@link DrcCounter#NO_ROOM}); replies expire after {@link DrcConfig#maxAge()}, and a call that executes
 * longer than that loses its entry ({@link DrcCounter#ABANDONED}).
 *
 * <h2>Not cached</h2>
 * Replies above {@link DrcConfig#maxReplyBytes()}, calls of {@code RpcCall} subclasses (oncrpc4j's RPCSEC_GSS calls
 * wrap every reply with the call's own sequence number, so a replay would be wrong), and calls whose stream does not
 * start with their header ({@link DrcCounter#UNCACHEABLE}): all executed normally.
 *
 * <h2>Cost</h2>
 * Idempotent calls: one policy lookup, nothing allocated. Cached procedures: the key's credential copy and the entry,
 * the capturing transport and an {@code RpcCall} (oncrpc4j allocates a few objects per {@code RpcCall}), and the
 * reply copy (about 330 bytes per call beyond the program's own for a 32-byte reply and an AUTH_SYS credential);
 * the lookup itself (hash, bucket walk, comparisons) allocates nothing. Hits: the key, a copy of the reply and its
 * {@code Xdr} (about 300 bytes). One lock guards the table; it is held for the lookup and the insertion only, never
 * while a program runs or a reply is sent.
 */
public final class DuplicateRequestCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DuplicateRequestCache.class);

    private final CachedProcedures procedures;
    private final DrcConfig config;
    private final EnumCounters<DrcCounter> counters = new EnumCounters<>(DrcCounter.class);
    private final ReplyTable table;
    private final LongSupplier clock;
    private final ThreadLocal<CallBytes.Scratch> scratch;
    private final CompletionHandler<Integer, InetSocketAddress> replayHandler;
    private volatile ObjectName mbeanName;

    private DuplicateRequestCache(CachedProcedures procedures, DrcConfig config) {
        this.procedures = Objects.requireNonNull(procedures, "procedures");
        this.config = Objects.requireNonNull(config, "config");
        this.table = new ReplyTable(config, counters);
        this.clock = config.nanoClock();
        int checksumBytes = config.checksumBytes();
        this.scratch = ThreadLocal.withInitial(() -> new CallBytes.Scratch(checksumBytes));
        this.replayHandler = new CompletionHandler<>() {
            @Override
            public void completed(Integer written, InetSocketAddress peer) {
            }

            @Override
            public void failed(Throwable t, InetSocketAddress peer) {
                counters.increment(DrcCounter.REPLAY_FAILURES);
                LOG.debug("cached reply to {} not sent: {}", peer, t.toString());
            }
        };
    }

    /**
     * A cache for the calls {@code procedures} names, bounded by {@code config}; registers its MBean when
     * {@link DrcConfig#jmxName()} is set (unregistered by {@link #close()}).
     */
    public static DuplicateRequestCache create(CachedProcedures procedures, DrcConfig config) {
        DuplicateRequestCache cache = new DuplicateRequestCache(procedures, config);
        if (config.jmxName() != null) {
            cache.registerMBean(config.jmxName());
        }
        return cache;
    }

    /** {@code program} behind a new cache of its own: {@code create(procedures, config).wrap(program)}. */
    public static CachingDispatchable wrap(RpcDispatchable program, CachedProcedures procedures, DrcConfig config) {
        return create(procedures, config).wrap(program);
    }

    /**
     * {@code program} behind this cache. A program this cache fronts already is returned as it is (so a server can
     * wrap what it was given without caching twice). Do not put this cache in front of a program twice with another
     * wrapper in between: the inner front would find the outer one's entry executing and park the call for good.
     */
    public CachingDispatchable wrap(RpcDispatchable program) {
        if (program instanceof CachingDispatchable c && c.cache() == this) {
            return c;
        }
        return new CachingDispatchable(this, program);
    }

    public CachedProcedures procedures() {
        return procedures;
    }

    public DrcConfig config() {
        return config;
    }

    /** Every counter, as a copy (allocates). */
    public Map<DrcCounter, Long> counters() {
        return counters.snapshot();
    }

    /** One counter's value now. */
    public long counter(DrcCounter counter) {
        return counters.get(counter);
    }

    /** Entries held now, executing and completed. */
    public int entries() {
        return table.entries();
    }

    /** Bytes of replies and credentials held now. */
    public long bytes() {
        return table.bytes();
    }

    /** Calls executing now with an entry (diagnostics; walks a list). */
    public int executing() {
        return table.executing();
    }

    /** Forgets every entry; calls executing now still answer the retransmissions parked for them. */
    public void clear() {
        table.clear();
    }

    /** Unregisters the MBean, if any. The cache keeps working. */
    @Override
    public void close() {
        ObjectName name = mbeanName;
        mbeanName = null;
        if (name == null) {
            return;
        }
        try {
            MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
            if (platform.isRegistered(name)) {
                platform.unregisterMBean(name);
            }
        } catch (JMException e) {
            LOG.warn("duplicate request cache MBean {} not unregistered: {}", name, e.toString());
        }
    }

    // ------------------------------------------------------------------ dispatch

    /** A call for {@code program}: executed, answered from the cache, parked or dropped. */
    void dispatch(RpcDispatchable program, RpcCall call) throws OncRpcException, IOException {
        if (!procedures.contains(call.getProgram(), call.getProgramVersion(), call.getProcedure())) {
            counters.increment(DrcCounter.NOT_CACHED);
            program.dispatchOncRpcCall(call);
            return;
        }
        CacheEntry candidate = call.getClass() == RpcCall.class ? CallBytes.key(call, scratch.get()) : null;
        if (candidate == null) {
            counters.increment(DrcCounter.UNCACHEABLE);
            program.dispatchOncRpcCall(call);
            return;
        }
        RpcTransport transport = call.getTransport();
        switch (table.begin(candidate, transport, clock.getAsLong())) {
            case ReplyTable.MISS -> {
                counters.increment(DrcCounter.MISSES);
                execute(program, call, candidate, transport);
            }
            case ReplyTable.HIT -> {
                counters.increment(DrcCounter.HITS);
                LOG.debug("replaying the reply to {}", candidate);
                replay(transport, candidate.reply);
            }
            case ReplyTable.WAIT -> {
                counters.increment(DrcCounter.IN_PROGRESS_WAITS);
                LOG.debug("{} is executing: its retransmission waits for the reply", candidate);
            }
            case ReplyTable.DROP -> {
                counters.increment(DrcCounter.IN_PROGRESS_DROPS);
                LOG.debug("{} is executing and has {} retransmissions waiting: dropped", candidate,
                        config.maxWaiters());
                if (transport instanceof ReplyDrop drop) {
                    drop.dropCall(); // over RDMA the retransmission holds a slot and a credit until told
                }
            }
            case ReplyTable.NO_ROOM -> {
                counters.increment(DrcCounter.NO_ROOM);
                program.dispatchOncRpcCall(call);
            }
            default -> throw new IllegalStateException("lookup outcome");
        }
    }

    /** Runs a new call through a capturing transport; failures are answered as oncrpc4j's dispatcher does. */
    private void execute(RpcDispatchable program, RpcCall call, CacheEntry entry, RpcTransport transport) {
        RpcCall captured = new RpcCall(call.getXid(), call.getProgram(), call.getProgramVersion(),
                call.getProcedure(), call.getCredential(), call.getXdr(), new ReplyCapture(this, entry, transport));
        try {
            program.dispatchOncRpcCall(captured);
        } catch (RpcException e) {
            LOG.debug("call rejected: {}", e.getMessage());
            captured.reject(e.getStatus(), e.getRpcReply());
        } catch (OncRpcException e) {
            LOG.debug("garbage arguments: {}", e.getMessage());
            captured.failRpcGarbage();
        } catch (IOException e) {
            LOG.debug("garbage arguments: {}", e.getMessage());
            captured.failRpcGarbage();
        } catch (RuntimeException | Error e) {
            // an Error too (a failed assertion, a stack overflow): unanswered, the entry would stay executing and
            // park every retransmission of the call, holding its slot and credit, until the entry's maximum age
            LOG.error("{} failed on {}", program, entry, e);
            captured.failRpcSystem();
        }
    }

    /**
     * A cached call's reply is being sent ({@code reply}: a copy, owned from here): keeps it, answers the parked
     * retransmissions, and forwards the original stream to the call's transport.
     *
     * @return false when the call had been answered already (nothing was sent)
     */
    <A> boolean answered(CacheEntry entry, byte[] reply, RpcTransport transport, Xdr xdr, A attachment,
                         CompletionHandler<Integer, ? super A> handler) {
        boolean answers = CallBytes.answers(reply, entry.xid);
        if (!answers) {
            LOG.warn("the reply to {} does not carry its xid: not cached", entry);
        }
        int parked = table.complete(entry, answers ? reply : null, clock.getAsLong());
        if (parked < 0) {
            return false;
        }
        if (parked > 0) {
            RpcTransport[] waiters = table.takeWaiters(entry);
            for (int i = 0; i < parked; i++) {
                if (answers) {
                    replay(waiters[i], reply);
                } else {
                    counters.increment(DrcCounter.REPLAY_FAILURES);
                }
            }
        }
        transport.send(xdr, attachment, handler);
        return true;
    }

    /** Sends a copy of a cached reply through {@code transport}. */
    private void replay(RpcTransport transport, byte[] reply) {
        try {
            transport.send(new Xdr(Arrays.copyOf(reply, reply.length)), transport.getRemoteSocketAddress(),
                    replayHandler);
        } catch (RuntimeException e) {
            counters.increment(DrcCounter.REPLAY_FAILURES);
            LOG.debug("cached reply not sent through {}: {}", transport, e.toString());
        }
    }

    // ------------------------------------------------------------------ JMX

    private void registerMBean(String name) {
        try {
            ObjectName objectName = new ObjectName("org.rpcrdma4j:type=DuplicateRequestCache,name="
                    + ObjectName.quote(name));
            ManagementFactory.getPlatformMBeanServer().registerMBean(new Bean(), objectName);
            mbeanName = objectName;
        } catch (JMException e) {
            LOG.warn("duplicate request cache MBean {} not registered: {}", name, e.toString());
        }
    }

    private final class Bean implements DuplicateRequestCacheMXBean {
        @Override
        public Map<String, Long> getCounters() {
            Map<String, Long> byName = new LinkedHashMap<>();
            counters.snapshot().forEach((k, v) -> byName.put(k.name(), v));
            return byName;
        }

        @Override
        public int getEntries() {
            return entries();
        }

        @Override
        public long getBytes() {
            return bytes();
        }
    }

    @Override
    public String toString() {
        return "DuplicateRequestCache[" + procedures + ", " + config + "]";
    }
}

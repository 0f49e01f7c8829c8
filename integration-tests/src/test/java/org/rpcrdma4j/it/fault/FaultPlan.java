package org.rpcrdma4j.it.fault;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.SendWorkRequest;

/**
 * Decides, for every {@code postSend} and connect of a {@link FaultyDevice}, which fault to inject. Thread-safe: the
 * test arms it from its own thread while the transport posts from its agent thread. Rules, checked in this order:
 * <ol>
 * <li>an armed one-shot fault ({@link #armOnce}) fires on the next chain holding a work request of one of its
 * opcodes;</li>
 * <li>a random fault ({@link #randomly}) fires on a chain holding its opcode with the given probability.</li>
 * </ol>
 * Every fault injected is counted ({@link #injected}).
 */
public final class FaultPlan {
    private record Armed(java.util.Set<Opcode> opcodes, PostFault fault) {
    }

    private record Random(Opcode opcode, PostFault fault, double probability) {
    }

    private final AtomicReference<Armed> armed = new AtomicReference<>();
    private volatile Random random;
    private volatile boolean refuseConnects;
    private final AtomicInteger refused = new AtomicInteger();
    private final Map<PostFault, AtomicLong> injected = new EnumMap<>(PostFault.class);
    private final AtomicInteger queuePairsClosed = new AtomicInteger();
    private final AtomicInteger validAtQueuePairClose = new AtomicInteger();

    public FaultPlan() {
        for (PostFault f : PostFault.values()) {
            injected.put(f, new AtomicLong());
        }
    }

    /** Injects {@code fault} once, into the next posted chain that holds a work request of one of {@code opcodes}. */
    public FaultPlan armOnce(PostFault fault, Opcode... opcodes) {
        armed.set(new Armed(java.util.Set.of(opcodes), fault));
        return this;
    }

    /** Whether an {@link #armOnce} fault is still waiting for its chain. */
    public boolean armedPending() {
        return armed.get() != null;
    }

    /** Injects {@code fault} into each chain holding {@code opcode} with {@code probability} (0 switches it off). */
    public FaultPlan randomly(Opcode opcode, PostFault fault, double probability) {
        this.random = probability <= 0 ? null : new Random(opcode, fault, probability);
        return this;
    }

    /** Makes every connect of the device fail (as an unreachable peer) until switched off. */
    public FaultPlan refuseConnects(boolean refuse) {
        this.refuseConnects = refuse;
        return this;
    }

    /** How often {@code fault} was injected. */
    public long injected(PostFault fault) {
        return injected.get(fault).get();
    }

    /** Queue pairs of the device closed so far. */
    public int queuePairsClosed() {
        return queuePairsClosed.get();
    }

    /**
     * Fast-register regions of a queue pair's protection domain that were still valid when it was closed, summed
     * over its closes. A memory window bound through a queue pair holds it on some devices (rxe waits in the
     * destruction), and a peer could still reach memory through such a region: a consumer destroys or invalidates
     * them first, as xprtrdma does.
     */
    public int validRegionsAtQueuePairClose() {
        return validAtQueuePairClose.get();
    }

    void queuePairClosing(int validRegions) {
        queuePairsClosed.incrementAndGet();
        validAtQueuePairClose.addAndGet(validRegions);
    }

    /** Connects refused so far. */
    public int refusedConnects() {
        return refused.get();
    }

    boolean refuseConnect() {
        if (refuseConnects) {
            refused.incrementAndGet();
            return true;
        }
        return false;
    }

    /** The fault for {@code chain} (called on the posting thread). */
    PostFault decide(SendWorkRequest chain) {
        Armed a = armed.get();
        if (a != null && holdsAny(chain, a.opcodes) && armed.compareAndSet(a, null)) {
            return count(a.fault);
        }
        Random r = random;
        if (r != null && holds(chain, r.opcode) && ThreadLocalRandom.current().nextDouble() < r.probability) {
            return count(r.fault);
        }
        return PostFault.NONE;
    }

    private PostFault count(PostFault f) {
        injected.get(f).incrementAndGet();
        return f;
    }

    private static boolean holdsAny(SendWorkRequest chain, java.util.Set<Opcode> opcodes) {
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            if (opcodes.contains(wr.opcode)) {
                return true;
            }
        }
        return false;
    }

    private static boolean holds(SendWorkRequest chain, Opcode opcode) {
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            if (wr.opcode == opcode) {
                return true;
            }
        }
        return false;
    }
}

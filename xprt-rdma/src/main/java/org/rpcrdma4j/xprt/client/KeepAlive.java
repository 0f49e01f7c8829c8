package org.rpcrdma4j.xprt.client;

import java.time.Duration;

import org.rpcrdma4j.xprt.internal.RpcHeader;

/**
 * The keep-alive probe (RC connections have none of their own): when calls are on the wire and nothing has been
 * received for the configured interval, the agent sends a NULL call of the last program used, on the credit it keeps
 * in reserve; when nothing arrives within the probe timeout after that, the connection is dropped, so a dead server
 * cannot hang its callers. Only a probe that went out and was not answered drops a connection: a server that answers
 * is never dropped, however slow its calls. A probe still unanswered when the next quiet period ends (the server
 * answered other calls meanwhile) is not sent again: it keeps the reserved credit, the calls keep theirs, and silence
 * for the probe timeout from then drops the connection.
 * <p>
 * With only one credit granted, and it in use, no probe can go out (RFC 8166 forbids calls beyond the grant). The
 * probe then waits for a free credit (counted once per quiet period, {@link ClientCounter#KEEPALIVE_PROBES_DEFERRED}),
 * and the calls on the wire are left to their own timeouts, which drop the connection when they pass (as Linux's
 * client leaves a silent RDMA server to its RPC timeouts). Agent thread.
 */
final class KeepAlive {
    private final long interval;
    private final long timeout;
    private long lastReceive;
    private long probeSentAt;
    private boolean probing;
    private long nextCheck = Long.MAX_VALUE;
    /** A probe is due but waits for a credit (counted once until something arrives). */
    private boolean deferred;
    private final ClientAgent agent;
    private final CallMarshaler marshaler;
    private volatile int lastProgram;
    private volatile int lastVersion;

    KeepAlive(RdmaClientConfig config, ClientAgent agent, CallMarshaler marshaler) {
        this.agent = agent;
        this.marshaler = marshaler;
        Duration i = config.keepAliveInterval();
        this.interval = i.isZero() ? 0 : i.toNanos();
        this.timeout = config.keepAliveTimeout().toNanos();
    }

    void connected(long now) {
        lastReceive = now;
        probing = false;
        nextCheck = interval == 0 ? Long.MAX_VALUE : now + interval;
    }

    void reset() {
        probing = false;
        deferred = false;
        nextCheck = Long.MAX_VALUE;
    }

    void received(long now) {
        lastReceive = now;
        deferred = false;
    }

    void probeAnswered() {
        probing = false;
    }

    long nextCheck() {
        return nextCheck;
    }

    /**
     * When the agent must look again, at the latest: {@link #nextCheck()}, or, while no call is on the wire, one
     * interval from {@code now}. Calls may go on the wire without the agent's thread (a caller sending its own call),
     * so the check cannot wait for a round that might not come; at worst a dead server is noticed one interval late.
     */
    long nextCheck(long now) {
        return nextCheck != Long.MAX_VALUE || interval == 0 ? nextCheck : now + interval;
    }

    /** A call went out while none was on the wire: the quiet period starts now, not at the last receive. */
    void firstCallSent(long now) {
        if (now - lastReceive > 0) {
            lastReceive = now;
        }
    }

    /** Sends a probe or drops the connection when it is time; returns the work done. */
    int check(long now) {
        if (interval == 0) {
            return 0;
        }
        if (probing) {
            if (lastReceive - probeSentAt >= 0) {
                probing = false; // something arrived since the probe went out: the server is alive
            } else if (now - probeSentAt >= timeout) {
                probing = false;
                nextCheck = Long.MAX_VALUE;
                agent.keepAliveFailed("keep-alive probe not answered within " + timeout / 1_000_000 + " ms");
                return 1;
            } else {
                nextCheck = probeSentAt + timeout;
                return 0;
            }
        }
        if (agent.regularInFlight() == 0) {
            nextCheck = Long.MAX_VALUE;
            return 0;
        }
        if (now - lastReceive >= interval) {
            if (agent.probeOnTheWire()) {
                // the last probe is still unanswered (the server answered calls since, and this NULL not yet): it
                // stands for a new one, on the credit it holds; silence for the timeout from now drops the connection
                probing = true;
                probeSentAt = now;
                nextCheck = now + timeout;
                return 0;
            }
            if (!sendProbe()) {
                // every credit in use (or the probe could not be marshaled): look again one interval on
                if (!deferred) {
                    deferred = true;
                    agent.ownCounters().increment(ClientCounter.KEEPALIVE_PROBES_DEFERRED);
                }
                nextCheck = now + interval;
                return 0;
            }
            probing = true;
            probeSentAt = now;
            nextCheck = now + timeout;
            return 1;
        }
        nextCheck = lastReceive + interval;
        return 0;
    }

    /** Remembers the program a caller used last: the probe calls its NULL procedure. */
    void noteProgram(int program, int version) {
        if (program != lastProgram || version != lastVersion) {
            lastProgram = program;
            lastVersion = version;
        }
    }

    /** Sends the probe on its own slot when a credit is free; returns whether it went out. */
    private boolean sendProbe() {
        if (!agent.probeAllowed()) {
            return false;
        }
        RequestSlot probe = agent.probeSlot();
        probe.state = RequestSlot.State.MARSHALING;
        probe.keepAliveProbe = true;
        encodeNullCall(probe, agent.freeXid(), lastProgram, lastVersion);
        try {
            marshaler.marshal(probe);
        } catch (RdmaTransportException | org.rpcrdma4j.verbs.VerbsException | InterruptedException
                 | RuntimeException e) {
            probe.clearCall();
            probe.state = RequestSlot.State.FREE;
            return false;
        }
        agent.counters().increment(org.rpcrdma4j.xprt.XprtCounter.KEEPALIVE_PROBES);
        agent.post(probe);
        return true;
    }

    /** Writes a NULL call (AUTH_NONE) into the probe slot's send buffer and describes it as the slot's call. */
    static void encodeNullCall(RequestSlot slot, int xid, int program, int version) {
        int at = RequestSlot.RESERVE;
        var b = slot.sendBuffer;
        b.setInt(at, xid);
        b.setInt(at + 4, RpcHeader.CALL);
        b.setInt(at + 8, RpcHeader.RPC_VERSION);
        b.setInt(at + 12, program);
        b.setInt(at + 16, version);
        b.setInt(at + 20, 0);
        b.setInt(at + 24, 0);
        b.setInt(at + 28, 0);
        b.setInt(at + 32, 0);
        b.setInt(at + 36, 0);
        slot.xid = xid;
        slot.program = program;
        slot.version = version;
        slot.procedure = 0;
        slot.headBuf = b;
        slot.headIndex = at;
        slot.headLength = 40;
        slot.tailBuf = b;
        slot.tailIndex = at + 40;
        slot.replyPlan = RequestSlot.ReplyPlan.INLINE;
    }
}

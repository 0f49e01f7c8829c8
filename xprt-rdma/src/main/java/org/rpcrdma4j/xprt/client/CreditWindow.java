package org.rpcrdma4j.xprt.client;

import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.SlotQueue;

/**
 * The calls of one connection between the agent's send queue and their replies, and the credits that bound them
 * (RFC 8166 section 3.3.1; Linux's congestion window): calls wait here in submission order until a credit is free,
 * are filed by xid while on the wire, and leave when their reply (or the connection's loss) takes them out.
 * <p>
 * Credits: at most the server's last grant of calls on the wire; a grant of 0 counts as 1 and one above the request
 * is clamped; 1 after every (re)connect ({@link #reset()}). When the grant is 2 or more, one credit is kept for the
 * keep-alive probe, as the NFS upper-layer binding recommends. Agent thread; the gauges may be read from any.
 */
final class CreditWindow {
    private final int maxCredits;
    private final SlotQueue<RequestSlot> waiting = new SlotQueue<>();
    private final XidTable onTheWire;
    private final EnumCounters<XprtCounter> counters;
    private final EnumCounters<ClientCounter> own;
    private volatile int granted = 1;
    private volatile int inFlight;
    /** The keep-alive probe is on the wire: it holds the reserved credit, not one of the calls'. */
    private boolean probeOnTheWire;

    /**
     * @param maxCredits the credits every call asks for
     * @param slots      the most calls that may be on the wire at once (the request slots and the probe's)
     */
    CreditWindow(int maxCredits, int slots, EnumCounters<XprtCounter> counters, EnumCounters<ClientCounter> own) {
        this.maxCredits = maxCredits;
        this.onTheWire = new XidTable(slots);
        this.counters = counters;
        this.own = own;
    }

    /** A call waits for a credit, behind the calls queued before it. */
    void queue(RequestSlot slot) {
        slot.state = RequestSlot.State.QUEUED;
        waiting.addLast(slot);
    }

    /** Takes {@code slot} out of the waiting calls, if it is there. */
    boolean remove(RequestSlot slot) {
        return waiting.remove(slot);
    }

    /**
     * The oldest waiting call when a credit is free for it (taken out of the queue), else null; a call that finds no
     * credit is counted once as a credit wait.
     */
    RequestSlot nextSendable() {
        RequestSlot slot = waiting.peekFirst();
        if (slot == null) {
            return null;
        }
        int limit = granted > 1 ? granted - 1 : 1;
        if (callsInFlight() >= limit || inFlight >= granted) {
            if (!slot.creditWaitCounted) {
                slot.creditWaitCounted = true;
                counters.increment(XprtCounter.CREDIT_WAITS);
            }
            return null;
        }
        waiting.remove(slot);
        return slot;
    }

    /** {@code slot} goes on the wire: it holds a credit and is filed under its xid until {@link #take}. */
    void sent(RequestSlot slot) {
        inFlight++;
        if (slot.keepAliveProbe) {
            probeOnTheWire = true;
        }
        onTheWire.put(slot.xid, slot);
        own.increment(ClientCounter.SENDS);
        own.add(ClientCounter.REQUEST_USAGE, inFlight);
        own.add(ClientCounter.BACKLOG_USAGE, waiting.size());
        counters.add(XprtCounter.TOTAL_RDMA_REQUEST, slot.rpcLength);
        if (slot.everSent) {
            counters.increment(XprtCounter.RETRANSMITS);
        }
        slot.everSent = true;
    }

    /** Whether a call with {@code xid} is on the wire. */
    boolean onTheWire(int xid) {
        return onTheWire.get(xid) != null;
    }

    /** Takes the call on the wire with {@code xid} (null when there is none): it is answered now. */
    RequestSlot take(int xid) {
        RequestSlot slot = onTheWire.remove(xid);
        if (slot != null) {
            inFlight--;
            if (slot.keepAliveProbe) {
                probeOnTheWire = false;
            }
        }
        return slot;
    }

    /** Applies a credit grant: 0 counts as 1, more than requested is clamped. */
    void grant(int credits) {
        long value = Integer.toUnsignedLong(credits);
        granted = (int) Math.max(1, Math.min(maxCredits, value));
    }

    /** Whether the keep-alive probe is on the wire, unanswered. */
    boolean probeOnTheWire() {
        return probeOnTheWire;
    }

    /** The calls on the wire, the keep-alive probe left out. */
    int callsInFlight() {
        return probeOnTheWire ? inFlight - 1 : inFlight;
    }

    /** Whether a credit is free beyond the calls on the wire (the keep-alive probe may use the reserved one). */
    boolean creditFree() {
        return inFlight < granted;
    }

    /** A new connection, or none: nothing is on the wire and the grant starts again at 1. */
    void reset() {
        granted = 1;
        inFlight = 0;
        probeOnTheWire = false;
        onTheWire.clear();
    }

    int granted() {
        return granted;
    }

    int inFlight() {
        return inFlight;
    }

    int waitingCount() {
        return waiting.size();
    }
}

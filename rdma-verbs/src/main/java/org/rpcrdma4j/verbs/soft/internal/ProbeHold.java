package org.rpcrdma4j.verbs.soft.internal;

import org.rpcrdma4j.verbs.QpState;

/**
 * The responder's side of placement confirmation in the request/response pattern: holds back, for a short bounded
 * time, the (zero-length) answer to a peer's placement probe so that it leaves in the same gathering write as the
 * next FPDU this side sends anyway (typically the reply to the request the probe followed), and the peer reads both
 * with one wake-up instead of two.
 * <p>
 * A probe is held only when all of these hold: the option is on; it is a zero-length Read Request of the probe's
 * form (sink and source STag {@value Transmitter#NULL_STAG}), so never a consumer's RDMA Read; it arrived right behind
 * an untagged Send that came whole in one segment of at most {@value #MAX_SEND_BYTES} bytes and completed a posted
 * receive, with nothing but Read Responses in between, and this side started no message of its send queue since (else the reply may already be gone, and
 * nothing would carry the answer); no other Read Request waits to be answered (the IRQ was empty, so RDMAP's response order is kept: the
 * held answer is the only one); and the last hold was not ended by the bound (see below).
 * <p>
 * A held answer is released — put back in line for the transmitter, which answers it before anything else it
 * picks — at the latest when:
 * <ul>
 * <li>the transmitter has anything else to send on the queue pair (a send-queue message, its own probe, a
 * ready-to-receive frame): the answer goes into the same gather list, ahead of it ({@link #releaseForOutput});</li>
 * <li>any further FPDU other than a Read Response arrives from the peer ({@link #onPeerFpdu}): the peer is
 * streaming, not waiting;</li>
 * <li>the bound ({@code probeAnswerHoldMs}) expires: a reusable engine timer, armed per hold without allocating;</li>
 * <li>the queue pair is flushed or its connection closes ({@link #reset}): the IRQ is cleared with it, and the
 * peer's work requests are flushed on its side when the connection ends.</li>
 * </ul>
 * When the bound ends a hold, the peer evidently did not wait for anything of ours (a one-way stream that waits for
 * its completions): holding stops until this side again sends a message of its send queue right after answering a
 * probe that came behind a Send, before anything else came from the peer — the request/response shape. So a one-way
 * stream pays the bound once, not per probe.
 * <p>
 * Engine-owned (the engine thread or the holder of its claim), like the rest of the queue pair; the counters are
 * volatile only so that tests and benchmarks can read them from other threads.
 */
final class ProbeHold {
    /** Largest Send (one segment) a probe may be held behind; larger messages are bulk data, not a request. */
    static final int MAX_SEND_BYTES = 16 * 1024;

    private final SoftQp qp;
    private final boolean on;
    private final long boundNanos;
    private final Engine.Timer timer;

    private boolean held;
    /** The last FPDU from the peer was a whole small Send that completed a receive, and we sent no message since. */
    private boolean sendDone;
    /** Whether the last hold ended by the bound: holding is suspended (see the class comment). */
    private boolean suspended;
    /** While suspended: a probe that came behind a Send was just answered at once, nothing came from the peer since. */
    private boolean answeredBehindSend;

    private volatile long holds;
    private volatile long carried;
    private volatile long carriedByPoster;
    private volatile long expired;

    ProbeHold(SoftQp qp, boolean on, long boundNanos) {
        this.qp = qp;
        this.on = on;
        this.boundNanos = boundNanos;
        this.timer = new Engine.Timer(this::onBound);
    }

    /** Whether an answer is held: then it is the IRQ's only entry, and the transmitter must not pick it. */
    boolean isHeld() {
        return held;
    }

    /**
     * A zero-length probe of the peer's was just queued as the IRQ's only entry; {@code behindSend} says whether the
     * FPDU before it was a whole small Send that completed a receive. Returns whether its answer is held.
     */
    boolean offer(boolean behindSend) {
        if (!on || !behindSend) {
            return false;
        }
        if (suspended) {
            answeredBehindSend = true;
            return false;
        }
        held = true;
        holds++;
        qp.engine.arm(timer, boundNanos);
        return true;
    }

    /**
     * An FPDU from the peer begins: a held answer goes now (the peer is streaming), before the FPDU is handled.
     * Returns whether it comes right behind a whole small Send that completed a receive, with no message of our send
     * queue started since. A Read Response (to our own Read or probe, which the peer may send right after its Send)
     * is no sign of streaming and does not stand between a Send and the probe behind it.
     */
    boolean onPeerFpdu(boolean readResponse) {
        boolean behindSend = sendDone;
        if (readResponse) {
            return false;
        }
        sendDone = false;
        answeredBehindSend = false;
        if (held) {
            release();
            qp.engine.schedule(qp);
        }
        return behindSend;
    }

    /** A Send of one segment of at most {@value #MAX_SEND_BYTES} bytes from the peer just completed a receive. */
    void onWholeSend() {
        sendDone = true;
    }

    /** The transmitter has other output: a held answer joins it. Returns whether one was held. */
    boolean releaseForOutput() {
        if (!held) {
            return false;
        }
        release();
        carried++;
        if (!Engine.onAnyEngine()) {
            carriedByPoster++;
        }
        return true;
    }

    /**
     * The transmitter starts a message of the send queue. A probe that comes after it is not held: if the Send before
     * the probe was a request, this may well be its reply, already gone, and nothing else may follow to carry the
     * answer (a peer whose probe arrives late would otherwise get every answer one reply late). In the
     * request/response shape, holding resumes.
     */
    void onSendQueueMessage() {
        sendDone = false;
        if (answeredBehindSend) {
            answeredBehindSend = false;
            suspended = false;
        }
    }

    /** The queue pair is flushed or its connection closed: nothing is held any more (the IRQ is cleared with it). */
    void reset() {
        if (held) {
            release();
        }
        sendDone = false;
        answeredBehindSend = false;
    }

    private void release() {
        held = false;
        timer.cancel();
    }

    private void onBound() {
        if (!held) {
            return;
        }
        held = false;
        expired++;
        suspended = true;
        if (qp.state() == QpState.RTS) {
            qp.onScheduled();
        }
    }

    long holds() {
        return holds;
    }

    long carried() {
        return carried;
    }

    long carriedByPoster() {
        return carriedByPoster;
    }

    long expired() {
        return expired;
    }
}

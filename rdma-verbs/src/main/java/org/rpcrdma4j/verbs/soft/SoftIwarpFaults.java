package org.rpcrdma4j.verbs.soft;

import java.time.Duration;

import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.soft.internal.SoftQp;

/**
 * Fault injection on one queue pair of the software device, for reliability tests only. Each call is carried out
 * on the queue pair's engine thread shortly after it returns; called on that thread (from a completion listener),
 * before it returns.
 */
public interface SoftIwarpFaults {

    /** The faults of a queue pair of the software device. */
    static SoftIwarpFaults of(QueuePair qp) {
        if (!(qp instanceof SoftQp soft)) {
            throw new IllegalArgumentException("not a queue pair of the software iWARP device: " + qp);
        }
        return soft.faults();
    }

    /** Drops the connection now, abruptly: TCP reset, no Terminate; both sides flush and report DISCONNECTED. */
    void dropConnection();

    /**
     * Sends the next FPDU with a wrong CRC field. A peer that negotiated CRC detects it (Terminate LLP CRC error); a
     * peer without CRC ignores the field, as the protocol says.
     */
    void corruptNextCrc();

    /**
     * Moves the queue pair to ERROR and nothing more: its outstanding work requests are flushed, but the connection
     * stays as it is and neither side hears of it. Some devices report no disconnect when their peer ended the
     * connection with a Terminate; the consumer learns of it only from the flushed work requests.
     */
    void errorUnreported();

    /** Sends only the first half of the next FPDU, then drops the connection (the peer sees it end mid-FPDU). */
    void truncateNextFrame();

    /**
     * Holds back all transmission of this queue pair for {@code delay} (receiving goes on). Unlike the other faults,
     * returns only once the delay is in effect (except when called on another engine's thread), so that what
     * the caller posts next is held back.
     */
    void delayTransmit(Duration delay);
}

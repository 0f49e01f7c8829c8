package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits until the ports an oncrpc4j service listened on are free. Its {@code stop} returns once the transport has
 * closed the listening channels, but NIO closes a channel that is still registered with a selector only when that
 * selector next runs or closes, on Grizzly's selector thread: for a moment after {@code stop} the TCP port still
 * completes connections from its backlog, and a new server cannot bind it. A port counts as free when a probe socket
 * can bind it without listening (a TCP probe with address reuse, which only a listening socket refuses; a UDP probe
 * without). Bounded; logs a port that stays taken.
 */
final class PortRelease {
    private static final Logger LOG = LoggerFactory.getLogger(PortRelease.class);
    static final Duration BOUND = Duration.ofSeconds(5);
    private static final long PAUSE_MILLIS = 1;

    private PortRelease() {
    }

    /** Waits until {@code tcp} and {@code udp} (either may be null) can be bound again, at most {@link #BOUND}. */
    static void await(InetSocketAddress tcp, InetSocketAddress udp) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        InetSocketAddress tcpLeft = tcp;
        InetSocketAddress udpLeft = udp;
        for (;;) {
            if (tcpLeft != null && tcpFree(tcpLeft)) {
                tcpLeft = null;
            }
            if (udpLeft != null && udpFree(udpLeft)) {
                udpLeft = null;
            }
            if (tcpLeft == null && udpLeft == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                LOG.warn("{} still taken {} after the server stopped", taken(tcpLeft, udpLeft), BOUND);
                return;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("interrupted while waiting for {} to be released", taken(tcpLeft, udpLeft));
                return;
            }
        }
    }

    /** The port still waited for, TCP first, for the log. */
    private static String taken(InetSocketAddress tcp, InetSocketAddress udp) {
        return tcp != null ? "TCP " + tcp : "UDP " + udp;
    }

    private static boolean tcpFree(InetSocketAddress address) {
        try (Socket probe = new Socket()) {
            probe.setReuseAddress(true);
            probe.bind(address);
            return true;
        } catch (IOException listening) {
            return false;
        }
    }

    private static boolean udpFree(InetSocketAddress address) {
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.setReuseAddress(false);
            probe.bind(address);
            return true;
        } catch (IOException bound) {
            return false;
        }
    }
}

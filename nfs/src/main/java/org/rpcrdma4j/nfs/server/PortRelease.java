package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits until the ports an oncrpc4j service listened on are free. Its {@code stop} returns once the transport has
 * closed the listening channels, but NIO closes a channel that is still registered with a selector only when that
 * selector next runs or closes, on Grizzly's selector thread: for a moment after {@code stop} the TCP port still
 * completes connections from its backlog, and a new server cannot bind it. A port counts as free when a probe socket
 * can bind it (a TCP probe with address reuse, which only a listening socket refuses). Bounded; logs a port that
 * stays taken.
 */
final class PortRelease {
    private static final Logger LOG = LoggerFactory.getLogger(PortRelease.class);
    static final Duration BOUND = Duration.ofSeconds(5);
    private static final long PAUSE_MICROS = 500;

    private PortRelease() {
    }

    /** Waits until {@code tcp} and {@code udp} (either may be null) can be bound again, at most {@link #BOUND}. */
    static void await(InetSocketAddress tcp, InetSocketAddress udp) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!free(tcp, udp)) {
            if (System.nanoTime() - deadline > 0) {
                LOG.warn("port {} / {} still taken {} after the server stopped", tcp, udp, BOUND);
                return;
            }
            try {
                TimeUnit.MICROSECONDS.sleep(PAUSE_MICROS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean free(InetSocketAddress tcp, InetSocketAddress udp) {
        if (tcp != null) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(tcp, 1);
            } catch (IOException listening) {
                return false;
            }
        }
        if (udp != null) {
            try (DatagramSocket probe = new DatagramSocket(null)) {
                probe.setReuseAddress(false);
                probe.bind(udp);
            } catch (IOException bound) {
                return false;
            }
        }
        return true;
    }
}

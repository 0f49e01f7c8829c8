package org.rpcrdma4j.it.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP forwarder between two software iWARP endpoints on loopback that understands MPA framing (RFC 5044: the MPA
 * Request/Reply, then FPDUs of a 2-byte ULPDU length, the ULPDU, pad to 4 bytes and a 4-byte CRC field; the software
 * device never negotiates markers), so that a test can break the stream at protocol points:
 * <ul>
 * <li>{@link #dropAll()}: reset every connection now;</li>
 * <li>{@link #cutMidFpdu(Direction)}: forward the first half of the next FPDU in one direction, then reset;</li>
 * <li>{@link #corruptCrc(Direction)}: flip a bit of the next FPDU's CRC field (a peer that negotiated CRC must
 * detect it and tear the connection down; it must never deliver the FPDU);</li>
 * <li>{@link #corruptPayload(Direction)}: flip a bit in the next FPDU's ULPDU (caught by CRC when negotiated);</li>
 * <li>{@link #refuseConnects(boolean)}: accept and reset at once, as a host whose port is closed;</li>
 * <li>{@link #delay(Direction, long)}: hold every forwarded read back for some milliseconds.</li>
 * </ul>
 * One-shot faults apply to the next FPDU forwarded in that direction on any connection. Threads: one acceptor, two
 * pumps per connection; all controls are thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final int MPA_HEADER = 20;

    /** A direction of the forwarded stream. */
    public enum Direction {
        /** From the connecting side (MPA initiator) to the listening side. */
        TO_SERVER,
        /** From the listening side to the connecting side. */
        TO_CLIENT
    }

    /** A one-shot fault waiting for the next FPDU of its direction. */
    private enum Shot {
        CUT, CORRUPT_CRC, CORRUPT_PAYLOAD
    }

    private volatile InetSocketAddress target;
    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicLong[] fpdus = {new AtomicLong(), new AtomicLong()};
    @SuppressWarnings("unchecked")
    private final AtomicReference<Shot>[] shots = new AtomicReference[] {new AtomicReference<Shot>(),
            new AtomicReference<Shot>()};
    private final AtomicLong[] injected = {new AtomicLong(), new AtomicLong()};
    private final long[] delayMillis = new long[2];
    private volatile boolean refuse;

    /** Forwards connections made to {@link #address()} to {@code target}. */
    public FaultProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Where the client connects instead of the target. */
    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    /** Forwards connections made from now on to {@code newTarget} (open ones stay where they are). */
    public void retarget(InetSocketAddress newTarget) {
        this.target = newTarget;
    }

    /** Connections forwarded so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Connections refused so far. */
    public int refused() {
        return refused.get();
    }

    /** FPDUs forwarded (whole or in part) in {@code d}. */
    public long fpdus(Direction d) {
        return fpdus[d.ordinal()].get();
    }

    /** One-shot faults carried out in {@code d}. */
    public long injected(Direction d) {
        return injected[d.ordinal()].get();
    }

    /** Whether a one-shot fault in {@code d} still waits for its FPDU. */
    public boolean pending(Direction d) {
        return shots[d.ordinal()].get() != null;
    }

    /** Resets every connection now (both sides see a TCP reset); new connections are still forwarded. */
    public void dropAll() {
        for (Socket s : sockets) {
            reset(s);
        }
        sockets.clear();
    }

    /** The next FPDU in {@code d} is forwarded only in part (its first half), then both sides are reset. */
    public void cutMidFpdu(Direction d) {
        shots[d.ordinal()].set(Shot.CUT);
    }

    /** Flips a bit of the next FPDU's CRC field in {@code d}. */
    public void corruptCrc(Direction d) {
        shots[d.ordinal()].set(Shot.CORRUPT_CRC);
    }

    /** Flips a bit of the next FPDU's ULPDU (its last byte) in {@code d}. */
    public void corruptPayload(Direction d) {
        shots[d.ordinal()].set(Shot.CORRUPT_PAYLOAD);
    }

    /** While on, every new connection is accepted and reset at once, before a byte is read. */
    public void refuseConnects(boolean on) {
        this.refuse = on;
    }

    /** Holds every read forwarded in {@code d} back for {@code millis} (0: none). */
    public void delay(Direction d, long millis) {
        delayMillis[d.ordinal()] = millis;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (refuse) {
                    refused.incrementAndGet();
                    reset(client);
                    continue;
                }
                Socket server = new Socket();
                try {
                    server.connect(target, 10_000);
                } catch (IOException e) {
                    reset(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                accepted.incrementAndGet();
                start(new Pump(client, server, Direction.TO_SERVER));
                start(new Pump(server, client, Direction.TO_CLIENT));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void start(Pump pump) {
        Thread t = new Thread(pump, "fault-proxy-" + pump.direction);
        t.setDaemon(true);
        t.start();
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /**
     * Forwards one direction and follows its MPA framing: the 20-byte MPA header and its private data, then FPDUs.
     */
    private final class Pump implements Runnable {
        private final Socket from;
        private final Socket to;
        private final Direction direction;
        private final int d;
        /** Bytes of the current unit (MPA frame or FPDU) still to forward; 0 at a boundary. */
        private long remaining;
        /** Length of the current unit, and where in it the fault goes (-1: none). */
        private long unitLength;
        private long faultAt;
        private Shot fault;
        private boolean handshake = true;
        private final byte[] head = new byte[MPA_HEADER];
        private int headFill;

        Pump(Socket from, Socket to, Direction direction) {
            this.from = from;
            this.to = to;
            this.direction = direction;
            this.d = direction.ordinal();
        }

        @Override
        public void run() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = delayMillis[d];
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    if (!forward(buffer, n, out)) {
                        reset(from);
                        reset(to);
                        return;
                    }
                    out.flush();
                }
            } catch (IOException e) {
                // the other direction or the test closed it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    to.close();
                    from.close();
                } catch (IOException e) {
                    // nothing left to do
                }
            }
        }

        /** Forwards {@code n} bytes, applying a fault where it falls; false when the connection is to be cut. */
        private boolean forward(byte[] b, int n, OutputStream out) throws IOException {
            int at = 0;
            while (at < n) {
                if (remaining == 0) {
                    // at a boundary: gather the next unit's header (it may be split across reads)
                    int need = handshake ? MPA_HEADER : 2;
                    int take = Math.min(need - headFill, n - at);
                    System.arraycopy(b, at, head, headFill, take);
                    out.write(b, at, take);
                    at += take;
                    headFill += take;
                    if (headFill == need) {
                        startUnit(need);
                    }
                    continue;
                }
                int take = (int) Math.min(remaining, n - at);
                long offsetInUnit = unitLength - remaining;
                if (fault != null && faultAt >= offsetInUnit && faultAt < offsetInUnit + take) {
                    int i = at + (int) (faultAt - offsetInUnit);
                    if (fault == Shot.CUT) {
                        out.write(b, at, i - at);
                        out.flush();
                        injected[d].incrementAndGet();
                        LOG.debug("proxy {}: cut mid-FPDU after {} of {} bytes", direction, faultAt, unitLength);
                        return false;
                    }
                    b[i] ^= 0x01;
                    injected[d].incrementAndGet();
                    fault = null;
                }
                out.write(b, at, take);
                at += take;
                remaining -= take;
            }
            return true;
        }

        /** The header of the next unit ({@code headerLength} bytes) is in {@link #head}: works out its length. */
        private void startUnit(int headerLength) {
            long length;
            fault = null;
            if (handshake) {
                length = MPA_HEADER + (((head[18] & 0xFF) << 8) | (head[19] & 0xFF));
                handshake = false;
            } else {
                int ulpdu = ((head[0] & 0xFF) << 8) | (head[1] & 0xFF);
                length = ((2 + ulpdu + 3) & ~3) + 4;
                fpdus[d].incrementAndGet();
                Shot shot = shots[d].getAndSet(null);
                if (shot != null) {
                    fault = shot;
                    // every position is past the 2-byte length field (an FPDU is at least 8 bytes)
                    faultAt = switch (shot) {
                        case CUT -> length / 2;
                        case CORRUPT_CRC -> length - 1;
                        case CORRUPT_PAYLOAD -> Math.max(2, 2 + ulpdu - 1);
                    };
                }
            }
            unitLength = length;
            remaining = length - headerLength;
            headFill = 0;
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        dropAll();
    }
}

package org.rpcrdma4j.it.capture;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds the byte streams of TCP connections from captured segments, by sequence number.
 * <p>
 * Sequence numbers are unwrapped in capture order (a stream may pass 2<sup>32</sup>), and taken relative to the SYN
 * (or, without one in the capture, to the lowest sequence number seen). Segments are then placed by sequence number,
 * not by capture order, so out-of-order arrival is handled; a segment that repeats bytes already placed
 * (retransmission, repacketisation) must repeat them exactly, and only its new bytes are appended. A hole that no
 * segment fills, or a retransmission that disagrees with the original, raises {@link CaptureFormatException}: a
 * test vector with silently missing or ambiguous bytes is worse than none.
 * <p>
 * A connection is identified by its two endpoints; a fresh SYN on a 4-tuple whose earlier connection saw its SYN
 * already starts a new connection.
 */
public final class TcpReassembler {

    /** Segments of one direction, in capture order. */
    private static final class Direction {
        final InetSocketAddress source;
        final InetSocketAddress target;
        final List<long[]> placements = new ArrayList<>(); // {absolute seq, frame, index into payloads}
        final List<byte[]> payloads = new ArrayList<>();
        long lastAbs = -1;
        long synAbs = -1;
        boolean fin;

        Direction(InetSocketAddress source, InetSocketAddress target) {
            this.source = source;
            this.target = target;
        }

        long unwrap(long seq) {
            if (lastAbs < 0) {
                lastAbs = seq;
                return seq;
            }
            int delta = (int) (seq - (lastAbs & 0xFFFFFFFFL));
            long abs = lastAbs + delta;
            if (abs > lastAbs) {
                lastAbs = abs;
            }
            return abs;
        }
    }

    private static final class Conversation {
        Direction clientSide;
        Direction serverSide;

        Direction side(TcpSegment s) {
            if (clientSide.source.equals(s.source())) {
                return clientSide;
            }
            return serverSide;
        }
    }

    private TcpReassembler() {
    }

    /** Decodes every frame and reassembles every TCP connection found, in order of their first frame. */
    public static List<TcpConnection> reassemble(List<CapturedFrame> frames) throws CaptureFormatException {
        List<TcpSegment> segments = new ArrayList<>(frames.size());
        for (CapturedFrame f : frames) {
            TcpSegment s = FrameDecoder.tcp(f);
            if (s != null) {
                segments.add(s);
            }
        }
        return reassembleSegments(segments);
    }

    /** Reassembles the given segments (in capture order) into connections, in order of their first segment. */
    public static List<TcpConnection> reassembleSegments(List<TcpSegment> segments) throws CaptureFormatException {
        Map<String, Conversation> open = new LinkedHashMap<>();
        List<Conversation> all = new ArrayList<>();
        for (TcpSegment s : segments) {
            String key = key(s.source(), s.target());
            Conversation c = open.get(key);
            boolean freshSyn = s.has(TcpSegment.SYN) && !s.has(TcpSegment.ACK);
            if (c != null && freshSyn && c.clientSide.synAbs >= 0
                    && c.clientSide.source.equals(s.source())
                    && (c.clientSide.synAbs & 0xFFFFFFFFL) != s.seq()) {
                c = null; // the 4-tuple is reused by a new connection
            }
            if (c == null) {
                c = new Conversation();
                boolean sourceIsClient = freshSyn || !(s.has(TcpSegment.SYN) && s.has(TcpSegment.ACK));
                InetSocketAddress client = sourceIsClient ? s.source() : s.target();
                InetSocketAddress server = sourceIsClient ? s.target() : s.source();
                c.clientSide = new Direction(client, server);
                c.serverSide = new Direction(server, client);
                open.put(key, c);
                all.add(c);
            }
            Direction d = c.side(s);
            long abs = d.unwrap(s.seq());
            if (s.has(TcpSegment.SYN)) {
                if (d.synAbs >= 0 && d.synAbs != abs) {
                    throw new CaptureFormatException("frame " + s.frame() + ": a second SYN with another sequence number");
                }
                d.synAbs = abs;
                abs += 1; // the SYN takes one sequence number; data follows it
            }
            if (s.has(TcpSegment.FIN)) {
                d.fin = true;
            }
            if (s.payload().length > 0) {
                d.placements.add(new long[] {abs, s.frame(), d.payloads.size()});
                d.payloads.add(s.payload());
            }
        }
        List<TcpConnection> connections = new ArrayList<>(all.size());
        for (Conversation c : all) {
            TcpStream up = stream(c.clientSide);
            TcpStream down = stream(c.serverSide);
            connections.add(new TcpConnection(c.clientSide.source, c.serverSide.source, up, down));
        }
        return connections;
    }

    private static String key(InetSocketAddress a, InetSocketAddress b) {
        String x = a.toString();
        String y = b.toString();
        return x.compareTo(y) < 0 ? x + "|" + y : y + "|" + x;
    }

    private static TcpStream stream(Direction d) throws CaptureFormatException {
        List<long[]> pieces = new ArrayList<>(d.placements);
        long base;
        if (d.synAbs >= 0) {
            base = d.synAbs + 1;
        } else {
            base = pieces.stream().mapToLong(p -> p[0]).min().orElse(0);
        }
        // by sequence number; among equal ones, the earlier frame first (it delivered the bytes)
        pieces.sort(Comparator.<long[]>comparingLong(p -> p[0]).thenComparingLong(p -> p[1]));
        byte[] buf = new byte[4096];
        long[] ends = new long[pieces.size()];
        int[] frames = new int[pieces.size()];
        int n = 0;
        int maxFrame = 0;
        int retransmitted = 0;
        long next = 0; // relative offset of the next byte expected
        for (long[] p : pieces) {
            byte[] payload = d.payloads.get((int) p[2]);
            long rel = p[0] - base;
            int frame = (int) p[1];
            if (rel < 0) {
                throw new CaptureFormatException("frame " + frame + ": data before the start of the stream "
                        + d.source + " -> " + d.target);
            }
            if (rel > next) {
                throw new CaptureFormatException("stream " + d.source + " -> " + d.target + ": hole of "
                        + (rel - next) + " bytes at stream offset " + next + " (next data in frame " + frame + ")");
            }
            long end = rel + payload.length;
            int overlap = (int) (Math.min(end, next) - rel);
            if (overlap > 0) {
                if (!Arrays.equals(buf, (int) rel, (int) rel + overlap, payload, 0, overlap)) {
                    throw new CaptureFormatException("frame " + frame + ": retransmitted bytes at stream offset " + rel
                            + " differ from the original in " + d.source + " -> " + d.target);
                }
            }
            if (end <= next) {
                retransmitted++;
                continue;
            }
            if (end > Integer.MAX_VALUE - 8) {
                throw new CaptureFormatException("stream " + d.source + " -> " + d.target + " exceeds 2 GiB");
            }
            if (end > buf.length) {
                buf = Arrays.copyOf(buf, (int) Math.max(end, Math.min(Integer.MAX_VALUE - 8, 2L * buf.length)));
            }
            System.arraycopy(payload, overlap, buf, (int) next, payload.length - overlap);
            next = end;
            maxFrame = Math.max(maxFrame, frame);
            ends[n] = end;
            frames[n] = maxFrame;
            n++;
        }
        return new TcpStream(d.source, d.target, Arrays.copyOf(buf, (int) next), Arrays.copyOf(ends, n), Arrays.copyOf(frames, n),
                retransmitted, d.fin);
    }
}

package org.rpcrdma4j.xprt.client;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import org.rpcrdma4j.xprt.XprtCounter;

/**
 * A snapshot of one client transport's counters and gauges, taken by {@link RdmaClientTransport#stats()}. Immutable.
 *
 * @param server          the server's address
 * @param state           the connection state (IDLE, CONNECTING, CONNECTED, BACKOFF, CLOSED)
 * @param creditsGranted  the server's last grant (1 right after connecting)
 * @param callsInFlight   calls on the wire now
 * @param freeSlots       request slots free now
 * @param inlineSend      the negotiated inline send threshold
 * @param inlineReceive   the negotiated inline receive threshold
 * @param idleSeconds     seconds since a call was last sent or a message received
 * @param counters        every {@link XprtCounter}
 * @param own             every {@link ClientCounter}
 */
public record RdmaClientStats(String server, String state, int creditsGranted, int callsInFlight, int freeSlots,
                              int inlineSend, int inlineReceive, long idleSeconds,
                              Map<XprtCounter, Long> counters, Map<ClientCounter, Long> own) {

    public RdmaClientStats {
        counters = Collections.unmodifiableMap(new EnumMap<>(counters));
        own = Collections.unmodifiableMap(new EnumMap<>(own));
    }

    public long get(XprtCounter counter) {
        return counters.getOrDefault(counter, 0L);
    }

    public long get(ClientCounter counter) {
        return own.getOrDefault(counter, 0L);
    }

    /**
     * The line Linux prints for an RPC-over-RDMA transport in {@code /proc/self/mountstats} (27 numbers after
     * {@code xprt:} and {@code rdma}, separated by spaces). Filled as follows:
     * <ol>
     * <li>local port: 0 (as Linux prints for RDMA);</li>
     * <li>bind_count: 0 (no rpcbind step);</li>
     * <li>connect_count: {@link XprtCounter#CONNECTS};</li>
     * <li>connect_time: seconds spent connecting ({@link ClientCounter#CONNECT_TIME_MILLIS} / 1000);</li>
     * <li>idle_time: {@link #idleSeconds()};</li>
     * <li>sends, recvs: {@link ClientCounter#SENDS}, {@link ClientCounter#RECEIVES};</li>
     * <li>bad_xids: {@link XprtCounter#UNKNOWN_XID_REPLIES};</li>
     * <li>req_u, bklog_u: {@link ClientCounter#REQUEST_USAGE}, {@link ClientCounter#BACKLOG_USAGE};</li>
     * <li>then the 17 {@code xprt: rdma} fields of {@link XprtCounter} in its order, from read_chunk_count to
     * reply_waits_for_send.</li>
     * </ol>
     * The transport's own counters (connects, timeouts, keep-alive, ...) are not part of the line; see
     * {@link #toString()}.
     */
    public String mountstats() {
        StringBuilder sb = new StringBuilder("xprt:\trdma 0 0 ");
        sb.append(get(XprtCounter.CONNECTS)).append(' ')
                .append(get(ClientCounter.CONNECT_TIME_MILLIS) / 1000).append(' ')
                .append(idleSeconds).append(' ')
                .append(get(ClientCounter.SENDS)).append(' ')
                .append(get(ClientCounter.RECEIVES)).append(' ')
                .append(get(XprtCounter.UNKNOWN_XID_REPLIES)).append(' ')
                .append(get(ClientCounter.REQUEST_USAGE)).append(' ')
                .append(get(ClientCounter.BACKLOG_USAGE));
        for (XprtCounter c : XprtCounter.values()) {
            if (c == XprtCounter.CONNECTS) {
                break; // the rest are this transport's own
            }
            sb.append(' ').append(get(c));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RdmaClientStats[").append(server).append(' ').append(state)
                .append(", credits ").append(creditsGranted).append(", in flight ").append(callsInFlight)
                .append(", inline ").append(inlineSend).append('/').append(inlineReceive);
        counters.forEach((k, v) -> sb.append(", ").append(k.label()).append('=').append(v));
        own.forEach((k, v) -> sb.append(", ").append(k.label()).append('=').append(v));
        return sb.append(']').toString();
    }
}

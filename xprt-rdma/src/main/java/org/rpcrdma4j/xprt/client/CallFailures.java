package org.rpcrdma4j.xprt.client;

import java.util.concurrent.TimeoutException;

/** The exceptions calls fail with, with messages that say what the connection was doing. */
final class CallFailures {
    private CallFailures() {
    }

    /**
     * A call got no reply before its deadline: {@link TimeoutException} for an oncrpc4j call (as oncrpc4j reports
     * it), {@link RdmaCallTimeoutException} otherwise; the message names the call, and, when the connection is not up,
     * how it was lost and why reconnecting failed.
     */
    static Throwable timeout(RequestSlot slot, Object server, boolean connected, boolean everConnected,
                             String lossReason, Throwable lastConnectError) {
        StringBuilder sb = new StringBuilder("no reply to xid 0x").append(Integer.toHexString(slot.xid))
                .append(" (program ").append(slot.program).append(" version ").append(slot.version)
                .append(" procedure ").append(slot.procedure).append(") from ").append(server).append(" in time");
        if (!connected) {
            sb.append("; the connection ").append(everConnected ? "was lost" : "was never made");
            if (lossReason != null) {
                sb.append(" (").append(lossReason).append(')');
            }
            if (lastConnectError != null) {
                sb.append(" and reconnecting failed: ").append(lastConnectError.getMessage());
            }
        }
        String message = sb.toString();
        return slot.plain ? new TimeoutException(message) : new RdmaCallTimeoutException(message);
    }
}

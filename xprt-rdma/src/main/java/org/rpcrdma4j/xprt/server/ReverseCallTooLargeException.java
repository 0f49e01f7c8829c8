package org.rpcrdma4j.xprt.server;

import java.io.IOException;

/**
 * A reverse-direction call (RFC 8167) was refused before sending: it is longer than the connection's inline threshold
 * allows, and reverse-direction messages are sent inline only (RDMA_MSG without chunks). Nothing was sent.
 */
public final class ReverseCallTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int length;
    private final int limit;

    public ReverseCallTooLargeException(int length, int limit) {
        super("a reverse-direction call of " + length + " bytes exceeds the " + limit + " bytes the connection's "
                + "inline threshold allows (reverse-direction messages are inline only, RFC 8167); not sent");
        this.length = length;
        this.limit = limit;
    }

    /** Bytes of the refused RPC call. */
    public int length() {
        return length;
    }

    /** The longest call the connection could have sent. */
    public int limit() {
        return limit;
    }
}

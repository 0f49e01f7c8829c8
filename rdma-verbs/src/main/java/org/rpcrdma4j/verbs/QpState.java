package org.rpcrdma4j.verbs;

/** Queue pair states, simplified for reliable-connected QPs driven by a connection manager. */
public enum QpState {
    /** Created; receives may be posted, sends wait for the connection. */
    INIT,
    /** Connected: ready to send and receive. */
    RTS,
    /** Broken by an error or a disconnect: every outstanding and later work request completes with WR_FLUSH_ERR. */
    ERROR,
    /** Destroyed. */
    CLOSED
}

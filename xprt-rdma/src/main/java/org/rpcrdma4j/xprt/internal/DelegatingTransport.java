package org.rpcrdma4j.xprt.internal;

import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * A transport that stands in front of another for the duration of a call (the duplicate request cache binds a
 * cached procedure's call to one that captures the reply, then forwards it). The server looks through it to find
 * the connection a call arrived on, for the zero-copy seams that depend on it.
 */
public interface DelegatingTransport extends RpcTransport {

    /** The transport this one forwards to. */
    RpcTransport delegate();

    /** {@code transport}, or the transport behind it (and behind that) when it delegates. */
    static RpcTransport underlying(RpcTransport transport) {
        RpcTransport t = transport;
        while (t instanceof DelegatingTransport d) {
            t = d.delegate();
        }
        return t;
    }
}

package org.rpcrdma4j.xprt.internal;

import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * The {@link RpcTransport} one dispatched call's oncrpc4j {@code RpcCall} is bound to, standing for the call's right to
 * its slot's reply: the server's calls and the client's reverse-direction calls. A slot carries one call after
 * another, and a program that replies twice, or late, must not answer the call its slot carries by then; so each call
 * gets a transport of its own (one small object per call), through which its slot takes one reply. RPC-over-RDMA has
 * no TLS.
 */
public abstract class OneCallTransport implements RpcTransport, OneReply {
    /** The call's xid, for the failure of a reply that comes too late. */
    public final int xid;

    protected OneCallTransport(int xid) {
        this.xid = xid;
    }

    /** Whether this call still holds its slot's right to a reply: the slot carries it, and it has not answered. */
    protected abstract boolean holdsReply();

    @Override
    public final boolean awaitsReply(int xid) {
        return this.xid == xid && holdsReply();
    }

    /** Refused: RPC-with-TLS (RFC 9289) is defined for stream transports; RPC-over-RDMA has no TLS. */
    @Override
    public final void startTLS() throws RpcAuthException {
        throw new RpcAuthException("TLS is not available over RPC-over-RDMA",
                new RpcAuthError(RpcAuthStat.AUTH_FAILED));
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}

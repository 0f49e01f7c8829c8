package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.OneCallTransport;
import org.rpcrdma4j.xprt.internal.ReplyDrop;

/**
 * The {@link RpcTransport} one call's oncrpc4j {@code RpcCall} is bound to: the call's right to its slot's reply. A
 * slot carries one call after another, and a program that replies twice, or late, must not answer the call its slot
 * carries by then; so each dispatched call gets a transport of its own (one small object per call), and the slot
 * takes a reply only through the transport of the call it carries now, once ({@link CallSlot#send}). The addresses
 * are the connection's; {@link #getPeerTransport()} is its reverse direction (RFC 8167, {@link PeerTransport}).
 */
final class CallTransport extends OneCallTransport implements ReplyDrop {
    final CallSlot slot;

    CallTransport(CallSlot slot, int xid) {
        super(xid);
        this.slot = slot;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        slot.send(this, xdr, attachment, handler);
    }

    @Override
    protected boolean holdsReply() {
        return slot.awaitsReply(this);
    }

    @Override
    public void dropCall() {
        slot.dropCall(this);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return slot.connection.server.replyQueue();
    }

    @Override
    public boolean isOpen() {
        return !slot.connection.isClosing();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return slot.connection.localAddress();
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return slot.connection.remoteAddress();
    }

    /** The connection's reverse direction (RFC 8167): calls to the client over the same connection. */
    @Override
    public RpcTransport getPeerTransport() {
        return slot.connection.peerTransport();
    }

    @Override
    public String toString() {
        return "CallTransport[xid 0x" + Integer.toHexString(xid) + " on " + slot.connection + "]";
    }
}

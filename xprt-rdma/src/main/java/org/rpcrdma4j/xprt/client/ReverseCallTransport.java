package org.rpcrdma4j.xprt.client;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.OneCallTransport;

/**
 * The {@link RpcTransport} one reverse-direction call's oncrpc4j {@code RpcCall} is bound to: the call's right to its
 * {@link ReverseSlot}'s reply. A slot carries one call after another, and a program that replies twice, or late, must
 * not answer the call its slot carries by then, nor hand the slot to the agent a second time; so each dispatched call
 * gets a transport of its own (one small object per call), and the slot takes a reply only through the transport of
 * the call it carries now, once ({@link ReverseSlot#send}). Everything else is the forward direction's: this client's
 * own transport, which {@link #getPeerTransport()} also returns.
 */
final class ReverseCallTransport extends OneCallTransport {
    final ReverseSlot slot;

    ReverseCallTransport(ReverseSlot slot, int xid) {
        super(xid);
        this.slot = slot;
    }

    /**
     * Takes the program's reply: copied into the slot and handed to the agent, which sends it inline; the handler
     * hears of the Send's completion. See {@link ReverseSlot#send}.
     */
    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        slot.send(this, xdr, attachment, handler);
    }

    @Override
    protected boolean holdsReply() {
        return slot.awaitsReply(this);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return slot.forward().getReplyQueue();
    }

    @Override
    public boolean isOpen() {
        return slot.forward().isOpen();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return slot.forward().getLocalSocketAddress();
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return slot.forward().getRemoteSocketAddress();
    }

    /** The forward direction: this client's transport to the server. */
    @Override
    public RpcTransport getPeerTransport() {
        return slot.forward();
    }

    @Override
    public String toString() {
        return "ReverseCallTransport[xid 0x" + Integer.toHexString(xid) + " in " + slot + "]";
    }
}

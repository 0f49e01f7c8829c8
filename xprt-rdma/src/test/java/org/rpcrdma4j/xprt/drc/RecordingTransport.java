package org.rpcrdma4j.xprt.drc;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.xprt.internal.ReplyDrop;

/** A server-side transport that keeps what it is asked to send (a copy) and completes every send at once. */
final class RecordingTransport implements RpcTransport, ReplyDrop {
    private final InetSocketAddress remote;
    private final InetSocketAddress local = new InetSocketAddress("127.0.0.1", 2049);
    private final List<byte[]> sent = new ArrayList<>();
    volatile boolean failSends;
    /** Calls it was told get no reply ({@link ReplyDrop}). */
    volatile int drops;

    RecordingTransport(String address, int port) {
        this.remote = new InetSocketAddress(address, port);
    }

    @Override
    public synchronized <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        byte[] bytes = Calls.bytes(xdr);
        if (failSends) {
            handler.failed(new java.io.IOException("connection closed"), attachment);
            return;
        }
        sent.add(bytes);
        handler.completed(bytes.length, attachment);
    }

    synchronized List<byte[]> sent() {
        return new ArrayList<>(sent);
    }

    /** The last message sent, or null. */
    synchronized byte[] last() {
        return sent.isEmpty() ? null : sent.get(sent.size() - 1);
    }

    synchronized int count() {
        return sent.size();
    }

    /** The only message sent. */
    synchronized byte[] single() {
        if (sent.size() != 1) {
            throw new AssertionError(sent.size() + " messages sent through " + remote + ", expected 1");
        }
        return sent.get(0);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return null;
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return local;
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return remote;
    }

    @Override
    public RpcTransport getPeerTransport() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void startTLS() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    @Override
    public String toString() {
        return "RecordingTransport[" + remote + "]";
    }

    @Override
    public void dropCall() {
        drops++;
    }
}

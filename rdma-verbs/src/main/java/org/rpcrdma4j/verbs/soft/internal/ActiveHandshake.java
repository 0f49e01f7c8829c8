package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.MpaProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initiator's side of connection setup, on the queue pair's engine: TCP connect (bounded by the resolve
 * timeout), the MPA Request sent right away, the MPA Reply read exactly (bounded by the connect timeout; not one
 * byte more is read). Then the queue pair takes the socket over and its first FPDU is a zero-length RDMA Write (the
 * ready-to-receive frame, accepted by any RNIC), so that a responder may start sending.
 */
final class ActiveHandshake implements Engine.Handler, SoftConnectionManager.Handshake {
    private static final Logger LOG = LoggerFactory.getLogger(ActiveHandshake.class);

    private final SoftConnectionManager cm;
    private final SoftQp qp;
    private final InetSocketAddress remote;
    private final ConnectParameters parameters;
    private final ConnectionListener listener;
    private final CompletableFuture<ConnectionInfo> future;
    private final int revision;
    private final int ird;
    private final int ord;
    private SocketChannel channel;
    private SelectionKey key;
    private Engine.Timer timer;
    private ByteBuffer out;
    private final ByteBuffer in = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + MpaFrame.MAX_PRIVATE_DATA);
    private MpaFrame.Header reply;
    private boolean connected;
    private boolean done;

    ActiveHandshake(SoftConnectionManager cm, SoftQp qp, InetSocketAddress remote, ConnectParameters parameters,
                    ConnectionListener listener, CompletableFuture<ConnectionInfo> future) {
        this.cm = cm;
        this.qp = qp;
        this.remote = remote;
        this.parameters = parameters;
        this.listener = listener;
        this.future = future;
        this.revision = cm.device.options().mpaRevision();
        this.ird = Math.min(parameters.responderResources(), SoftDevice.MAX_READ_DEPTH);
        this.ord = Math.min(parameters.initiatorDepth(), SoftDevice.MAX_READ_DEPTH);
    }

    @Override
    public Engine engine() {
        return qp.engine;
    }

    void start() {
        cm.added(this);
        qp.handshakeCancel(() -> fail(ConnectionEventType.CONNECT_ERROR,
                "connect abandoned: the queue pair was disconnected or closed", null, null));
        if (cm.device.isClosed()) {
            fail(ConnectionEventType.CONNECT_ERROR, "device closed", null, null);
            return;
        }
        timer = qp.engine.timer(parameters.resolveTimeout().toNanos(), () -> fail(ConnectionEventType.UNREACHABLE,
                "no TCP connection to " + remote + " within " + parameters.resolveTimeout().toMillis() + " ms",
                null, null));
        try {
            channel = SocketChannel.open();
            cm.configure(channel);
            boolean now = channel.connect(remote);
            key = channel.register(qp.engine.selector, now ? 0 : SelectionKey.OP_CONNECT, this);
            if (now) {
                onConnected();
            }
        } catch (IOException e) {
            failConnect(e);
        }
    }

    @Override
    public void onReady(SelectionKey readyKey) throws IOException {
        if (done) {
            return;
        }
        if (!connected) {
            if (readyKey.isConnectable()) {
                try {
                    channel.finishConnect();
                } catch (IOException e) {
                    failConnect(e);
                    return;
                }
                onConnected();
            }
            return;
        }
        if (out.hasRemaining()) {
            if (readyKey.isWritable()) {
                sendRequest();
            }
            return;
        }
        if (readyKey.isReadable()) {
            readReply();
        }
    }

    @Override
    public void onFailure(Throwable cause) {
        fail(ConnectionEventType.CONNECT_ERROR, "handshake failed: " + cause.getMessage(), null, cause);
    }

    @Override
    public void abort(String why) {
        fail(ConnectionEventType.CONNECT_ERROR, why, null, null);
    }

    private void onConnected() throws IOException {
        connected = true;
        timer.cancel();
        timer = qp.engine.timer(parameters.connectTimeout().toNanos(), () -> fail(ConnectionEventType.CONNECT_ERROR,
                "no MPA Reply from " + remote + " within " + parameters.connectTimeout().toMillis() + " ms", null,
                null));
        int flags = (cm.device.options().crc() ? MpaFrame.FLAG_CRC : 0)
                | (revision == 2 ? MpaFrame.FLAG_ENHANCED : 0);
        byte[] privateData = revision == 2
                ? MpaFrame.enhancedPrivateData(ird & MpaFrame.DEPTH_MASK, ord & MpaFrame.DEPTH_MASK,
                parameters.privateData())
                : parameters.privateData();
        out = ByteBuffer.wrap(MpaFrame.encode(false, flags, revision, privateData));
        in.limit(MpaFrame.HEADER_LENGTH);
        sendRequest();
    }

    private void sendRequest() throws IOException {
        channel.write(out);
        key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void readReply() throws IOException {
        int n = channel.read(in);
        if (n < 0) {
            fail(ConnectionEventType.CONNECT_ERROR, "connection closed by " + remote + " during the MPA handshake",
                    null, null);
            return;
        }
        if (in.hasRemaining()) {
            return;
        }
        if (reply == null) {
            try {
                reply = MpaFrame.header(in, 0, true);
            } catch (MpaProtocolException e) {
                fail(ConnectionEventType.CONNECT_ERROR, "bad MPA Reply from " + remote + ": " + e.getMessage(), null,
                        e);
                return;
            }
            in.limit(MpaFrame.HEADER_LENGTH + reply.privateDataLength());
            if (in.hasRemaining()) {
                return;
            }
        }
        onReply();
    }

    private void onReply() throws IOException {
        byte[] pd = Arrays.copyOfRange(in.array(), MpaFrame.HEADER_LENGTH, in.limit());
        boolean enhanced = reply.enhanced() && pd.length >= MpaFrame.ENHANCED_BLOCK_LENGTH;
        byte[] ulp = enhanced ? Arrays.copyOfRange(pd, MpaFrame.ENHANCED_BLOCK_LENGTH, pd.length) : pd;
        if (reply.rejected()) {
            fail(ConnectionEventType.REJECTED, "connection rejected by " + remote, ulp, null);
            return;
        }
        if (reply.markers()) {
            fail(ConnectionEventType.CONNECT_ERROR, remote + " wants MPA markers, which are not supported", null,
                    null);
            return;
        }
        if (cm.device.options().crc() && !reply.crc()) {
            fail(ConnectionEventType.CONNECT_ERROR, remote + " refused the CRC this device asked for", null, null);
            return;
        }
        int negotiatedOrd = ord;
        int peerOrd = ird;
        if (revision == 2) {
            if (!enhanced) {
                fail(ConnectionEventType.CONNECT_ERROR, remote + " answered an enhanced (revision 2) request with"
                        + " revision " + reply.revision() + " and no IRD/ORD", null, null);
                return;
            }
            int peerIrd = ((pd[0] & 0xFF) << 8 | (pd[1] & 0xFF)) & MpaFrame.DEPTH_MASK;
            peerOrd = ((pd[2] & 0xFF) << 8 | (pd[3] & 0xFF)) & MpaFrame.DEPTH_MASK;
            negotiatedOrd = Math.min(ord, peerIrd);
        }
        if (done) {
            return;
        }
        done = true;
        timer.cancel();
        cm.removed(this);
        ConnectionInfo info = new ConnectionInfo((InetSocketAddress) channel.getLocalAddress(), remote, ulp,
                Math.min(ird, peerOrd), negotiatedOrd);
        key.attach(qp);
        key.interestOps(SelectionKey.OP_READ);
        try {
            qp.establish(channel, key, reply.crc(), ird, negotiatedOrd, true, info, listener);
        } catch (IOException e) {
            closeChannel();
            future.completeExceptionally(new ConnectException(ConnectionEventType.CONNECT_ERROR,
                    "queue pair " + qp.qpNum() + " cannot take the connection: " + e.getMessage(), null, e));
            return;
        }
        LOG.debug("queue pair {} connected to {} (crc {}, ird {}, ord {})", qp.qpNum(), remote, reply.crc(), ird,
                negotiatedOrd);
        future.complete(info);
    }

    private void failConnect(IOException e) {
        boolean refused = e instanceof java.net.ConnectException && e.getMessage() != null
                && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("refused");
        if (refused) {
            fail(ConnectionEventType.REJECTED, "connection refused by " + remote + " (nothing listens there)", null,
                    e);
        } else {
            fail(ConnectionEventType.UNREACHABLE, remote + " is unreachable: " + e.getMessage(), null, e);
        }
        if (!(e instanceof java.net.ConnectException) && !(e instanceof NoRouteToHostException)) {
            LOG.debug("connect to {} failed", remote, e);
        }
    }

    private void fail(ConnectionEventType type, String message, byte[] privateData, Throwable cause) {
        if (done) {
            return;
        }
        done = true;
        cm.removed(this);
        if (timer != null) {
            timer.cancel();
        }
        closeChannel();
        qp.handshakeCancel(null);
        qp.enterError(SoftQp.TEARDOWN_ABORT, ConnectionEventType.CONNECT_ERROR, null);
        future.completeExceptionally(new ConnectException(type, message, privateData, cause));
    }

    private void closeChannel() {
        if (key != null) {
            key.cancel();
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("closing a failed connection", e);
            }
        }
    }
}

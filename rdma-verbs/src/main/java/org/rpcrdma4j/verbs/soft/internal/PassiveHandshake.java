package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionManager.ConnectionRequestHandler;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.MpaProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder's side of connection setup for one accepted TCP connection: read the MPA Request exactly (within
 * the handshake timeout), hand a {@link SoftConnectionRequest} to the upper layer, then send the Reply — accept or
 * reject — and pass the socket to the accepting queue pair. Anything else (junk instead of a request, a bare
 * connect, markers, a timeout, no decision) closes this socket and nothing else.
 * <p>
 * The reply echoes the request's revision and enhanced flag, sets C if either side wants CRC, carries our IRD and
 * ORD (ORD at most the initiator's IRD) and, when the initiator asked for peer-to-peer mode, echoes it choosing the
 * Write ready-to-receive frame if offered, else Read, else Write (as siw). The queue pair then sends nothing until
 * the initiator's first FPDU has arrived.
 */
final class PassiveHandshake implements Engine.Handler, SoftConnectionManager.Handshake {
    private static final Logger LOG = LoggerFactory.getLogger(PassiveHandshake.class);

    private static final int READING = 0;
    private static final int DECIDING = 1;
    private static final int DONE = 2;

    private final SoftConnectionManager cm;
    private final SocketChannel channel;
    private final ConnectionRequestHandler handler;
    private final Engine engine;
    private final ByteBuffer in = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + MpaFrame.MAX_PRIVATE_DATA);
    private SelectionKey key;
    private Engine.Timer timer;
    private MpaFrame.Header request;
    private SoftConnectionRequest pending;
    private int peerIrdWord;
    private int peerOrdWord;
    private int state = READING;

    PassiveHandshake(SoftConnectionManager cm, SocketChannel channel, ConnectionRequestHandler handler, Engine engine) {
        this.cm = cm;
        this.channel = channel;
        this.handler = handler;
        this.engine = engine;
    }

    @Override
    public Engine engine() {
        return engine;
    }

    SoftDevice device() {
        return cm.device;
    }

    void start() {
        cm.added(this);
        try {
            key = channel.register(engine.selector, SelectionKey.OP_READ, this);
        } catch (IOException e) {
            abort("cannot register: " + e.getMessage());
            return;
        }
        in.limit(MpaFrame.HEADER_LENGTH);
        timer = engine.timer(cm.device.options().handshakeTimeout().toNanos(),
                () -> abort("no MPA Request within " + cm.device.options().handshakeTimeout().toMillis() + " ms"));
    }

    @Override
    public void onReady(SelectionKey readyKey) throws IOException {
        if (state != READING || !readyKey.isReadable()) {
            return;
        }
        int n = channel.read(in);
        if (n < 0) {
            abort("peer closed before its MPA Request was complete");
            return;
        }
        if (in.hasRemaining()) {
            return;
        }
        if (request == null) {
            try {
                request = MpaFrame.header(in, 0, false);
            } catch (MpaProtocolException e) {
                abort("not an MPA Request: " + e.getMessage());
                return;
            }
            in.limit(MpaFrame.HEADER_LENGTH + request.privateDataLength());
            if (in.hasRemaining()) {
                return;
            }
        }
        onRequest();
    }

    private void onRequest() {
        byte[] pd = Arrays.copyOfRange(in.array(), MpaFrame.HEADER_LENGTH, in.limit());
        if (request.markers()) {
            LOG.debug("MPA Request from {} wants markers: rejected", remote());
            sendReject(null);
            return;
        }
        boolean enhanced = request.enhanced();
        if (enhanced && pd.length < MpaFrame.ENHANCED_BLOCK_LENGTH) {
            abort("enhanced MPA Request without its IRD/ORD block");
            return;
        }
        byte[] ulp = pd;
        int peerIrd = 0;
        int peerOrd = 0;
        if (enhanced) {
            peerIrdWord = (pd[0] & 0xFF) << 8 | (pd[1] & 0xFF);
            peerOrdWord = (pd[2] & 0xFF) << 8 | (pd[3] & 0xFF);
            peerIrd = peerIrdWord & MpaFrame.DEPTH_MASK;
            peerOrd = peerOrdWord & MpaFrame.DEPTH_MASK;
            ulp = Arrays.copyOfRange(pd, MpaFrame.ENHANCED_BLOCK_LENGTH, pd.length);
        }
        key.interestOps(0);
        state = DECIDING;
        timer.cancel();
        pending = new SoftConnectionRequest(this, remote(), local(), ulp, peerIrd, peerOrd);
        timer = engine.timer(cm.device.options().handshakeTimeout().toNanos(), () -> {
            if (pending.expire()) {
                abort("connection request neither accepted nor rejected within "
                        + cm.device.options().handshakeTimeout().toMillis() + " ms");
            }
        });
        try {
            handler.onConnectionRequest(pending);
        } catch (RuntimeException | Error e) {
            LOG.warn("connection request handler failed; rejecting {}", remote(), e);
            pending.reject(null);
        }
    }

    /** Accepts with {@code qp} (already claimed); any thread. */
    void accept(SoftQp qp, AcceptParameters parameters, ConnectionListener listener) {
        engine.execute(() -> doAccept(qp, parameters, listener));
    }

    void reject(byte[] privateData) {
        engine.execute(() -> {
            if (state == DECIDING) {
                sendReject(privateData == null ? new byte[0] : privateData);
            }
        });
    }

    private void doAccept(SoftQp qp, AcceptParameters parameters, ConnectionListener listener) {
        if (state != DECIDING) {
            qp.engine.execute(() -> {
                qp.enterError(SoftQp.TEARDOWN_ABORT, ConnectionEventType.CONNECT_ERROR, null);
                notify(listener, qp, new IOException("the connection request is gone"));
            });
            return;
        }
        state = DONE;
        timer.cancel();
        cm.passiveEnded(this);
        boolean enhanced = request.enhanced();
        boolean crc = request.crc() || cm.device.options().crc();
        int ird = Math.min(parameters.responderResources(), SoftDevice.MAX_READ_DEPTH);
        int ord = Math.min(parameters.initiatorDepth(), SoftDevice.MAX_READ_DEPTH);
        if (enhanced) {
            ord = Math.min(ord, peerIrdWord & MpaFrame.DEPTH_MASK);
        }
        int irdWord = ird;
        int ordWord = ord;
        if (enhanced && (peerIrdWord & MpaFrame.IRD_PEER_TO_PEER) != 0) {
            irdWord |= MpaFrame.IRD_PEER_TO_PEER;
            if ((peerOrdWord & MpaFrame.ORD_WRITE_RTR) != 0 || (peerOrdWord & MpaFrame.ORD_READ_RTR) == 0) {
                ordWord |= MpaFrame.ORD_WRITE_RTR;
            } else {
                ordWord |= MpaFrame.ORD_READ_RTR;
            }
        }
        int flags = (crc ? MpaFrame.FLAG_CRC : 0) | (enhanced ? MpaFrame.FLAG_ENHANCED : 0);
        byte[] pd = enhanced ? MpaFrame.enhancedPrivateData(irdWord, ordWord, parameters.privateData())
                : parameters.privateData();
        ByteBuffer reply = ByteBuffer.wrap(MpaFrame.encode(true, flags, request.revision(), pd));
        ConnectionInfo info;
        try {
            info = new ConnectionInfo(local(), remote(), pending.privateData(), ird, ord);
        } catch (RuntimeException e) {
            info = new ConnectionInfo(null, null, pending.privateData(), ird, ord);
        }
        ConnectionInfo connection = info;
        int finalIrd = ird;
        int finalOrd = ord;
        Runnable establish = () -> {
            try {
                channel.write(reply);
                if (reply.hasRemaining()) {
                    throw new IOException("the MPA Reply did not fit in the socket buffer");
                }
                qp.establish(channel, qp.engine == engine ? key : null, crc, finalIrd, finalOrd, false, connection,
                        listener);
                LOG.debug("queue pair {} accepted {} (crc {}, ird {}, ord {})", qp.qpNum(), connection.remoteAddress(),
                        crc, finalIrd, finalOrd);
            } catch (IOException e) {
                closeChannel();
                qp.enterError(SoftQp.TEARDOWN_ABORT, ConnectionEventType.CONNECT_ERROR, null);
                notify(listener, qp, e);
            }
        };
        if (qp.engine == engine) {
            key.attach(qp);
            establish.run();
        } else {
            key.cancel();
            qp.engine.execute(establish);
        }
    }

    private static void notify(ConnectionListener listener, SoftQp qp, Throwable cause) {
        try {
            listener.onEvent(new ConnectionEvent(ConnectionEventType.CONNECT_ERROR, qp, null, cause));
        } catch (RuntimeException | Error e) {
            LOG.warn("connection listener failed", e);
        }
    }

    /** Sends a Reply with R set: with the upper layer's private data, or none at all (protocol refusals). */
    private void sendReject(byte[] ulp) {
        boolean enhanced = ulp != null && request.enhanced();
        int flags = MpaFrame.FLAG_REJECT | (enhanced ? MpaFrame.FLAG_ENHANCED : 0);
        byte[] pd = ulp == null ? new byte[0] : enhanced ? MpaFrame.enhancedPrivateData(0, 0, ulp) : ulp;
        try {
            channel.write(ByteBuffer.wrap(MpaFrame.encode(true, flags, request.revision(), pd)));
            channel.shutdownOutput();
        } catch (IOException e) {
            LOG.debug("sending an MPA reject to {}", remote(), e);
        }
        finishWithClose("rejected");
    }

    @Override
    public void onFailure(Throwable cause) {
        abort("handshake failed: " + cause);
    }

    @Override
    public void abort(String why) {
        if (pending != null) {
            pending.expire();
        }
        LOG.debug("incoming connection from {} closed: {}", remote(), why);
        finishWithClose(why);
    }

    private void finishWithClose(String why) {
        if (state == DONE) {
            return;
        }
        state = DONE;
        if (timer != null) {
            timer.cancel();
        }
        cm.passiveEnded(this);
        closeChannel();
    }

    private void closeChannel() {
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing an incoming connection", e);
        }
    }

    private InetSocketAddress remote() {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    private InetSocketAddress local() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }
}

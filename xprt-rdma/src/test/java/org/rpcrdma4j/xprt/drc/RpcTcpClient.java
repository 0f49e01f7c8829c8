package org.rpcrdma4j.xprt.drc;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A minimal ONC RPC client over TCP (RFC 5531 record marking) that sends messages as given, so a test can send the
 * same call, with the same xid, on several connections. Reads time out after 30 s (a hang guard).
 */
public final class RpcTcpClient implements AutoCloseable {
    private static final int LAST_FRAGMENT = 0x8000_0000;
    /** Replies of 1 MiB of data and their headers, and more: a test decides what is too long. */
    private static final int MAX_RECORD = 4 << 20;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    private RpcTcpClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    public static RpcTcpClient connect(InetSocketAddress server) throws IOException {
        Socket s = new Socket();
        s.connect(server, 30_000);
        s.setSoTimeout(30_000);
        s.setTcpNoDelay(true);
        return new RpcTcpClient(s);
    }

    /** Sends one message as a single last fragment. */
    public void send(byte[] message) throws IOException {
        out.writeInt(LAST_FRAGMENT | message.length);
        out.write(message);
        out.flush();
    }

    /** The next message (fragments joined). */
    public byte[] receive() throws IOException {
        ByteArrayOutputStream record = new ByteArrayOutputStream();
        while (true) {
            int mark = in.readInt();
            int length = mark & ~LAST_FRAGMENT;
            if (length > MAX_RECORD - record.size()) {
                throw new IOException("record longer than " + MAX_RECORD + " bytes");
            }
            byte[] fragment = new byte[length];
            in.readFully(fragment);
            record.write(fragment);
            if ((mark & LAST_FRAGMENT) != 0) {
                return record.toByteArray();
            }
        }
    }

    /** Whether bytes of a message arrived and are not read yet. */
    public boolean pending() throws IOException {
        return in.available() > 0;
    }

    /** Sends {@code message} and returns the next message received. */
    public byte[] call(byte[] message) throws IOException {
        send(message);
        return receive();
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** Closes the connection abruptly (TCP reset), as a client whose host lost it would look. */
    public void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

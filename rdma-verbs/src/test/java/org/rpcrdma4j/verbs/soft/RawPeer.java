package org.rpcrdma4j.verbs.soft;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.MpaFrame;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;

/**
 * A hand-driven iWARP peer over a blocking socket: writes and reads MPA frames and FPDUs byte by byte as a test
 * tells it to, so that tests can check exactly what the device puts on the wire and how it treats what it gets.
 */
final class RawPeer implements AutoCloseable {
    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    boolean crc;

    RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    static RawPeer connect(InetSocketAddress address) throws IOException {
        Socket s = new Socket();
        s.connect(address, 10_000);
        return new RawPeer(s);
    }

    /** A received MPA frame. */
    record Frame(MpaFrame.Header header, byte[] privateData) {
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    byte[] readExactly(int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    Frame readFrame(boolean reply) throws IOException {
        byte[] header = readExactly(MpaFrame.HEADER_LENGTH);
        MpaFrame.Header h = MpaFrame.header(ByteBuffer.wrap(header), 0, reply);
        return new Frame(h, readExactly(h.privateDataLength()));
    }

    /** Whether nothing arrives within {@code millis} (a negative check: used only where a byte would be a bug). */
    boolean quietFor(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("peer closed");
            }
            throw new IllegalStateException("unexpected byte 0x" + Integer.toHexString(b));
        } catch (SocketTimeoutException expected) {
            return true;
        } finally {
            socket.setSoTimeout(30_000);
        }
    }

    /** Whether the device closed the connection (EOF or reset) within the hang guard. */
    boolean closedByPeer() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** Wraps a ULPDU into an FPDU (length, pad, CRC if negotiated) and sends it, optionally in pieces. */
    void sendFpdu(byte[] ulpdu, int pieceSize) throws IOException {
        byte[] fpdu = fpdu(ulpdu, crc);
        for (int i = 0; i < fpdu.length; i += pieceSize) {
            out.write(fpdu, i, Math.min(pieceSize, fpdu.length - i));
            out.flush();
        }
    }

    void sendFpdu(byte[] ulpdu) throws IOException {
        sendFpdu(ulpdu, Integer.MAX_VALUE);
    }

    static byte[] fpdu(byte[] ulpdu, boolean withCrc) {
        ByteBuffer b = ByteBuffer.allocate(Fpdu.fpduLength(ulpdu.length));
        b.putShort((short) ulpdu.length).put(ulpdu);
        int crcAt = b.capacity() - Fpdu.CRC_LENGTH;
        if (withCrc) {
            Fpdu.putCrc(b, crcAt, Fpdu.crcOf(b, 0));
        }
        return b.array();
    }

    /** Reads one FPDU and returns its ULPDU (checking the CRC when negotiated). */
    byte[] readFpdu() throws IOException {
        int length = in.readUnsignedShort();
        byte[] ulpdu = readExactly(length);
        byte[] pad = readExactly(Fpdu.padLength(length));
        int carried = Integer.reverseBytes(in.readInt());
        if (crc) {
            ByteBuffer b = ByteBuffer.allocate(2 + length + pad.length);
            b.putShort((short) length).put(ulpdu).put(pad);
            CRC32C c = new CRC32C();
            c.update(b.array());
            if ((int) c.getValue() != carried) {
                throw new IOException(String.format("bad CRC from the device: %08x, expected %08x", carried,
                        (int) c.getValue()));
            }
        } else if (carried != 0) {
            throw new IOException("CRC field not 0 without CRC: " + Integer.toHexString(carried));
        }
        return ulpdu;
    }

    static byte[] tagged(boolean last, int opcode, int stag, long to, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(Ddp.TAGGED_HEADER_LENGTH + payload.length);
        Ddp.putTagged(b, 0, last, opcode, stag, to);
        b.position(Ddp.TAGGED_HEADER_LENGTH).put(payload);
        return b.array();
    }

    static byte[] untagged(boolean last, int opcode, int rsvdUlp, int qn, int msn, int mo, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(Ddp.UNTAGGED_HEADER_LENGTH + payload.length);
        Ddp.putUntagged(b, 0, last, opcode, rsvdUlp, qn, msn, mo);
        b.position(Ddp.UNTAGGED_HEADER_LENGTH).put(payload);
        return b.array();
    }

    static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        ByteBuffer b = ByteBuffer.allocate(Rdmap.READ_REQUEST_ULPDU_LENGTH);
        Ddp.putUntagged(b, 0, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST, msn, 0);
        Rdmap.putReadRequestBody(b, 0, sinkStag, sinkTo, size, sourceStag, sourceTo);
        return b.array();
    }

    /** Answers a received Read Request ULPDU with a zero-length Read Response (for placement probes). */
    void answerZeroLengthRead(byte[] readRequest) throws IOException {
        ByteBuffer r = ByteBuffer.wrap(readRequest);
        int sinkStag = r.getInt(Rdmap.OFFSET_SINK_STAG);
        long sinkTo = r.getLong(Rdmap.OFFSET_SINK_TO);
        sendFpdu(tagged(true, Rdmap.READ_RESPONSE, sinkStag, sinkTo, new byte[0]));
    }

    /** Bytes already received and not yet read: what the device wrote before now, beyond what was read. */
    int buffered() throws IOException {
        return in.available();
    }

    static int opcode(byte[] ulpdu) {
        return ulpdu[1] & Rdmap.OPCODE_MASK;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

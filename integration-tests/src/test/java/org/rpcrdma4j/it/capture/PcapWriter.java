package org.rpcrdma4j.it.capture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes TCP segments between IPv4 endpoints as a classic pcap file (Ethernet link type, microsecond timestamps),
 * for example to record what our own iWARP device put on the wire and read it back with {@link IwarpCapture} or
 * look at it with tshark. Checksums are left at zero (tshark does not verify them by default). Not thread-safe.
 */
public final class PcapWriter {
    private static final int ETHERNET_HEADER = 14;
    private static final int IPV4_HEADER = 20;
    private static final int TCP_HEADER = 20;
    private static final int MAX_PAYLOAD = 65535 - IPV4_HEADER - TCP_HEADER;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private long micros;

    /** Starts an empty capture. */
    public PcapWriter() {
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144)
                .putInt(PcapFile.LINKTYPE_ETHERNET);
        out.writeBytes(h.array());
    }

    /**
     * Appends one frame carrying a TCP segment; each frame is stamped one microsecond after the previous one.
     *
     * @param seq     the segment's sequence number (unsigned 32 bits)
     * @param flags   TCP flags ({@link TcpSegment#SYN}, ...)
     * @param payload borrowed; at most 65495 bytes
     * @return this
     */
    public PcapWriter segment(InetSocketAddress source, InetSocketAddress target, long seq, int flags,
                              byte[] payload) {
        if (!(source.getAddress() instanceof Inet4Address) || !(target.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("IPv4 endpoints only");
        }
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("a segment of " + payload.length + " bytes does not fit an IPv4 packet");
        }
        int ipLength = IPV4_HEADER + TCP_HEADER + payload.length;
        ByteBuffer f = ByteBuffer.allocate(ETHERNET_HEADER + ipLength);
        f.put(new byte[12]).putShort((short) 0x0800); // addresses, then EtherType IPv4
        f.put((byte) 0x45).put((byte) 0).putShort((short) ipLength).putShort((short) 0).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 6).putShort((short) 0)
                .put(source.getAddress().getAddress()).put(target.getAddress().getAddress());
        f.putShort((short) source.getPort()).putShort((short) target.getPort()).putInt((int) seq).putInt(0)
                .put((byte) 0x50).put((byte) flags).putShort((short) 65535).putShort((short) 0).putShort((short) 0);
        f.put(payload);
        ByteBuffer record = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        micros++;
        record.putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000)).putInt(f.capacity())
                .putInt(f.capacity());
        out.writeBytes(record.array());
        out.writeBytes(f.array());
        return this;
    }

    /** @return the capture file's bytes so far */
    public byte[] toByteArray() {
        return out.toByteArray();
    }

    /** Writes the capture to {@code file}. */
    public void writeTo(Path file) throws IOException {
        Files.write(file, toByteArray());
    }
}

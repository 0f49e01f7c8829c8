package org.rpcrdma4j.it.capture;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Decodes a captured frame down to TCP: the link layer (Ethernet with VLAN tags, Linux cooked v1/v2, BSD/OpenBSD
 * loopback, raw IP), IPv4 (options, trailing link padding trimmed) or IPv6 (hop-by-hop, routing, destination and
 * authentication extension headers), then the TCP header. Frames that carry no TCP (ARP, UDP, ...) decode to null.
 * <p>
 * IP fragments and frames cut by the snap length are refused with {@link CaptureFormatException}: their TCP payload
 * is not all there, and a reassembled stream with silently missing bytes would be worse than no stream.
 */
public final class FrameDecoder {
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88A8;
    private static final int PROTO_TCP = 6;

    private FrameDecoder() {
    }

    /** @return the frame's TCP segment, or null when the frame carries no TCP */
    public static TcpSegment tcp(CapturedFrame frame) throws CaptureFormatException {
        byte[] d = frame.data();
        ByteBuffer b = ByteBuffer.wrap(d);
        int ip;
        int etherType;
        switch (frame.linkType()) {
            case PcapFile.LINKTYPE_ETHERNET -> {
                need(frame, 14, 0);
                int at = 12;
                etherType = b.getShort(at) & 0xFFFF;
                while (etherType == ETHERTYPE_VLAN || etherType == ETHERTYPE_QINQ) {
                    at += 4;
                    need(frame, at + 2, 0);
                    etherType = b.getShort(at) & 0xFFFF;
                }
                ip = at + 2;
            }
            case PcapFile.LINKTYPE_LINUX_SLL -> {
                need(frame, 16, 0);
                etherType = b.getShort(14) & 0xFFFF;
                ip = 16;
            }
            case PcapFile.LINKTYPE_LINUX_SLL2 -> {
                need(frame, 20, 0);
                etherType = b.getShort(0) & 0xFFFF;
                ip = 20;
            }
            case PcapFile.LINKTYPE_NULL, PcapFile.LINKTYPE_LOOP -> {
                need(frame, 4, 0);
                int family = b.getInt(0);
                if (frame.linkType() == PcapFile.LINKTYPE_NULL && (family & 0xFFFF) == 0) {
                    family = Integer.reverseBytes(family); // host byte order of the capturing machine
                }
                etherType = family == 2 ? ETHERTYPE_IPV4 : family == 24 || family == 28 || family == 30
                        ? ETHERTYPE_IPV6 : -1;
                ip = 4;
            }
            case PcapFile.LINKTYPE_RAW, PcapFile.LINKTYPE_IPV4, PcapFile.LINKTYPE_IPV6 -> {
                need(frame, 1, 0);
                int version = (d[0] & 0xF0) >> 4;
                etherType = version == 4 ? ETHERTYPE_IPV4 : version == 6 ? ETHERTYPE_IPV6 : -1;
                ip = 0;
            }
            default -> throw new CaptureFormatException("frame " + frame.number() + ": link type "
                    + frame.linkType() + " not supported");
        }
        if (etherType == ETHERTYPE_IPV4) {
            return ipv4(frame, b, ip);
        }
        if (etherType == ETHERTYPE_IPV6) {
            return ipv6(frame, b, ip);
        }
        return null;
    }

    private static TcpSegment ipv4(CapturedFrame frame, ByteBuffer b, int ip) throws CaptureFormatException {
        need(frame, ip + 20, ip);
        int headerLength = (b.get(ip) & 0x0F) * 4;
        int totalLength = b.getShort(ip + 2) & 0xFFFF;
        if (headerLength < 20 || totalLength < headerLength) {
            throw new CaptureFormatException("frame " + frame.number() + ": bad IPv4 lengths " + headerLength + "/"
                    + totalLength);
        }
        need(frame, ip + totalLength, ip);
        int fragment = b.getShort(ip + 6) & 0xFFFF;
        if ((fragment & 0x3FFF) != 0) {
            throw new CaptureFormatException("frame " + frame.number() + ": IPv4 fragments are not reassembled");
        }
        if ((b.get(ip + 9) & 0xFF) != PROTO_TCP) {
            return null;
        }
        InetAddress src = address(frame, b, ip + 12, 4);
        InetAddress dst = address(frame, b, ip + 16, 4);
        return tcp(frame, b, ip + headerLength, ip + totalLength, src, dst);
    }

    private static TcpSegment ipv6(CapturedFrame frame, ByteBuffer b, int ip) throws CaptureFormatException {
        need(frame, ip + 40, ip);
        int end = ip + 40 + (b.getShort(ip + 4) & 0xFFFF);
        need(frame, end, ip);
        int next = b.get(ip + 6) & 0xFF;
        int at = ip + 40;
        while (next != PROTO_TCP) {
            switch (next) {
                case 0, 43, 60 -> { // hop-by-hop, routing, destination options
                    if (end - at < 8) {
                        throw new CaptureFormatException("frame " + frame.number() + ": IPv6 extension truncated");
                    }
                    int length = ((b.get(at + 1) & 0xFF) + 1) * 8;
                    next = b.get(at) & 0xFF;
                    at += length;
                }
                case 51 -> { // authentication header
                    if (end - at < 8) {
                        throw new CaptureFormatException("frame " + frame.number() + ": IPv6 AH truncated");
                    }
                    int length = ((b.get(at + 1) & 0xFF) + 2) * 4;
                    next = b.get(at) & 0xFF;
                    at += length;
                }
                case 44 -> throw new CaptureFormatException("frame " + frame.number()
                        + ": IPv6 fragments are not reassembled");
                default -> {
                    return null;
                }
            }
            if (at > end) {
                throw new CaptureFormatException("frame " + frame.number() + ": IPv6 extension headers overrun");
            }
        }
        InetAddress src = address(frame, b, ip + 8, 16);
        InetAddress dst = address(frame, b, ip + 24, 16);
        return tcp(frame, b, at, end, src, dst);
    }

    private static TcpSegment tcp(CapturedFrame frame, ByteBuffer b, int at, int end, InetAddress src,
                                  InetAddress dst) throws CaptureFormatException {
        if (end - at < 20) {
            throw new CaptureFormatException("frame " + frame.number() + ": TCP header truncated");
        }
        int srcPort = b.getShort(at) & 0xFFFF;
        int dstPort = b.getShort(at + 2) & 0xFFFF;
        long seq = Integer.toUnsignedLong(b.getInt(at + 4));
        int dataOffset = ((b.get(at + 12) & 0xF0) >> 4) * 4;
        int flags = b.get(at + 13) & 0xFF;
        if (dataOffset < 20 || dataOffset > end - at) {
            throw new CaptureFormatException("frame " + frame.number() + ": bad TCP data offset " + dataOffset);
        }
        byte[] payload = Arrays.copyOfRange(b.array(), at + dataOffset, end);
        return new TcpSegment(frame.number(), new InetSocketAddress(src, srcPort), new InetSocketAddress(dst, dstPort),
                seq, flags, payload);
    }

    private static InetAddress address(CapturedFrame frame, ByteBuffer b, int at, int length)
            throws CaptureFormatException {
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(b.array(), at, at + length));
        } catch (UnknownHostException e) {
            throw new CaptureFormatException("frame " + frame.number() + ": " + e.getMessage());
        }
    }

    /** Checks that the frame holds {@code end} bytes, and that the capture did not cut them off. */
    private static void need(CapturedFrame frame, int end, int ip) throws CaptureFormatException {
        if (end > frame.data().length) {
            throw new CaptureFormatException("frame " + frame.number() + ": needs " + end + " bytes, has "
                    + frame.data().length + (frame.isComplete() ? "" : " (cut by the snap length)")
                    + (ip > 0 ? " (IP header at " + ip + ")" : ""));
        }
    }
}

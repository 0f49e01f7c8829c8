package org.rpcrdma4j.it.capture;

import java.net.InetSocketAddress;

/**
 * The TCP part of one captured frame.
 *
 * @param frame   the frame's number in the capture
 * @param source  sending endpoint
 * @param target  receiving endpoint
 * @param seq     sequence number of the first payload byte (of the SYN or FIN when they carry no data), unsigned
 * @param flags   the TCP flag bits ({@link #SYN}, {@link #FIN}, {@link #RST}, {@link #ACK}, ...)
 * @param payload the segment's data; owned by this record, never modified
 */
public record TcpSegment(int frame, InetSocketAddress source, InetSocketAddress target, long seq, int flags,
                         byte[] payload) {
    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int PSH = 0x08;
    public static final int ACK = 0x10;

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}

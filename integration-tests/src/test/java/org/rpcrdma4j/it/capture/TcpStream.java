package org.rpcrdma4j.it.capture;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The bytes one side of a TCP connection sent, in order, as the receiver's socket delivered them, with the capture
 * frame after which each byte was available to the receiver (so events of both directions can be ordered).
 * Immutable; built by {@link TcpReassembler}.
 */
public final class TcpStream {
    private final InetSocketAddress source;
    private final InetSocketAddress target;
    private final byte[] data;
    /** Piece {@code i} ends (exclusive) at {@code ends[i]}; all bytes below it were delivered by frame {@code frames[i]}. */
    private final long[] ends;
    private final int[] frames;
    private final int retransmittedSegments;
    private final boolean finished;

    TcpStream(InetSocketAddress source, InetSocketAddress target, byte[] data, long[] ends, int[] frames,
              int retransmittedSegments, boolean finished) {
        this.source = source;
        this.target = target;
        this.data = data;
        this.ends = ends;
        this.frames = frames;
        this.retransmittedSegments = retransmittedSegments;
        this.finished = finished;
    }

    /** @return the sending endpoint */
    public InetSocketAddress source() {
        return source;
    }

    /** @return the receiving endpoint */
    public InetSocketAddress target() {
        return target;
    }

    /** @return the stream's length in bytes */
    public int length() {
        return data.length;
    }

    /** @return the byte at {@code offset}, unsigned */
    public int byteAt(int offset) {
        return data[offset] & 0xFF;
    }

    /** @return a copy of {@code length} bytes at {@code offset} */
    public byte[] bytes(int offset, int length) {
        return Arrays.copyOfRange(data, offset, Math.addExact(offset, length));
    }

    /** @return the whole stream; the caller must not modify it */
    byte[] array() {
        return data;
    }

    /**
     * @param offset a byte of the stream
     * @return the number of the capture frame after which the receiver had every byte up to and including it
     */
    public int deliveredBy(long offset) {
        if (offset < 0 || offset >= data.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " outside stream of " + data.length);
        }
        int i = Arrays.binarySearch(ends, offset + 1);
        if (i < 0) {
            i = -i - 1;
        }
        return frames[i];
    }

    /** @return how many segments carried only bytes an earlier segment had already carried */
    public int retransmittedSegments() {
        return retransmittedSegments;
    }

    /** @return whether the sender's FIN was seen */
    public boolean finished() {
        return finished;
    }

    @Override
    public String toString() {
        return "TcpStream[" + source + " -> " + target + ", " + data.length + " bytes"
                + (retransmittedSegments > 0 ? ", " + retransmittedSegments + " retransmitted segments" : "")
                + (finished ? ", FIN" : "") + "]";
    }
}

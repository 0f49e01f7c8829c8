package org.rpcrdma4j.xprt;

/** An XDR stream did not hold what its reader expected: too short, a length beyond the data, a bad discriminant. */
public final class XdrFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int offset;

    public XdrFormatException(String message, int offset) {
        super(message + " (at byte " + offset + ")");
        this.offset = offset;
    }

    /** Offset, relative to where the reader started, at which the problem was found. */
    public int offset() {
        return offset;
    }
}

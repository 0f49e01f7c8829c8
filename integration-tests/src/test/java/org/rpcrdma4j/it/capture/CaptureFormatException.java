package org.rpcrdma4j.it.capture;

import java.io.IOException;

/**
 * A capture did not hold what its reader expected: a truncated or corrupt file, a frame the reader cannot decode,
 * a TCP stream with a hole, an FPDU with a bad CRC, a DDP segment that breaks RFC 5041's rules. The message says
 * where (file offset, frame number or stream offset).
 */
public final class CaptureFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public CaptureFormatException(String message) {
        super(message);
    }
}

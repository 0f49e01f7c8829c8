package org.rpcrdma4j.verbs.soft.wire;

import java.io.IOException;

/** Bytes from the peer that break MPA, DDP or RDMAP framing rules. */
public final class MpaProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public MpaProtocolException(String message) {
        super(message);
    }
}

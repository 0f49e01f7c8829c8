package org.rpcrdma4j.nfs.client;

import java.io.IOException;

/**
 * A READ within a file returned no data and no end of file: a copy cannot go on past it without leaving a hole of
 * zeros where the file has data.
 */
public final class EmptyReadException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long offset;

    public EmptyReadException(long offset) {
        super("READ at " + offset + " returned no data before the end of the file");
        this.offset = offset;
    }

    /** Where the READ asked for data. */
    public long offset() {
        return offset;
    }
}

package org.rpcrdma4j.mount.check;

import java.io.IOException;

/**
 * What a server returned differs from what was written to it: a READ's bytes, count or end-of-file flag, a WRITE's
 * count, a size the server reported. The message names the seed of the run and the operations before it.
 */
public class DataMismatchException extends IOException {
    private static final long serialVersionUID = 1L;

    public DataMismatchException(String message) {
        super(message);
    }
}

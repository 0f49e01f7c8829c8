package org.rpcrdma4j.xprt.client;

import java.io.IOException;

/** Why an RPC over the RDMA client transport failed without a reply from the program. The subclasses say which way. */
public class RdmaTransportException extends IOException {
    private static final long serialVersionUID = 1L;

    public RdmaTransportException(String message) {
        super(message);
    }

    public RdmaTransportException(String message, Throwable cause) {
        super(message, cause);
    }
}

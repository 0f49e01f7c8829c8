package org.rpcrdma4j.xprt.client;

/**
 * The server's reply broke RPC-over-RDMA version 1 (RFC 8166): an undecodable transport header, a chunk list the
 * call did not ask for, a Write or Reply chunk length beyond what was registered, an inline message that does not
 * belong to the call. Counted as {@code bad_reply_count}; nothing of the reply is handed to the caller.
 */
public final class RdmaBadReplyException extends RdmaTransportException {
    private static final long serialVersionUID = 1L;

    public RdmaBadReplyException(String message) {
        super(message);
    }

    public RdmaBadReplyException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.rpcrdma4j.nfs.client;

/**
 * The server accepted the message but could not run the procedure: the program, version or procedure is not
 * served, the arguments were garbage to it, or it failed internally ({@link #acceptStatus()}).
 */
public final class RpcNotAcceptedException extends RpcCallException {
    private static final long serialVersionUID = 1L;

    private final AcceptStatus acceptStatus;

    public RpcNotAcceptedException(AcceptStatus acceptStatus, String message, Throwable cause) {
        super(acceptStatus + ": " + message, cause);
        this.acceptStatus = acceptStatus;
    }

    public AcceptStatus acceptStatus() {
        return acceptStatus;
    }
}

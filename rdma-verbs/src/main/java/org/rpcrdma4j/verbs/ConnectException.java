package org.rpcrdma4j.verbs;

/** A connection could not be established. {@link #type()} says how it failed. */
public final class ConnectException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final ConnectionEventType type;
    private final byte[] privateData;

    public ConnectException(ConnectionEventType type, String message, byte[] privateData, Throwable cause) {
        super(message, cause);
        this.type = type;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** REJECTED, UNREACHABLE or CONNECT_ERROR. */
    public ConnectionEventType type() {
        return type;
    }

    /** The peer's private data sent with a reject, or empty. */
    public byte[] privateData() {
        return privateData.clone();
    }
}

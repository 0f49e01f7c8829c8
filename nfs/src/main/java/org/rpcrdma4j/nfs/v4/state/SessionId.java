package org.rpcrdma4j.nfs.v4.state;

import java.util.Arrays;
import java.util.HexFormat;

/** A {@code sessionid4}: 16 opaque bytes the server chose in CREATE_SESSION. Immutable; compares by content. */
public final class SessionId {
    /** {@code NFS4_SESSIONID_SIZE}. */
    public static final int SIZE = 16;

    private final byte[] bytes;

    private SessionId(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Copies {@code bytes}, which must have {@value #SIZE} of them. */
    public static SessionId of(byte[] bytes) {
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("a session id has " + SIZE + " bytes, got " + bytes.length);
        }
        return new SessionId(bytes.clone());
    }

    /** Bytes 0-7 the client ID, 8-11 a number unique in the table, 12-15 zero. */
    static SessionId forClient(long clientId, int number) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (clientId >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            b[8 + i] = (byte) (number >>> (24 - 8 * i));
        }
        return new SessionId(b);
    }

    /** The id for a lookup, or null when {@code bytes} cannot be one (then no session has it). */
    static SessionId lookupKey(byte[] bytes) {
        return bytes != null && bytes.length == SIZE ? new SessionId(bytes.clone()) : null;
    }

    /** A copy of the 16 bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "session:" + HexFormat.of().formatHex(bytes);
    }
}

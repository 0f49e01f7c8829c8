package org.rpcrdma4j.nfs.v4.state;

import java.util.Arrays;

/** An owned copy of an opaque byte string (a client owner or an open owner) that compares by content, as a map key. */
final class Bytes {
    private final byte[] bytes;

    Bytes(byte[] bytes) {
        this.bytes = bytes.clone();
    }

    byte[] toByteArray() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}

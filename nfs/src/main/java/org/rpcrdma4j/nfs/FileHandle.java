package org.rpcrdma4j.nfs;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An NFS file handle ({@code nfs_fh3}, {@code nfs_fh4}): at most {@link #MAX_SIZE} opaque bytes, meaningful only to
 * the server that issued it. NFSv3's smaller bound (64 bytes) is applied where NFSv3 handles are decoded. Immutable;
 * compares by content.
 */
public final class FileHandle {
    /** {@code NFS4_FHSIZE}, the larger of the two versions' bounds ({@code NFS3_FHSIZE} is 64). */
    public static final int MAX_SIZE = 128;

    private final byte[] bytes;

    private FileHandle(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Copies {@code bytes}; at most {@link #MAX_SIZE} of them. */
    public static FileHandle of(byte[] bytes) {
        return wrap(bytes.clone());
    }

    /** Takes ownership of {@code bytes} (the caller must not change them afterwards). */
    public static FileHandle wrap(byte[] bytes) {
        if (bytes.length > MAX_SIZE) {
            throw new IllegalArgumentException("a file handle has at most " + MAX_SIZE + " bytes, got " + bytes.length);
        }
        return new FileHandle(bytes);
    }

    public int length() {
        return bytes.length;
    }

    public byte byteAt(int index) {
        return bytes[index];
    }

    /** A copy of the handle's bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** The handle's bytes without a copy; callers must not modify them. */
    public byte[] unsafeBytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileHandle other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "fh:" + HexFormat.of().formatHex(bytes);
    }
}

package org.rpcrdma4j.nfs.client.v4;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.rpcrdma4j.nfs.v4.LockRanges;

/**
 * A lock that stood in the way ({@code LOCK4denied}): its range, its type, and its owner, as the server named them.
 *
 * @param offset        the conflicting lock's first byte
 * @param length        its length; {@link LockRanges#TO_END} (all ones) for a lock to the end of the file
 * @param type          its type
 * @param ownerClientId the client ID of the owner
 * @param owner         the owner's opaque name within that client
 */
public record LockConflict(long offset, long length, LockType type, long ownerClientId, byte[] owner) {
    public LockConflict {
        owner = owner.clone();
    }

    @Override
    public byte[] owner() {
        return owner.clone();
    }

    @Override
    public String toString() {
        String name = new String(owner, StandardCharsets.UTF_8);
        boolean printable = name.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
        return type + " lock of bytes " + Long.toUnsignedString(offset) + "-" + (length == LockRanges.TO_END ? "end"
                : Long.toUnsignedString(offset + length - 1)) + " held by client " + Long.toHexString(ownerClientId)
                + ", owner " + (printable ? "'" + name + "'" : HexFormat.of().formatHex(owner));
    }
}

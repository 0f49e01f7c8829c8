package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;

/**
 * A result whose DDP-eligible item (RFC 8267: NFSv3 READ data) goes straight into a caller's buffer, the
 * {@link #sink()}. {@link #xdrDecode} reads a flat reply and copies the item's bytes into the sink (stream
 * transports). A transport that had the peer place the bytes into the sink through a write chunk calls
 * {@link #decodeReduced} on the reduced reply instead: the item's length word is inline, its bytes are not.
 */
public interface DdpResult extends XdrAble {

    /** Where the item's bytes go: written at its writer index. Borrowed, not retained. */
    ByteBuf sink();

    /**
     * Decodes a reduced reply whose item's bytes the transport already placed at {@code sink().writerIndex()}.
     * Advances the sink's writer index over them.
     *
     * @param placedBytes how many bytes the peer wrote into the write chunk; must equal the item's length word
     */
    void decodeReduced(XdrDecodingStream xdr, long placedBytes) throws IOException;
}

package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * Arguments whose last item is DDP-eligible (RFC 8267: NFSv3 WRITE data, SYMLINK path). {@link #xdrEncode} writes the
 * whole, flat argument list (a stream transport sends it as it is); a transport that moves the item into a read
 * chunk instead calls {@link #encodeBeforeItem}, writes the item's length word inline itself, and exposes
 * {@link #item()} to the peer, so the bytes are never copied into the message.
 */
public interface DdpArgument extends XdrAble {

    /** Encodes every argument that precedes the DDP-eligible item (not its length word). */
    void encodeBeforeItem(XdrEncodingStream xdr) throws IOException;

    /** The item's bytes: the readable bytes of the returned buffer. Borrowed from the arguments, not retained. */
    ByteBuf item();
}

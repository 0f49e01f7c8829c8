package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;

import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The upper-layer binding of {@link EchoProgram}: the opaque argument of ECHO and DIGEST, and the opaque result of
 * ECHO and the READ procedures, are DDP-eligible (they start their arguments or results, after their length word).
 */
final class EchoBinding implements UpperLayerBinding {
    private final XdrCursor cursor = new XdrCursor();

    @Override
    public int program() {
        return EchoProgram.PROGRAM;
    }

    @Override
    public boolean supportsVersion(int version) {
        return version == EchoProgram.VERSION;
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        if (procedure != EchoProgram.ECHO && procedure != EchoProgram.DIGEST) {
            return false;
        }
        return opaqueAtStart(args, out);
    }

    @Override
    public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        switch (procedure) {
            case EchoProgram.ECHO, EchoProgram.READ, EchoProgram.READ_HEAP, EchoProgram.READ_PLAIN:
                return opaqueAtStart(results, out);
            default:
                return false;
        }
    }

    /** In a reduced reply the item's bytes are gone: only its length word is there. */
    @Override
    public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        switch (procedure) {
            case EchoProgram.ECHO, EchoProgram.READ, EchoProgram.READ_HEAP, EchoProgram.READ_PLAIN:
                out.set(4, new XdrCursor().wrap(results).readUnsignedInt());
                return true;
            default:
                return false;
        }
    }

    private synchronized boolean opaqueAtStart(ByteBuf buf, DataItem out) throws XdrFormatException {
        XdrCursor c = cursor.wrap(buf);
        long length = c.readUnsignedInt();
        c.skipOpaque(length);
        out.set(4, length);
        return true;
    }

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        switch (procedure) {
            case EchoProgram.ECHO:
                return new XdrCursor().wrap(args).readUnsignedInt();
            case EchoProgram.READ, EchoProgram.READ_HEAP, EchoProgram.READ_PLAIN:
                return new XdrCursor().wrap(args).readUnsignedInt();
            default:
                return -1;
        }
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
        return 256;
    }
}

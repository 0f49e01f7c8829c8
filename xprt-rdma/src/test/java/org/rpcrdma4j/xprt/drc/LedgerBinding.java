package org.rpcrdma4j.xprt.drc;

import io.netty.buffer.ByteBuf;

import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/** The upper-layer binding of {@link LedgerProgram}: BLOB's opaque result is DDP-eligible (a write chunk). */
final class LedgerBinding implements UpperLayerBinding {
    @Override
    public int program() {
        return LedgerProgram.PROGRAM;
    }

    @Override
    public boolean supportsVersion(int version) {
        return version == LedgerProgram.VERSION;
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) {
        return false;
    }

    @Override
    public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        if (procedure != LedgerProgram.BLOB) {
            return false;
        }
        XdrCursor c = new XdrCursor().wrap(results);
        long length = c.readUnsignedInt();
        c.skipOpaque(length);
        out.set(4, length);
        return true;
    }

    @Override
    public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        if (procedure != LedgerProgram.BLOB) {
            return false;
        }
        out.set(4, new XdrCursor().wrap(results).readUnsignedInt());
        return true;
    }

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        return procedure == LedgerProgram.BLOB ? new XdrCursor().wrap(args).readUnsignedInt() : -1;
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) {
        return 256;
    }
}

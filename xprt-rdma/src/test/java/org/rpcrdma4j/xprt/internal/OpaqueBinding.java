package org.rpcrdma4j.xprt.internal;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrCursor;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * A binding for tests: program {@code program}, one version; the arguments and results of every procedure begin with
 * a DDP-eligible opaque. {@code itemOffset} moves the located item (to test a binding that lies).
 */
final class OpaqueBinding implements UpperLayerBinding {
    private final int program;
    private final int version;
    private final int itemOffset;

    OpaqueBinding(int program, int version, int itemOffset) {
        this.program = program;
        this.version = version;
        this.itemOffset = itemOffset;
    }

    @Override
    public int program() {
        return program;
    }

    @Override
    public boolean supportsVersion(int v) {
        return v == version;
    }

    @Override
    public boolean locateCallItem(int v, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        return opaque(args, out);
    }

    @Override
    public boolean locateReplyItem(int v, int procedure, ByteBuf results, DataItem out) throws XdrFormatException {
        return opaque(results, out);
    }

    @Override
    public boolean locateReducedReplyItem(int v, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        out.set(itemOffset, new XdrCursor().wrap(results).readUnsignedInt());
        return true;
    }

    private boolean opaque(ByteBuf buf, DataItem out) throws XdrFormatException {
        long length = new XdrCursor().wrap(buf).readUnsignedInt();
        out.set(itemOffset, length);
        return true;
    }

    @Override
    public long maxReplyItemLength(int v, int procedure, ByteBuf args) {
        return -1;
    }

    @Override
    public long maxInlineReplySize(int v, int procedure, ByteBuf args) {
        return -1;
    }

    @Override
    public String toString() {
        return "OpaqueBinding[" + program + "/" + version + "]";
    }
}

package org.rpcrdma4j.nfs.v4;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.atomic.AtomicInteger;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * An upper-layer binding that answers as the binding it wraps and records what it answered: the last call item and
 * reply item located (or that none was), and the last write chunk size asked for, so that a test can see what a
 * transport was told. Counts are totals; "last" values are those of the most recent question.
 */
final class RecordingBinding implements UpperLayerBinding {
    /** What a locate method answered: the item, or offset -1 for none. */
    record Located(int version, int procedure, int offset, long length) {
        boolean found() {
            return offset >= 0;
        }
    }

    private static final Located NONE = new Located(-1, -1, -1, 0);

    private final UpperLayerBinding delegate;
    final AtomicInteger callItemsFound = new AtomicInteger();
    final AtomicInteger replyItemsFound = new AtomicInteger();
    volatile Located lastCallItem = NONE;
    volatile Located lastReplyItem = NONE;
    volatile long lastMaxReplyItemLength = Long.MIN_VALUE;

    RecordingBinding(UpperLayerBinding delegate) {
        this.delegate = delegate;
    }

    /** Forgets the last answers (not the counts). */
    void reset() {
        lastCallItem = NONE;
        lastReplyItem = NONE;
        lastMaxReplyItemLength = Long.MIN_VALUE;
    }

    @Override
    public int program() {
        return delegate.program();
    }

    @Override
    public boolean supportsVersion(int version) {
        return delegate.supportsVersion(version);
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        boolean found = delegate.locateCallItem(version, procedure, args, out);
        lastCallItem = new Located(version, procedure, found ? out.offset() : -1, found ? out.length() : 0);
        if (found) {
            callItemsFound.incrementAndGet();
        }
        return found;
    }

    @Override
    public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        boolean found = delegate.locateReplyItem(version, procedure, results, out);
        lastReplyItem = new Located(version, procedure, found ? out.offset() : -1, found ? out.length() : 0);
        if (found) {
            replyItemsFound.incrementAndGet();
        }
        return found;
    }

    @Override
    public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        return delegate.locateReducedReplyItem(version, procedure, results, out);
    }

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        long n = delegate.maxReplyItemLength(version, procedure, args);
        lastMaxReplyItemLength = n;
        return n;
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
        return delegate.maxInlineReplySize(version, procedure, args);
    }
}

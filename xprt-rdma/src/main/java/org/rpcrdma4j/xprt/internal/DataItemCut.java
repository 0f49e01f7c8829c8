package org.rpcrdma4j.xprt.internal;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * A flat XDR message cut around its DDP-eligible data item (RFC 8166 section 3.5.3, "reducing"), as an
 * {@link UpperLayerBinding} locates it:
 * <pre>
 *  0            headLength = itemOffset                tailOffset                 length
 *  | head (... the item's length word) | item bytes | pad | tail (the rest)       |
 * </pre>
 * The head and tail stay inline; the item's bytes move to a chunk and its pad is dropped. The one implementation of
 * "splicing a data item out", for both directions: the client cuts a <em>call</em> around its DDP-eligible argument
 * (a read chunk), the server cuts a <em>reply</em> around its DDP-eligible result (a write chunk). Its mirror is
 * {@link StreamLayout}. Offsets are relative to the message's first byte. Reusable, one per slot; allocates nothing.
 */
public final class DataItemCut {
    private final DataItem item = new DataItem();
    private final RpcHeader reply = new RpcHeader();
    private boolean found;
    private int length;
    private int itemOffset;
    private int itemLength;
    private int padLength;

    /**
     * Cuts the call in {@code view[from, to)} around its DDP-eligible argument.
     *
     * @param header the call's header, already parsed from the same bytes
     * @param view   a buffer over the message whose indexes this method may move (borrowed)
     * @return whether the call has a data item
     * @throws XdrFormatException when the binding cannot walk the arguments, or locates an item beyond the message
     */
    public boolean cutCall(UpperLayerBinding binding, RpcHeader header, ByteBuf view, int from, int to)
            throws XdrFormatException {
        clear(to - from);
        int body = header.bodyOffset();
        view.setIndex(from + body, to);
        if (!binding.locateCallItem(header.version(), header.procedure(), view, item.clear()) || !item.isSet()) {
            return false;
        }
        return place(body);
    }

    /**
     * Cuts the reply in {@code view[from, to)} around its DDP-eligible result; only a reply accepted with SUCCESS
     * has one.
     *
     * @param view a buffer over the message whose indexes this method may move (borrowed)
     * @return whether the reply has a data item
     * @throws XdrFormatException when the reply header or the results do not walk, or the item lies beyond the message
     */
    public boolean cutReply(UpperLayerBinding binding, int version, int procedure, ByteBuf view, int from, int to)
            throws XdrFormatException {
        clear(to - from);
        reply.parse(view, from, to);
        if (!reply.isSuccessfulReply()) {
            return false;
        }
        int body = reply.bodyOffset();
        view.setIndex(from + body, to);
        if (!binding.locateReplyItem(version, procedure, view, item.clear()) || !item.isSet()) {
            return false;
        }
        return place(body);
    }

    private void clear(int messageLength) {
        found = false;
        length = messageLength;
        itemOffset = itemLength = padLength = 0;
    }

    private boolean place(int body) throws XdrFormatException {
        long at = (long) body + item.offset();
        long padded = item.paddedLength();
        if (at + padded > length) {
            throw new XdrFormatException("the binding located a data item of " + item.length()
                    + " bytes beyond the " + length + "-byte message", (int) Math.min(at, Integer.MAX_VALUE));
        }
        itemOffset = (int) at;
        itemLength = (int) item.length();
        padLength = (int) (padded - itemLength);
        found = true;
        return true;
    }

    /** Whether the last cut found a data item. */
    public boolean found() {
        return found;
    }

    /** Bytes of the head: everything before the item's bytes (its length word included). */
    public int headLength() {
        return found ? itemOffset : length;
    }

    /** Offset of the item's first byte. */
    public int itemOffset() {
        return itemOffset;
    }

    /** The item's unpadded length (what its length word says). */
    public int itemLength() {
        return itemLength;
    }

    /** Bytes of XDR padding after the item (0..3). */
    public int padLength() {
        return padLength;
    }

    /** Offset of the tail: just after the item's pad. */
    public int tailOffset() {
        return found ? itemOffset + itemLength + padLength : length;
    }

    /** Bytes of the tail. */
    public int tailLength() {
        return length - tailOffset();
    }
}
